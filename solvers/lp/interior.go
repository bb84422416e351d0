package lp

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Interior solves LPs with a primal-dual interior-point method and returns
// its last iterate: an optimal point inside the optimal face rather than a
// vertex of it. Where an LP has many optima (Gavel's max-min LPs do), this
// is the solution Gavel's own solver returns: the method is that of ECOS
// (Domahidi, Chu, Boyd, "ECOS: An SOCP Solver for Embedded Systems", ECC
// 2013), which Gavel calls through cvxpy, restricted to the nonnegative
// orthant:
//
//   - the problem is min cᵀx subject to Gx ≤ h, one row of G per finite
//     variable bound and per finite row bound (Problem rows must not be
//     equalities; fixed variables are substituted);
//   - G is equilibrated by three rounds of Ruiz scaling (Ruiz 2001): every
//     row and every column divided by the square root of its largest
//     absolute entry, h and c scaled to match;
//   - the start is CVXOPT's: x̂ minimises ‖h − Gx‖, ẑ is the least-norm z
//     with Gᵀz = −c, and s = h − Gx̂ and z = ẑ are shifted into the orthant
//     by 1 + max(−0.99, −min) (Vandenberghe, "The CVXOPT linear and
//     quadratic cone program solvers", 2010, §7.3, with ECOS's margin);
//   - iterations follow the homogeneous self-dual embedding (x, s, z, τ, κ)
//     with Nesterov–Todd scaling and Mehrotra's predictor-corrector: the
//     centring σ = (1 − α_aff)³ clamped to [1e-4, 1], steps of 0.99 of the
//     way to the boundary, at most 0.999 and at least 1e-6;
//   - it stops when the relative primal and dual residuals are below 1e-8
//     and the duality gap is below 1e-8 in absolute or relative terms (ECOS's
//     defaults), or reports infeasibility or unboundedness from the
//     embedding's certificates; after 100 iterations, an iterate within
//     ECOS's reduced tolerances (1e-4, 5e-5) still counts as optimal.
//
// The returned point is a deterministic function of the problem. The method
// commutes with permutations of the variables and rows up to rounding, which
// the last iterations amplify along the optimal face of a degenerate LP:
// permuted or aggregated, the same LP's answer moves by about 1e-6 (the
// iterates' accuracy, as in ECOS). Copies makes it commute with aggregation: an LP over classes of interchangeable items
// (Copies.Vars[j] identical copies of variable j, Copies.Rows[i] of row i)
// is solved as the LP with every copy written out would be, restricted to
// points where copies are equal — the iterates of the large LP stay there,
// so the answer is the same. An aggregated problem writes each row's
// coefficients and each variable's objective summed over the copies it
// stands for (a capacity row over k copies of x has coefficient k·d).
//
// The pure-Go dense linear algebra costs O(n³) per iteration in the number
// of variables n; the method is meant for the policies' LPs of up to a few
// hundred variables.
func Interior(p *Problem, cp Copies, o Options) (Result, error) {
	if err := p.Validate(); err != nil {
		return outcome(interiorName, p, Error, nil, nil, err)
	}
	if p.HasInteger() {
		return outcome(interiorName, p, Error, nil, nil, fmt.Errorf("%w: the interior-point method solves LPs only", ErrInvalid))
	}
	if err := cp.check(p); err != nil {
		return outcome(interiorName, p, Error, nil, nil, err)
	}
	if len(p.Vars) == 0 {
		return trivial(interiorName, p)
	}
	q, err := newIPMProblem(p, cp, o.Work)
	if err != nil {
		return outcome(interiorName, p, Error, nil, nil, err)
	}
	if q == nil {
		return outcome(interiorName, p, Infeasible, nil, nil, nil)
	}
	var deadline time.Time
	if o.TimeLimit > 0 {
		deadline = time.Now().Add(o.TimeLimit)
	}
	st, xs, err := q.solve(deadline, o.Work)
	if st != Optimal {
		return outcome(interiorName, p, st, nil, nil, err)
	}
	x := q.expand(xs)
	if v := infeasibility(p, x); v != "" {
		return outcome(interiorName, p, Error, nil, nil, fmt.Errorf("interior point: the point it ends on %s", v))
	}
	return outcome(interiorName, p, Optimal, x, nil, nil)
}

// ipmCheckTol is the relative tolerance of infeasibility, far above the
// method's own (its residuals are relative to the iterates' norms, which
// an iterate running away makes large).
const ipmCheckTol = 1e-6

// infeasibility describes the first bound or row of p that x violates by
// more than ipmCheckTol·(1 + |bound| + the magnitude of the terms), or
// returns "". The method's exit test measures residuals relative to the
// iterates' size, so an iterate that ran off (a factorisation that lost its
// accuracy) can pass it; this catches such a point.
func infeasibility(p *Problem, x []float64) string {
	over := func(v, lo, hi, mag float64) bool {
		tol := func(b float64) float64 { return ipmCheckTol * (1 + math.Abs(b) + mag) }
		return v < lo-tol(lo) || v > hi+tol(hi) || math.IsNaN(v)
	}
	for j, v := range p.Vars {
		if over(x[j], v.Lower, v.Upper, 0) {
			return fmt.Sprintf("violates variable %d %q's bounds: %g not in [%g, %g]", j, v.Name, x[j], v.Lower, v.Upper)
		}
	}
	for i, r := range p.Rows {
		act, mag := 0.0, 0.0
		for _, t := range r.Coefs {
			act += t.Coef * x[t.Var]
			mag += math.Abs(t.Coef * x[t.Var])
		}
		if over(act, r.Lower, r.Upper, mag) {
			return fmt.Sprintf("violates row %d %q: %g not in [%g, %g]", i, r.Name, act, r.Lower, r.Upper)
		}
	}
	return ""
}

const interiorName = "interior"

