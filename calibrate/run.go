package calibrate

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"fairbench/internal/atomicfile"
)

// workloadScript is torch_train.py, built into fairbench so that a binary
// carried to a GPU machine needs no source tree.
//
//go:embed workloads/torch_train.py
var workloadScript []byte

// WorkloadScript returns the built-in training script.
func WorkloadScript() []byte { return append([]byte(nil), workloadScript...) }

// ErrInterrupted is returned by Run when its context was cancelled (Ctrl-C):
// the files hold every entry that finished.
var ErrInterrupted = errors.New("calibrate: interrupted")

// ErrEntriesFailed is returned (wrapped, with the count) by Run when some
// entries failed; the others are in the files.
var ErrEntriesFailed = errors.New("entries failed")

// Progress is a report from Run: an entry started, advanced or finished.
type Progress struct {
	Index, Total int // the entry, 0-based, of Total
	Entry        EntrySpec
	Step         int   // the last step seen (0 before the first)
	Phase        Phase // of the steady-state search
	Done         *Entry
}

// Runner runs a calibration profile.
type Runner struct {
	Spec *Spec
	// Probe reads the GPUs; required when the profile has a GPU device.
	Probe Probe
	// OutDir receives <name>.calibration.json and <name>.throughputs.json.
	OutDir string
	// Version is the fairbench version recorded as provenance.
	Version string
	// Progress, if set, is called from Run's goroutine.
	Progress func(Progress)
	// Python overrides Spec.Python when set (the CLI's --python).
	Python string

	scriptSum string
}

// Paths of a run's files.
func (r *Runner) RecordPath() string {
	return filepath.Join(r.OutDir, r.Spec.Name+".calibration.json")
}

// MatrixPath is the Gavel-format throughput file of the run.
func (r *Runner) MatrixPath() string {
	return filepath.Join(r.OutDir, r.Spec.Name+".throughputs.json")
}

// Run measures every entry of the profile in order, writing both files
// after each one. An entry that runs out of memory is recorded as "does not
// fit" and one that fails (crash, hang, garbage, timeout) is recorded with
// its reason and stderr tail; either way the run goes on. It returns the
// record, and ErrInterrupted after a cancellation or an error wrapping
// ErrEntriesFailed when some entry failed.
func (r *Runner) Run(ctx context.Context) (*Record, error) {
	s := r.Spec
	host, _ := os.Hostname()
	now := time.Now().UTC()
	rec := &Record{Format: RecordFormat, Name: s.Name, FairbenchVersion: r.Version, Host: host,
		Started: now.Format(time.RFC3339), Profile: s, Entries: []Entry{}}
	entries := s.Entries()
	gpus := map[int]Device{}
	types := make([]string, len(s.Devices)) // resolved gpu_type per device spec
	for i, d := range s.Devices {
		types[i] = d.GPUType
		if d.Device == "cpu" {
			rec.CPU = cpuName()
		}
	}
	if s.NeedsNVML() {
		if r.Probe == nil {
			return nil, fmt.Errorf("calibrate: profile %s uses GPUs but no NVML probe is open: %w", s.file, ErrNoNVML)
		}
		sys, err := r.Probe.System()
		if err != nil {
			return nil, err
		}
		rec.System = &sys
		for _, d := range sys.Devices {
			gpus[d.Index] = d
		}
		for i, d := range s.Devices {
			if d.Device == "cpu" {
				continue
			}
			t, err := resolveType(s, i, gpus)
			if err != nil {
				return nil, err
			}
			types[i] = t
		}
	}
	script := s.Workload
	if script == "" {
		dir, err := os.MkdirTemp("", "fairbench-calibrate-")
		if err != nil {
			return nil, fmt.Errorf("calibrate: %w", err)
		}
		defer os.RemoveAll(dir)
		script = filepath.Join(dir, "torch_train.py")
		if err := os.WriteFile(script, workloadScript, 0o644); err != nil {
			return nil, fmt.Errorf("calibrate: %w", err)
		}
	}
	body, err := os.ReadFile(script)
	if err != nil {
		return nil, fmt.Errorf("calibrate: workload: %w", err)
	}
	sum := sha256.Sum256(body)
	r.scriptSum = hex.EncodeToString(sum[:])
	python := s.Python
	if r.Python != "" {
		python = r.Python
	}
	if _, err := exec.LookPath(python); err != nil {
		return nil, fmt.Errorf("calibrate: the workload's interpreter: %w (set python in the profile, or --python)", err)
	}
	if err := r.write(rec); err != nil {
		return nil, err
	}
	failed := 0
	for i, es := range entries {
		if ctx.Err() != nil {
			break
		}
		if r.Progress != nil {
			r.Progress(Progress{Index: i, Total: len(entries), Entry: es})
		}
		e := r.runEntry(ctx, es, types[es.deviceIndex], gpus, python, script, func(ev stepEvent) {
			if r.Progress != nil {
				r.Progress(Progress{Index: i, Total: len(entries), Entry: es, Step: ev.Step, Phase: ev.Phase})
			}
		})
		if e == nil { // interrupted: the entry is not recorded
			break
		}
		rec.Entries = append(rec.Entries, *e)
		if e.Status == StatusFailed {
			failed++
		}
		if err := r.write(rec); err != nil {
			return rec, err
		}
		if r.Progress != nil {
			r.Progress(Progress{Index: i, Total: len(entries), Entry: es, Done: e})
		}
	}
	if ctx.Err() != nil {
		rec.Interrupted = true
		if err := r.write(rec); err != nil {
			return rec, err
		}
		return rec, ErrInterrupted
	}
	rec.Complete = true
	if err := r.write(rec); err != nil {
		return rec, err
	}
	if failed > 0 {
		return rec, fmt.Errorf("calibrate: %d of %d %w (see %s)", failed, len(entries), ErrEntriesFailed, r.RecordPath())
	}
	return rec, nil
}

