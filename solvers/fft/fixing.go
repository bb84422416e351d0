package fft

import (
	"math"
	"slices"
)

// Reduced-cost fixing before the search.
//
// Prices u_i ≥ 0 on the capacity rows and w ≥ 0 on the fill row give, for
// any integral x that fills K,
//
//	Σ c·x ≥ LB + Σ_j (r_j(x_j) − m_j),   LB = Σ_j m_j − Σ_i u_i·Υ_i + w·K,
//
// where r_j(i) = c[j][i] + d_j·(u_i − w) is job j's cost on type i at these
// prices, r_j(out) = 0, and m_j the least of them (Lagrangian relaxation:
// the dropped rows hold with slack of the right sign). Whatever the prices,
// then, a job's option o with LB + r_j(o) − m_j ≥ U − tol (U the incumbent)
// is in no solution better than the incumbent by more than tol, and the
// search may drop it. With the relaxation's optimal duals LB is its bound,
// and most jobs are left one option: they are fixed, and the search runs on
// the few others. The prices come from the relaxation's optimal flow by
// complementary slackness (prices below); they need not be optimal for the
// argument, only non-negative.

// prices are the duals of the capacity rows (u) and of the fill row (w).
type prices struct {
	u []float64
	w float64
}

// prices reads duals off the optimal max-flow f: per-GPU type prices
// P_i = u_i − w with c[j][i]/d_j + P_i least over the types j can run on
// wherever j has GPUs (equal where it has some on two types), at most 0
// there, at least 0 everywhere for a job left partly out, and u_i = 0 on a
// type with free GPUs. These are difference constraints between P_i, 0 and
// −w, solved by Bellman–Ford over types + 2 nodes. It returns false when
// rounding noise leaves them inconsistent (a negative cycle).
func (f *flow) prices() (prices, bool) {
	in, t := f.in, f.t
	zero, omega := t, t+1 // the nodes of 0 and of −w
	n := t + 2
	// In the slices of cancel's graph, not needed once f is solved.
	if f.res == nil || f.res.n != n {
		f.res = newResidual(n)
	}
	arc := f.res.cost // arc[a*n+b]: x_b − x_a ≤ arc
	for k := range arc {
		arc[k] = math.Inf(1)
	}
	tighten := func(a, b int, v float64) {
		if v < arc[a*n+b] {
			arc[a*n+b] = v
		}
	}
	for j, d := range in.Gang {
		used := 0
		for i := range t {
			u := int(f.units[j*f.nodes+i])
			if u == 0 {
				continue
			}
			used += u
			a := f.perGPU(j, i)
			tighten(zero, i, -a)
			for k := range t {
				if k != i && in.OK[j*t+k] {
					tighten(k, i, f.perGPU(j, k)-a)
				}
			}
		}
		if used < d {
			for k := range t {
				if in.OK[j*t+k] {
					tighten(k, zero, f.perGPU(j, k))
				}
			}
		}
	}
	for i := range t {
		tighten(i, omega, 0)
		if f.load[i] < in.Cap[i] {
			tighten(omega, i, 0)
		}
	}
	tighten(zero, omega, 0)
	x := f.res.dist
	clear(x)
	for pass := 0; ; pass++ {
		changed := false
		for a := range n {
			for b := range n {
				if v := x[a] + arc[a*n+b]; v < x[b]-relaxTol*(1+math.Abs(v)) {
					x[b], changed = v, true
				}
			}
		}
		if !changed {
			break
		}
		if pass == n {
			return prices{}, false
		}
	}
	pr := prices{u: make([]float64, t), w: math.Max(0, x[zero]-x[omega])}
	for i := range t {
		pr.u[i] = math.Max(0, x[i]-x[omega])
	}
	return pr, true
}

// lagrange is LB above at prices pr with the fill row at k, and each job's
// least cost m_j.
func (in *Instance) lagrange(pr prices, k int) (float64, []float64) {
	return in.lagrangeIn(pr, k, make([]float64, in.Jobs()), make([]float64, len(in.OK)))
}