// Work is memory that Interior and the Coin backend keep from one solve to
// the next (Options.Work): the problem's arrays and layout, the
// factorisations' arrays and the iterations' vectors (Interior), the arrays
// loaded into CLP and its KKT check's (Coin), grown as needed. Answers do
// not depend on it. A Work serves one solve at a time.
type Work struct {
	kkt  ipmKKT
	buf  ipmBuf
	coin coinWork
}

// ipmBuf is the memory of an ipmProblem's arrays, its start and its layout,
// kept in a Work from one solve to the next (every array is written before
// it is read).
type ipmBuf struct {
	fixed, h, w, c, v, e, colMax, rowMax []float64
	rx, rz, gtz, gx                      []float64
	ones, x, gx0, r, vc, lam, z, s, zs   []float64
	div                                  []float64
	rows, merged                         [][]Term
	mergedTerms                          []Term
	free, idx                            []int
	bounds, all, terms                   []Term
	layout                               arrowLayout
	deg, parent, index, blockVars        []int
	isBorder                             []bool
}

// take returns *keep with n entries, growing it when it has not the room.
func take[T any](keep *[]T, n int) []T {
	if cap(*keep) < n {
		*keep = make([]T, n)
	}
	return (*keep)[:n]
}

// Copies says how many identical copies of each variable and row a problem
// stands for (see Interior). Nil slices mean one copy of everything; a
// non-nil slice has one positive entry per variable or row. The structure
// must be that of classes: every variable and row belongs to one class (and
// has its copies) or to none (one copy), and a row of a class involves the
// variables of that class and variables of none.
type Copies struct {
	Vars []float64
	Rows []float64
}

func (cp Copies) check(p *Problem) error {
	for _, c := range []struct {
		name string
		v    []float64
		n    int
	}{{"variable", cp.Vars, len(p.Vars)}, {"row", cp.Rows, len(p.Rows)}} {
		if c.v == nil {
			continue
		}
		if len(c.v) != c.n {
			return fmt.Errorf("%w: %d %s copies for %d %ss", ErrInvalid, len(c.v), c.name, c.n, c.name)
		}
		for i, k := range c.v {
			if !(k > 0) || math.IsInf(k, 0) {
				return fmt.Errorf("%w: %s %d: copies must be a positive finite number, got %v", ErrInvalid, c.name, i, k)
			}
		}
	}
	return nil
}

func copiesOf(v []float64, i int) float64 {
	if v == nil {
		return 1
	}
	return v[i]
}

// The method's constants (ECOS's defaults).
const (
	ipmMaxIter     = 100
	ipmFeasTol     = 1e-8
	ipmAbsTol      = 1e-8
	ipmRelTol      = 1e-8
	ipmFeasInacc   = 1e-4
	ipmAbsInacc    = 5e-5
	ipmRelInacc    = 5e-5
	ipmGamma       = 0.99
	ipmStepMax     = 0.999
	ipmStepMin     = 1e-6
	ipmSigmaMin    = 1e-4
	ipmSigmaMax    = 1.0
	ipmEquilRounds = 3
	ipmTiny        = 1e-13
)

// ipmProblem is min cᵀx s.t. Gx ≤ h over the free variables of a Problem,
// per copy: c is each copy's objective, G's coefficients are the aggregated
// problem's (a row's coefficient of x summed over the copies of x it
// touches), w and v are the copies of each row and variable.
type ipmProblem struct {
	p     *Problem
	free  []int     // free variable k is p.Vars[free[k]]
	fixed []float64 // value of every variable of p that is fixed (NaN for free ones)
	rows  [][]Term  // over free variable indices
	h, w  []float64 // per row
	c, v  []float64 // per free variable
	dense bool      // always factor the normal equations densely (tests)
	// The first nBound rows are the variables' bounds, one term each; once
	// the rows lie in one array (solve), bound[i] is row i's term, which
	// the hot loops read without a row's slice.
	nBound int
	bound  []Term
	// residuals' work space: its answer's rx and rz, GᵀΩz and Gx (valid
	// until the next call).
	rx, rz, gtz, gx []float64
	// residuals' constants, set by solve once q is equilibrated:
	// max(1, ‖c‖), max(1, ‖h‖) (weighted by the copies) and Σ w.
	resx0, resz0, sumW float64
	buf                *ipmBuf // the memory of q's arrays (a Work's, or its own)
}

