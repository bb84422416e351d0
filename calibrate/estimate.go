package calibrate

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"fairbench/models"
)

// ExtrapolateRequest is what `fairbench calibrate extrapolate` asks for.
type ExtrapolateRequest struct {
	// GPUs are the GPU types to estimate, each with a datasheet: built in,
	// from Datasheets, or declared by a Measured record's profile.
	GPUs []string
	// Datasheets are files with a gpu_types list giving the datasheets of
	// types the catalogue lacks (ReadGPUTypes).
	Datasheets []string
	// Measured are more measured figures beside the catalogue's:
	// calibration records or Gavel-format files.
	Measured []string
	// Options are the model's choices (method, TF32).
	Options ExtrapolateOptions
	// Output, when set, is the Gavel-format file the estimates go to; a
	// side file beside it (OUT.extrapolation.json) records the method and
	// errors.
	Output string
}

// Extrapolation is what an extrapolation found: the model's
// leave-one-type-out error on the measured types and, per estimated type,
// its estimates and its datasheet's source. Its JSON is what --json prints
// and the side file holds.
type Extrapolation struct {
	LOO       LOOReport             `json:"leave_one_type_out"`
	Estimates map[string][]Estimate `json:"estimates"`
	Sources   map[string]string     `json:"datasheets"`
	// Types are the estimated types' catalogue names, in the order asked.
	Types []string `json:"-"`
	// Files are the files to write (WriteAll), path → content: with
	// Output, the estimates as a Gavel-format file and the side file.
	Files map[string][]byte `json:"-"`
}

// Extrapolate estimates req.GPUs from their datasheets, fitted on the
// catalogue's figures and req.Measured (see the extrapolation model in
// extrapolate.go), and returns the estimates and the files to write,
// without writing anything.
func Extrapolate(req ExtrapolateRequest) (*Extrapolation, error) {
	if len(req.GPUs) == 0 {
		return nil, errors.New("calibrate extrapolate: --gpu TYPE is required")
	}
	data, err := BuiltinData()
	if err != nil {
		return nil, err
	}
	var declared []GPUDecl
	for _, f := range req.Datasheets {
		ds, err := ReadGPUTypes(f)
		if err != nil {
			return nil, err
		}
		declared = append(declared, ds...)
	}
	m, memory, declared, err := measuredFigures(data, req.Measured, declared)
	if err != nil {
		return nil, err
	}
	x, err := NewExtrapolator(data, m, memory, req.Options)
	if err != nil {
		return nil, err
	}
	out := &Extrapolation{LOO: x.LeaveOneTypeOut(), Estimates: map[string][]Estimate{}, Sources: map[string]string{}}
	est := models.NewMatrix()
	for _, g := range req.GPUs {
		t, ok := data.Datasheet(g)
		if !ok {
			return nil, fmt.Errorf("calibrate extrapolate: --gpu %q: no datasheet (have: %s); give one with --datasheet FILE",
				g, strings.Join(slices.Sorted(maps.Keys(data.GPUs)), ", "))
		}
		out.Types = append(out.Types, t.Type)
		es, err := x.Estimates(t.Type)
		if err != nil {
			return nil, err
		}
		out.Estimates[t.Type] = es
		out.Sources[t.Type] = t.Source
		for _, e := range es {
			k := models.Key{Job: e.Job, GPU: e.GPU, Gang: e.Gang}
			if err := est.Set(k, e.StepsPerSecond, "fairbench calibrate extrapolate"); err != nil {
				return nil, err
			}
		}
	}
	if req.Output != "" {
		gav, err := EncodeGavelFor(est, declared)
		if err != nil {
			return nil, err
		}
		side, _ := json.MarshalIndent(out, "", "  ")
		out.Files = map[string][]byte{req.Output: gav,
			strings.TrimSuffix(req.Output, filepath.Ext(req.Output)) + ".extrapolation.json": append(side, '\n')}
	}
	return out, nil
}

// measuredFigures is the matrix the extrapolation fits on — the
// catalogue's with the measured files merged over it — and each job type's
// largest measured memory (from calibration records). A record's declared
// GPU types join declared, which is returned; a measured file that is not
// a record is read against them.
func measuredFigures(data *ExtrapolationData, measured []string, declared []GPUDecl) (*models.Matrix, map[string]uint64, []GPUDecl, error) {
	m := models.Catalogue().Matrix
	memory := map[string]uint64{}
	for _, f := range measured {
		if rec, err := ReadRecord(f); err == nil {
			declared = append(declared, rec.GPUTypes...)
			for _, e := range rec.Entries {
				memory[e.JobType] = max(memory[e.JobType], e.MemoryBytes, e.PeakTorchMemBytes)
			}
		}
	}
	if err := data.Declare(declared); err != nil {
		return nil, nil, nil, err
	}
	for _, f := range measured {
		fm, err := LoadMatrix(f, declared)
		if err != nil {
			return nil, nil, nil, err
		}
		m.Merge(fm)
	}
	return m, memory, declared, nil
}
