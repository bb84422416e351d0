package sim

import (
	"slices"

	"fairbench/models"
)

// An Incremental policy's answer with keep true lists only the jobs that
// change (solvers.Incremental). Where no GPU holds two jobs and every
// assignment starts a job that holds no GPU on GPUs it names, that are
// vacant, in the snapshot's order, the engine checks and places those
// assignments alone and leaves every running job as it is, which is what
// the whole allocation would do (placeFast would keep every running job by
// marks and place the new ones on the GPUs they name, in the same order);
// otherwise, and to report an infeasible answer, it builds the whole
// allocation (solvers.Changes) and takes the usual path.

// changesFast reports whether changes can be adopted alone: the allocation
// in force and changes are whole-GPU ones, no GPU holds two jobs, every
// assignment names its GPUs, for an active job that holds none, in the
// snapshot's order, and the checker passes changes with every GPU it names
// vacant.
func (e *engine) changesFast(snap *models.Snapshot, changes models.Allocation) bool {
	if !e.whole || e.shared != 0 || e.general {
		return false
	}
	if _, ok := changes.Kind().(models.WholeGPUs); !ok {
		return false
	}
	last := -1
	for i := range changes.Run {
		a := &changes.Run[i]
		j, at := e.jobOf(a.Job), e.locate(a.Job)
		if len(a.GPUs) == 0 || j == nil || at <= last || j.running() {
			return false
		}
		last = at
		for _, g := range a.GPUs {
			if g < 0 || g >= len(e.vacant) || !e.vacant[g] {
				return false
			}
		}
	}
	// The checker sees the new assignments alone: each job's figure, gang
	// and type, and the GPUs named, distinct and of the type. GPUs of the
	// type that are vacant and distinct stay within its capacity.
	return e.check.Feasible(snap, changes) == nil
}

// adoptChanges puts changes, which changesFast passed, in force: as adopt
// would the whole allocation, with every running job kept by marks.
func (e *engine) adoptChanges(changes models.Allocation) {
	k := changes.Kind()
	e.whole = true
	e.hold(k)
	e.marks++
	e.byMarks++
	e.byChanges++
	ps := e.placer.kept[:0]
	for i := range changes.Run {
		a := &changes.Run[i]
		ps, _ = e.priced(ps, placement{job: e.jobOf(a.Job), typ: a.Type, gpus: slices.Clone(a.GPUs), accum: a.Accum})
	}
	e.placer.kept = ps
	e.keepAll = true
	e.apply(ps)
}
