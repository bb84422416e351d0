package calibrate

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat"

	"fairbench/models"
)

// The memory model. A data-parallel worker of a job at per-worker batch
// size b needs
//
//	memory(b) = fixed + perSample·b
//
// of its device: weights, gradients, optimizer state, the CUDA context and
// workspaces do not depend on b, the activations kept for the backward pass
// grow with it. Under k-step gradient accumulation (SJF-BSBF, Luo et al.,
// IWQoS 2024) a step runs k sub-batches of b/k, so the need is
// fixed + (memory(b) − fixed)/k: models.AccumMemory with
// JobType.MemoryGB = memory(b) and JobType.FixedMemoryGB = fixed.
//
// FitMemory fits fixed and perSample by least squares over the batch sizes
// a record measured for one workload, GPU type and gang, and checks the
// model on a held-back batch size: with three or more measured sizes, the
// smallest is left out of a second fit and predicted from the others — the
// direction accumulation uses the model in (a smaller sub-batch than any
// the job runs at).

// MemoryPoint is one measured memory figure.
type MemoryPoint struct {
	BatchSize int    `json:"batch_size"`
	Bytes     uint64 `json:"bytes"`
}

// MemoryFit is the memory model of one workload family on one GPU type at
// one gang size.
type MemoryFit struct {
	Family  string        `json:"family"` // the job type without " (batch size B)"
	GPUType string        `json:"gpu_type"`
	Gang    int           `json:"gang"`
	Device  string        `json:"device"`      // cpu or cuda
	From    string        `json:"memory_from"` // Entry.MemoryFrom of the points
	Points  []MemoryPoint `json:"points"`      // by batch size
	// FixedBytes and PerSampleBytes are the least-squares line through
	// Points (with one point: FixedBytes is its figure, PerSampleBytes 0).
	FixedBytes     float64 `json:"fixed_bytes"`
	PerSampleBytes float64 `json:"per_sample_bytes"`
	// HeldBack: the smallest batch size, predicted by the line through the
	// other points, and the relative error (predicted/measured − 1). Zero
	// with fewer than three points.
	HeldBackBatch     int     `json:"held_back_batch_size,omitempty"`
	HeldBackPredicted float64 `json:"held_back_predicted_bytes,omitempty"`
	HeldBackMeasured  uint64  `json:"held_back_measured_bytes,omitempty"`
	HeldBackError     float64 `json:"held_back_error,omitempty"`
}

// FitMemory fits the memory model of every workload family, GPU type and
// gang of the entries that have a memory figure (ok entries only), in
// order of family, GPU type and gang. When a batch size was measured more
// than once (several GPUs or runs) its largest figure is used.
func FitMemory(entries []Entry) []MemoryFit {
	type key struct {
		family, gpu, device, from string
		gang                      int
	}
	groups := map[key]map[int]uint64{}
	for _, e := range entries {
		if e.Status != StatusOK || e.MemoryBytes == 0 {
			continue
		}
		k := key{family: jobFamily(e.JobType), gpu: e.GPUType, device: e.Device, from: e.MemoryFrom, gang: e.Gang}
		if groups[k] == nil {
			groups[k] = map[int]uint64{}
		}
		groups[k][e.BatchSize] = max(groups[k][e.BatchSize], e.MemoryBytes)
	}
	var keys []key
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.family != b.family {
			return a.family < b.family
		}
		if a.gpu != b.gpu {
			return a.gpu < b.gpu
		}
		if a.gang != b.gang {
			return a.gang < b.gang
		}
		return a.from < b.from
	})
	var out []MemoryFit
	for _, k := range keys {
		f := MemoryFit{Family: k.family, GPUType: k.gpu, Gang: k.gang, Device: k.device, From: k.from}
		for b, v := range groups[k] {
			f.Points = append(f.Points, MemoryPoint{BatchSize: b, Bytes: v})
		}
		sort.Slice(f.Points, func(i, j int) bool { return f.Points[i].BatchSize < f.Points[j].BatchSize })
		f.FixedBytes, f.PerSampleBytes = fitLine(f.Points)
		if len(f.Points) >= 3 {
			held := f.Points[0]
			a, c := fitLine(f.Points[1:])
			f.HeldBackBatch, f.HeldBackMeasured = held.BatchSize, held.Bytes
			f.HeldBackPredicted = a + c*float64(held.BatchSize)
			f.HeldBackError = f.HeldBackPredicted/float64(held.Bytes) - 1
		}
		out = append(out, f)
	}
	return out
}