// lagrangeIn is lagrange with m_j in m and each option's cost at the
// prices, c[j][i] + d_j·(u_i − w), in r[j*Types+i] (where j may run on i).
func (in *Instance) lagrangeIn(pr prices, k int, m, r []float64) (float64, []float64) {
	t := in.Types
	var pen [64]float64
	p := pen[:0]
	if t > len(pen) {
		p = make([]float64, 0, t)
	}
	for i := range t {
		p = append(p, pr.u[i]-pr.w)
	}
	lb := pr.w * float64(k)
	for i, c := range in.Cap {
		lb -= pr.u[i] * float64(c)
	}
	for j, d := range in.Gang {
		mj := 0.0
		for i := range t {
			if in.OK[j*t+i] {
				r[j*t+i] = in.Cost[j*t+i] + float64(d)*p[i]
				mj = min(mj, r[j*t+i]) // as math.Min, inline
			}
		}
		m[j] = mj
		lb += mj
	}
	return lb, m
}

// reduced is the search's instance after fixing: the jobs left with a
// choice (jobs[k] is in's index of sub's job k), and the others' fixed
// types, cost and GPUs.
type reduced struct {
	sub   *Instance
	jobs  []int
	fixed []int // in's type per job, −1 for free or out
	cost  float64
	fill  int
}

// fixBufs are the slices options fills, reused from node to node (grown
// when short).
type fixBufs struct {
	keep, out []bool
	m, r      []float64
}

// grown is b with room for in.
func (b *fixBufs) grown(in *Instance) {
	b.out, b.m = grow(b.out, in.Jobs()), grow(b.m, in.Jobs())
	b.keep, b.r = grow(b.keep, len(in.OK)), grow(b.r, len(in.OK))
}

// options classifies each job's options at prices pr with the fill row at
// k, for solutions that must cost less than inc − tol: keep[j*Types+i] is
// whether type i stays an option of job j, out[j] whether staying out does
// (b.keep and b.out, b's slices grown where short). It returns false when
// none can: LB itself does not, or a job is left no option.
func (in *Instance) options(pr prices, k int, inc, tol float64, b *fixBufs) (keep, out []bool, ok bool) {
	t := in.Types
	b.grown(in)
	lb, m := in.lagrangeIn(pr, k, b.m, b.r)
	room := inc - tol - lb // an option must cost less than m_j + room
	if !(room > 0) {
		return nil, nil, false
	}
	keep, out, r := b.keep, b.out, b.r
	for j := range in.Gang {
		kept := false
		for i := range t {
			ji := j*t + i
			keep[ji] = in.OK[ji] && r[ji]-m[j] < room
			kept = kept || keep[ji]
		}
		if out[j] = -m[j] < room; !kept && !out[j] {
			return nil, nil, false
		}
	}
	return keep, out, true
}

// only is the one option keep leaves job j when out[j] is not one, else −1
// (j out, or a choice left).
func only(keep, out []bool, j, t int) int {
	if out[j] {
		return -1
	}
	at := -1
	for i := range t {
		if keep[j*t+i] {
			if at >= 0 {
				return -1
			}
			at = i
		}
	}
	return at
}

// fix drops the options that cannot beat the incumbent objective inc by
// more than tol at prices pr (fill row at k; options' slices in b), fixes
// the jobs left one option and leaves out those left none but staying out.
// It returns false
// when no solution can beat inc: see options, or a fixed gang overfills its
// type.
func (in *Instance) fix(pr prices, k int, inc, tol float64, b *fixBufs) (reduced, bool) {
	t := in.Types
	r := reduced{fixed: make([]int, in.Jobs())}
	keep, out, ok := in.options(pr, k, inc, tol, b)
	if !ok {
		return r, false
	}
	free := 0 // the jobs left a choice, counted to size sub's slices
	for j := range in.Gang {
		if only(keep, out, j, t) < 0 && slices.Contains(keep[j*t:(j+1)*t], true) {
			free++
		}
	}
	sub := &Instance{Types: t, Cap: append([]int(nil), in.Cap...), Gang: make([]int, 0, free),
		Cost: make([]float64, 0, free*t), OK: make([]bool, 0, free*t)}
	r.jobs = make([]int, 0, free)
	for j, d := range in.Gang {
		r.fixed[j] = -1
		if i := only(keep, out, j, t); i >= 0 {
			r.fixed[j] = i
			r.cost += in.Cost[j*t+i]
			r.fill += d
			if sub.Cap[i] -= d; sub.Cap[i] < 0 {
				return r, false
			}
			continue
		}
		if !slices.Contains(keep[j*t:(j+1)*t], true) {
			continue // out
		}
		r.jobs = append(r.jobs, j)
		sub.Gang = append(sub.Gang, d)
		sub.Cost = append(sub.Cost, in.Cost[j*t:(j+1)*t]...)
		sub.OK = append(sub.OK, keep[j*t:(j+1)*t]...)
	}
	r.sub = sub
	return r, true
}
