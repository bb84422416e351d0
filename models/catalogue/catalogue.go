package catalogue

import (
	"fairbench/models"
	"fmt"
	"strings"
)

//go:generate go run ./internal/gencatalogue -in $GAVEL_THROUGHPUTS -out figures_gavel.go

// Catalog is a set of GPU types, job types and throughput figures.
type Catalog struct {
	GPUTypes []models.GPUType
	JobTypes []models.JobType
	Matrix   *models.Matrix
}

// Builtin returns fairbench's built-in catalogue: GPU types with memory and
// generation rank, and job types with throughputs from public measurements,
// each figure carrying its citation. Each call returns a fresh copy.
//
// GPU types (gpus.go): K80, P100, V100, T4, A10, A100-40GB,
// A100-80GB, H100, H200, with datasheet memory and a generation Rank.
//
// Gavel figures (figures_gavel.go, generated from the Gavel artifact's
// scheduler/simulation_throughputs.json, Narayanan et al., OSDI 2020, MIT):
// the isolated throughput of all 26 Gavel job types, named exactly as Gavel
// names them ("ResNet-50 (batch size 64)", "A3C", ...), on K80, P100 and V100
// at the scale factors (gang sizes 1, 2, 4, 8) the file has, consolidated
// (keys k80, p100, v100) and spread (keys *_unconsolidated). A 0 in the file
// is stored as 0 (cannot run there); keys absent from the file stay absent
// (k80_unconsolidated has no ResNet-50 batch 64 or 128 at gangs 2-8). The file
// also has gang-1 spread figures, equal to the consolidated ones; they are kept
// as given.
//
// Co-location pairs (pairs.go, pairs_gavel.go, generated
// from the same file): Gavel's measured pairs of two single-GPU jobs sharing
// one K80, P100 or V100 (2,028 pair figures, 147 of them 0: cannot run
// together). The file's multi-GPU pairs are all [0, 0] placeholders and are
// not built in (see pairs.go); read the file with
// ReadGavelThroughputs to get every pair as given.
//
// Sia figures (sia.go, rows of the Sia artifact's placement traces,
// Jayaram Subramanya et al., SOSP 2023): six apps (cifar10, imagenet, bert,
// deepspeech2, yolov3, ncf) on V100 (cluster azure) and A100-40GB (cluster
// dgx-ext), gangs 1, 2, 4, 8 consolidated and 2, 4, 8 spread over two nodes,
// steps/s = 1/step_time at one local batch size per app; see
// catalogueSiaTraces for the placement encoding and the choices made. The
// aws (T4) traces could not be read, so the T4 has no figures; gpt_pmp is
// left out.
//
// No source measured the A10, A100-80GB, H100 or H200: those types exist with
// no throughput figure (fairbench's calibration is to provide them).
//
// Job types (jobs.go, sia.go, training.go):
// BatchSize is the per-GPU batch; MemoryGB and FixedMemoryGB are cited for
// ResNet-18 (batch size 32, 64, 128) and ResNet-50 (batch size 32, 64) and 0
// (unknown) elsewhere (memory.go: Lucid's measurements, and where
// they disagree with Gavel's); StateGB = parameters × 4 bytes × (1 +
// optimizer slots), with the parameter count cited or computed from the
// artifact's architecture (every Gavel family and the Sia ResNets; the
// Transformer's is a lower bound without its word embeddings) and 0
// (unknown) elsewhere; EpochSamples is the training set's size for the Gavel
// families that have one. Each JobType.Source says which.
func Builtin() Catalog {
	// Sized for Gavel's figures (Sia's add a few): a pair entry holds both ways.
	m := models.NewMatrixSize(len(catalogueGavelFigures), 2*len(catalogueGavelPairs))
	for _, f := range catalogueGavelFigures {
		k := models.Key{Job: f.job, GPU: f.gpu, Gang: f.gang, Placement: f.placement}
		if err := m.Set(k, f.value, catalogueGavelSource); err != nil {
			panic("models: built-in Gavel figure: " + err.Error())
		}
	}
	if err := addGavelPairs(m); err != nil {
		panic("models: built-in Gavel pair: " + err.Error())
	}
	if err := addSiaFigures(m); err != nil {
		panic("models: built-in Sia figure: " + err.Error())
	}
	jobs := append([]models.JobType(nil), catalogueGavelJobTypes...)
	jobs = append(jobs, catalogueSiaJobTypes()...)
	addCatalogueMemory(jobs)
	return Catalog{
		GPUTypes: append([]models.GPUType(nil), catalogueGPUTypes...),
		JobTypes: jobs,
		Matrix:   m,
	}
}

// gavelFigure is one isolated figure of Gavel's throughput file.
type gavelFigure struct {
	job       string
	gpu       string
	gang      int
	placement models.Placement
	value     float64 // steps per second
}

// WithGPUTypes returns a copy of c that also knows the GPU types extra (a
// generation the catalogue lacks, declared by a scenario). Each must be
// valid and its name new, up to case.
func (c Catalog) WithGPUTypes(extra []models.GPUType) (Catalog, error) {
	out := c
	out.GPUTypes = append([]models.GPUType(nil), c.GPUTypes...)
	for i, t := range extra {
		if err := t.Validate(); err != nil {
			return Catalog{}, fmt.Errorf("gpu_types[%d]: %w", i, err)
		}
		for _, o := range out.GPUTypes {
			if strings.EqualFold(o.Name, t.Name) {
				return Catalog{}, fmt.Errorf("gpu_types[%d]: %q is already a GPU type", i, t.Name)
			}
		}
		out.GPUTypes = append(out.GPUTypes, t)
	}
	return out, nil
}
