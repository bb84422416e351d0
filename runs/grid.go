package runs

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"fairbench/scenarios"
	"fairbench/sim"
)

// Progress is told about each run as it ends: executed (err nil), skipped
// because a complete result was already there, or failed.
type Progress func(done, total int, run scenarios.Run, skipped bool, err error)

// GridOptions says how a grid runs.
type GridOptions struct {
	// Workers is the number of runs executed at once (at least 1).
	Workers int
	// Force recomputes runs whose complete result is already in the folder.
	Force bool
	// Progress, when set, is called after every run.
	Progress Progress
	// Whole is the whole grid when runs is one shard of it; its manifest is
	// written (see WriteManifest). Nil means runs is the whole grid.
	Whole []scenarios.Run
}

// Grid executes runs on g.Workers goroutines and writes each outcome to dir
// as soon as it is done. A run whose complete result is already in dir is
// skipped (unless g.Force), so a killed grid resumes where it stopped. It
// returns a summary record per run that has a result, in run order (Jobs and
// Series dropped, so memory is bounded by the number of workers, not the
// size of the grid). A failed run writes nothing; the others go on, and the
// error lists every failed run. The whole grid's manifest is written first
// (see WriteManifest).
func Grid(runs []scenarios.Run, dir string, o Options, g GridOptions) ([]*Record, error) {
	return GridContext(context.Background(), runs, dir, o, g)
}

// GridContext is Grid that stops once ctx is cancelled: no new run starts,
// runs in progress stop at their simulation's next event and write
// nothing, and the error wraps ctx's cause (the runs that finished before
// keep their files).
func GridContext(ctx context.Context, runs []scenarios.Run, dir string, o Options, g GridOptions) ([]*Record, error) {
	whole := g.Whole
	if whole == nil {
		whole = runs
	}
	if err := WriteManifest(dir, whole, o.Version); err != nil {
		return nil, err
	}
	workers := max(1, min(g.Workers, len(runs)))
	out := make([]*Record, len(runs))
	errs := make([]error, len(runs))
	next := make(chan int)
	var mu sync.Mutex
	done := 0
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				rec, skipped, err := runOne(ctx, runs[i], dir, o, g.Force)
				out[i], errs[i] = rec, err
				mu.Lock()
				done++
				if g.Progress != nil {
					g.Progress(done, len(runs), runs[i], skipped, err)
				}
				mu.Unlock()
			}
		}()
	}
	started := make([]bool, len(runs))
dispatch:
	for i := range runs {
		select {
		case next <- i:
			started[i] = true
		case <-ctx.Done():
			break dispatch
		}
	}
	close(next)
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, fmt.Errorf("grid stopped: %w", err)
	}
	var failed []error
	var recs []*Record
	for i, r := range out {
		if !started[i] {
			continue
		}
		if errs[i] != nil {
			failed = append(failed, fmt.Errorf("run %s (%s, seed %d): %w", runs[i].ID, runs[i].Policy, runs[i].Seed, errs[i]))
			continue
		}
		recs = append(recs, r)
	}
	return recs, errors.Join(failed...)
}

// runOne returns the run's summary: read back from a complete result in dir,
// or computed and written now.
func runOne(ctx context.Context, r scenarios.Run, dir string, o Options, force bool) (*Record, bool, error) {
	if !force {
		if rec, ok := Complete(dir, r.ID); ok {
			return summaryOnly(rec), true, nil
		}
	}
	removeTemps(dir, r.ID)
	oc, err := ExecuteContext(ctx, r, o)
	if err == nil {
		if err = context.Cause(ctx); err == nil {
			err = Write(dir, oc)
		}
	}
	if err != nil {
		return nil, false, err
	}
	return summaryOnly(oc.Record), false, nil
}

// summaryOnly is r without its per-job results and time series.
func summaryOnly(r *Record) *Record {
	c := *r
	c.Result = &sim.Result{Policy: r.Result.Policy, Summary: r.Result.Summary, Users: r.Result.Users}
	return &c
}