// resolveType checks a GPU device spec against NVML and finds its catalogue
// type.
func resolveType(s *Spec, i int, gpus map[int]Device) (string, error) {
	d := s.Devices[i]
	var name string
	var mem uint64
	for j, idx := range d.GPUs {
		g, ok := gpus[idx]
		if !ok {
			return "", s.errf(fmt.Sprintf("devices[%d].gpus[%d]", i, j), "no GPU with NVML index %d (this machine has %d)", idx, len(gpus))
		}
		if j == 0 {
			name, mem = g.Name, g.MemoryBytes
		} else if g.Name != name || g.MemoryBytes != mem {
			return "", s.errf(fmt.Sprintf("devices[%d].gpus", i), "GPU %d is a %s but GPU %d is a %s: a gang needs GPUs of one type", d.GPUs[0], name, idx, g.Name)
		}
	}
	if d.GPUType != "" {
		return d.GPUType, nil
	}
	t, err := CatalogueGPUType(name, mem)
	if err != nil {
		return "", s.errf(fmt.Sprintf("devices[%d].gpu_type", i), "%v", err)
	}
	return t, nil
}

// write rewrites the record and, when it has a figure, the matrix file.
func (r *Runner) write(rec *Record) error {
	rec.Updated = time.Now().UTC().Format(time.RFC3339)
	data, err := encodeRecord(rec)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(r.RecordPath(), data); err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	m := rec.Matrix("fairbench calibration " + filepath.Base(r.RecordPath()))
	if m.Len() == 0 {
		return nil
	}
	gavel, err := EncodeGavel(m)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(r.MatrixPath(), gavel); err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	return nil
}

