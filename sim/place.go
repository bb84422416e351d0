package sim

import (
	"fmt"
	"slices"

	"fairbench/models"
)

// placement is where one job's gang runs until the next decision.
type placement struct {
	job   *job
	typ   string
	gpus  []int
	place models.Placement
	accum int
	base  float64 // throughput alone at this placement
}

// place turns assignments into GPUs with PlaceGangs, from where the jobs run
// now, and prices each placement: a job whose placement has no measured
// figure does not run this time and is counted in Summary.Unplaced.
// Placements that leave a running job on its GPUs as they are may be left
// out of the list and marked instead (placeFast); apply reads both.
func (e *engine) place(run []models.Assignment, pairs [][2]models.JobID) ([]placement, error) {
	e.keep = 0
	if len(pairs) == 0 && e.shared == 0 && !e.general {
		if ps, ok, err := e.placeFast(run); ok || err != nil {
			return ps, err
		}
	}
	return e.placeGeneral(run, pairs)
}

// placeGeneral is place by PlaceGangs, every placement listed.
func (e *engine) placeGeneral(run []models.Assignment, pairs [][2]models.JobID) ([]placement, error) {
	jobs, hold := e.placer.jobs[:0], e.placer.hold[:0]
	for _, a := range run {
		j := e.jobOf(a.Job)
		jobs, hold = append(jobs, j), append(hold, Holding{Type: j.typ, GPUs: j.gpus, Gang: j.spec.Gang})
	}
	e.placer.jobs, e.placer.hold = jobs, hold
	slots, from, err := e.placer.place(run, hold, pairs)
	if err != nil {
		return nil, err
	}
	kept := e.placer.kept[:0]
	defer func() { e.placer.kept = kept }()
	for k, sl := range slots {
		p := placement{job: jobs[from[k]], typ: sl.Type, gpus: sl.GPUs, accum: sl.Accum}
		if j := p.job; j.running() && p.typ == j.typ && sameSlice(p.gpus, j.gpus) && p.accum == j.accum {
			// Its GPUs and setting as they are: the same figure.
			p.place, p.base = j.place, j.base
			kept = append(kept, p)
			continue
		}
		kept, _ = e.priced(kept, p)
	}
	return kept, nil
}

// priced appends p to ps with its placement and figure, and reports
// whether it did: not when p has no figure (the job does not run this time,
// Summary.Unplaced).
func (e *engine) priced(ps []placement, p placement) ([]placement, bool) {
	p.place = placeOf(e.cfg.Cluster, p.gpus)
	if p.base = e.base(p); p.base <= 0 {
		e.unplaced++
		return ps, false
	}
	return append(ps, p), true
}

