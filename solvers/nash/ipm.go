package nash

import (
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"

	"fairbench/solvers/lp"
)

// A primal-dual interior-point method for (EG), in O(pairs·k²) per
// iteration for k GPU types.
//
// Scaled so that every figure is of order one: y[e] = X[c][g]/k_c for each
// usable pair e = (c, g), the capacity row of type g divided by N_g and the
// time row of class c by k_c:
//
//	minimise   f(y) = −Σ_i w_i·log U_i,   U_i = Σ_{e∈i} v_e·y_e,   v_e = a[c][g]·k_c
//	subject to Σ_{e∈g} q_e·y_e + r_g = 1   (q_e = d_c·k_c/N_g, slack r_g ≥ 0, dual p'_g)
//	           Σ_{e∈c} y_e + s_c = 1        (slack s_c ≥ 0, dual λ'_c)
//	           y ≥ 0                         (dual z)
//
// Each iteration takes a Newton step on the perturbed KKT conditions
// (∇f + Aᵀ(p', λ') − z = 0, the rows, y·z = r·p' = s·λ' = μ) towards
// μ = σ·(mean complementarity). Eliminating z, the slacks and the duals
// leaves (H + Z/Y + AᵀWA)·Δy = h with H = Σ_i (w_i/U_i²)·v_i·v_iᵀ: every
// term is local to a class (its time row, rank one) or a buyer (its
// utility, rank one) except the k capacity rows. So the matrix is B + Q·S·Qᵀ
// with B block diagonal by buyer (a diagonal plus one rank-one term per
// class and one per buyer: Sherman–Morrison twice) and Q the k capacity
// columns: Woodbury's identity solves it with k + 1 solves by B and one
// k×k system, diag(r/p') + QᵀB⁻¹Q; iterative refinement against the
// matrix itself recovers the accuracy these updates lose when rows are
// nearly tight. The prices and rents of the certificate are the duals,
// unscaled: p_g = p'_g/N_g, λ_c = λ'_c/k_c; at any point they give the
// duality gap of Certificate, which decides when to stop.

// ipmMaxIter bounds the interior-point iterations of one solve.
const ipmMaxIter = 500

// ipm is one interior-point solve's data and state.
type ipm struct {
	m       *Market
	class   []int     // pair → class
	typ     []int     // pair → type
	buyer   []int     // pair → buyer
	v, q    []float64 // pair → scaled value and capacity coefficient
	byBuyer [][]int   // buyer → its classes
	first   []int     // class → its first pair (pairs are contiguous by class)
	nk, nc  int

	y, z   []float64 // pairs
	r, p   []float64 // capacity slacks and duals
	s, lam []float64 // time slacks and duals
}

func newIPM(m *Market) *ipm {
	t := &ipm{m: m, nk: len(m.Caps), nc: len(m.Classes), byBuyer: make([][]int, len(m.Weights)), first: make([]int, len(m.Classes)+1)}
	for c, cl := range m.Classes {
		t.byBuyer[cl.Buyer] = append(t.byBuyer[cl.Buyer], c)
		t.first[c] = len(t.v)
		for g := range m.Caps {
			if m.Usable(c, g) {
				t.class = append(t.class, c)
				t.typ = append(t.typ, g)
				t.buyer = append(t.buyer, cl.Buyer)
				t.v = append(t.v, cl.Value[g]*cl.Count)
				t.q = append(t.q, cl.Gang*cl.Count/m.Caps[g])
			}
		}
	}
	t.first[len(m.Classes)] = len(t.v)
	n := len(t.v)
	// A strictly feasible start: each class spreads θ ≤ 1/2 of its time
	// evenly over its pairs, θ small enough that no type is over half
	// full; duals at μ₀ = 1 over the slacks.
	load := make([]float64, t.nk)
	t.y = make([]float64, n)
	for c := 0; c < t.nc; c++ {
		k := t.first[c+1] - t.first[c]
		for e := t.first[c]; e < t.first[c+1]; e++ {
			t.y[e] = 1 / float64(k)
			load[t.typ[e]] += t.q[e] * t.y[e]
		}
	}
	theta := 0.5
	for _, l := range load {
		if l > 0 {
			theta = math.Min(theta, 0.5/l)
		}
	}
	t.z = make([]float64, n)
	t.r, t.p = make([]float64, t.nk), make([]float64, t.nk)
	t.s, t.lam = make([]float64, t.nc), make([]float64, t.nc)
	for e := range t.y {
		t.y[e] *= theta
	}
	for g := range t.r {
		t.r[g] = 1 - theta*load[g]
		t.p[g] = 1 / t.r[g]
	}
	// Rents that make the start dual feasible: z = ∇f + Aᵀ(p, λ) ≥ 1.
	u := t.utilities(t.y)
	for c := range t.s {
		t.s[c] = 1 - theta
		t.lam[c] = 1 / t.s[c]
		for e := t.first[c]; e < t.first[c+1]; e++ {
			b := t.buyer[e]
			t.lam[c] = math.Max(t.lam[c], 1+m.Weights[b]*t.v[e]/u[b])
		}
	}
	for e := range t.z {
		b := t.buyer[e]
		t.z[e] = t.q[e]*t.p[t.typ[e]] + t.lam[t.class[e]] - m.Weights[b]*t.v[e]/u[b]
	}
	return t
}

