// Package fifo is the non-preemptive first-in-first-out baseline: jobs start
// in arrival order and, once started, keep their GPUs until they finish.
//
// It is the FIFO baseline of Tiresias (Gu et al., NSDI 2019, §6; the
// authors' simulator's "fifo" schedule) and of SJF-BSBF (Luo et al.,
// IWQoS 2024): strict head-of-line blocking, so a job that cannot start
// blocks every later one. With the backfill option it is Tiresias' "fjf"
// (fit-job-first) schedule instead: a job that does not fit is passed over and
// later jobs that fit start.
//
// gavel-fifo (gavel.go) is Gavel's heterogeneity-aware FIFO, which re-places
// every job at each allocation. docs/algorithms/fifo.md describes both.
package fifo

import (
	"fmt"

	"fairbench/models"
	"fairbench/solvers"
)

// Name is the policy's registered name.
const Name = "fifo"

// Summary is the one-line description the registry shows.
const Summary = "non-preemptive first-in-first-out, strict head-of-line blocking (option backfill)"

// Options are fifo's settings.
type Options struct {
	// Backfill lets a later job start when an earlier one does not fit
	// (default false: strict FIFO).
	Backfill bool `mapstructure:"backfill"`
}

// FIFO is the policy. It keeps no state between decisions.
type FIFO struct {
	opts Options
	pack solvers.Packer // packs into the last Run returned
}

var (
	_ solvers.Policy    = (*FIFO)(nil)
	_ solvers.Triggered = (*FIFO)(nil)
)

// New builds fifo from its options.
func New(c solvers.Config) (solvers.Policy, error) {
	var o Options
	if err := c.Decode(&o); err != nil {
		return nil, fmt.Errorf("fifo: options: %w", err)
	}
	return &FIFO{opts: o}, nil
}

// Name is "fifo".
func (*FIFO) Name() string { return Name }

// Triggers: fifo decides at arrivals and completions, so a job starts as soon
// as GPUs are free for it. Round starts change nothing for a non-preemptive
// policy whose order does not depend on time, so it skips them.
func (*FIFO) Triggers() models.Trigger {
	return models.AtArrival | models.AtCompletion
}

// Allocate re-lists every running job on its current type (non-preemptive),
// then walks the waiting jobs in arrival order (s.Jobs' order), starting each
// on the fastest type with room for its whole gang (solvers.Fastest). Without
// backfill the first waiting job that cannot start ends the walk; a job that
// no type of the cluster can run never blocks.
func (f *FIFO) Allocate(s *models.Snapshot) (models.Allocation, error) {
	p := &f.pack
	p.Reset(s)
	for i := range s.Jobs {
		if j := &s.Jobs[i]; j.Running() {
			p.Stay(j)
		}
	}
	waiting := func(yield func(*models.JobState) bool) {
		for i := range s.Jobs {
			if j := &s.Jobs[i]; !j.Running() && !yield(j) {
				return
			}
		}
	}
	p.PlaceSeqBy(waiting, p.Fastest, !f.opts.Backfill)
	return models.Allocation{Run: p.Finish()}, nil
}
