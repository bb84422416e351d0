package fft

import (
	"slices"
	"sort"

	"fairbench/models"
)

// Host placement within a type (docs/algorithms/fft.md: pack gangs onto the fewest
// servers; at churn, consolidate multi-GPU jobs in ascending order of
// migration cost). The program only decides types; FFT names the GPUs
// itself, type by type:
//
//  1. A job that stays on its type keeps its GPUs (no restore).
//  2. The others, largest gang first, go to the server of the type with the
//     fewest free GPUs that still holds the whole gang (best fit, so whole
//     servers stay free for large gangs).
//  3. A gang that no server holds any more (the kept jobs fragment the
//     type): FFT frees a server for it by moving jobs off the server where
//     that is cheapest — jobs that are moving anyway cost nothing, kept ones
//     their migration cost d_j·restore_j in GPU-seconds, cheapest first,
//     each re-placed whole elsewhere — when that costs less than spreading
//     the gang for a round, d_j·round·(1 − T_spread/T_consolidated);
//     otherwise the gang is spread over the servers with the most free GPUs,
//     or, when its spread throughput is unmeasured (0), left out this round.
//  4. Kept multi-GPU jobs that are spread over servers move onto one server
//     with room, in ascending order of migration cost, when their migration
//     costs less than a round of spreading.

// item is one job to place.
type item struct {
	k      int // index in the snapshot
	job    *models.JobState
	gang   int
	stay   bool    // runs on this type now and keeps its GPUs if it can
	cost   float64 // migration cost, GPU-seconds: gang × restore seconds
	cons   float64 // throughput consolidated
	spread float64 // throughput spread (0: unmeasured)
	gpus   []int   // placed GPUs
}

// spreadLoss is the GPU-seconds a round of spreading costs it.
func (it *item) spreadLoss(round float64) float64 {
	if it.spread <= 0 || it.cons <= 0 {
		return inf
	}
	return float64(it.gang) * round * max(0, 1-it.spread/it.cons)
}

const inf = 1e300

// placeStats counts what placement did.
type placeStats struct {
	evictions      int // kept jobs moved off a server to make room for a gang
	consolidations int // spread kept jobs moved onto one server
	spread         int // gangs placed over several servers
	dropped        int // gangs left out: no whole server and no spread figure
}

// typePlacer places the jobs of one type.
type typePlacer struct {
	c       *models.Cluster
	servers []int  // servers of the type
	free    []bool // per GPU of the cluster (shared across types)
	round   float64
	st      *placeStats
}

func (tp *typePlacer) freeOn(s int) int {
	n := 0
	for g := tp.c.FirstGPU(s); g < tp.c.FirstGPU(s)+tp.c.Servers[s].GPUs; g++ {
		if tp.free[g] {
			n++
		}
	}
	return n
}

// bestFit is the server with the fewest free GPUs that holds gang (−1 if
// none), skipping except.
func (tp *typePlacer) bestFit(gang, except int) int {
	best, bf := -1, 0
	for _, s := range tp.servers {
		if s == except {
			continue
		}
		if f := tp.freeOn(s); f >= gang && (best < 0 || f < bf) {
			best, bf = s, f
		}
	}
	return best
}

// take marks gang free GPUs of server s used, lowest index first.
func (tp *typePlacer) take(s, gang int) []int {
	var out []int
	for g := tp.c.FirstGPU(s); g < tp.c.FirstGPU(s)+tp.c.Servers[s].GPUs && len(out) < gang; g++ {
		if tp.free[g] {
			tp.free[g] = false
			out = append(out, g)
		}
	}
	return out
}

func (tp *typePlacer) release(gpus []int) {
	for _, g := range gpus {
		tp.free[g] = true
	}
}

// oneServer reports whether gpus lie on one server.
func (tp *typePlacer) oneServer(gpus []int) bool {
	for _, g := range gpus[1:] {
		if tp.c.ServerOf(g) != tp.c.ServerOf(gpus[0]) {
			return false
		}
	}
	return true
}

// spreadOut takes gang GPUs from the servers with the most free GPUs.
func (tp *typePlacer) spreadOut(gang int) []int {
	ss := append([]int(nil), tp.servers...)
	fr := map[int]int{}
	for _, s := range ss {
		fr[s] = tp.freeOn(s)
	}
	sort.SliceStable(ss, func(a, b int) bool { return fr[ss[a]] > fr[ss[b]] })
	var out []int
	for _, s := range ss {
		if len(out) == gang {
			break
		}
		out = append(out, tp.take(s, min(gang-len(out), fr[s]))...)
	}
	slices.Sort(out)
	return out
}