// utilities are U_i at y.
func (t *ipm) utilities(y []float64) []float64 {
	u := make([]float64, len(t.m.Weights))
	for e, v := range y {
		u[t.buyer[e]] += t.v[e] * v
	}
	return u
}

// residuals are the primal residuals (row + slack − 1) at the current
// point (the dual residual needs no separate term: the reduced Newton
// system below absorbs it).
func (t *ipm) residuals() (rcap, rtime []float64) {
	rcap = make([]float64, t.nk)
	rtime = make([]float64, t.nc)
	for g := range rcap {
		rcap[g] = t.r[g] - 1
	}
	for c := range rtime {
		rtime[c] = t.s[c] - 1
	}
	for e, ye := range t.y {
		rcap[t.typ[e]] += t.q[e] * ye
		rtime[t.class[e]] += ye
	}
	return rcap, rtime
}

// complementarity is the mean of y·z, r·p and s·λ.
func (t *ipm) complementarity() float64 {
	sum := 0.0
	for e := range t.y {
		sum += t.y[e] * t.z[e]
	}
	for g := range t.r {
		sum += t.r[g] * t.p[g]
	}
	for c := range t.s {
		sum += t.s[c] * t.lam[c]
	}
	return sum / float64(len(t.y)+t.nk+t.nc)
}

// certificate is the point's allocation, unscaled, with the certificate of
// its duals.
func (t *ipm) certificate() ([][]float64, *Certificate) {
	m := t.m
	x := make([][]float64, t.nc)
	for c := range x {
		x[c] = make([]float64, t.nk)
	}
	for e, ye := range t.y {
		x[t.class[e]][t.typ[e]] = ye * m.Classes[t.class[e]].Count
	}
	x = shrink(m, x)
	cert := &Certificate{Prices: make([]float64, t.nk), Rents: make([]float64, t.nc)}
	for g := range cert.Prices {
		if m.Caps[g] > 0 {
			cert.Prices[g] = t.p[g] / m.Caps[g]
		}
	}
	for c, cl := range m.Classes {
		cert.Rents[c] = t.lam[c] / cl.Count
	}
	cert.Dual = Dual(m, cert.Prices, cert.Rents)
	cert.Gap = cert.Dual - m.Welfare(m.Utilities(x))
	return x, cert
}

// newtonSystem is the factored matrix B + Q·S·Qᵀ of one iteration
// (S = diag(p'/r)).
type newtonSystem struct {
	t     *ipm
	dinv  []float64 // pair: 1/(z/y)
	tden  []float64 // class: 1/W_c + Σ dinv over its pairs
	omega []float64 // buyer: w_i/U_i²
	cv    []float64 // pair: C⁻¹·v restricted to each buyer
	bden  []float64 // buyer: 1 + ω·vᵀC⁻¹v
	qcols [][]float64
	kchol mat.Cholesky // S⁻¹ + QᵀB⁻¹Q
}

