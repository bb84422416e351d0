package calibrate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	"fairbench/models"
)

// RecordFormat identifies a calibration record file.
const RecordFormat = "fairbench-calibration/1"

// Record is a calibration run's result with its provenance: the file
// <name>.calibration.json. The matrix file <name>.throughputs.json is
// derived from it (Matrix). Both are rewritten atomically after every entry,
// so an interrupted run leaves valid files holding what finished.
type Record struct {
	Format string `json:"format"`
	Name   string `json:"name"`
	// Provenance.
	FairbenchVersion string  `json:"fairbench_version"`
	Host             string  `json:"host"`
	Started          string  `json:"started"` // RFC 3339, UTC
	Updated          string  `json:"updated"`
	System           *System `json:"system,omitempty"` // NVML's view, when a GPU was used
	CPU              string  `json:"cpu,omitempty"`    // the host CPU, when the CPU was used
	// Complete is false while the run goes on and after an interruption.
	Complete    bool `json:"complete"`
	Interrupted bool `json:"interrupted,omitempty"`
	// GPUTypes are the GPU types the catalogue lacks that entries name:
	// the profile's gpu_types (all sources' for a merged record).
	GPUTypes []GPUDecl `json:"gpu_types,omitempty"`
	// Profile is the run's profile; nil in a merged record, whose Sources
	// hold each input's.
	Profile *Spec `json:"profile,omitempty"`
	// Sources are the records a merged record was made of (calibrate
	// merge); every entry and pair names its source.
	Sources []RecordSource `json:"sources,omitempty"`
	Entries []Entry        `json:"entries"`
	// Pairs are the co-location measurements (calibrate colocate).
	Pairs []PairEntry `json:"pairs,omitempty"`
}

// RecordSource is one input of a merged record, with its provenance.
type RecordSource struct {
	Name             string  `json:"name"` // unique within the merged record
	File             string  `json:"file"`
	SHA256           string  `json:"sha256"`
	FairbenchVersion string  `json:"fairbench_version"`
	Host             string  `json:"host"`
	Started          string  `json:"started"`
	Complete         bool    `json:"complete"`
	System           *System `json:"system,omitempty"`
	CPU              string  `json:"cpu,omitempty"`
	Profile          *Spec   `json:"profile"`
}

// GPURef names one GPU an entry ran on.
type GPURef struct {
	Index int    `json:"index"`
	UUID  string `json:"uuid"`
	Name  string `json:"name"`
}

// Interval is a confidence interval; High is nil when unbounded.
type Interval struct {
	Low  float64  `json:"low"`
	High *float64 `json:"high"`
}

// Entry is the result of one measurement.
type Entry struct {
	JobType   string         `json:"job_type"`
	Model     string         `json:"model"`
	BatchSize int            `json:"batch_size"` // per worker
	Gang      int            `json:"gang"`
	AMP       bool           `json:"amp"`
	Args      map[string]int `json:"args,omitempty"`
	Device    string         `json:"device"` // cpu or cuda
	GPUType   string         `json:"gpu_type"`
	GPUs      []GPURef       `json:"gpus,omitempty"`
	// DeviceName is the GPU's NVML name or the CPU's model name.
	DeviceName string `json:"device_name"`

	Status string `json:"status"`          // ok, does_not_fit or failed
	Error  string `json:"error,omitempty"` // why it failed
	OOM    string `json:"oom,omitempty"`   // the workload's out-of-memory report
	// ExitCode is the workload's exit status: -1 when it ended by a
	// signal, as it normally does (fairbench stops it once measured).
	ExitCode   *int    `json:"exit_code,omitempty"`
	StderrTail string  `json:"stderr_tail,omitempty"` // on failure and out of memory
	Started    string  `json:"started"`
	Finished   string  `json:"finished"`
	WallSecond float64 `json:"wall_seconds"`
	StepsRun   int     `json:"steps_run"`

	StepTime *StepStats `json:"step_time,omitempty"`
	// StepsPerSecond counts training iterations of the whole gang (one
	// iteration processes SamplesPerStep = batch size × gang samples).
	StepsPerSecond   float64   `json:"steps_per_second,omitempty"`
	StepsPerSecondCI *Interval `json:"steps_per_second_ci95,omitempty"`
	// MatrixStepsPerSecond is the figure the matrix gets, in the
	// convention of Gavel's throughput file, which counts every worker's
	// step: StepsPerSecond × Gang = SamplesPerSecond / BatchSize (Gavel's
	// ResNet-50 batch 64 on V100: 4.39 at gang 1, 7.92 at gang 2). Its
	// confidence interval is StepsPerSecondCI × Gang.
	MatrixStepsPerSecond float64   `json:"matrix_steps_per_second,omitempty"`
	SamplesPerStep       float64   `json:"samples_per_step,omitempty"`
	SamplesPerSecond     float64   `json:"samples_per_second,omitempty"`
	SamplesPerSecondCI   *Interval `json:"samples_per_second_ci95,omitempty"`
	// PeakTorchMemBytes is the most memory PyTorch allocated on worker 0's
	// GPU and PeakTorchReservedBytes the most its caching allocator held;
	// PeakRSSBytes is worker 0's peak resident memory on the CPU.
	PeakTorchMemBytes      uint64 `json:"peak_torch_mem_bytes,omitempty"`
	PeakTorchReservedBytes uint64 `json:"peak_torch_reserved_bytes,omitempty"`
	PeakRSSBytes           uint64 `json:"peak_rss_bytes,omitempty"`
	// MemoryBytes is the entry's memory figure — what one worker needs on
	// its device — and MemoryFrom says what it is (MemoryFrom*): on a GPU,
	// NVML's peak use of worker 0's GPU over the entry less its use before
	// the workload started; on the CPU, worker 0's peak resident set (a
	// CPU figure, never a GPU one).
	MemoryBytes uint64     `json:"memory_bytes,omitempty"`
	MemoryFrom  string     `json:"memory_from,omitempty"`
	Telemetry   *Telemetry `json:"telemetry,omitempty"`
	Workload    Workload   `json:"workload"`
	// DeviceIndex is the entry's device in the profile's devices.
	DeviceIndex int `json:"device_index"`
	// Source names the merged record's source the entry came from.
	Source string `json:"source,omitempty"`
}

