package models

import (
	"fmt"
	"strconv"

	"gonum.org/v1/gonum/stat"
)

// Memory figures of the catalogue's job types (JobType.MemoryGB and
// FixedMemoryGB), cited.
//
// Source: the Lucid artifact's simulation/analyzer/single_data.csv (Hu et
// al., "Lucid: A Non-intrusive, Scalable and Interpretable Scheduler for
// Deep Learning Training Jobs", ASPLOS 2023; github.com/S-Lab-System-Group/
// Lucid), column gmem: the mean over a run of nvidia-smi's fb_memory_usage
// "used", in MiB, on a GPU of more than 20 GB (its BERT row reads 20,162
// MiB), fp32 rows (amp 0). It counts everything the process held: the CUDA
// context and whatever PyTorch's caching allocator kept reserved, so it is
// an upper bound of what the job needs. Lucid's rows are the same model,
// dataset and batch size as these Gavel job types (Narayanan et al., OSDI
// 2020): ResNet-18 on CIFAR-10 and ResNet-50 on ImageNet at batch sizes 32,
// 64 and 128; LSTM on WikiText-2 at 64 and 128 (Gavel's LM runs at 5 to 80)
// and Transformer on Multi30k at 32 and 64.
//
// Used: a row is the job type's MemoryGB (MiB × 1.048576 / 1000: GB of 10⁹
// bytes, as GPU types state theirs) unless Gavel's own artifact ran that
// job type alone on a GPU with less memory — then the row is not its need:
//
//   - ResNet-50 (batch size 128): 13,326 MiB = 13.97 GB, but Gavel measured
//     it alone on a 12 GB K80 (0.22 steps/s) — left at 0 (unknown);
//   - Transformer (batch size 32) and (batch size 64): 11,949 and 11,801 MiB
//     = 12.53 and 12.37 GB, flat in the batch size (the allocator's cache,
//     not the activations, dominates), and Gavel ran both alone on the
//     K80 — left at 0.
//
// FixedMemoryGB is the intercept of the least-squares line through all of
// Lucid's fp32 rows of the model (ResNet-18: 32, 64, 128; ResNet-50: 32,
// 64, 128 — the line is of Lucid's measurements, the 128 row included), the
// part that does not shrink under gradient accumulation
// (models.AccumMemory): 2,154 MiB = 2.26 GB for ResNet-18, 3,140 MiB =
// 3.29 GB for ResNet-50. Checked on a held-back batch size: the line
// through 32 and 128 predicts 64 at 2,597 MiB for ResNet-18 (2,660
// measured, −2.4%) and 8,120 MiB for ResNet-50 (8,570, −5.3%).
//
// Known disagreement with Gavel's pairs. The cited figures are upper
// bounds, and six of Gavel's measured co-location pair figures ran two jobs
// together that these figures say do not fit: on the 12 GB K80, ResNet-18 (batch size 128) beside
// ResNet-50 (batch size 64) (3.22 + 8.99 = 12.21 GB) and ResNet-50 (batch
// size 32) beside ResNet-50 (batch size 64) (5.79 + 8.99 = 14.77 GB), each
// in both directions; on the 16 GB P100 and V100, two ResNet-50 (batch size
// 64) (17.97 GB). Gavel's K80 pair of two ResNet-50 (batch size 64) is
// [0, 0], which the figures agree with. TestCatalogueMemoryAgainstGavel
// lists the disagreements. A measurement of the two running together is
// direct evidence that they fit, so models.Feasible lets a pair with a
// positive measured co-located figure in both directions share whatever the
// memory figures say (measuredTogether); the figures decide for every pair
// nobody measured. A measured need (fairbench calibrate on the GPU,
// whose NVML figure of one process alone is also an upper bound, but of
// this workload) replaces these through a scenario's `calibration:` key.
//
// No figure: the other Gavel job types (no row of the same model and batch
// size anywhere public found) and Sia's (batch sizes 1025 and 462 and
// others no table has).

// catalogueLucidSource cites Lucid's table.
const catalogueLucidSource = "Lucid (Hu et al., ASPLOS 2023) artifact simulation/analyzer/single_data.csv, column gmem (mean nvidia-smi used memory over a run, fp32, on a GPU of more than 20 GB: an upper bound of the need)"

// catalogueLucidRow is one fp32 row of Lucid's single_data.csv.
type catalogueLucidRow struct {
	family string // the Gavel job type family of the same model and dataset
	batch  int
	mib    float64
}

// catalogueLucidRows are Lucid's rows of the models Gavel also trains.
var catalogueLucidRows = []catalogueLucidRow{
	{"ResNet-18", 32, 2360}, {"ResNet-18", 64, 2660}, {"ResNet-18", 128, 3072}, // ResNet18, CIFAR-10
	{"ResNet-50", 32, 5518}, {"ResNet-50", 64, 8570}, {"ResNet-50", 128, 13326}, // ResNet50, ImageNet
	{"Transformer", 32, 11949.258}, {"Transformer", 64, 11801.104}, // Transformer, Multi30k
}

// catalogueMemoryExcluded are the rows contradicted by a job Gavel ran alone
// on a GPU with less memory (see above).
var catalogueMemoryExcluded = map[string]string{
	"ResNet-50 (batch size 128)":  "13.97 GB, but Gavel ran it alone on a 12 GB K80",
	"Transformer (batch size 32)": "12.53 GB, but Gavel ran it alone on a 12 GB K80",
	"Transformer (batch size 64)": "12.37 GB, but Gavel ran it alone on a 12 GB K80",
}

// mibToGB converts MiB to GB of 10⁹ bytes.
func mibToGB(mib float64) float64 { return mib * (1 << 20) / 1e9 }

// catalogueFixedGB is the intercept, in GB, of the least-squares line
// through Lucid's rows of a family (0 with fewer than two batch sizes).
func catalogueFixedGB(family string) float64 {
	var xs, ys []float64
	for _, r := range catalogueLucidRows {
		if r.family == family {
			xs, ys = append(xs, float64(r.batch)), append(ys, r.mib)
		}
	}
	if len(xs) < 2 {
		return 0
	}
	intercept, _ := stat.LinearRegression(xs, ys, nil, false)
	return mibToGB(max(0, intercept))
}

// addCatalogueMemory sets the cited memory figures of jobs, appending the
// citation to each Source.
func addCatalogueMemory(jobs []JobType) {
	for i := range jobs {
		j := &jobs[i]
		for _, r := range catalogueLucidRows {
			name := r.family + " (batch size " + strconv.Itoa(r.batch) + ")"
			if name != j.Name || catalogueMemoryExcluded[name] != "" {
				continue
			}
			j.MemoryGB = mibToGB(r.mib)
			j.FixedMemoryGB = min(catalogueFixedGB(r.family), j.MemoryGB)
			j.Source += fmt.Sprintf("; MemoryGB = %g MiB, %s; FixedMemoryGB = the intercept of the line through Lucid's %s rows",
				r.mib, catalogueLucidSource, r.family)
		}
	}
}