// cinv applies C⁻¹ (diagonal plus each class's time row) to h into out.
func (ns *newtonSystem) cinv(h, out []float64) {
	t := ns.t
	for c := 0; c < t.nc; c++ {
		sum := 0.0
		for e := t.first[c]; e < t.first[c+1]; e++ {
			out[e] = ns.dinv[e] * h[e]
			sum += out[e]
		}
		f := sum / ns.tden[c]
		for e := t.first[c]; e < t.first[c+1]; e++ {
			out[e] -= ns.dinv[e] * f
		}
	}
}

// binv applies B⁻¹ (C plus each buyer's utility term) to h into out.
func (ns *newtonSystem) binv(h, out []float64) {
	t := ns.t
	ns.cinv(h, out)
	for b, classes := range t.byBuyer {
		dot := 0.0
		for _, c := range classes {
			for e := t.first[c]; e < t.first[c+1]; e++ {
				dot += t.v[e] * out[e]
			}
		}
		f := ns.omega[b] * dot / ns.bden[b]
		for _, c := range classes {
			for e := t.first[c]; e < t.first[c+1]; e++ {
				out[e] -= f * ns.cv[e]
			}
		}
	}
}

// factor prepares the Newton system at the current point with utilities u;
// false when Woodbury's k×k matrix is not positive definite.
func (t *ipm) factor(u []float64) (*newtonSystem, bool) {
	n := len(t.y)
	ns := &newtonSystem{t: t, dinv: make([]float64, n), tden: make([]float64, t.nc), omega: make([]float64, len(u)),
		cv: make([]float64, n), bden: make([]float64, len(u))}
	for e := range t.y {
		ns.dinv[e] = t.y[e] / t.z[e]
	}
	for c := 0; c < t.nc; c++ {
		ns.tden[c] = t.s[c] / t.lam[c]
		for e := t.first[c]; e < t.first[c+1]; e++ {
			ns.tden[c] += ns.dinv[e]
		}
	}
	for b, w := range t.m.Weights {
		ns.omega[b] = w / (u[b] * u[b])
	}
	ns.cinv(t.v, ns.cv)
	for b := range ns.bden {
		ns.bden[b] = 1
	}
	for e := range t.y {
		ns.bden[t.buyer[e]] += ns.omega[t.buyer[e]] * t.v[e] * ns.cv[e]
	}
	// Woodbury's k×k matrix S⁻¹ + QᵀB⁻¹Q.
	ns.qcols = make([][]float64, t.nk)
	bq := make([][]float64, t.nk)
	for g := range ns.qcols {
		ns.qcols[g] = make([]float64, n)
		bq[g] = make([]float64, n)
	}
	for e := range t.y {
		ns.qcols[t.typ[e]][e] = t.q[e]
	}
	k := mat.NewSymDense(t.nk, nil)
	for g := range ns.qcols {
		ns.binv(ns.qcols[g], bq[g])
	}
	for g := 0; g < t.nk; g++ {
		for h := g; h < t.nk; h++ {
			dot := 0.0
			for e, qe := range ns.qcols[g] {
				if qe != 0 {
					dot += qe * bq[h][e]
				}
			}
			if g == h {
				dot += t.r[g] / t.p[g]
			}
			k.SetSym(g, h, dot)
		}
	}
	if !ns.kchol.Factorize(k) {
		return nil, false
	}
	return ns, true
}

// solve returns the solution of (B + Q·S·Qᵀ)·Δ = h.
func (ns *newtonSystem) solve(h []float64) []float64 {
	t := ns.t
	out := make([]float64, len(h))
	ns.binv(h, out)
	if t.nk == 0 {
		return out
	}
	// Δ = B⁻¹h − B⁻¹Q·(S⁻¹ + QᵀB⁻¹Q)⁻¹·QᵀB⁻¹h.
	rhs := mat.NewVecDense(t.nk, nil)
	for g := 0; g < t.nk; g++ {
		dot := 0.0
		for e, qe := range ns.qcols[g] {
			if qe != 0 {
				dot += qe * out[e]
			}
		}
		rhs.SetVec(g, dot)
	}
	var sol mat.VecDense
	if err := ns.kchol.SolveVecTo(&sol, rhs); err != nil {
		return out
	}
	corr := make([]float64, len(h))
	for e := range corr {
		corr[e] = t.q[e] * sol.AtVec(t.typ[e])
	}
	back := make([]float64, len(h))
	ns.binv(corr, back)
	for e := range out {
		out[e] -= back[e]
	}
	return out
}

