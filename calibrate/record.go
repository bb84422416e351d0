package calibrate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"

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
	Complete    bool    `json:"complete"`
	Interrupted bool    `json:"interrupted,omitempty"`
	Profile     *Spec   `json:"profile"`
	Entries     []Entry `json:"entries"`
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
	// GPU; PeakRSSBytes worker 0's peak resident memory on the CPU.
	PeakTorchMemBytes uint64     `json:"peak_torch_mem_bytes,omitempty"`
	PeakRSSBytes      uint64     `json:"peak_rss_bytes,omitempty"`
	Telemetry         *Telemetry `json:"telemetry,omitempty"`
	Workload          Workload   `json:"workload"`
}

// Key is the matrix key the entry's figure goes to (one host: consolidated).
func (e Entry) Key() models.Key {
	return models.Key{Job: e.JobType, GPU: e.GPUType, Gang: e.Gang, Placement: models.Consolidated}
}

// Matrix is the throughput matrix of the record's finished entries: an ok
// entry gives its MatrixStepsPerSecond (the mean when several entries measured the same
// key, e.g. two GPUs of one type), an out-of-memory entry a 0 ("does not
// fit": models.Matrix reads a stored 0 as "cannot run there") unless
// another entry of the key ran. Failed entries give nothing. The citation
// names the record.
func (r *Record) Matrix(source string) *models.Matrix {
	type acc struct {
		sum    float64
		n      int
		noRoom bool
	}
	byKey := map[models.Key]*acc{}
	var keys []models.Key
	for _, e := range r.Entries {
		if e.Status != StatusOK && e.Status != StatusDoesNotFit {
			continue
		}
		k := e.Key()
		a := byKey[k]
		if a == nil {
			a = &acc{}
			byKey[k] = a
			keys = append(keys, k)
		}
		if e.Status == StatusOK {
			a.sum += e.MatrixStepsPerSecond
			a.n++
		} else {
			a.noRoom = true
		}
	}
	m := models.NewMatrix()
	for _, k := range keys {
		a := byKey[k]
		v := 0.0
		if a.n > 0 {
			v = a.sum / float64(a.n)
		}
		if err := m.Set(k, v, source); err != nil {
			panic("calibrate: " + err.Error()) // steps/s are finite and ≥ 0 by construction
		}
	}
	return m
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

// ReadRecord reads a calibration record file.
func ReadRecord(path string) (*Record, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	return DecodeRecord(data, path)
}

// DecodeRecord parses a calibration record; name is for errors.
func DecodeRecord(data []byte, name string) (*Record, error) {
	var r Record
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("calibrate: record %s: %w", name, err)
	}
	if r.Format != RecordFormat {
		return nil, fmt.Errorf("calibrate: record %s: format %q, want %q", name, r.Format, RecordFormat)
	}
	for i, e := range r.Entries {
		where := fmt.Sprintf("calibrate: record %s: entries[%d] (%s on %s)", name, i, e.JobType, e.GPUType)
		switch e.Status {
		case StatusOK:
			if !(e.MatrixStepsPerSecond > 0) || math.IsInf(e.MatrixStepsPerSecond, 0) {
				return nil, fmt.Errorf("%s: status ok needs a positive matrix_steps_per_second, got %v", where, e.MatrixStepsPerSecond)
			}
		case StatusDoesNotFit, StatusFailed:
		default:
			return nil, fmt.Errorf("%s: unknown status %q", where, e.Status)
		}
		if e.Status != StatusFailed {
			if e.JobType == "" || e.Gang < 1 {
				return nil, fmt.Errorf("%s: needs job_type and gang ≥ 1", where)
			}
			if _, ok := catalogueTypeName(e.GPUType); !ok {
				return nil, fmt.Errorf("%s: unknown GPU type %q (known: %s)", where, e.GPUType, catalogueTypeNames())
			}
		}
	}
	return &r, nil
}

// interval makes a JSON-safe interval.
func interval(lo, hi float64) *Interval {
	iv := &Interval{Low: lo}
	if !math.IsInf(hi, 0) && !math.IsNaN(hi) {
		iv.High = &hi
	}
	return iv
}

// sortedKeysOf lists a string set in order.
func sortedKeysOf(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