// placeFast is place while no GPU holds two jobs, where most assignments
// usually leave a job where it runs: PlaceGangs would keep every running
// job assigned to its own type, without GPUs named or naming the GPUs it
// holds, on its GPUs (they are all free for it), put the jobs whose
// assignments name other GPUs there, and pick GPUs for the others, largest
// gang first, among the GPUs that no job holds or that a job not kept
// leaves, less the GPUs named. A kept job with its gradient-accumulation
// setting unchanged is not listed: it is marked (job.kept = engine.keep),
// so the work of a decision grows with the jobs whose assignment changed,
// not with the jobs running. The placements listed, and their order, are
// place's general path's without those. It declines (false) when named GPUs
// are held by a job kept without naming them (PlaceGangs would move that
// job).
func (e *engine) placeFast(run []models.Assignment) ([]placement, bool, error) {
	e.marks++
	mark := e.marks
	p := &e.placer
	// Indices into run: assignments naming GPUs that are not kept as they
	// are (other GPUs, or a new setting), kept ones with a new setting, and
	// the rest to place.
	named, changed, fresh := p.named[:0], p.rest[:0], p.fresh[:0]
	kept, moved := 0, false // running jobs kept on their GPUs; GPUs named for others
	for i := range run {
		a := &run[i]
		j := e.jobOf(a.Job)
		switch {
		case len(a.GPUs) > 0 && j.held != int32(e.checks) && !(j.running() && j.typ == a.Type && equalGPUs(a.GPUs, j.gpus)):
			named, moved = append(named, i), true
			continue
		case len(a.GPUs) == 0 && (!j.running() || j.typ != a.Type):
			fresh = append(fresh, i)
			continue
		}
		kept++
		j.kept = mark
		switch {
		case a.Accum == j.accum:
		case len(a.GPUs) > 0:
			named = append(named, i)
		default:
			changed = append(changed, i)
		}
	}
	p.named, p.rest, p.fresh = named, changed, fresh
	if moved && e.namedKept(run, named, mark) {
		return nil, false, nil
	}
	var picked [][]int
	if len(fresh) > 0 {
		if p.free == nil {
			p.free = make([]bool, len(e.occ))
		}
		free := p.free
		copy(free, e.vacant)
		if kept < len(e.running) {
			for _, j := range e.running {
				if j.kept != mark {
					for _, g := range j.gpus {
						free[g] = true
					}
				}
			}
		}
		for _, i := range named {
			for _, g := range run[i].GPUs {
				free[g] = false
			}
		}
		gang := func(i int) int { return e.jobOf(run[i].Job).spec.Gang }
		slices.SortStableFunc(fresh, func(a, b int) int { return gang(b) - gang(a) })
		picked = p.picked[:0]
		for _, i := range fresh {
			gpus := p.pick(free, p.serversOf(run[i].Type), gang(i))
			if gpus == nil {
				return nil, true, fmt.Errorf("placement: no %d free %s GPUs for job %d", gang(i), run[i].Type, run[i].Job)
			}
			picked = append(picked, gpus)
		}
		p.picked = picked
	}
	ps := p.kept[:0]
	defer func() { p.kept = ps }()
	// A kept job with a new setting that has no figure does not run: apply
	// takes its GPUs.
	resettle := func(j *job, accum int) {
		var ok bool
		if ps, ok = e.priced(ps, placement{job: j, typ: j.typ, gpus: j.gpus, accum: accum}); !ok {
			j.kept = 0
		}
	}
	for _, i := range named {
		a := &run[i]
		if j := e.jobOf(a.Job); j.kept == mark {
			resettle(j, a.Accum)
		} else {
			ps, _ = e.priced(ps, placement{job: j, typ: a.Type, gpus: slices.Clone(a.GPUs), accum: a.Accum})
		}
	}
	for _, i := range changed {
		resettle(e.jobOf(run[i].Job), run[i].Accum)
	}
	for k, i := range fresh {
		ps, _ = e.priced(ps, placement{job: e.jobOf(run[i].Job), typ: run[i].Type, gpus: picked[k], accum: run[i].Accum})
	}
	clear(picked)
	e.keep = mark
	e.byMarks++
	return ps, true, nil
}

// namedKept reports whether a GPU named by an assignment of named whose job
// is not kept (mark) is held by a kept job.
func (e *engine) namedKept(run []models.Assignment, named []int, mark int) bool {
	for _, i := range named {
		if e.jobOf(run[i].Job).kept == mark {
			continue
		}
		for _, g := range run[i].GPUs {
			for _, o := range e.occ[g] {
				if o.kept == mark {
					return true
				}
			}
		}
	}
	return false
}

// equalGPUs reports whether a and b list the same GPUs in the same order.
func equalGPUs(a, b []int) bool { return sameSlice(a, b) || slices.Equal(a, b) }

// placeOf is Consolidated when gpus lie on one server, else Spread.
func placeOf(c *models.Cluster, gpus []int) models.Placement {
	if oneServer(c, gpus) {
		return models.Consolidated
	}
	return models.Spread
}

// base is p's job's throughput alone at p: AccumThroughput, from the job's
// table of figures (made at its first placement) when it runs without
// gradient accumulation.
func (e *engine) base(p placement) float64 {
	j := p.job
	g := e.cfg.Cluster.TypeIndex(p.typ) // rounds.typeIdx's index
	if p.accum > 1 || g < 0 {
		b, _ := e.cfg.AccumThroughput(&j.spec, p.typ, p.place, p.accum)
		return b
	}
	if j.iso == nil {
		j.iso = make([]float64, 2*len(e.rounds.typeIdx))
		for t, k := range e.rounds.typeIdx { // each fills its own slots: any order
			for _, pl := range []models.Placement{models.Consolidated, models.Spread} {
				j.iso[2*k+int(pl)], _ = e.cfg.AccumThroughput(&j.spec, t, pl, 0)
			}
		}
	}
	return j.iso[2*g+int(p.place)]
}

// sameSlice reports whether a and b are the same non-empty slice.
func sameSlice(a, b []int) bool {
	return len(a) > 0 && len(a) == len(b) && &a[0] == &b[0]
}

func oneServer(c *models.Cluster, gpus []int) bool {
	for _, g := range gpus[1:] {
		if c.ServerOf(g) != c.ServerOf(gpus[0]) {
			return false
		}
	}
	return true
}