// What Entry.MemoryBytes measured.
const (
	// MemoryFromNVML: NVML's peak used memory of worker 0's GPU during the
	// entry, less what was used before the workload started: everything
	// the process held (CUDA context, PyTorch's cache, workspaces).
	MemoryFromNVML = "nvml"
	// MemoryFromTorchReserved: PyTorch's peak reserved memory on worker 0's
	// GPU (when NVML gave no reading); it lacks the CUDA context.
	MemoryFromTorchReserved = "torch_reserved"
	// MemoryFromCPURSS: worker 0's peak resident set size on the CPU, the
	// OS's ru_maxrss (Python, PyTorch's libraries and the tensors): CPU
	// memory, which stands in for device memory only in CPU test runs.
	MemoryFromCPURSS = "cpu_max_rss"
)

// Key is the matrix key the entry's figure goes to (one host: consolidated).
func (e Entry) Key() models.Key {
	return models.Key{Job: e.JobType, GPU: e.GPUType, Gang: e.Gang, Placement: models.Consolidated}
}

// Status of a pair.
const (
	// PairOK: both ran side by side and were measured.
	PairOK = "ok"
	// PairCannotShare: the two do not fit in the GPUs' memory together
	// (predicted from their alone peaks, or out of memory when paired):
	// a [0, 0] pair, which forbids co-locating them.
	PairCannotShare = "cannot_share"
	// PairFailed: a crash, hang or timeout; not in the matrix.
	PairFailed = "failed"
)

// PairEntry is the result of one co-location measurement: workloads A and
// B run at the same time on the same GPUs, each measured alone (in the
// record's entries) and paired.
type PairEntry struct {
	Mode       string   `json:"mode"` // ModeTimeSlice or ModeMPS
	Gang       int      `json:"gang"`
	Device     string   `json:"device"` // cpu or cuda
	GPUType    string   `json:"gpu_type"`
	GPUs       []GPURef `json:"gpus,omitempty"`
	DeviceName string   `json:"device_name"`
	// DeviceIndex is the pair's device in the profile's devices.
	DeviceIndex int      `json:"device_index"`
	Status      string   `json:"status"`           // PairOK, PairCannotShare or PairFailed
	Reason      string   `json:"reason,omitempty"` // why it cannot share or failed
	A           PairSide `json:"a"`
	B           PairSide `json:"b"`
	Started     string   `json:"started"`
	Finished    string   `json:"finished"`
	WallSecond  float64  `json:"wall_seconds"`
	// Source names the merged record's source the pair came from.
	Source string `json:"source,omitempty"`
}

// PairSide is one workload of a pair.
type PairSide struct {
	JobType   string         `json:"job_type"`
	Model     string         `json:"model"`
	BatchSize int            `json:"batch_size"`
	AMP       bool           `json:"amp"`
	Args      map[string]int `json:"args,omitempty"`
	// AloneStepsPerSecond is its gang's iterations per second alone (the
	// record's entry of the same workload); PairedStepsPerSecond beside
	// the other. Both count iterations of the whole gang, as
	// Entry.StepsPerSecond does.
	AloneStepsPerSecond  float64   `json:"alone_steps_per_second,omitempty"`
	AloneCI              *Interval `json:"alone_steps_per_second_ci95,omitempty"`
	PairedStepsPerSecond float64   `json:"paired_steps_per_second,omitempty"`
	PairedCI             *Interval `json:"paired_steps_per_second_ci95,omitempty"`
	// Slowdown is ξ = alone / paired steps per second, the factor
	// SJF-BSBF and the simulator divide a job's speed by when it shares.
	Slowdown    float64    `json:"slowdown,omitempty"`
	StepTime    *StepStats `json:"step_time,omitempty"` // paired
	MemoryBytes uint64     `json:"memory_bytes,omitempty"`
	StepsRun    int        `json:"steps_run"`
	ExitCode    *int       `json:"exit_code,omitempty"`
	Error       string     `json:"error,omitempty"`
	StderrTail  string     `json:"stderr_tail,omitempty"`
	Workload    Workload   `json:"workload"`
}

// encodeRecord is the record as indented JSON.
func encodeRecord(r *Record) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return nil, fmt.Errorf("calibrate: encode record: %w", err)
	}
	return buf.Bytes(), nil
}

// interval makes a JSON-safe interval.
func interval(lo, hi float64) *Interval {
	iv := &Interval{Low: lo}
	if !math.IsInf(hi, 0) && !math.IsNaN(hi) {
		iv.High = &hi
	}
	return iv
}
