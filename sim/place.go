package sim

import (
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
func (e *engine) place(run []models.Assignment, pairs [][2]models.JobID) ([]placement, error) {
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
		p.place = models.Consolidated
		if !oneServer(e.cfg.Cluster, p.gpus) {
			p.place = models.Spread
		}
		p.base = e.base(p)
		if p.base <= 0 {
			e.unplaced++
			continue
		}
		kept = append(kept, p)
	}
	return kept, nil
}

// base is p's job's throughput alone at p: AccumThroughput, from the job's
// table of figures (made at its first placement) when it runs without
// gradient accumulation.
func (e *engine) base(p placement) float64 {
	j := p.job
	g, ok := e.rounds.typeIdx[p.typ]
	if p.accum > 1 || !ok {
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
// preempted, jobs that move pay their restore cost, new jobs start.
func (e *engine) apply(ps []placement) {
	e.epoch++
	ep := e.epoch
	// A job of ps is marked with the epoch (j.inPlan) and its slot (j.slot);
	// one that keeps its GPUs loses the mark, so that only changed ones
	// are started below.
	for i := range ps {
		ps[i].job.inPlan, ps[i].job.slot = ep, i
	}
	for _, j := range e.running {
		j.wasRunning = ep
		stays := j.inPlan == ep
		if stays && ps[j.slot].typ == j.typ && slices.Equal(ps[j.slot].gpus, j.gpus) {
			p := &ps[j.slot]
			// Unchanged GPUs: keeps running, no cost; a new accumulation
			// setting only changes its speed (rerate settles it).
			j.accum, j.base = p.accum, p.base
			j.inPlan = 0
			continue
		}
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
	e.running = slices.DeleteFunc(e.running, func(j *job) bool { return !j.running() })
	kept := len(e.running)
	var events []Event
	for i := range ps {
		p := &ps[i]
		j := p.job
		if j.inPlan != ep {
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
		j.typ, j.gpus, j.place, j.accum, j.base = p.typ, p.gpus, p.place, p.accum, p.base
		for _, g := range j.gpus {
			e.occ[g] = append(e.occ[g], j)
			if len(e.occ[g]) > 1 {
				for _, o := range e.occ[g][:len(e.occ[g])-1] {
					e.countDefault(j, o)
				}
			}
		}
		e.running = append(e.running, j)
		ev := Event{Kind: kind, Job: j.spec.ID, Type: j.typ, GPUs: j.gpus}
		if kind != Start {
			ev.Cost = j.restore.Seconds()
		}
		events = append(events, ev)
	}
	// Keep running jobs in arrival order so every later scan is deterministic.
	e.mergeStarted(kept)
	e.rerate(ep)
	for _, ev := range events {
		ev.Rate = e.jobOf(ev.Job).rate
		e.emit(ev)
	}
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