// newIPMProblem builds the inequality form; nil when a row left without
// variables excludes its constant (infeasible).
func newIPMProblem(p *Problem, cp Copies, w *Work) (*ipmProblem, error) {
	var b *ipmBuf
	if w != nil {
		b = &w.buf
	} else {
		b = new(ipmBuf)
	}
	q := &ipmProblem{p: p, buf: b, fixed: take(&b.fixed, len(p.Vars))}
	nr := 0 // the rows of G: a finite bound of a free variable or a row is one
	for _, v := range p.Vars {
		if v.Lower != v.Upper {
			nr += finite(v.Lower) + finite(v.Upper)
		}
	}
	for _, r := range p.Rows {
		nr += finite(r.Lower) + finite(r.Upper)
	}
	q.rows, q.h, q.w = take(&b.rows, nr)[:0], take(&b.h, nr)[:0], take(&b.w, nr)[:0]
	q.free, q.c, q.v = take(&b.free, len(p.Vars))[:0], take(&b.c, len(p.Vars))[:0], take(&b.v, len(p.Vars))[:0]
	idx := take(&b.idx, len(p.Vars))
	for j, v := range p.Vars {
		idx[j] = -1
		q.fixed[j] = math.NaN()
		if v.Lower == v.Upper {
			q.fixed[j] = v.Lower
			continue
		}
		idx[j] = len(q.free)
		q.free = append(q.free, j)
		k := copiesOf(cp.Vars, j)
		q.c = append(q.c, p.Sense.sign()*v.Obj/k)
		q.v = append(q.v, k)
	}
	add := func(terms []Term, h, w float64) {
		q.rows = append(q.rows, terms)
		q.h = append(q.h, h)
		q.w = append(q.w, w)
	}
	bounds := take(&b.bounds, 2*len(q.free))[:0] // the bound rows' terms, one array
	bound := func(k int, coef, h float64) {
		bounds = append(bounds, Term{Var: k, Coef: coef})
		add(bounds[len(bounds)-1:len(bounds):len(bounds)], h, q.v[k])
	}
	for k, j := range q.free {
		v := p.Vars[j]
		if !math.IsInf(v.Lower, -1) {
			bound(k, -1, -v.Lower)
		}
		if !math.IsInf(v.Upper, 1) {
			bound(k, 1, v.Upper)
		}
	}
	q.nBound = len(q.rows)
	merged := p.mergedRowsIn(&b.merged, &b.mergedTerms)
	nnz := 0
	for _, r := range merged {
		nnz += len(r)
	}
	twice := 0 // a row with a lower bound writes its terms again, negated
	for i, r := range merged {
		twice += finite(p.Rows[i].Lower) * len(r)
	}
	all := take(&b.all, nnz+twice)[:0] // the rows' terms (twice for a lower bound), one array
	for i, r := range merged {
		row := p.Rows[i]
		if row.Lower == row.Upper {
			return nil, fmt.Errorf("%w: row %d %q: the interior-point method takes no equality rows", ErrInvalid, i, row.Name)
		}
		start := len(all)
		konst := 0.0
		for _, t := range r {
			if idx[t.Var] < 0 {
				konst += t.Coef * q.fixed[t.Var]
				continue
			}
			all = append(all, Term{Var: idx[t.Var], Coef: t.Coef})
		}
		terms := all[start:len(all):len(all)]
		lo, hi := row.Lower-konst, row.Upper-konst
		if len(terms) == 0 {
			if emptyRowInfeasible(Row{Lower: lo, Upper: hi}) {
				return nil, nil
			}
			continue
		}
		w := copiesOf(cp.Rows, i)
		if !math.IsInf(hi, 1) {
			add(terms, hi, w)
		}
		if !math.IsInf(lo, -1) {
			start := len(all)
			for _, t := range terms {
				all = append(all, Term{Var: t.Var, Coef: -t.Coef})
			}
			add(all[start:len(all):len(all)], -lo, w)
		}
	}
	n, m := len(q.c), len(q.rows)
	q.rx, q.rz, q.gtz, q.gx = take(&b.rx, n), take(&b.rz, m), take(&b.gtz, n), take(&b.gx, m)
	return q, nil
}

// finite is 1 for a finite bound and 0 for an infinite one.
func finite(b float64) int {
	if math.IsInf(b, 0) {
		return 0
	}
	return 1
}

// expand puts a solution over the free variables back into p's variables.
func (q *ipmProblem) expand(xs []float64) []float64 {
	x := make([]float64, len(q.p.Vars))
	for j := range x {
		x[j] = q.fixed[j]
	}
	for k, j := range q.free {
		x[j] = xs[k]
	}
	return x
}

// equilibrate applies Ruiz scaling to q in place and returns the column
// factors E (the scaled variable is E·x). The row and column maxima are
// those of the problem with every copy written out: one copy of row r
// touches max(1, v_x/w_r) copies of variable x (all of them for a row of
// one copy, its own for a row of a class), so each stands for a coefficient
// g / max(1, v_x/w_r).
func (q *ipmProblem) equilibrate() []float64 {
	n, m := len(q.c), len(q.rows)
	e := take(&q.buf.e, n)
	for k := range e {
		e[k] = 1
	}
	colMax, rowMax := take(&q.buf.colMax, n), take(&q.buf.rowMax, m)
	nnz := 0
	for _, r := range q.rows {
		nnz += len(r)
	}
	div := take(&q.buf.div, nnz)[:0] // each term's max(1, v_x/w_r), term after term
	for i, r := range q.rows {
		for _, t := range r {
			div = append(div, max(1, q.v[t.Var]/q.w[i]))
		}
	}
	for range ipmEquilRounds {
		clear(colMax)
		clear(rowMax)
		at := 0
		for i, r := range q.rows {
			for _, t := range r {
				a := t.Coef
				if dv := div[at]; dv != 1 { // x/1 is x: most terms skip the division
					a /= dv
				}
				a = math.Abs(a)
				at++
				colMax[t.Var] = max(colMax[t.Var], a)
				rowMax[i] = max(rowMax[i], a)
			}
		}
		sqrtOrOne := func(x float64) float64 {
			if x < 1e-6 {
				return 1
			}
			return math.Sqrt(x)
		}
		for k := range colMax {
			colMax[k] = sqrtOrOne(colMax[k])
			e[k] *= colMax[k]
			q.c[k] /= colMax[k]
		}
		for i, r := range q.rows {
			d := sqrtOrOne(rowMax[i])
			for k := range r {
				r[k].Coef /= d * colMax[r[k].Var]
			}
			q.h[i] /= d
		}
	}
	return e
}

// ipmState is one iterate of the embedding.
type ipmState struct {
	x, s, z  []float64
	tau, kap float64
}

// solve runs the method on q (equilibrating it first) and returns the
// status and, when optimal, the solution over the free variables.
func (q *ipmProblem) solve(deadline time.Time, w *Work) (Status, []float64, error) {
	// Rows are copied (into one array): equilibrate scales them in place.
	nnz := 0
	for _, r := range q.rows {
		nnz += len(r)
	}
	terms := take(&q.buf.terms, nnz)[:0]
	for i, r := range q.rows {
		terms = append(terms, r...)
		q.rows[i] = terms[len(terms)-len(r) : len(terms) : len(terms)]
	}
	q.bound = terms[:q.nBound]
	e := q.equilibrate()
	q.resx0, q.resz0 = max(1, wnorm(q.c, q.v)), max(1, wnorm(q.h, q.w))
	q.sumW = 0
	for _, w := range q.w {
		q.sumW += w
	}
	k, err := q.start(w)
	if err != nil {
		return Error, nil, err
	}
	st := k.state
	for iter := 0; ; iter++ {
		r := q.residuals(&st)
		if s := r.verdict(&st, ipmFeasTol, ipmAbsTol, ipmRelTol); s != Error {
			return q.finish(s, st, e)
		}
		if iter == ipmMaxIter {
			if s := r.verdict(&st, ipmFeasInacc, ipmAbsInacc, ipmRelInacc); s != Error {
				return q.finish(s, st, e)
			}
			return Error, nil, fmt.Errorf("interior point: no convergence in %d iterations (primal residual %.2g, dual residual %.2g, gap %.2g)", ipmMaxIter, r.pres, r.dres, r.gap)
		}
		if !deadline.IsZero() && !time.Now().Before(deadline) {
			return LimitReached, nil, nil
		}
		if err := k.step(q, &st, r.rx, r.rz, r.rt, r.mu); err != nil {
			if s := r.verdict(&st, ipmFeasInacc, ipmAbsInacc, ipmRelInacc); s != Error {
				return q.finish(s, st, e)
			}
			return Error, nil, fmt.Errorf("interior point, iteration %d: %w", iter, err)
		}
	}
}

