package calibrate

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// pairStepsFactor: a paired workload is started with this many times the
// profile's steps (at most maxSteps), so that it keeps running — and
// interfering — until its partner is measured; fairbench stops both then.
const pairStepsFactor = 1000

// runPair measures one co-location pair; nil when interrupted.
//
// It takes both workloads' alone figures from the record's entries (Run
// measures them first). A pair whose workloads cannot run alone, or whose
// alone memory figures add up to more than the device holds (the GPU's
// memory from NVML; on the CPU, the memory of the GPU type its figures are
// filed under), is recorded as cannot share without running. Otherwise both
// start at the same time on the same GPUs (in MPS mode as clients of an MPS
// daemon started for the pair), each with its own steady-state search as in
// an entry; a workload measured first keeps running until its partner is
// measured, and then both are stopped. One that runs out of memory makes
// the pair cannot share.
func (r *Runner) runPair(ctx context.Context, pe PairEntrySpec, rec *Record, env *runEnv, progress func(stepEvent)) *PairEntry {
	s := r.Spec
	p := &PairEntry{Mode: pe.Mode, Gang: pe.Gang, GPUType: env.types[pe.deviceIndex], DeviceIndex: pe.deviceIndex,
		A: pairSide(pe.A), B: pairSide(pe.B)}
	la, lb := r.command(pe.A, env, min(maxSteps, s.Steps*pairStepsFactor)), r.command(pe.B, env, min(maxSteps, s.Steps*pairStepsFactor))
	p.Device, p.DeviceName, p.GPUs = la.device, la.deviceName, la.gpus
	start := time.Now()
	p.Started = start.UTC().Format(time.RFC3339)
	finish := func() *PairEntry {
		end := time.Now()
		p.Finished, p.WallSecond = end.UTC().Format(time.RFC3339), end.Sub(start).Seconds()
		return p
	}
	ea, eb := aloneEntry(rec, pe.A), aloneEntry(rec, pe.B)
	if why := r.cannotShare(pe, env, ea, eb); why != nil {
		p.Status, p.Reason = why[0], why[1]
		return finish()
	}
	p.A.AloneStepsPerSecond, p.A.AloneCI = ea.StepsPerSecond, ea.StepsPerSecondCI
	p.B.AloneStepsPerSecond, p.B.AloneCI = eb.StepsPerSecond, eb.StepsPerSecondCI
	if pe.Mode == ModeMPS {
		mpsEnv, stop, err := startMPS(la.env)
		if err != nil {
			p.Status, p.Reason = PairFailed, err.Error()
			return finish()
		}
		defer stop()
		la.env, lb.env = append(la.env, mpsEnv...), append(lb.env, mpsEnv...)
	}
	outs := runTogether(ctx, s, start, progress, la, lb)
	if outs[0].interrupted || outs[1].interrupted {
		return nil
	}
	for i, side := range []*PairSide{&p.A, &p.B} {
		fillSide(side, outs[i], la.device, r.scriptSum)
	}
	switch a, b := outs[0], outs[1]; {
	case a.status == StatusDoesNotFit || b.status == StatusDoesNotFit:
		p.Status = PairCannotShare
		p.Reason = "out of memory when paired: " + strings.Trim(a.oom+"; "+b.oom, "; ")
	case a.status != StatusOK || b.status != StatusOK:
		p.Status = PairFailed
		p.Reason = strings.Trim(p.A.Error+"; "+p.B.Error, "; ")
	default:
		p.Status = PairOK
		p.A.Slowdown = p.A.AloneStepsPerSecond / p.A.PairedStepsPerSecond
		p.B.Slowdown = p.B.AloneStepsPerSecond / p.B.PairedStepsPerSecond
		for _, e := range []struct {
			name  string
			early bool
		}{{pe.A.JobType(), a.endedEarly}, {pe.B.JobType(), b.endedEarly}} {
			if e.early {
				p.Reason = strings.TrimPrefix(p.Reason+"; ", "; ") + e.name + " ended before its partner was measured: the partner's figure is partly alone"
			}
		}
	}
	return finish()
}

// cannotShare decides a pair without running it: [status, reason], or nil
// when it must run.
func (r *Runner) cannotShare(pe PairEntrySpec, env *runEnv, ea, eb *Entry) []string {
	for _, x := range []struct {
		es EntrySpec
		e  *Entry
	}{{pe.A, ea}, {pe.B, eb}} {
		switch {
		case x.e == nil:
			return []string{PairFailed, fmt.Sprintf("no alone measurement of %s ×%d", x.es.JobType(), x.es.Gang)}
		case x.e.Status == StatusDoesNotFit:
			return []string{PairCannotShare, fmt.Sprintf("%s does not fit even alone", x.es.JobType())}
		case x.e.Status != StatusOK:
			return []string{PairFailed, fmt.Sprintf("the alone measurement of %s failed: %s", x.es.JobType(), x.e.Error)}
		}
	}
	capacity, what := r.capacity(pe, env)
	if need := ea.MemoryBytes + eb.MemoryBytes; ea.MemoryBytes > 0 && eb.MemoryBytes > 0 && capacity > 0 && need > capacity {
		return []string{PairCannotShare, fmt.Sprintf("alone peaks %s + %s = %s exceed %s (%s)",
			gb(ea.MemoryBytes), gb(eb.MemoryBytes), gb(need), gb(capacity), what)}
	}
	return nil
}

