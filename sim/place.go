package sim

import (
	"fmt"
	"slices"
	"sort"

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

// place turns assignments into GPUs. Named GPUs are taken as given. Then, per
// type, a job that stays on its type keeps its current GPUs when they are all
// still free (no migration); the others are placed largest gang first, on the
// fullest server that still holds the whole gang (best fit, so that large
// gangs find whole servers), or spread over the servers with the most free
// GPUs when no server can hold it. A spread gang runs at the matrix's spread
// throughput; a job whose placement has no measured figure does not run this
// time and is counted in Summary.Unplaced. The two jobs of a pair (from a
// space-sharing allocation) are placed as one gang on the same GPUs.
func (e *engine) place(run []models.Assignment, pairs [][2]models.JobID) ([]placement, error) {
	c := e.cfg.Cluster
	free := make([]bool, c.TotalGPUs())
	for g := range free {
		free[g] = true
	}
	byID := e.byID
	out := make([]placement, 0, len(run))
	var rest []int // indices into run still to place
	for i, a := range run {
		if len(a.GPUs) > 0 {
			for _, g := range a.GPUs {
				free[g] = false
			}
			out = append(out, placement{job: byID[a.Job], typ: a.Type, gpus: slices.Clone(a.GPUs), accum: a.Accum})
		} else {
			rest = append(rest, i)
		}
	}
	accum := map[*job]int{}
	for _, a := range run {
		accum[byID[a.Job]] = a.Accum
	}
	partner := map[*job]*job{}
	for _, p := range pairs {
		a, b := byID[p[0]], byID[p[1]]
		partner[a], partner[b] = b, a
	}
	done := map[*job]bool{}
	var fresh []int
	for _, i := range rest {
		j := byID[run[i].Job]
		if done[j] {
			continue
		}
		o := partner[j]
		if j.typ == run[i].Type && allFree(free, j.gpus) && (o == nil || slices.Equal(o.gpus, j.gpus)) {
			for _, g := range j.gpus {
				free[g] = false
			}
			out = append(out, placement{job: j, typ: j.typ, gpus: j.gpus})
			if o != nil {
				out = append(out, placement{job: o, typ: j.typ, gpus: j.gpus})
				done[o] = true
			}
			continue
		}
		fresh = append(fresh, i)
	}
	sort.SliceStable(fresh, func(a, b int) bool {
		return byID[run[fresh[a]].Job].spec.Gang > byID[run[fresh[b]].Job].spec.Gang
	})
	for _, i := range fresh {
		j := byID[run[i].Job]
		if done[j] {
			continue
		}
		gpus := e.pick(free, run[i].Type, j.spec.Gang)
		if gpus == nil {
			return nil, fmt.Errorf("placement: no %d free %s GPUs for job %d", j.spec.Gang, run[i].Type, j.spec.ID)
		}
		out = append(out, placement{job: j, typ: run[i].Type, gpus: gpus})
		if o := partner[j]; o != nil {
			out = append(out, placement{job: o, typ: run[i].Type, gpus: gpus})
			done[o] = true
		}
	}
	kept := out[:0]
	for _, p := range out {
		p.accum = accum[p.job]
		p.place = models.Consolidated
		if !oneServer(c, p.gpus) {
			p.place = models.Spread
		}
		p.base, _ = models.AccumThroughput(e.cfg.JobTypes, e.cfg.Matrix, &p.job.spec, p.typ, p.place, p.accum)
		if p.base <= 0 {
			e.unplaced++
			continue
		}
		kept = append(kept, p)
	}
	return kept, nil
}

// pick chooses gang free GPUs of type typ and marks them taken.
func (e *engine) pick(free []bool, typ string, gang int) []int {
	c := e.cfg.Cluster
	type srv struct{ idx, free int }
	var servers []srv
	for i, s := range c.Servers {
		if s.Type != typ {
			continue
		}
		n := 0
		for g := c.FirstGPU(i); g < c.FirstGPU(i)+s.GPUs; g++ {
			if free[g] {
				n++
			}
		}
		if n > 0 {
			servers = append(servers, srv{i, n})
		}
	}
	best := -1
	for k, s := range servers {
		if s.free >= gang && (best < 0 || s.free < servers[best].free) {
			best = k
		}
	}
	if best >= 0 {
		servers = servers[best : best+1]
	} else {
		sort.SliceStable(servers, func(a, b int) bool { return servers[a].free > servers[b].free })
	}
	var gpus []int
	for _, s := range servers {
		for g := c.FirstGPU(s.idx); g < c.FirstGPU(s.idx)+c.Servers[s.idx].GPUs && len(gpus) < gang; g++ {
			if free[g] {
				gpus = append(gpus, g)
			}
		}
	}
	if len(gpus) < gang {
		return nil
	}
	for _, g := range gpus {
		free[g] = false
	}
	slices.Sort(gpus)
	return gpus
}

func allFree(free []bool, gpus []int) bool {
	if len(gpus) == 0 {
		return false
	}
	for _, g := range gpus {
		if !free[g] {
			return false
		}
	}
	return true
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
	next := make(map[*job]*placement, len(ps))
	for i := range ps {
		next[ps[i].job] = &ps[i]
	}
	was := make(map[*job]bool, len(e.running))
	for _, j := range e.running {
		was[j] = true
		p, stays := next[j]
		if stays && p.typ == j.typ && slices.Equal(p.gpus, j.gpus) {
			// Unchanged GPUs: keeps running, no cost; a new accumulation
			// setting only changes its speed (rerate settles it).
			j.accum, j.base = p.accum, p.base
			delete(next, j)
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
	placed := map[*job]bool{}
	var events []Event
	for i := range ps {
		p := &ps[i]
		if _, changed := next[p.job]; !changed {
			continue
		}
		j := p.job
		j.settle(e.now)
		kind := Start
		switch {
		case j.firstRun < 0:
			j.firstRun = e.now
		case !was[j]:
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
		placed[j] = true
		ev := Event{Kind: kind, Job: j.spec.ID, Type: j.typ, GPUs: j.gpus}
		if kind != Start {
			ev.Cost = j.restore.Seconds()
		}
		events = append(events, ev)
	}
	// Keep running jobs in arrival order so every later scan is deterministic.
	slices.SortFunc(e.running, func(a, b *job) int { return a.seq - b.seq })
	e.rerate(placed)
	for _, ev := range events {
		ev.Rate = e.byID[ev.Job].rate
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