// ipmResiduals are an iterate's residuals and the measures ECOS stops on:
// rx = −V⁻¹GᵀΩz − cτ, rz = s + Gx − hτ, rt = κ + cᵀx + hᵀz (inner
// products over the copies), the gap sᵀz, μ, the relative residuals and the
// infeasibility certificates' residuals (NaN when not applicable).
type ipmResiduals struct {
	rx, rz              []float64
	rt, mu, cx, hz, gap float64
	pres, dres, relgap  float64
	pinf, dinf          float64
}

func (q *ipmProblem) residuals(st *ipmState) ipmResiduals {
	n, m := len(q.c), len(q.rows)
	if len(q.rx) != n || len(q.rz) != m {
		q.rx, q.rz, q.gtz, q.gx = make([]float64, n), make([]float64, m), make([]float64, n), make([]float64, m)
	}
	r := ipmResiduals{rx: q.rx, rz: q.rz, relgap: math.NaN(), pinf: math.NaN(), dinf: math.NaN()}
	gtz := q.gtOmegaInto(q.gtz, st.z)
	gx := q.gInto(q.gx, st.x)
	// Every sum below is the loop of wdot (or wnorm) it stands for, term
	// by term in index order; the sums over the same index share a loop,
	// which lets their additions overlap.
	hresx, cx, xx, rxx := 0.0, 0.0, 0.0, 0.0
	v, c, x := q.v[:n], q.c[:n], st.x[:n]
	for j, rx := range r.rx[:n] {
		rx = -gtz[j]/v[j] - c[j]*st.tau
		r.rx[j] = rx
		hresx += v[j] * sq(gtz[j]/v[j])
		cx += v[j] * c[j] * x[j]
		xx += v[j] * x[j] * x[j]
		rxx += v[j] * rx * rx
	}
	hresz, hz, gap, ss, zz, rzz := 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
	w, h, sv, z, gxm := q.w[:m], q.h[:m], st.s[:m], st.z[:m], gx[:m]
	for i := range r.rz[:m] {
		hresz += w[i] * sq(sv[i]+gxm[i])
		rz := sv[i] + gxm[i] - h[i]*st.tau
		r.rz[i] = rz
		hz += w[i] * h[i] * z[i]
		gap += w[i] * sv[i] * z[i]
		ss += w[i] * sv[i] * sv[i]
		zz += w[i] * z[i] * z[i]
		rzz += w[i] * rz * rz
	}
	r.cx, r.hz = cx, hz
	r.rt = st.kap + r.cx + r.hz
	r.gap = gap
	r.mu = (r.gap + st.tau*st.kap) / (q.sumW + 1)
	nx, ns, nz := math.Sqrt(xx), math.Sqrt(ss), math.Sqrt(zz)
	resx0, resz0 := q.resx0, q.resz0
	r.pres = math.Sqrt(rzz) / max(resz0+nx+ns, 1) / st.tau
	r.dres = math.Sqrt(rxx) / max(resx0+nz, 1) / st.tau
	pcost, dcost := r.cx/st.tau, -r.hz/st.tau
	switch {
	case pcost < 0:
		r.relgap = r.gap / -pcost
	case dcost > 0:
		r.relgap = r.gap / dcost
	}
	if r.hz/max(nz, 1) < -ipmRelTol {
		r.pinf = math.Sqrt(hresx) / max(nz, 1)
	}
	if r.cx/max(nx, 1) < -ipmRelTol {
		r.dinf = math.Sqrt(hresz) / max(nx+ns, 1)
	}
	return r
}

// verdict is ECOS's exit test at the given tolerances: Optimal, Unbounded,
// Infeasible, or Error for "not yet".
func (r *ipmResiduals) verdict(st *ipmState, feas, abs, rel float64) Status {
	switch {
	case (-r.cx > 0 || -r.hz >= -abs) && r.pres < feas && r.dres < feas && (r.gap < abs || r.relgap < rel):
		return Optimal
	case r.dinf < feas && st.tau < st.kap:
		return Unbounded
	case (r.pinf < feas && st.tau < st.kap) || (st.tau < feas && st.kap < feas && r.pinf < feas):
		return Infeasible
	}
	return Error
}

// finish turns the final iterate into the answer: x/τ, unscaled.
func (q *ipmProblem) finish(s Status, st ipmState, e []float64) (Status, []float64, error) {
	if s != Optimal {
		return s, nil, nil
	}
	x := make([]float64, len(st.x))
	for j := range x {
		x[j] = st.x[j] / st.tau / e[j]
	}
	return Optimal, x, nil
}

// ipmKKT holds the starting point and solves the method's linear systems
//
//	[ 0   V⁻¹GᵀΩ ] [dx]   [bx]
//	[ G   −D²    ] [dz] = [bz]
//
// through the normal equations (GᵀΩD⁻²G) dx = V·bx + GᵀΩD⁻²·bz, with D² =
// diag(s/z) the Nesterov–Todd scaling (D = I for the start); see normal.go.
type ipmKKT struct {
	state  ipmState
	layout *arrowLayout // nil: dense
	arrow  *arrowFactor // the last arrow factorisation (its memory is reused)
	dense  *denseFactor // the last dense factorisation (likewise)
	fact   normalFactor
	n      int
	d2     []float64
	// refinedSolve's work space: N·x and the residual; gx is G·x of the
	// answer it returned (normalInto's), valid while gxOK.
	hx, r, gx []float64
	gxOK      bool
	// Work space of step and solve, by slot (see scratch).
	work [23][]float64
}

