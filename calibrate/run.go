package calibrate

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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

// Progress is a report from Run: an entry or pair started, advanced or
// finished.
type Progress struct {
	Index, Total int // the entry or pair, 0-based, of Total
	Entry        EntrySpec
	Pair         *PairEntrySpec // a pair (Entry is its A)
	Step         int            // the last step seen (0 before the first; of A in a pair)
	Phase        Phase          // of the steady-state search
	Done         *Entry
	PairDone     *PairEntry
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
	// OnlyPairs measures only the colocate section: its pairs and the
	// alone figures they need (calibrate colocate).
	OnlyPairs bool

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

// Run measures every entry of the profile in order (AllEntries: the models
// section, then the alone figures of the colocate section's workloads), and
// then every pair (PairEntries), writing both files after each one. With
// OnlyPairs it measures just the pairs and the alone figures they need. An
// entry that runs out of memory is recorded as "does not fit" and one that
// fails (crash, hang, garbage, timeout) is recorded with its reason and
// stderr tail; either way the run goes on. It returns the record, and
// ErrInterrupted after a cancellation or an error wrapping
// ErrEntriesFailed when some entry or pair failed.
func (r *Runner) Run(ctx context.Context) (*Record, error) {
	s := r.Spec
	host, _ := os.Hostname()
	now := time.Now().UTC()
	rec := &Record{Format: RecordFormat, Name: s.Name, FairbenchVersion: r.Version, Host: host,
		Started: now.Format(time.RFC3339), GPUTypes: s.GPUTypes, Profile: s, Entries: []Entry{}}
	entries := s.AllEntries()
	if r.OnlyPairs {
		entries = s.pairAloneEntries()
	}
	pairs := s.PairEntries()
	total := len(entries) + len(pairs)
	env, err := r.prepare(rec)
	if err != nil {
		return nil, err
	}
	defer env.cleanup()
	if err := r.write(rec); err != nil {
		return nil, err
	}
	failed := 0
	for i, es := range entries {
		if ctx.Err() != nil {
			break
		}
		r.report(Progress{Index: i, Total: total, Entry: es})
		e := r.runEntry(ctx, es, env, func(ev stepEvent) {
			r.report(Progress{Index: i, Total: total, Entry: es, Step: ev.Step, Phase: ev.Phase})
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
		r.report(Progress{Index: i, Total: total, Entry: es, Done: e})
	}
	for i, pe := range pairs {
		if ctx.Err() != nil {
			break
		}
		at := len(entries) + i
		r.report(Progress{Index: at, Total: total, Entry: pe.A, Pair: &pe})
		p := r.runPair(ctx, pe, rec, env, func(ev stepEvent) {
			r.report(Progress{Index: at, Total: total, Entry: pe.A, Pair: &pe, Step: ev.Step, Phase: ev.Phase})
		})
		if p == nil {
			break
		}
		rec.Pairs = append(rec.Pairs, *p)
		if p.Status == PairFailed {
			failed++
		}
		if err := r.write(rec); err != nil {
			return rec, err
		}
		r.report(Progress{Index: at, Total: total, Entry: pe.A, Pair: &pe, PairDone: p})
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
		return rec, fmt.Errorf("calibrate: %d of %d %w (see %s)", failed, total, ErrEntriesFailed, r.RecordPath())
	}
	return rec, nil
}

func (r *Runner) report(p Progress) {
	if r.Progress != nil {
		r.Progress(p)
	}
}

// runEnv is what every entry of a run shares.
type runEnv struct {
	python, script string
	gpus           map[int]Device // NVML's GPUs by index
	types          []string       // the GPU type of each device of the profile
	cleanup        func()
}

// prepare reads the GPUs (filling the record's provenance), resolves each
// device's GPU type, writes out the built-in workload and checks the
// interpreter.
func (r *Runner) prepare(rec *Record) (*runEnv, error) {
	s := r.Spec
	env := &runEnv{gpus: map[int]Device{}, types: make([]string, len(s.Devices)), cleanup: func() {}}
	for i, d := range s.Devices {
		env.types[i] = d.GPUType
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
			env.gpus[d.Index] = d
		}
		for i, d := range s.Devices {
			if d.Device == "cpu" {
				continue
			}
			t, err := resolveType(s, i, env.gpus)
			if err != nil {
				return nil, err
			}
			env.types[i] = t
		}
	}
	env.script = s.Workload
	if env.script == "" {
		dir, err := os.MkdirTemp("", "fairbench-calibrate-")
		if err != nil {
			return nil, fmt.Errorf("calibrate: %w", err)
		}
		env.cleanup = func() { os.RemoveAll(dir) }
		env.script = filepath.Join(dir, "torch_train.py")
		if err := os.WriteFile(env.script, workloadScript, 0o644); err != nil {
			env.cleanup()
			return nil, fmt.Errorf("calibrate: %w", err)
		}
	}
	body, err := os.ReadFile(env.script)
	if err != nil {
		env.cleanup()
		return nil, fmt.Errorf("calibrate: workload: %w", err)
	}
	sum := sha256.Sum256(body)
	r.scriptSum = hex.EncodeToString(sum[:])
	env.python = s.Python
	if r.Python != "" {
		env.python = r.Python
	}
	if _, err := exec.LookPath(env.python); err != nil {
		env.cleanup()
		return nil, fmt.Errorf("calibrate: the workload's interpreter: %w (set python in the profile, or --python)", err)
	}
	return env, nil
}

// resolveType checks a GPU device spec against NVML and finds its GPU
// type: the profile's gpu_type, else the catalogue's or a declared type's
// from the NVML name and memory.
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
	t, err := resolveGPUType(name, mem, s.GPUTypes)
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
	gavel, err := EncodeGavelFor(m, r.Spec.GPUTypes)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(r.MatrixPath(), gavel); err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	return nil
}

// launch is how one workload process is started.
type launch struct {
	argv, env  []string
	idx        []int // NVML indices of its GPUs
	gpus       []GPURef
	device     string // cpu or cuda
	deviceName string
}

// command builds the workload's command line and environment for es,
// running steps steps.
func (r *Runner) command(es EntrySpec, env *runEnv, steps int) launch {
	s := r.Spec
	l := launch{idx: es.GPUs()}
	l.argv = []string{env.python, env.script, "--model", es.Model.Model, "--batch-size", strconv.Itoa(es.BatchSize),
		"--steps", strconv.Itoa(steps), "--gang", strconv.Itoa(es.Gang), "--seed", strconv.Itoa(s.Seed)}
	if es.Model.AMP {
		l.argv = append(l.argv, "--amp")
	}
	for _, k := range slices.Sorted(maps.Keys(es.Model.Args)) {
		l.argv = append(l.argv, workloadArgs[k], strconv.Itoa(es.Model.Args[k]))
	}
	if es.Device.Device == "cpu" {
		l.device, l.deviceName = "cpu", cpuName()
		l.argv = append(l.argv, "--device", "cpu")
		if es.Device.Threads > 0 {
			l.argv = append(l.argv, "--threads", strconv.Itoa(es.Device.Threads))
			l.env = append(l.env, "OMP_NUM_THREADS="+strconv.Itoa(es.Device.Threads))
		}
	} else {
		l.device = "cuda"
		var vis []string
		for _, i := range l.idx {
			g := env.gpus[i]
			l.gpus = append(l.gpus, GPURef{Index: i, UUID: g.UUID, Name: g.Name})
			if g.UUID != "" {
				vis = append(vis, g.UUID)
			} else {
				vis = append(vis, strconv.Itoa(i))
			}
		}
		l.deviceName = l.gpus[0].Name
		l.argv = append(l.argv, "--device", "cuda:0")
		// Pin the gang: CUDA sees exactly these GPUs, as cuda:0..g-1, in
		// this order. UUIDs do not depend on CUDA's device ordering.
		l.env = append(l.env, "CUDA_DEVICE_ORDER=PCI_BUS_ID", "CUDA_VISIBLE_DEVICES="+strings.Join(vis, ","))
	}
	l.env = append(l.env, "PYTHONUNBUFFERED=1")
	return l
}

// runEntry measures one entry; nil when interrupted.
func (r *Runner) runEntry(ctx context.Context, es EntrySpec, env *runEnv, progress func(stepEvent)) *Entry {
	s := r.Spec
	e := &Entry{JobType: es.JobType(), Model: es.Model.Model, BatchSize: es.BatchSize, Gang: es.Gang,
		AMP: es.Model.AMP, Args: es.Model.Args, GPUType: env.types[es.deviceIndex], DeviceIndex: es.deviceIndex}
	l := r.command(es, env, s.Steps)
	e.Device, e.DeviceName, e.GPUs = l.device, l.deviceName, l.gpus
	start := time.Now()
	e.Started = start.UTC().Format(time.RFC3339)
	var smp *Sampler
	if len(l.idx) > 0 && r.Probe != nil {
		smp = StartSampler(r.Probe, l.idx, s.SampleHz, start)
	}
	out := runWorkload(ctx, l.argv, l.env, s, start, progress, nil)
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
	e.PeakTorchMemBytes, e.PeakTorchReservedBytes, e.PeakRSSBytes = out.peakMem, out.peakReserved, out.peakRSS
	e.MemoryBytes, e.MemoryFrom = memoryFigure(l, out, samples)
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
		t := Summarize(samples, l.idx, s.SampleHz, out.from, out.to, out.measuredSamp)
		t.Failures = failures
		if sampErr != nil {
			t.Error = sampErr.Error()
		}
		e.Telemetry = &t
	}
	return e
}

// memoryFigure is an entry's memory figure (Entry.MemoryBytes) and what it
// is: on a GPU, NVML's peak use of worker 0's GPU over the entry less its
// first reading (taken as the process starts, before CUDA is initialised),
// else PyTorch's peak reserved memory; on the CPU, worker 0's peak RSS.
func memoryFigure(l launch, out outcome, samples []Sample) (uint64, string) {
	if l.device == "cpu" {
		if out.peakRSS == 0 {
			return 0, ""
		}
		return out.peakRSS, MemoryFromCPURSS
	}
	var first, peak uint64
	seen := false
	for _, smp := range samples {
		if smp.Index != l.idx[0] || smp.Supported&FieldMemUsed == 0 {
			continue
		}
		if !seen {
			first, seen = smp.MemUsedBytes, true
		}
		peak = max(peak, smp.MemUsedBytes)
	}
	if seen && peak > first {
		return peak - first, MemoryFromNVML
	}
	if out.peakReserved > 0 {
		return out.peakReserved, MemoryFromTorchReserved
	}
	return 0, ""
}
