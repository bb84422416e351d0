package runs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"fairbench/internal/atomicfile"
	"fairbench/internal/input"
	"fairbench/models"

	"fairbench/scenarios"
	"fairbench/sim"
	"fairbench/solvers"
)

// Options says how to execute runs.
type Options struct {
	Registry *solvers.Registry
	// Version and Backend are recorded in every result (fairbench version,
	// LP/MIP solver backend).
	Version, Backend string
	// Clock, when set, measures solver time per decision; the timings go to
	// a separate file so the result file stays byte-identical across runs.
	Clock func() time.Duration
	// Events keeps the run's event log (JSON lines), up to
	// input.MaxRecordBytes (a longer one fails the run).
	Events bool
}

// Outcome is one executed run: its record and the optional event log.
type Outcome struct {
	Record *Record
	Events []byte
}

// Execute builds the run's workload, simulates it under its policy and
// returns the record. Nothing is written.
func Execute(r scenarios.Run, o Options) (*Outcome, error) {
	return ExecuteContext(context.Background(), r, o)
}

// ExecuteContext is Execute that stops at the simulation's next event once
// ctx is cancelled, returning ctx's cause.
func ExecuteContext(ctx context.Context, r scenarios.Run, o Options) (*Outcome, error) {
	w, err := r.Spec.Build(r.Seed)
	if err != nil {
		return nil, err
	}
	cfg := SimConfig(w, o.Clock)
	p, err := o.Registry.New(r.Policy, PolicyConfig(w, r.Policy, r.Seed))
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", r.ID, err)
	}
	var log bytes.Buffer
	if o.Events {
		enc := json.NewEncoder(&log)
		cfg.OnEvent = func(e sim.Event) {
			if log.Len() <= input.MaxRecordBytes {
				_ = enc.Encode(e)
			}
		}
	}
	res, err := sim.RunContext(ctx, cfg, p)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", r.ID, err)
	}
	if log.Len() > input.MaxRecordBytes {
		return nil, fmt.Errorf("run %s: --events: the event log passed %s, the limit of a result file (run it without --events)", r.ID, input.Size(input.MaxRecordBytes))
	}
	point := map[string]any{}
	for _, a := range r.Point {
		point[a.Path] = a.Value
	}
	rec := &Record{
		ID: r.ID, Scenario: r.Spec.Name, Policy: r.Policy, Seed: r.Seed, Point: point,
		Fairbench: o.Version, Backend: o.Backend, Spec: r.Spec, Result: res,
	}
	return &Outcome{Record: rec, Events: log.Bytes()}, nil
}

// SimConfig is the simulator's configuration for a built workload: its
// environment, users, jobs, round, restore costs and measurement window.
// clock may be nil.
func SimConfig(w *scenarios.Workload, clock func() time.Duration) sim.Config {
	cfg := sim.Config{
		Environment: w.Environment, Users: w.Users, Jobs: w.Jobs, Round: w.Round, Clock: clock,
		Costs: costsOf(w),
	}
	if m := w.Measure; m != (scenarios.MeasureSpec{}) {
		cfg.Measure = &sim.Window{From: models.JobID(m.FromJob), To: models.JobID(m.ToJob),
			StopWhenDone: m.Stop == scenarios.StopWindowDone}
	}
	return cfg
}

// PolicyConfig is what a run of policy with seed builds the policy with:
// the scenario's options for it, its own random stream drawn from the seed,
// and the workload's restore costs (the same costs SimConfig charges).
func PolicyConfig(w *scenarios.Workload, policy string, seed int64) solvers.Config {
	return solvers.Config{Options: w.Options(policy), Rand: scenarios.Stream(seed, "policy"), Restore: costsOf(w).Restore}
}

// costsOf is the workload's checkpoint-restore costs.
func costsOf(w *scenarios.Workload) sim.Costs {
	return sim.Costs{PerType: w.Restore, BandwidthGBps: w.BandwidthGBPerSecond}
}

// Write stores an outcome in dir: <id>.json (the record), <id>.jobs.csv,
// and, when present, <id>.events.jsonl and <id>.timing.csv. Every file is
// encoded before any is written, and all are put in place together
// (atomicfile.WriteAll) with the record last, so a run that fails to
// encode or write leaves none of its files, and a record's presence means
// the run's files are complete.
func Write(dir string, out *Outcome) error {
	r := out.Record
	base := filepath.Join(dir, r.ID)
	var jobs bytes.Buffer
	if err := JobsCSV(&jobs, r.Result); err != nil {
		return err
	}
	files := []atomicfile.File{{Path: base + ".jobs.csv", Data: jobs.Bytes()}}
	if len(out.Events) > 0 {
		files = append(files, atomicfile.File{Path: base + ".events.jsonl", Data: out.Events})
	}
	if len(r.Result.Decisions) > 0 {
		var t bytes.Buffer
		if err := TimingCSV(&t, r.Result); err != nil {
			return err
		}
		files = append(files, atomicfile.File{Path: base + ".timing.csv", Data: t.Bytes()})
	}
	// Solver timings are wall-clock measurements: they live in the timing
	// file, never in the record, which must be byte-identical across runs.
	saved := r.Result.Decisions
	r.Result.Decisions = nil
	b, err := r.Encode()
	r.Result.Decisions = saved
	if err != nil {
		return err
	}
	files = append(files, atomicfile.File{Path: base + ".json", Data: b})
	return atomicfile.WriteAll(files...)
}