// scratch returns work slot i with n entries, to be written before it is
// read; its contents last until the slot is asked for again.
func (k *ipmKKT) scratch(i, n int) []float64 {
	if cap(k.work[i]) < n {
		k.work[i] = make([]float64, n)
	}
	k.work[i] = k.work[i][:n]
	return k.work[i]
}

// factor forms and factors GᵀΩD⁻²G for the scaling d2.
func (k *ipmKKT) factor(q *ipmProblem, d2 []float64) error {
	k.n, k.d2 = len(q.c), d2
	var err error
	if k.layout != nil {
		if k.arrow, err = factorArrow(q, k.layout, d2, k.arrow); err == nil {
			k.fact = k.arrow
			return nil
		}
	}
	if k.dense, err = factorDense(q, d2, k.dense); err == nil {
		k.fact = k.dense
	}
	return err
}

// solve writes dx, dz for the right-hand side (bx, bz) into work slots sx
// and sz, and returns them.
func (k *ipmKKT) solve(q *ipmProblem, bx, bz []float64, sx, sz int) ([]float64, []float64) {
	rhs := k.scratch(13, k.n)
	for j := range rhs {
		rhs[j] = q.v[j] * bx[j]
	}
	gt := k.scratch(15, k.n) // GᵀΩ·(bz / d2)
	clear(gt)
	for i, t := range q.bound {
		gt[t.Var] += t.Coef * (q.w[i] * (bz[i] / k.d2[i]))
	}
	nb := len(q.bound)
	rowsAddScaled(gt, q.rows[nb:], q.w[nb:], bz[nb:], k.d2[nb:])
	for j := range rhs {
		rhs[j] += gt[j]
	}
	dx := k.normalSolve(q, rhs, k.scratch(sx, k.n))
	dz := k.scratch(sz, len(bz)) // (G·dx − bz) / d2
	// G·dx as the refinement's last product computed it, when it did.
	if k.gxOK {
		gx := k.gx[:len(bz)]
		for i := range q.bound {
			dz[i] = (0.0 + gx[i] - bz[i]) / k.d2[i]
		}
		for i := len(q.bound); i < len(q.rows); i++ {
			dz[i] = (gx[i] - bz[i]) / k.d2[i]
		}
		return dx, dz
	}
	for i, t := range q.bound {
		gx := 0.0
		gx += t.Coef * dx[t.Var]
		dz[i] = (gx - bz[i]) / k.d2[i]
	}
	for i := len(q.bound); i < len(q.rows); i++ {
		gx := rowDot(q.rows[i], dx)
		dz[i] = (gx - bz[i]) / k.d2[i]
	}
	return dx, dz
}

// normalSolve solves (GᵀΩD⁻²G) dx = rhs into x (k.n entries) and returns
// it, refining the answer against the matrix itself while the residual
// shrinks (at most 8 rounds): near the optimum the matrix is
// ill-conditioned, and where the LP is degenerate the iterates move along
// directions only this accuracy fixes. Should the structured factorisation
// leave a residual above arrowTrust of the right-hand side (it can lose all
// accuracy where the wide rows dominate the matrix: the
// Sherman–Morrison–Woodbury correction then cancels), the matrix is
// factored densely, for the rest of the solve, and the system solved again.
func (k *ipmKKT) normalSolve(q *ipmProblem, rhs, x []float64) []float64 {
	rel := k.refinedSolve(q, rhs, x)
	if rel > arrowTrust && k.fact == normalFactor(k.arrow) {
		k.layout = nil
		if err := k.factor(q, k.d2); err == nil {
			k.refinedSolve(q, rhs, x)
		}
	}
	return x
}

// arrowTrust is the relative residual of the normal equations above which
// the structured factorisation is given up (healthy solves leave 1e-12 or
// less; a failed one leaves more than the right-hand side).
const arrowTrust = 1e-8

// refinedSolve is normalSolve by the factorisation in force, refined as
// ECOS's kkt_solve refines (Domahidi et al. 2013): at most ipmRefine
// rounds, stopping once the residual's largest entry is below ipmSolveAcc
// of the right-hand side's or a round shrank it less than ipmRefineGain-fold,
// and undoing a round that made it larger. It returns the relative residual
// ‖rhs − N·x‖∞ / (1 + ‖rhs‖∞) of the answer.
func (k *ipmKKT) refinedSolve(q *ipmProblem, rhs, x []float64) float64 {
	k.gxOK = false
	sol, ok := k.fact.solve(rhs)
	if !ok {
		clear(x)
		return math.Inf(1)
	}
	copy(x, sol)
	k.hx, k.r, k.gx = grow(k.hx, k.n), grow(k.r, k.n), grow(k.gx, len(q.rows))
	bnorm := 1 + normInf(rhs)
	var d []float64
	prev := math.Inf(1)
	for round := 0; ; round++ {
		hx := q.normalInto(k.hx, k.gx, x, k.d2)
		k.gxOK = true
		r := k.r[:len(hx)]
		rhs := rhs[:len(hx)]
		// e = normInf(r), folded in the same order as r is written.
		e, nan := 0.0, false
		for j := range r {
			v := rhs[j] - hx[j]
			r[j] = v
			if a := math.Abs(v); a > e {
				e = a
			} else if a != a {
				nan = true
			}
		}
		if nan {
			e = math.NaN()
		}
		if e > prev { // the last round made it worse: undo it
			for j := range x {
				x[j] -= d[j]
			}
			k.gxOK = false // x is not the x of k.gx
			return prev / bnorm
		}
		if round == ipmRefine || e == prev || e <= ipmSolveAcc*bnorm || prev < ipmRefineGain*e {
			return e / bnorm
		}
		prev = e
		if d, ok = k.fact.solve(r); !ok {
			return e / bnorm
		}
		for j := range x {
			x[j] += d[j]
		}
	}
}

