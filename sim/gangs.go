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
// in that order; a kept slot's GPUs are the Holding's own slice, and a
// pair's two slots share one slice. It does not modify its arguments. An
// assignment that finds too few free GPUs is an error.
func PlaceGangs(c *models.Cluster, now map[models.JobID]Holding, run []models.Assignment, pairs [][2]models.JobID) ([]Slot, error) {
	free := make([]bool, c.TotalGPUs())
	for g := range free {
		free[g] = true
	}
	out := make([]Slot, 0, len(run))
	accum := make(map[models.JobID]int, len(run))
	var rest []int // indices into run still to place
	for i, a := range run {
		accum[a.Job] = a.Accum
		if len(a.GPUs) > 0 {
			for _, g := range a.GPUs {
				free[g] = false
			}
			out = append(out, Slot{Job: a.Job, Type: a.Type, GPUs: slices.Clone(a.GPUs)})
		} else {
			rest = append(rest, i)
		}
	}
	partner := map[models.JobID]models.JobID{}
	for _, p := range pairs {
		partner[p[0]], partner[p[1]] = p[1], p[0]
	}
	done := map[models.JobID]bool{}
	var fresh []int
	for _, i := range rest {
		id := run[i].Job
		if done[id] {
			continue
		}
		h := now[id]
		o, paired := partner[id]
		if h.Type == run[i].Type && allFree(free, h.GPUs) && (!paired || slices.Equal(now[o].GPUs, h.GPUs)) {
			for _, g := range h.GPUs {
				free[g] = false
			}
			out = append(out, Slot{Job: id, Type: h.Type, GPUs: h.GPUs})
			if paired {
				out = append(out, Slot{Job: o, Type: h.Type, GPUs: h.GPUs})
				done[o] = true
			}
			continue
		}
		fresh = append(fresh, i)
	}
	sort.SliceStable(fresh, func(a, b int) bool { return now[run[fresh[a]].Job].Gang > now[run[fresh[b]].Job].Gang })
	for _, i := range fresh {
		id := run[i].Job
		if done[id] {
			continue
		}
		gang := now[id].Gang
		gpus := pick(c, free, run[i].Type, gang)
		if gpus == nil {
			return nil, fmt.Errorf("placement: no %d free %s GPUs for job %d", gang, run[i].Type, id)
		}
		out = append(out, Slot{Job: id, Type: run[i].Type, GPUs: gpus})
		if o, ok := partner[id]; ok {
			out = append(out, Slot{Job: o, Type: run[i].Type, GPUs: gpus})
			done[o] = true
		}
	}
	for i := range out {
		out[i].Accum = accum[out[i].Job]
	}
	return out, nil
}

// pick chooses gang free GPUs of type typ and marks them taken.
func pick(c *models.Cluster, free []bool, typ string, gang int) []int {
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