// apply switches the cluster to the new placements: jobs left out are
// preempted, jobs that move pay their restore cost, new jobs start. A
// running job that place marked as kept (job.kept == engine.keep) and did
// not list keeps running as it is.
func (e *engine) apply(ps []placement) {
	e.epoch++
	ep := e.epoch
	keep, keepAll := e.keep, e.keepAll
	e.keep, e.keepAll = 0, false
	// A job of ps is marked with the epoch (j.inPlan) and its slot (j.slot);
	// one that keeps its GPUs loses the mark, so that only changed ones
	// are started below.
	for i := range ps {
		ps[i].job.inPlan, ps[i].job.slot = int32(ep), i
	}
	left := 0 // running jobs that leave their GPUs
	for _, j := range e.running {
		if keepAll {
			break // none is in ps: every one stays as it is
		}
		stays := j.inPlan == int32(ep)
		if keep != 0 && j.kept == keep && !stays {
			continue
		}
		j.wasRunning = ep
		if stays && ps[j.slot].typ == j.typ && slices.Equal(ps[j.slot].gpus, j.gpus) {
			p := &ps[j.slot]
			// Unchanged GPUs: keeps running, no cost; a new accumulation
			// setting only changes its speed (rerate settles it).
			if j.accum != p.accum || j.base != p.base {
				e.markDirty(j)
			}
			j.accum, j.base = p.accum, p.base
			j.inPlan = 0
			continue
		}
		left++
		j.settle(e.now)
		old := j.gpus
		e.release(j)
		if stays {
			e.emit(Event{Kind: Vacate, Job: j.spec.ID, GPUs: old})
		} else {
			j.preemptions++
			e.stale = append(e.stale, j) // its view must stop showing GPUs
			e.emit(Event{Kind: Preempt, Job: j.spec.ID, GPUs: old})
		}
	}
	if left > 0 {
		e.running = slices.DeleteFunc(e.running, func(j *job) bool { return !j.running() })
	}
	kept := len(e.running)
	events := e.events[:0] // reported only to an event log
	for i := range ps {
		p := &ps[i]
		j := p.job
		if j.inPlan != int32(ep) {
			continue
		}
		j.settle(e.now)
		kind := Start
		switch {
		case j.firstRun < 0:
			j.firstRun = e.now
		case j.wasRunning != ep:
			kind = Resume
			j.resumes++
		default:
			kind = Migrate
			j.migrations++
		}
		if kind != Start {
			j.pausedTo = e.now + j.restore
		}
		j.typ, j.gpus, j.place, j.accum, j.base, j.recvAt = p.typ, p.gpus, p.place, p.accum, p.base, -1
		e.occupy(j)
		e.running = append(e.running, j)
		if e.cfg.OnEvent != nil {
			ev := Event{Kind: kind, Job: j.spec.ID, Type: j.typ, GPUs: j.gpus}
			if kind != Start {
				ev.Cost = j.restore.Seconds()
			}
			events = append(events, ev)
		}
	}
	// Keep running jobs in arrival order so every later scan is deterministic.
	e.mergeStarted(kept)
	e.rerate(ep)
	for _, ev := range events {
		ev.Rate = e.jobOf(ev.Job).rate
		e.emit(ev)
	}
	clear(events)
	e.events = events[:0]
}

// countDefault counts a new pair of GPU partners for which the matrix has no
// pair figure in either direction.
func (e *engine) countDefault(a, b *job) {
	for _, p := range [][2]*job{{a, b}, {b, a}} {
		k := models.PairKey{Key: models.Key{Job: p[0].spec.Type, GPU: p[0].typ, Gang: p[0].spec.Gang, Placement: p[0].place}, Other: p[1].spec.Type}
		if _, ok := e.cfg.Matrix.Pair(k); !ok {
			e.defaultXi++
			return
		}
	}
}

// pairKey orders a pair of job IDs.
func pairKey(a, b models.JobID) [2]models.JobID {
	if a > b {
		a, b = b, a
	}
	return [2]models.JobID{a, b}
}

// mergeStarted puts the jobs started just now, running[kept:], among the
// jobs that kept running, running[:kept] (in arrival order), so that all
// are in arrival order.
func (e *engine) mergeStarted(kept int) {
	if kept == len(e.running) {
		return
	}
	bySeq := func(a, b *job) int { return a.seq - b.seq }
	started := e.running[kept:]
	slices.SortFunc(started, bySeq)
	if kept == 0 || e.running[kept-1].seq < started[0].seq {
		return
	}
	e.merged = append(e.merged[:0], e.running[:kept]...)
	old, i, k := e.merged, 0, 0
	for w := range e.running {
		if k == len(started) || (i < len(old) && old[i].seq < started[k].seq) {
			e.running[w] = old[i]
			i++
		} else {
			e.running[w] = started[k]
			k++
		}
	}
	clear(e.merged)
}