// The refinement's limits: ipmRefine rounds at most; stop below
// ipmSolveAcc relative residual (ECOS's LINSYSACC) or when a round gains
// less than ipmRefineGain (ECOS's IRERRFACT). The two stops leave about one
// round a solve where refining while the residual shrinks took three, and
// move a degenerate LP's answer along its optimal face by about 1e-5 (the
// iterates' accuracy there; docs/algorithms/gavel.md, "Which optimum").
const (
	ipmRefine     = 8
	ipmSolveAcc   = 1e-14
	ipmRefineGain = 6
)

// normInf is the largest absolute entry of v (0 for none), NaN when an
// entry is NaN: the fold max(m, |v_i|) from 0, by comparisons, which the
// fold's dependence on the builtin max made several times slower.
func normInf(v []float64) float64 {
	m, nan := 0.0, false
	for _, x := range v {
		if a := math.Abs(x); a > m {
			m = a
		} else if a != a {
			nan = true
		}
	}
	if nan {
		return math.NaN()
	}
	return m
}

// start computes the starting point: x̂ = argmin Σ_r ω_r (h_r − g_r·x)², s
// = h − Gx̂ and ẑ = the z of least Σ ω z² with V⁻¹GᵀΩz = −c, both brought
// into the orthant.
func (q *ipmProblem) start(w *Work) (*ipmKKT, error) {
	k := &ipmKKT{}
	if w != nil { // its factorisations' and vectors' memory; nothing else carries over
		k = &w.kkt
		*k = ipmKKT{arrow: k.arrow, dense: k.dense, hx: k.hx, r: k.r, gx: k.gx, work: k.work}
		if k.arrow != nil {
			k.arrow.l = nil // the layout's memory is reused: the factor is of another
		}
	}
	if !q.dense {
		k.layout = newArrowLayout(q)
	}
	b := q.buf
	ones := take(&b.ones, len(q.rows))
	for i := range ones {
		ones[i] = 1
	}
	if err := k.factor(q, ones); err != nil {
		return nil, fmt.Errorf("interior point, start: %w", err)
	}
	x := k.normalSolve(q, q.gtOmegaInto(take(&b.vc, len(q.c)), q.h), take(&b.x, len(q.c)))
	gx := q.gInto(take(&b.gx0, len(q.rows)), x)
	r := take(&b.r, len(q.h))
	for i := range r {
		r[i] = q.h[i] - gx[i]
	}
	vc := take(&b.vc, len(q.c))
	for j := range vc {
		vc[j] = q.v[j] * q.c[j]
	}
	lam := k.normalSolve(q, vc, take(&b.lam, len(q.c)))
	z := q.gInto(take(&b.z, len(q.rows)), lam)
	for i := range z {
		z[i] = -z[i]
	}
	k.state = ipmState{x: x, s: toOrthant(take(&b.s, len(r)), r), z: toOrthant(take(&b.zs, len(z)), z), tau: 1, kap: 1}
	return k, nil
}

// toOrthant is ECOS's bring-to-cone: r + (1 + α)·1 with α the largest of
// −0.99 and −r_i over the r_i ≤ 0.
func toOrthant(out, r []float64) []float64 {
	alpha := -ipmGamma
	for _, v := range r {
		if v <= 0 && -v > alpha {
			alpha = -v
		}
	}
	for i, v := range r {
		out[i] = v + 1 + alpha
	}
	return out
}

// step takes one predictor-corrector step from st.
func (k *ipmKKT) step(q *ipmProblem, st *ipmState, rx, rz []float64, rt, mu float64) error {
	m := len(st.s)
	d2 := k.scratch(0, m)
	w := k.scratch(1, m)   // NT scaling √(s/z)
	lam := k.scratch(2, m) // √(s∘z)
	for i := range d2 {
		d2[i] = st.s[i] / st.z[i]
		w[i] = math.Sqrt(d2[i])
		lam[i] = math.Sqrt(st.s[i] * st.z[i])
	}
	if err := k.factor(q, d2); err != nil {
		return err
	}
	negC := k.scratch(3, len(q.c))
	for j := range negC {
		negC[j] = -q.c[j]
	}
	dx1, dz1 := k.solve(q, negC, q.h, 17, 18)
	bz := k.scratch(4, m)
	for i := range bz {
		bz[i] = -rz[i] + st.s[i]
	}
	dx2, dz2 := k.solve(q, rx, bz, 19, 20)
	cdx1, hdz1 := wdot2(q.c, dx1, q.v, q.h, dz1, q.w)
	denom := st.kap/st.tau - cdx1 - hdz1
	if denom == 0 || math.IsNaN(denom) {
		return errors.New("degenerate τ equation")
	}
	// Affine (predictor) direction.
	cdx2, hdz2 := wdot2(q.c, dx2, q.v, q.h, dz2, q.w)
	dtauA := (rt - st.kap + cdx2 + hdz2) / denom
	wdzA := k.scratch(5, m)
	dsA := k.scratch(6, m) // W⁻¹·ds
	for i := range wdzA {
		wdzA[i] = w[i] * (dz2[i] + dtauA*dz1[i])
		dsA[i] = -wdzA[i] - lam[i]
	}
	dkapA := -st.kap - st.kap/st.tau*dtauA
	alphaA := stepLength(lam, dsA, wdzA, st.tau, dtauA, st.kap, dkapA)
	sigma := min(ipmSigmaMax, max(ipmSigmaMin, math.Pow(1-alphaA, 3)))
	// Combined (corrector) direction.
	ds1 := k.scratch(7, m) // (λ∘λ + W⁻¹ds∘Wdz − σμ) / λ, divided once for both uses
	bx := k.scratch(8, len(rx))
	for j := range bx {
		bx[j] = (1 - sigma) * rx[j]
	}
	for i := range ds1 {
		ds1[i] = (lam[i]*lam[i] + dsA[i]*wdzA[i] - sigma*mu) / lam[i]
		bz[i] = -(1-sigma)*rz[i] + w[i]*ds1[i]
	}
	dx2, dz2 = k.solve(q, bx, bz, 21, 22)
	bkap := st.kap*st.tau + dkapA*dtauA - sigma*mu
	cdx2, hdz2 = wdot2(q.c, dx2, q.v, q.h, dz2, q.w)
	dtau := ((1-sigma)*rt - bkap/st.tau + cdx2 + hdz2) / denom
	dx := k.scratch(9, len(dx2))
	for j := range dx {
		dx[j] = dx2[j] + dtau*dx1[j]
	}
	dz := k.scratch(10, m)
	wdz := k.scratch(11, m)
	dsW := k.scratch(12, m)
	for i := range dz {
		dz[i] = dz2[i] + dtau*dz1[i]
		wdz[i] = w[i] * dz[i]
		dsW[i] = -(ds1[i] + wdz[i])
	}
	dkap := -(bkap + st.kap*dtau) / st.tau
	alpha := stepLength(lam, dsW, wdz, st.tau, dtau, st.kap, dkap) * ipmGamma
	for j := range st.x {
		st.x[j] += alpha * dx[j]
	}
	for i := range st.s {
		st.s[i] += alpha * w[i] * dsW[i]
		st.z[i] += alpha * dz[i]
	}
	st.tau += alpha * dtau
	st.kap += alpha * dkap
	for i := range st.s {
		if !(st.s[i] > 0 && st.z[i] > 0) {
			return errors.New("iterate left the orthant")
		}
	}
	if !(st.tau > 0 && st.kap > 0) {
		return errors.New("τ or κ left the orthant")
	}
	return nil
}

