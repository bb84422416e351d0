package gandivafair

import (
	"math"
	"slices"

	"fairbench/models"
)

// decision is what one decision computes about users.
type decision struct {
	demand   []float64   // [u] Σ gang of u's active jobs
	runnable [][]float64 // [u][k] Σ gang of u's active jobs that can run on k
	before   [][]float64 // [u][k] shares before trading, GPUs
	share    [][]float64 // [u][k] shares after trading
	speed    [][]float64 // [u][pair] speedup used by the market, NaN unknown
	trades   []Trade
	homed    [][]float64 // [u][k] D: Σ gang of u's jobs homed on k
	perGPU   [][]float64 // [u][k] per-GPU tickets min(1, share/D)
	userJobs [][]*job    // [u] u's active jobs in snapshot order
}

// matrix allocates rows × cols zeros in one block.
func matrix(rows, cols int) [][]float64 {
	flat := make([]float64, rows*cols)
	m := make([][]float64, rows)
	for i := range m {
		m[i] = flat[i*cols : (i+1)*cols : (i+1)*cols]
	}
	return m
}

// shares computes demands, the per-type water-filled shares and, with
// trading, the market's trades (package comment, steps 1 and 2).
func (st *state) shares(s *models.Snapshot, trading bool) *decision {
	nU, nT := len(st.users), len(st.types)
	d := &decision{demand: slices.Clone(st.demand), runnable: matrix(nU, nT), userJobs: st.byUser}
	for u := range d.runnable {
		copy(d.runnable[u], st.runnable[u])
	}
	st.measureSpeeds(d)
	d.before = WaterFillTypes(st.capacities(), st.weights(), d.demand, d.runnable)
	d.share = matrix(nU, nT)
	for u := range d.share {
		copy(d.share[u], d.before[u])
	}
	if trading && len(st.pairs) > 0 {
		d.speed = st.speedups(d)
		m := Market{Types: st.types, Users: st.userNames(), Share: d.share, Room: d.runnable, Demand: d.demand,
			Speedup: func(u, slow, fast int) (float64, bool) {
				r := d.speed[u][st.pairIdx[fast][slow]]
				return r, !math.IsNaN(r)
			}}
		d.trades = m.Run()
	}
	clear(st.dirty)
	return d
}

// WaterFillTypes splits every type among the users, type by type in the
// given order (rank order, newest first): type k's capacity caps[k] is
// water-filled (models.WaterFill) by weights over the demands
// min(runnable[u][k], demand[u] − Σ_{h<k} share[u][h]). The result is
// [user][type] in GPUs. With every user's demand above its weighted share of
// the cluster, each user gets its weighted fraction of every type; a user
// that needs less gets what it asks for, fastest-ranked types first, and the
// rest goes to the others.
func WaterFillTypes(caps, weights, demand []float64, runnable [][]float64) [][]float64 {
	nU := len(weights)
	share := matrix(nU, len(caps))
	left := append([]float64(nil), demand...)
	d := make([]float64, nU)
	for k, c := range caps {
		for u := range d {
			d[u] = math.Max(0, math.Min(runnable[u][k], left[u]))
		}
		for u, x := range models.WaterFill(c, weights, d) {
			share[u][k] = x
			left[u] -= x
		}
	}
	return share
}

func (st *state) capacities() []float64 {
	caps := make([]float64, len(st.types))
	for k, g := range st.types {
		caps[k] = float64(st.cluster.Capacity(g))
	}
	return caps
}

func (st *state) weights() []float64 {
	w := make([]float64, len(st.users))
	for u, x := range st.users {
		w[u] = x.Weight
	}
	return w
}

func (st *state) userNames() []string {
	n := make([]string, len(st.users))
	for u, x := range st.users {
		n[u] = x.Name
	}
	return n
}

// measureSpeeds updates each user's per-GPU throughput on each type: the
// mean of T[j][k] / gang over its active jobs known on k; a type none of
// them is known on keeps the last value (NaN if never known), since a
// user's jobs are similar (the paper's premise). Only users whose jobs or
// what is known of them changed are measured again (state.dirty): the
// others' means would come out the same.
func (st *state) measureSpeeds(d *decision) {
	nT := len(st.types)
	num, den := make([]float64, nT), make([]float64, nT)
	for u, js := range d.userJobs {
		if !st.dirty[u] {
			continue
		}
		clear(num)
		clear(den)
		for _, j := range js {
			for _, t := range j.speeds {
				num[t.i] += t.v
				den[t.i]++
			}
		}
		for k := range num {
			if den[k] > 0 {
				st.lastS[u][k] = num[k] / den[k]
			}
		}
	}
}

// speedups is r_u per pair: the GPU-weighted (gang-weighted) mean of
// T[j][fast] / T[j][slow] over u's active jobs whose throughputs on both
// types are known and positive; when none is, the last value known for u
// (NaN if never). As in measureSpeeds, only changed users are recomputed.
func (st *state) speedups(d *decision) [][]float64 {
	nP := len(st.pairs)
	num, den := make([]float64, nP), make([]float64, nP)
	r := matrix(len(st.users), nP)
	for u, js := range d.userJobs {
		if st.dirty[u] {
			clear(num)
			clear(den)
			for _, j := range js {
				g := float64(j.gang)
				for _, t := range j.terms {
					num[t.i] += t.v
					den[t.i] += g
				}
			}
			for pi := range num {
				if den[pi] > 0 {
					st.lastR[u][pi] = num[pi] / den[pi]
				}
			}
		}
		copy(r[u], st.lastR[u])
	}
	return r
}