// mul is (H + Z/Y + AᵀWA)·d computed term by term, for refinement.
func (ns *newtonSystem) mul(d []float64) []float64 {
	t := ns.t
	out := make([]float64, len(d))
	util := make([]float64, len(t.m.Weights))
	load := make([]float64, t.nk)
	time := make([]float64, t.nc)
	for e, de := range d {
		util[t.buyer[e]] += t.v[e] * de
		load[t.typ[e]] += t.q[e] * de
		time[t.class[e]] += de
	}
	for e, de := range d {
		b, g, c := t.buyer[e], t.typ[e], t.class[e]
		out[e] = de/ns.dinv[e] + ns.omega[b]*t.v[e]*util[b] + t.q[e]*t.p[g]/t.r[g]*load[g] + t.lam[c]/t.s[c]*time[c]
	}
	return out
}

// refined is solve followed by iterative refinement against mul: the
// Woodbury and Sherman–Morrison updates subtract large terms when rows
// are nearly tight, and a few refinement rounds restore the accuracy the
// last iterations need.
func (ns *newtonSystem) refined(h []float64) []float64 {
	d := ns.solve(h)
	scale := maxAbs(h)
	for round := 0; round < 4; round++ {
		res := ns.mul(d)
		for e := range res {
			res[e] = h[e] - res[e]
		}
		if maxAbs(res) <= 1e-15*scale {
			break
		}
		corr := ns.solve(res)
		for e := range d {
			d[e] += corr[e]
		}
	}
	return d
}

// ipmSolve runs the interior-point method on m until the certificate's gap
// is at most tol·Σw (or no further progress is possible), and returns the
// best point found with its certificate (Iterations: the iterations run).
// The error is non-nil only for a
// deadline.
func ipmSolve(m *Market, tol float64, deadline time.Time) (*Solution, error) {
	t := newIPM(m)
	total := 0.0
	for _, w := range m.Weights {
		total += w
	}
	var best *Solution
	keep := func(it int) {
		x, cert := t.certificate()
		u := m.Utilities(x)
		w := m.Welfare(u)
		if math.IsNaN(cert.Gap) || math.IsInf(w, -1) {
			return
		}
		if best == nil || cert.Gap < best.Cert.Gap {
			best = &Solution{X: x, U: u, Welfare: w, Bound: cert.Dual, Iterations: it, Cert: cert}
		}
	}
	sigma := 0.1
	stale, it := 0, 1
	for ; it <= ipmMaxIter && stale < 6; it++ {
		if !deadline.IsZero() && time.Now().After(deadline) {
			return nil, fmt.Errorf("nash: %d interior-point iterations before the deadline: %w", it-1, lp.ErrLimit)
		}
		alpha := t.step(sigma * t.complementarity())
		if alpha == 0 {
			break
		}
		// Aim lower after a long step, closer to the path after a short one.
		switch {
		case alpha > 0.9:
			sigma = 0.02
		case alpha > 0.5:
			sigma = 0.1
		default:
			sigma = 0.4
		}
		before := math.Inf(1)
		if best != nil {
			before = best.Cert.Gap
		}
		keep(it)
		switch {
		case best != nil && best.Cert.Gap <= tol*total:
			best.Iterations = it
			return best, nil
		case best == nil || best.Cert.Gap > 0.9*before:
			stale++ // rounding stops the path: the polish takes over
		default:
			stale = 0
		}
	}
	if best != nil {
		best.Iterations = it - 1
	}
	return best, nil
}