// place places items (all of this type) and returns them with GPUs set,
// leaving out the dropped ones.
func (tp *typePlacer) place(items []*item) []*item {
	var movers, kept []*item
	for _, it := range items {
		if it.stay && tp.allFree(it.job.LastGPUs) {
			tp.mark(it.job.LastGPUs)
			it.gpus = it.job.LastGPUs
			kept = append(kept, it)
		} else {
			it.stay = false
			movers = append(movers, it)
		}
	}
	sort.SliceStable(movers, func(a, b int) bool { return movers[a].gang > movers[b].gang })
	var pending []*item
	for _, it := range movers {
		if s := tp.bestFit(it.gang, -1); s >= 0 {
			it.gpus = tp.take(s, it.gang)
		} else {
			pending = append(pending, it)
		}
	}
	placed := append(kept, movers...)
	for _, it := range pending {
		if tp.makeRoom(it, placed) {
			continue
		}
		if it.spread > 0 {
			it.gpus = tp.spreadOut(it.gang)
			tp.st.spread++
		} else {
			tp.st.dropped++
		}
	}
	tp.consolidate(kept)
	out := placed[:0]
	for _, it := range placed {
		if len(it.gpus) > 0 {
			out = append(out, it)
		}
	}
	return out
}

// allFree reports whether gpus are free GPUs of this type (a kept job's
// GPUs always are in a simulation; a snapshot from elsewhere may differ).
func (tp *typePlacer) allFree(gpus []int) bool {
	if len(gpus) == 0 {
		return false
	}
	typ := tp.c.Servers[tp.servers[0]].Type
	for _, g := range gpus {
		if g < 0 || g >= len(tp.free) || !tp.free[g] || tp.c.TypeOfGPU(g) != typ {
			return false
		}
	}
	return true
}

func (tp *typePlacer) mark(gpus []int) {
	for _, g := range gpus {
		tp.free[g] = false
	}
}

// makeRoom frees one server for it by moving placed jobs elsewhere, where
// that costs less than spreading it for a round (step 3).
func (tp *typePlacer) makeRoom(it *item, placed []*item) bool {
	type plan struct {
		server int
		cost   float64
		moves  []*item
	}
	best := plan{server: -1, cost: it.spreadLoss(tp.round)}
	for _, s := range tp.servers {
		if tp.c.Servers[s].GPUs < it.gang {
			continue
		}
		var on []*item
		for _, o := range placed {
			if len(o.gpus) > 0 && o != it && tp.oneServer(o.gpus) && tp.c.ServerOf(o.gpus[0]) == s {
				on = append(on, o)
			}
		}
		sort.SliceStable(on, func(a, b int) bool { return moveCost(on[a]) < moveCost(on[b]) })
		// Try the plan on a copy of the free map.
		saved := slices.Clone(tp.free)
		need := it.gang - tp.freeOn(s)
		var moves []*item
		cost := 0.0
		for _, o := range on {
			if need <= 0 {
				break
			}
			tp.release(o.gpus)
			moves = append(moves, o)
			cost += moveCost(o)
			need -= o.gang
		}
		ok := need <= 0
		if ok {
			tp.take(s, it.gang) // reserve, then re-place the moved jobs elsewhere
			for _, o := range moves {
				if tp.bestFit(o.gang, s) < 0 {
					ok = false
					break
				}
				tp.take(tp.bestFit(o.gang, s), o.gang)
			}
		}
		copy(tp.free, saved)
		if ok && cost < best.cost {
			best = plan{s, cost, moves}
		}
	}
	if best.server < 0 {
		return false
	}
	for _, o := range best.moves {
		tp.release(o.gpus)
		if o.stay {
			tp.st.evictions++
		}
	}
	it.gpus = tp.take(best.server, it.gang)
	for _, o := range best.moves {
		o.gpus = tp.take(tp.bestFit(o.gang, best.server), o.gang)
	}
	return true
}

// moveCost is what moving an already placed job costs: nothing for a job
// that moves this round anyway, else its migration cost.
func moveCost(o *item) float64 {
	if !o.stay || !slices.Equal(o.gpus, o.job.LastGPUs) {
		return 0
	}
	return o.cost
}

// consolidate moves spread kept jobs onto one server (step 4).
func (tp *typePlacer) consolidate(kept []*item) {
	var spread []*item
	for _, it := range kept {
		if it.gang > 1 && len(it.gpus) > 0 && !tp.oneServer(it.gpus) {
			spread = append(spread, it)
		}
	}
	sort.SliceStable(spread, func(a, b int) bool { return spread[a].cost < spread[b].cost })
	for _, it := range spread {
		if it.cost >= it.spreadLoss(tp.round) {
			continue
		}
		tp.release(it.gpus)
		if s := tp.bestFit(it.gang, -1); s >= 0 && tp.c.Servers[s].GPUs >= it.gang {
			it.gpus = tp.take(s, it.gang)
			tp.st.consolidations++
		} else {
			tp.mark(it.gpus)
		}
	}
}