// runEntry measures one entry; nil when interrupted.
func (r *Runner) runEntry(ctx context.Context, es EntrySpec, gpuType string, gpus map[int]Device, python, script string, progress func(stepEvent)) *Entry {
	s := r.Spec
	e := &Entry{JobType: es.JobType(), Model: es.Model.Model, BatchSize: es.BatchSize, Gang: es.Gang,
		AMP: es.Model.AMP, Args: es.Model.Args, GPUType: gpuType}
	argv := []string{python, script, "--model", es.Model.Model, "--batch-size", strconv.Itoa(es.BatchSize),
		"--steps", strconv.Itoa(s.Steps), "--gang", strconv.Itoa(es.Gang), "--seed", strconv.Itoa(s.Seed)}
	if es.Model.AMP {
		argv = append(argv, "--amp")
	}
	for _, k := range sortedNames(es.Model.Args) {
		argv = append(argv, workloadArgs[k], strconv.Itoa(es.Model.Args[k]))
	}
	var env []string
	idx := es.GPUs()
	if es.Device.Device == "cpu" {
		e.Device, e.DeviceName = "cpu", cpuName()
		argv = append(argv, "--device", "cpu")
		if es.Device.Threads > 0 {
			argv = append(argv, "--threads", strconv.Itoa(es.Device.Threads))
			env = append(env, "OMP_NUM_THREADS="+strconv.Itoa(es.Device.Threads))
		}
	} else {
		e.Device = "cuda"
		var vis []string
		for _, i := range idx {
			g := gpus[i]
			e.GPUs = append(e.GPUs, GPURef{Index: i, UUID: g.UUID, Name: g.Name})
			if g.UUID != "" {
				vis = append(vis, g.UUID)
			} else {
				vis = append(vis, strconv.Itoa(i))
			}
		}
		e.DeviceName = e.GPUs[0].Name
		argv = append(argv, "--device", "cuda:0")
		// Pin the gang: CUDA sees exactly these GPUs, as cuda:0..g-1, in
		// this order. UUIDs do not depend on CUDA's device ordering.
		env = append(env, "CUDA_DEVICE_ORDER=PCI_BUS_ID", "CUDA_VISIBLE_DEVICES="+strings.Join(vis, ","))
	}
	env = append(env, "PYTHONUNBUFFERED=1")

	start := time.Now()
	e.Started = start.UTC().Format(time.RFC3339)
	var smp *Sampler
	if len(idx) > 0 && r.Probe != nil {
		smp = StartSampler(r.Probe, idx, s.SampleHz, start)
	}
	out := runWorkload(ctx, argv, env, s, start, progress)
	var samples []Sample
	var failures int
	var sampErr error
	if smp != nil {
		samples, failures, sampErr = smp.Stop()
	}
	end := time.Now()
	if out.interrupted {
		return nil
	}
	e.Finished = end.UTC().Format(time.RFC3339)
	e.WallSecond = end.Sub(start).Seconds()
	e.Status, e.ExitCode, e.StepsRun, e.Workload = out.status, out.exitCode, out.stepsRun, out.workload
	e.Workload.ScriptSHA256 = r.scriptSum
	e.PeakTorchMemBytes, e.PeakRSSBytes = out.peakMem, out.peakRSS
	if out.err != nil {
		e.Error = out.err.Error()
	}
	e.OOM = out.oom
	if out.status != StatusOK {
		e.StderrTail = out.stderr
	}
	if out.status == StatusOK {
		st := out.stats
		e.StepTime = &st
		var lo, hi float64
		e.StepsPerSecond, lo, hi = st.Rate(1)
		e.StepsPerSecondCI = interval(lo, hi)
		e.MatrixStepsPerSecond = e.StepsPerSecond * float64(es.Gang)
		e.SamplesPerStep = out.samplesPerStep
		e.SamplesPerSecond, lo, hi = st.Rate(out.samplesPerStep)
		e.SamplesPerSecondCI = interval(lo, hi)
	}
	if smp != nil {
		t := Summarize(samples, idx, s.SampleHz, out.from, out.to, out.measuredSamp)
		t.Failures = failures
		if sampErr != nil {
			t.Error = sampErr.Error()
		}
		e.Telemetry = &t
	}
	return e
}