// step takes one damped Newton step towards the point of the central path
// at mu and returns its length; 0 when the system cannot be factored or no
// step helps.
func (t *ipm) step(mu float64) float64 {
	u := t.utilities(t.y)
	rcap, rtime := t.residuals()
	ns, ok := t.factor(u)
	if !ok {
		return 0
	}
	n := len(t.y)
	// h = −∇f + μ/y − Aᵀ(μ/r + (p/r)·rcap, μ/s + (λ/s)·rtime): the current
	// z, p and λ cancel out of the eliminated system.
	h := make([]float64, n)
	for e := range h {
		b, g, c := t.buyer[e], t.typ[e], t.class[e]
		h[e] = t.m.Weights[b]*t.v[e]/u[b] + mu/t.y[e] -
			t.q[e]*(mu/t.r[g]+t.p[g]/t.r[g]*rcap[g]) - (mu/t.s[c] + t.lam[c]/t.s[c]*rtime[c])
	}
	dy := ns.refined(h)
	// Back-substitute the slacks and the duals.
	dr := make([]float64, t.nk)
	ds := make([]float64, t.nc)
	for g := range dr {
		dr[g] = -rcap[g]
	}
	for c := range ds {
		ds[c] = -rtime[c]
	}
	for e, d := range dy {
		dr[t.typ[e]] -= t.q[e] * d
		ds[t.class[e]] -= d
	}
	dz := make([]float64, n)
	for e := range dz {
		dz[e] = mu/t.y[e] - t.z[e] - t.z[e]/t.y[e]*dy[e]
	}
	dp := make([]float64, t.nk)
	for g := range dp {
		dp[g] = mu/t.r[g] - t.p[g] - t.p[g]/t.r[g]*dr[g]
	}
	dl := make([]float64, t.nc)
	for c := range dl {
		dl[c] = mu/t.s[c] - t.lam[c] - t.lam[c]/t.s[c]*ds[c]
	}
	alpha := 1.0
	bound := func(v, d []float64) {
		for k := range v {
			if d[k] < 0 {
				alpha = math.Min(alpha, -0.995*v[k]/d[k])
			}
		}
	}
	bound(t.y, dy)
	bound(t.z, dz)
	bound(t.r, dr)
	bound(t.p, dp)
	bound(t.s, ds)
	bound(t.lam, dl)
	if !(alpha > 0) {
		return 0
	}
	// The fraction to the boundary keeps every share positive, so every
	// utility stays positive; halving guards against rounding.
	save := t.snapshot()
	for tries := 0; tries < 40; tries++ {
		t.move(save, alpha, dy, dz, dr, dp, ds, dl)
		if t.positive(t.utilities(t.y)) {
			return alpha
		}
		alpha /= 2
	}
	t.restore(save)
	return 0
}

// positive reports every utility positive and finite.
func (t *ipm) positive(u []float64) bool {
	for _, v := range u {
		if !(v > 0) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// ipmPoint is a copy of the iterate, for a step that must be retried.
type ipmPoint struct{ y, z, r, p, s, lam []float64 }

func (t *ipm) snapshot() ipmPoint {
	cp := func(v []float64) []float64 { return append([]float64(nil), v...) }
	return ipmPoint{cp(t.y), cp(t.z), cp(t.r), cp(t.p), cp(t.s), cp(t.lam)}
}

func (t *ipm) restore(pt ipmPoint) {
	copy(t.y, pt.y)
	copy(t.z, pt.z)
	copy(t.r, pt.r)
	copy(t.p, pt.p)
	copy(t.s, pt.s)
	copy(t.lam, pt.lam)
}

func (t *ipm) move(from ipmPoint, alpha float64, dy, dz, dr, dp, ds, dl []float64) {
	upd := func(dst, src, d []float64) {
		for k := range dst {
			dst[k] = src[k] + alpha*d[k]
		}
	}
	upd(t.y, from.y, dy)
	upd(t.z, from.z, dz)
	upd(t.r, from.r, dr)
	upd(t.p, from.p, dp)
	upd(t.s, from.s, ds)
	upd(t.lam, from.lam, dl)
}
