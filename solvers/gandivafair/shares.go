package gandivafair

import (
	"math"

	"fairbench/models"
)

// decision is what one decision computes about users. The state keeps one
// and reuses its storage at every decision (state.dec): what it holds is in
// force until the next decision, which is when the report has integrated it
// (recorder.advance, at the start of sync).
type decision struct {
	demand   []float64   // [u] Σ gang of u's active jobs (state.demand)
	runnable [][]float64 // [u][k] Σ gang of u's active jobs that can run on k (state.runnable)
	before   [][]float64 // [u][k] shares before trading, GPUs
	share    [][]float64 // [u][k] shares after trading
	trades   []Trade
	homed    [][]float64 // [u][k] D: Σ gang of u's jobs homed on k (state.homed)
	perGPU   [][]float64 // [u][k] per-GPU tickets min(1, share/D)
	userJobs [][]*job    // [u] u's active jobs in snapshot order

	left, want []float64 // waterFillTypes' work space
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
// trading, the market's trades (package comment, steps 1 and 2). The
// demands are the state's own, kept by sync; the decision reads them only
// until sync runs again.
func (st *state) shares(trading bool) *decision {
	d := &st.dec
	if d.before == nil {
		nU, nT := len(st.users), len(st.types)
		d.before, d.share, d.perGPU = matrix(nU, nT), matrix(nU, nT), matrix(nU, nT)
		d.left, d.want = make([]float64, nU), make([]float64, nU)
	}
	d.demand, d.runnable, d.userJobs = st.demand, st.runnable, st.byUser
	st.measureSpeeds(d)
	waterFillTypes(d.before, st.caps, st.weights, d.demand, d.runnable, d.left, d.want)
	for u := range d.share {
		copy(d.share[u], d.before[u])
	}
	d.trades = d.trades[:0]
	if trading && len(st.pairs) > 0 {
		st.speedups(d)
		m := Market{Types: st.types, Users: st.names, Share: d.share, Room: d.runnable, Demand: d.demand,
			Speedup: func(u, slow, fast int) (float64, bool) {
				r := st.lastR[u][st.pairIdx[fast][slow]]
				return r, !math.IsNaN(r)
			}}
		d.trades = m.run(d.trades, &st.holders)
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
	waterFillTypes(share, caps, weights, demand, runnable, make([]float64, nU), make([]float64, nU))
	return share
}

// waterFillTypes is WaterFillTypes into share, with left and want (one
// entry per user) as work space.
func waterFillTypes(share [][]float64, caps, weights, demand []float64, runnable [][]float64, left, want []float64) {
	copy(left, demand)
	for k, c := range caps {
		for u := range want {
			want[u] = max(0, min(runnable[u][k], left[u]))
		}
		for u, x := range models.WaterFill(c, weights, want) {
			share[u][k] = x
			left[u] -= x
		}
	}
}

// measureSpeeds updates each user's per-GPU throughput on each type: the
// mean of T[j][k] / gang over its active jobs known on k, summed in job
// order; a type none of them is known on keeps the last value (NaN if never
// known), since a user's jobs are similar (the paper's premise). Only users
// whose jobs or what is known of them changed are measured again
// (state.dirty), and of those only the ones whose sums can have changed
// (state.changedS): a job with no speed that came or went, or a job that
// learnt nothing new of its speeds, leaves every sum of the others' terms
// in the same order, and the same sum.
func (st *state) measureSpeeds(d *decision) {
	for u := range d.userJobs {
		if st.dirty[u] && st.changedS[u] {
			st.changedS[u] = false
			st.means(st.rows[u].sp, len(st.types), nil, st.lastS[u])
		}
	}
}

// speedups brings r_u per pair (state.lastR) up to date: the GPU-weighted
// (gang-weighted) mean of T[j][fast] / T[j][slow] over u's active jobs whose
// throughputs on both types are known and positive; when none is, the last
// value known for u (NaN if never). As in measureSpeeds, only users whose
// sums can have changed are measured again (state.changedR).
func (st *state) speedups(d *decision) {
	for u := range d.userJobs {
		if st.dirty[u] && st.changedR[u] {
			st.changedR[u] = false
			st.means(st.rows[u].tm, len(st.pairs), st.rows[u].g, st.lastR[u])
		}
	}
}

// means sets out[i] to the mean of column i of cells (n columns, a row per
// job in job order, summed in that order) over the rows where it is
// present, each weighted by w[row] (by 1 when w is nil); a column present
// in no row keeps its value.
func (st *state) means(cells []float64, n int, w, out []float64) {
	if len(st.num) < n {
		st.num, st.den = make([]float64, n), make([]float64, n)
	}
	num, den := st.num[:n], st.den[:n]
	clear(num)
	clear(den)
	for p := 0; p*n < len(cells); p++ {
		wt := 1.0
		if w != nil {
			wt = w[p]
		}
		for i, v := range cells[p*n : (p+1)*n] {
			if v != absent {
				num[i] += v
				den[i] += wt
			}
		}
	}
	for i := range num {
		if den[i] > 0 {
			out[i] = num[i] / den[i]
		}
	}
}
