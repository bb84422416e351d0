package sim

import (
	"fmt"
	"slices"
	"sort"

	"fairbench/models"
)

// This file realises placements (models.WholeGPUs, models.CoLocated, and
// each round of models.TimeShares once ShareRound has chosen who runs): the
// pure function from assignments and where the jobs run now to GPUs.

// Holding is where a job runs now: its GPU type and GPUs (none when it
// waits), and its gang.
type Holding struct {
	Type string
	GPUs []int
	Gang int
}

// Slot is one job's placement: its gang on GPUs of one type, with the
// gradient-accumulation setting of its assignment.
type Slot struct {
	Job   models.JobID
	Type  string
	GPUs  []int
	Accum int
}

// PlaceGangs turns assignments into GPUs. now gives, for every assigned job,
// where it runs now. Named GPUs are taken as given (and may overlap: a
// co-located allocation names shared GPUs). Then, per type, a job that stays
// on its type keeps its current GPUs when they are all still free (no
// migration); the others are placed largest gang first (ties in assignment
// order), on the fullest server that still holds the whole gang (best fit,
// so that large gangs find whole servers), or spread over the servers with
// the most free GPUs when no server can hold it. The two jobs of a pair
// (from a time-shares allocation's Pairs) are placed as one gang on the same
// GPUs. Slots come named ones first, then kept ones, then fresh ones, each
// in that order; a kept slot's GPUs, and a named slot's that names the GPUs
// the job holds, are the Holding's own slice, and a pair's two slots share
// one slice. It does not modify its arguments. An
// assignment that finds too few free GPUs is an error.
func PlaceGangs(c *models.Cluster, now map[models.JobID]Holding, run []models.Assignment, pairs [][2]models.JobID) ([]Slot, error) {
	hold := make([]Holding, len(run))
	for i, a := range run {
		hold[i] = now[a.Job]
	}
	out, _, err := (&placer{c: c}).place(run, hold, pairs)
	return out, err
}

// placer is PlaceGangs with its work space kept from call to call (the
// engine places at every decision).
type placer struct {
	c      *models.Cluster
	free   []bool
	rest   []int
	fresh  []int
	named  []int   // placeFast's assignments naming GPUs
	picked [][]int // placeFast's GPUs for its fresh jobs
	out    []Slot
	from   []int
	room   []serverRoom // pick's work space
	// servers lists each type's servers, made at the first pick.
	servers map[string][]int

	// The engine's: the jobs of the assignments, where they run, and the
	// placements made of the slots. Each is valid until the next decision.
	jobs []*job
	hold []Holding
	kept []placement
}

// place is PlaceGangs with hold[i] where run[i].Job runs now (every job is
// assigned at most once). It also returns, per slot, the index into run of
// its job's assignment.
func (p *placer) place(run []models.Assignment, hold []Holding, pairs [][2]models.JobID) ([]Slot, []int, error) {
	if p.free == nil {
		p.free = make([]bool, p.c.TotalGPUs())
	}
	free := p.free
	for g := range free {
		free[g] = true
	}
	out, from := p.out[:0], p.from[:0]
	rest := p.rest[:0] // indices into run still to place
	for i, a := range run {
		if len(a.GPUs) > 0 {
			for _, g := range a.GPUs {
				free[g] = false
			}
			gpus := hold[i].GPUs // where it runs now: the same slice
			if hold[i].Type != a.Type || !slices.Equal(gpus, a.GPUs) {
				gpus = slices.Clone(a.GPUs)
			}
			out = append(out, Slot{Job: a.Job, Type: a.Type, GPUs: gpus, Accum: a.Accum})
			from = append(from, i)
		} else {
			rest = append(rest, i)
		}
	}
	// partner[i] is the index into run of run[i]'s pair partner (pairs
	// only); done[i] marks a partner already placed with its pair.
	var partner map[int]int
	var done map[int]bool
	if len(pairs) > 0 {
		at := make(map[models.JobID]int, len(run))
		for i, a := range run {
			at[a.Job] = i
		}
		partner, done = map[int]int{}, map[int]bool{}
		for _, pr := range pairs {
			a, okA := at[pr[0]]
			b, okB := at[pr[1]]
			if okA && okB {
				partner[a], partner[b] = b, a
			}
		}
	}
	slot := func(i int, typ string, gpus []int) {
		out = append(out, Slot{Job: run[i].Job, Type: typ, GPUs: gpus, Accum: run[i].Accum})
		from = append(from, i)
	}
	fresh := p.fresh[:0]
	for _, i := range rest {
		if done[i] {
			continue
		}
		h := hold[i]
		o, paired := partner[i]
		if h.Type == run[i].Type && allFree(free, h.GPUs) && (!paired || slices.Equal(hold[o].GPUs, h.GPUs)) {
			for _, g := range h.GPUs {
				free[g] = false
			}
			slot(i, h.Type, h.GPUs)
			if paired {
				slot(o, h.Type, h.GPUs)
				done[o] = true
			}
			continue
		}
		fresh = append(fresh, i)
	}
	sort.SliceStable(fresh, func(a, b int) bool { return hold[fresh[a]].Gang > hold[fresh[b]].Gang })
	for _, i := range fresh {
		if done[i] {
			continue
		}
		gang := hold[i].Gang
		gpus := p.pick(free, p.serversOf(run[i].Type), gang)
		if gpus == nil {
			return nil, nil, fmt.Errorf("placement: no %d free %s GPUs for job %d", gang, run[i].Type, run[i].Job)
		}
		slot(i, run[i].Type, gpus)
		if o, ok := partner[i]; ok {
			slot(o, run[i].Type, gpus)
			done[o] = true
		}
	}
	p.rest, p.fresh, p.out, p.from = rest, fresh, out, from
	return out, from, nil
}

// serversOf lists the servers of type typ, in the cluster's order.
func (p *placer) serversOf(typ string) []int {
	if p.servers == nil {
		p.servers = map[string][]int{}
		for i, s := range p.c.Servers {
			p.servers[s.Type] = append(p.servers[s.Type], i)
		}
	}
	return p.servers[typ]
}

// serverRoom is a server (an index into the cluster's) and its free GPUs.
type serverRoom struct{ idx, free int }

// pick chooses gang free GPUs on the servers of one type (of, in the
// cluster's order) and marks them taken.
func (p *placer) pick(free []bool, of []int, gang int) []int {
	c := p.c
	servers := p.room[:0]
	for _, i := range of {
		first := c.FirstGPU(i)
		n := 0
		for _, f := range free[first : first+c.Servers[i].GPUs] {
			if f {
				n++
			}
		}
		if n > 0 {
			servers = append(servers, serverRoom{i, n})
		}
	}
	p.room = servers[:0]
	best := -1
	for k, s := range servers {
		if s.free >= gang && (best < 0 || s.free < servers[best].free) {
			best = k
		}
	}
	if best >= 0 {
		servers = servers[best : best+1]
	} else {
		slices.SortStableFunc(servers, func(a, b serverRoom) int { return b.free - a.free })
	}
	gpus := make([]int, 0, gang)
	for _, s := range servers {
		for g := c.FirstGPU(s.idx); g < c.FirstGPU(s.idx)+c.Servers[s.idx].GPUs && len(gpus) < gang; g++ {
			if free[g] {
				gpus = append(gpus, g)
			}
		}
	}
	if len(gpus) < gang || len(gpus) == 0 {
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