// capacity is the memory of one of the pair's devices: a GPU's from NVML,
// or on the CPU the memory of the GPU type the figures are filed under.
func (r *Runner) capacity(pe PairEntrySpec, env *runEnv) (uint64, string) {
	if pe.Device.Device == "cpu" {
		t := env.types[pe.deviceIndex]
		for _, d := range r.Spec.GPUTypes {
			if d.Name == t {
				return uint64(d.MemoryGB * 1e9), "the memory_gb of " + t + ", standing in for the CPU's"
			}
		}
		if ct, ok := catalogueTypeName(t); ok {
			return uint64(ct.MemoryGB * 1e9), "the memory of " + t + ", standing in for the CPU's"
		}
		return 0, ""
	}
	g := env.gpus[pe.A.GPUs()[0]]
	return g.MemoryBytes, "the memory of GPU " + g.Name
}

func gb(b uint64) string { return fmt.Sprintf("%.2f GB", float64(b)/1e9) }

// aloneEntry finds the record's alone measurement of es (the latest).
func aloneEntry(rec *Record, es EntrySpec) *Entry {
	for i := len(rec.Entries) - 1; i >= 0; i-- {
		e := &rec.Entries[i]
		if e.DeviceIndex == es.deviceIndex && e.JobType == es.JobType() && e.Gang == es.Gang {
			return e
		}
	}
	return nil
}

func pairSide(es EntrySpec) PairSide {
	return PairSide{JobType: es.JobType(), Model: es.Model.Model, BatchSize: es.BatchSize, AMP: es.Model.AMP, Args: es.Model.Args}
}

// fillSide records one workload's paired outcome.
func fillSide(side *PairSide, out outcome, device, scriptSum string) {
	side.StepsRun, side.ExitCode, side.Workload = out.stepsRun, out.exitCode, out.workload
	side.Workload.ScriptSHA256 = scriptSum
	if device == "cpu" {
		side.MemoryBytes = out.peakRSS
	} else {
		side.MemoryBytes = out.peakReserved
	}
	if out.err != nil {
		side.Error = out.err.Error()
	}
	if out.status != StatusOK {
		side.StderrTail = out.stderr
		return
	}
	st := out.stats
	side.StepTime = &st
	var lo, hi float64
	side.PairedStepsPerSecond, lo, hi = st.Rate(1)
	side.PairedCI = interval(lo, hi)
}

// runTogether runs two workloads at the same time until both are measured
// (or one fails, or ctx ends), and returns their outcomes.
func runTogether(ctx context.Context, s *Spec, start time.Time, progress func(stepEvent), ls ...launch) [2]outcome {
	var outs [2]outcome
	release := make(chan struct{})
	var once sync.Once
	stop := func() { once.Do(func() { close(release) }) }
	var measured sync.WaitGroup
	measured.Add(2)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		var mark sync.Once
		done := func() { mark.Do(measured.Done) }
		prog := progress
		if i == 1 {
			prog = nil // one progress stream: A's
		}
		go func() {
			defer wg.Done()
			outs[i] = runWorkload(ctx, ls[i].argv, ls[i].env, s, start, prog, &pairing{measured: done, release: release})
			done() // measured or not, it no longer holds its partner
			if outs[i].status != StatusOK {
				stop() // a failure ends the pair
			}
		}()
	}
	go func() { measured.Wait(); stop() }()
	wg.Wait()
	stop()
	return outs
}

// mpsControl is NVIDIA's MPS control program.
const mpsControl = "nvidia-cuda-mps-control"

// startMPS starts an MPS control daemon with private pipe and log folders
// for the GPUs of env (CUDA_VISIBLE_DEVICES), and returns the variables
// that make a process its client and a function that stops it.
func startMPS(env []string) ([]string, func(), error) {
	bin, err := exec.LookPath(mpsControl)
	if err != nil {
		return nil, nil, fmt.Errorf("MPS is not available here: %w", err)
	}
	dir, err := os.MkdirTemp("", "fairbench-mps-")
	if err != nil {
		return nil, nil, fmt.Errorf("MPS: %w", err)
	}
	vars := []string{"CUDA_MPS_PIPE_DIRECTORY=" + filepath.Join(dir, "pipe"), "CUDA_MPS_LOG_DIRECTORY=" + filepath.Join(dir, "log")}
	for _, d := range []string{"pipe", "log"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			os.RemoveAll(dir)
			return nil, nil, fmt.Errorf("MPS: %w", err)
		}
	}
	all := append(append(os.Environ(), env...), vars...)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-d")
	cmd.Env = all
	if out, err := cmd.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, nil, fmt.Errorf("MPS: %s -d: %w: %s", mpsControl, err, strings.TrimSpace(string(out)))
	}
	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		q := exec.CommandContext(ctx, bin)
		q.Env = all
		q.Stdin = strings.NewReader("quit\n")
		_ = q.Run()
		os.RemoveAll(dir)
	}
	return vars, stop, nil
}