// stepLength is the largest step α ≤ 0.999 (and ≥ 1e-6) keeping λ + α·ds,
// λ + α·dz, τ + α·dτ and κ + α·dκ non-negative, in the scaled variables.
func stepLength(lam, ds, dz []float64, tau, dtau, kap, dkap float64) float64 {
	// low is the least of the ds_i/λ_i and dz_i/λ_i; a NaN among them
	// leaves it unused, as the builtin min's NaN would (NaN < 0 is false).
	low, nan := math.Inf(1), false
	ds, dz = ds[:len(lam)], dz[:len(lam)]
	for i, l := range lam {
		if a := ds[i] / l; a < low {
			low = a
		} else if a != a {
			nan = true
		}
		if b := dz[i] / l; b < low {
			low = b
		} else if b != b {
			nan = true
		}
	}
	alpha := 10.0
	if len(lam) > 0 {
		alpha = 1 / ipmTiny
		if low < 0 && !nan {
			alpha = 1 / -low
		}
	}
	if t := -tau / dtau; t > 0 && t < alpha {
		alpha = t
	}
	if t := -kap / dkap; t > 0 && t < alpha {
		alpha = t
	}
	return max(ipmStepMin, min(ipmStepMax, alpha))
}

// g is G·x.
func (q *ipmProblem) g(x []float64) []float64 { return q.gInto(make([]float64, len(q.rows)), x) }

// gInto writes G·x into out (one entry per row) and returns it.
func (q *ipmProblem) gInto(out, x []float64) []float64 {
	rows := q.rows
	out = out[:len(rows)]
	for i := 0; i < len(rows); i++ {
		switch r := rows[i]; len(r) {
		case 1: // rowDot's sum, written out for a bound's row
			s := 0.0
			s += r[0].Coef * x[r[0].Var]
			out[i] = s
		case 3, 4:
			out[i] = rowDot(r, x)
		default:
			if wideRun(rows, i) == 3 {
				out[i], out[i+1], out[i+2] = rowDots3(r, rows[i+1], rows[i+2], x)
				i += 2
				continue
			}
			out[i] = rowDot(r, x)
		}
	}
	return out
}

// wideRun is 3 when rows i, i+1 and i+2 have the same number of terms, more
// than four (a Gavel LP's three capacity rows, a term a class each), else 1.
func wideRun(rows [][]Term, i int) int {
	if i+2 < len(rows) && len(rows[i]) > 4 && len(rows[i+1]) == len(rows[i]) && len(rows[i+2]) == len(rows[i]) {
		return 3
	}
	return 1
}

// rowDots3 is rowDot of three rows of the same length, in one loop (their
// sums are independent: so their additions overlap), each summed from 0 in
// its row's order.
func rowDots3(r0, r1, r2 []Term, x []float64) (float64, float64, float64) {
	r1, r2 = r1[:len(r0)], r2[:len(r0)]
	s0, s1, s2 := 0.0, 0.0, 0.0
	for k, t := range r0 {
		s0 += t.Coef * x[t.Var]
		s1 += r1[k].Coef * x[r1[k].Var]
		s2 += r2[k].Coef * x[r2[k].Var]
	}
	return s0, s1, s2
}

// normalInto writes GᵀΩD⁻²G·x into out (one entry per variable) and
// returns it: gInto, a division of each entry by d2, then gtOmegaInto, in
// one pass over the rows (the same operations in the same order). It
// writes G·x into gx (one entry per row; a bound row's is its one product,
// which 0 + gx[i] turns into rowDot's sum).
func (q *ipmProblem) normalInto(out, gx, x, d2 []float64) []float64 {
	clear(out)
	w, d := q.w[:len(q.bound)], d2[:len(q.bound)]
	gb := gx[:len(q.bound)]
	for i, t := range q.bound {
		// A one-term row: its product alone (0 + p is p, up to a zero's
		// sign, which no entry of out, all starting at +0, can keep).
		p := t.Coef * x[t.Var]
		gb[i] = p
		f := w[i] * (p / d[i])
		out[t.Var] += t.Coef * f
	}
	nb := len(q.bound)
	rowsDotAdd(out, gx[nb:], q.rows[nb:], x, q.w[nb:], d2[nb:])
	return out
}

