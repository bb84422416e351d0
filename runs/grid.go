package runs

import (
	"errors"
	"fmt"
	"sync"

	"fairbench/scenarios"
	"fairbench/sim"
)

// Progress is told about each finished run (err is nil on success).
type Progress func(done, total int, run scenarios.Run, err error)

// Grid executes runs on `workers` goroutines, writes each outcome to dir as
// soon as it is done, and returns a summary record per successful run, in
// run order (Jobs and Series dropped, so memory stays bounded by the number
// of workers, not the size of the grid). A failed run writes nothing; the
// others go on, and the error lists every failed run.
func Grid(runs []scenarios.Run, dir string, workers int, o Options, progress Progress) ([]*Record, error) {
	workers = max(1, min(workers, len(runs)))
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
				oc, err := Execute(runs[i], o)
				if err == nil {
					err = Write(dir, oc)
				}
				if err == nil {
					out[i] = summaryOnly(oc.Record)
				}
				errs[i] = err
				mu.Lock()
				done++
				if progress != nil {
					progress(done, len(runs), runs[i], err)
				}
				mu.Unlock()
			}
		}()
	}
	for i := range runs {
		next <- i
	}
	close(next)
	wg.Wait()
	var failed []error
	var recs []*Record
	for i, r := range out {
		if errs[i] != nil {
			failed = append(failed, fmt.Errorf("run %s (%s, seed %d): %w", runs[i].ID, runs[i].Policy, runs[i].Seed, errs[i]))
			continue
		}
		recs = append(recs, r)
	}
	return recs, errors.Join(failed...)
}

// summaryOnly is r without its per-job results and time series.
func summaryOnly(r *Record) *Record {
	c := *r
	c.Result = &sim.Result{Policy: r.Result.Policy, Summary: r.Result.Summary, Users: r.Result.Users}
	return &c
}