// fitLine is the least-squares line bytes = a + c·batch through ps (a = the
// mean figure and c = 0 for one point, or for points at one batch size).
func fitLine(ps []MemoryPoint) (a, c float64) {
	xs, ys := make([]float64, len(ps)), make([]float64, len(ps))
	for i, p := range ps {
		xs[i], ys[i] = float64(p.BatchSize), float64(p.Bytes)
	}
	if len(ps) < 2 || stat.Variance(xs, nil) == 0 {
		return stat.Mean(ys, nil), 0
	}
	return stat.LinearRegression(xs, ys, nil, false)
}

// jobFamily is a job type without its " (batch size B)".
func jobFamily(job string) string {
	if m := jobTypeRE.FindStringSubmatch(job); m != nil {
		return m[1]
	}
	return job
}

// JobMemory is the memory the record measured for each job type, as the
// fields of a models.JobType: MemoryGB is the largest figure measured for
// the job type (over GPU types and gangs, in GB of 10⁹ bytes) and
// FixedMemoryGB the fitted fixed part of the same workload, GPU type and
// gang, clamped to [0, MemoryGB]; with a single batch size measured nothing
// is known to shrink, so FixedMemoryGB = MemoryGB. Source says what was
// measured where — a CPU figure says so.
func JobMemory(r *Record, file string) map[string]models.JobType {
	fits := FitMemory(r.Entries)
	byGroup := map[string]MemoryFit{}
	for _, f := range fits {
		byGroup[fmt.Sprintf("%s\x00%s\x00%d\x00%s", f.Family, f.GPUType, f.Gang, f.From)] = f
	}
	out := map[string]models.JobType{}
	best := map[string]Entry{}
	for _, e := range r.Entries {
		if e.Status != StatusOK || e.MemoryBytes == 0 {
			continue
		}
		if b, ok := best[e.JobType]; !ok || e.MemoryBytes > b.MemoryBytes {
			best[e.JobType] = e
		}
	}
	for job, e := range best {
		f := byGroup[fmt.Sprintf("%s\x00%s\x00%d\x00%s", jobFamily(job), e.GPUType, e.Gang, e.MemoryFrom)]
		mem := float64(e.MemoryBytes) / 1e9
		fixed := mem
		if len(f.Points) >= 2 {
			fixed = math.Min(mem, math.Max(0, f.FixedBytes/1e9))
		}
		out[job] = models.JobType{Name: job, BatchSize: e.BatchSize, MemoryGB: mem, FixedMemoryGB: fixed,
			Source: memorySource(file, e, f)}
	}
	return out
}

func memorySource(file string, e Entry, f MemoryFit) string {
	var what string
	switch e.MemoryFrom {
	case MemoryFromCPURSS:
		what = "CPU-MEASURED peak resident set of the training process (the OS's ru_maxrss), NOT a GPU figure, filed under " + e.GPUType
	case MemoryFromNVML:
		what = "peak GPU memory used (NVML) on " + e.GPUType + " (" + e.DeviceName + ")"
	default:
		what = "PyTorch's peak reserved GPU memory on " + e.GPUType + " (" + e.DeviceName + ")"
	}
	var sizes []string
	for _, p := range f.Points {
		sizes = append(sizes, fmt.Sprint(p.BatchSize))
	}
	s := fmt.Sprintf("fairbench calibrate record %s: %s at gang %d; fixed part fitted over batch sizes %s", file, what, e.Gang, strings.Join(sizes, ", "))
	if f.HeldBackBatch > 0 {
		s += fmt.Sprintf(" (held-back batch size %d predicted within %+.1f%%)", f.HeldBackBatch, 100*f.HeldBackError)
	}
	return s
}