// rowsDotAdd does, for each row i in order, gx[i] = rowDot(rows[i], x)
// and rowsAddScaled of the row with w[i]·(gx[i]/d2[i]): the same operations in the
// same order, rows of three and four terms written out, and the products
// of three wide rows of one length in a row (wideRun) taken together
// before their additions (they read x alone).
func rowsDotAdd(out, gx []float64, rows [][]Term, x, w, d2 []float64) {
	gx, w, d2 = gx[:len(rows)], w[:len(rows)], d2[:len(rows)]
	for i := 0; i < len(rows); i++ {
		switch r := rows[i]; len(r) {
		case 3:
			r := r[:3]
			s := 0.0
			s += r[0].Coef * x[r[0].Var]
			s += r[1].Coef * x[r[1].Var]
			s += r[2].Coef * x[r[2].Var]
			gx[i] = s
			f := w[i] * (s / d2[i])
			out[r[0].Var] += r[0].Coef * f
			out[r[1].Var] += r[1].Coef * f
			out[r[2].Var] += r[2].Coef * f
		case 4:
			r := r[:4]
			s := 0.0
			s += r[0].Coef * x[r[0].Var]
			s += r[1].Coef * x[r[1].Var]
			s += r[2].Coef * x[r[2].Var]
			s += r[3].Coef * x[r[3].Var]
			gx[i] = s
			f := w[i] * (s / d2[i])
			out[r[0].Var] += r[0].Coef * f
			out[r[1].Var] += r[1].Coef * f
			out[r[2].Var] += r[2].Coef * f
			out[r[3].Var] += r[3].Coef * f
		default:
			if wideRun(rows, i) == 3 {
				gx[i], gx[i+1], gx[i+2] = rowDots3(r, rows[i+1], rows[i+2], x)
				rowsAddScaled(out, rows[i:i+3], w[i:i+3], gx[i:i+3], d2[i:i+3])
				i += 2
				continue
			}
			gx[i] = rowDot(r, x)
			rowsAddScaled(out, rows[i:i+1], w[i:i+1], gx[i:i+1], d2[i:i+1])
		}
	}
}

// rowsAddScaled adds t.Coef·f_i to out[t.Var] for each term t of each row
// i in order, f_i = w[i]·(b[i]/d[i]), or w[i]·b[i] where d is nil (rows of
// three and four terms written out).
func rowsAddScaled(out []float64, rows [][]Term, w, b, d []float64) {
	w, b = w[:len(rows)], b[:len(rows)]
	for i, r := range rows {
		f := w[i] * b[i]
		if d != nil {
			f = w[i] * (b[i] / d[i])
		}
		switch len(r) {
		case 3:
			r := r[:3]
			out[r[0].Var] += r[0].Coef * f
			out[r[1].Var] += r[1].Coef * f
			out[r[2].Var] += r[2].Coef * f
		case 4:
			r := r[:4]
			out[r[0].Var] += r[0].Coef * f
			out[r[1].Var] += r[1].Coef * f
			out[r[2].Var] += r[2].Coef * f
			out[r[3].Var] += r[3].Coef * f
		default:
			for _, t := range r {
				out[t.Var] += t.Coef * f
			}
		}
	}
}

// rowDot is Σ_t t.Coef·x[t.Var] over row r, summed from 0 in r's order;
// rows of three and four terms (a class's rows over three GPU types, with
// or without the max-min level) are written out, the same operations in
// the same order.
func rowDot(r []Term, x []float64) float64 {
	s := 0.0
	switch len(r) {
	case 3:
		r := r[:3]
		s += r[0].Coef * x[r[0].Var]
		s += r[1].Coef * x[r[1].Var]
		s += r[2].Coef * x[r[2].Var]
	case 4:
		r := r[:4]
		s += r[0].Coef * x[r[0].Var]
		s += r[1].Coef * x[r[1].Var]
		s += r[2].Coef * x[r[2].Var]
		s += r[3].Coef * x[r[3].Var]
	default:
		for _, t := range r {
			s += t.Coef * x[t.Var]
		}
	}
	return s
}

// gtOmega is GᵀΩ·y.
func (q *ipmProblem) gtOmega(y []float64) []float64 {
	return q.gtOmegaInto(make([]float64, len(q.c)), y)
}

// gtOmegaInto writes GᵀΩ·y into out (one entry per variable) and returns
// it.
func (q *ipmProblem) gtOmegaInto(out, y []float64) []float64 {
	clear(out)
	rowsAddScaled(out, q.rows, q.w, y, nil)
	return out
}

func sq(x float64) float64 { return x * x }

// wdot is Σ w_i a_i b_i.
func wdot(a, b, w []float64) float64 {
	s := 0.0
	for i := range a {
		s += w[i] * a[i] * b[i]
	}
	return s
}

// wdot2 is wdot(a1, b1, w1) and wdot(a2, b2, w2), each summed in index
// order as wdot sums, in one loop over their common length (so that their
// additions overlap) and the longer one's tail.
func wdot2(a1, b1, w1, a2, b2, w2 []float64) (float64, float64) {
	n := min(len(a1), len(a2))
	a1, b1, w1 = a1[:len(a1)], b1[:len(a1)], w1[:len(a1)]
	a2, b2, w2 = a2[:len(a2)], b2[:len(a2)], w2[:len(a2)]
	s1, s2 := 0.0, 0.0
	for i := 0; i < n; i++ {
		s1 += w1[i] * a1[i] * b1[i]
		s2 += w2[i] * a2[i] * b2[i]
	}
	for i := n; i < len(a1); i++ {
		s1 += w1[i] * a1[i] * b1[i]
	}
	for i := n; i < len(a2); i++ {
		s2 += w2[i] * a2[i] * b2[i]
	}
	return s1, s2
}

// wnorm is √(Σ w_i a_i²).
func wnorm(a, w []float64) float64 { return math.Sqrt(wdot(a, a, w)) }
