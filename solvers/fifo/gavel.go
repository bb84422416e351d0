package fifo

import (
	"sort"

	"fairbench/models"
	"fairbench/solvers"
)

// Registered name and summary of Gavel's heterogeneity-aware FIFO.
const (
	GavelName    = "gavel-fifo"
	GavelSummary = "Gavel's fifo_perf: at each allocation every active job, in arrival order, goes to the fastest type with room for its gang (jobs move up as faster GPUs free); head-of-line blocking; Gavel's re-solve cadence"
)

// Gavel is Gavel's FIFO policy in its heterogeneity-aware ("perf") mode
// (Narayanan et al., OSDI 2020, the FIFO baseline; docs/algorithms/fifo.md).
// Each allocation starts from an empty cluster: the active jobs, in arrival
// order, each take the type with the highest throughput among those with at
// least its gang of GPUs still free (ties to the type whose name sorts
// first, as Gavel's code has it); the first job that fits on no type stops
// the walk (head-of-line blocking). A job whose best free type cannot run it
// at all is passed over. So running jobs move to faster GPUs when those free
// up — Gavel re-allocates on every call, unlike fairbench's fifo, which never
// preempts.
//
// The round rules are Gavel's: the allocation is recomputed only on Gavel's
// cadence (option resolve_seconds, default 1920), and in between it stays as
// it is — GPUs freed by a finishing job stay idle and new jobs wait, as in
// Gavel's simulator, whose round mechanism skips FIFO jobs without a share.
//
// Gavel's other FIFO mode, "base" (its policy fifo), draws a random type for
// each job but, through a bug, places it on the last type its loop looked at
// (V100 while V100 has free GPUs), even where the gang does not fit, which
// over-commits one type at a time. That allocation is infeasible in
// fairbench's model, so the mode is not offered; docs/algorithms/fifo.md
// describes it.
type Gavel struct {
	solvers.Paced
}

var (
	_ solvers.Policy    = (*Gavel)(nil)
	_ solvers.Triggered = (*Gavel)(nil)
	_ solvers.Rounds    = (*Gavel)(nil)
)

// NewGavel builds gavel-fifo from solvers.RoundOptions.
func NewGavel(c solvers.Config) (solvers.Policy, error) {
	p, err := solvers.GavelPaced(GavelName, c, false)
	if err != nil {
		return nil, err
	}
	return &Gavel{p}, nil
}

// Name is "gavel-fifo".
func (*Gavel) Name() string { return GavelName }

// Allocate places the active jobs in arrival order as described on Gavel.
func (*Gavel) Allocate(s *models.Snapshot) (models.Allocation, error) {
	// The types by name (Gavel's ties: the name that sorts first), each
	// with its position in the cluster's list, which indexes a job's row
	// of figures (Snapshot.RowOf).
	names := s.Cluster.TypeNames()
	order := make([]int, len(names))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return names[order[a]] < names[order[b]] })
	free := make([]int, len(names)) // by position in the cluster's list
	gpus := 0
	for i, g := range names {
		free[i] = s.Cluster.Capacity(g)
		gpus += free[i]
	}
	// Each job placed takes a GPU at least: the list is allocated once.
	run := make([]models.Assignment, 0, min(len(s.Jobs), gpus))
	for i := range s.Jobs {
		j := &s.Jobs[i]
		row := s.RowOf(j)
		best, fits := -1, false
		bt := -1.0
		for _, g := range order {
			if free[g] < j.Gang {
				continue
			}
			fits = true
			t := 0.0
			if row != nil {
				t = row[g]
			} else {
				t = s.Throughput(&j.Job, names[g])
			}
			if t > bt {
				best, bt = g, t
			}
		}
		if !fits {
			break
		}
		if bt <= 0 {
			continue
		}
		free[best] -= j.Gang
		run = append(run, models.Assignment{Job: j.ID, Type: names[best]})
	}
	if len(run) == 0 {
		run = nil // nothing placed: no list
	}
	return models.Allocation{Run: run}, nil
}
