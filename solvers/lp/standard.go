package lp

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"fairbench/solvers/lp/internal/simplex"
)

// Tolerances of the pure-Go LP (named here, used nowhere else).
const (
	// simplexTol is the reduced-cost tolerance passed to gonum's Simplex.
	simplexTol = 1e-10
	// rankTol is the relative size below which a reduced equality row counts
	// as a linear combination of earlier ones (and is dropped, or proves the
	// problem infeasible when its right-hand side does not reduce to zero).
	rankTol = 1e-9
)

// relaxation is the outcome of one LP solved by the pure-Go backend, in
// minimisation form.
type relaxation struct {
	status Status
	obj    float64   // cᵀx (minimisation form) when Optimal
	x      []float64 // one value per variable when Optimal
	err    error     // cause when status is Error
}

// stdColumn is one column of the standard form: x[orig] = shift + sign·xs.
// orig < 0 marks a slack column.
type stdColumn struct {
	orig  int
	sign  float64
	upper float64 // finite upper bound of xs, or +Inf
}

// wrow is a row in terms of the unfixed variables: lo ≤ Σ terms ≤ hi.
type wrow struct {
	terms  []Term
	lo, hi float64
}

// solveRelaxation solves min cᵀx s.t. the rows of p (merged in rows) and
// lo ≤ x ≤ hi, ignoring integrality, with gonum's Simplex (bounded by lim:
// see internal/simplex).
//
// gonum solves only the standard form min cᵀx s.t. Ax = b, x ≥ 0 with A of
// full row rank and no zero rows or columns, so the problem is transformed,
// one step per method of stdForm:
//
//   - fix: fixed variables (lo = hi) become constants;
//   - reduce: rows left without non-zeros are checked (0 ∈ [L, U]) and
//     dropped, as are rows with both bounds infinite;
//   - dropDependent: equality rows that are linear combinations of earlier
//     ones are dropped after checking their right-hand sides agree (the only
//     way the standard form can lose rank, since every other row owns a
//     slack column);
//   - settleFree: variables left in no row are set to their best bound
//     analytically;
//   - columns: x = lo + x' for a finite lower bound, x = hi − x' for only a
//     finite upper bound, x = x⁺ − x⁻ for a free variable;
//   - standardRows: L ≤ a·x ≤ U becomes a·x = L (equality), a·x + s = U,
//     a·x − s = L, or a·x − s = L with s ≤ U − L (range); every finite upper
//     bound u of a standard column y becomes a row y + t = u, unless a row
//     already implies y ≤ u (impliedUppers);
//   - solveStandard and recover: the simplex, and x from its answer.
func solveRelaxation(rows [][]Term, p *Problem, c, lo, hi []float64, lim *simplex.Limit) relaxation {
	f := &stdForm{n: len(c), c: c, lo: lo, hi: hi}
	for _, step := range []func() Status{
		f.fix,
		func() Status { return f.reduce(rows, p) },
		f.dropDependent,
		f.settleFree,
	} {
		if st := step(); st != Optimal {
			return relaxation{status: st}
		}
	}
	f.columns()
	f.standardRows()
	if len(f.srows) == 0 {
		if f.unbounded {
			return relaxation{status: Unbounded}
		}
		return relaxation{status: Optimal, obj: dot(c, f.x), x: f.x}
	}
	xs, r := f.solveStandard(lim)
	if r.status != Optimal {
		return r
	}
	if f.unbounded {
		return relaxation{status: Unbounded}
	}
	return f.recover(xs)
}

// stdForm is a problem on its way to and back from the standard form.
type stdForm struct {
	n         int
	c, lo, hi []float64
	x         []float64 // values of the fixed and free variables
	fixed     []bool
	inRow     []bool
	eq, ineq  []wrow
	unbounded bool // a free variable improves without limit

	cols    []stdColumn
	shift   []float64
	first   []int // first standard column of each variable, −1 if none
	nStruct int   // structural columns (the rest are slacks)
	srows   []srow
}

// srow is one sparse row of the standard form.
type srow struct {
	idx  []int
	coef []float64
	rhs  float64
}

// fix turns fixed variables into constants.
func (f *stdForm) fix() Status {
	f.x = make([]float64, f.n)
	f.fixed = make([]bool, f.n)
	for j := range f.n {
		if f.lo[j] > f.hi[j] {
			return Infeasible
		}
		if f.lo[j] == f.hi[j] {
			f.fixed[j] = true
			f.x[j] = f.lo[j]
		}
	}
	return Optimal
}

// reduce writes the rows in terms of the unfixed variables, splitting
// equalities from inequalities.
func (f *stdForm) reduce(rows [][]Term, p *Problem) Status {
	for i, r := range rows {
		k := 0.0
		var terms []Term
		for _, t := range r {
			if f.fixed[t.Var] {
				k += t.Coef * f.x[t.Var]
			} else {
				terms = append(terms, t)
			}
		}
		L, U := p.Rows[i].Lower-k, p.Rows[i].Upper-k
		switch {
		case len(terms) == 0:
			if emptyRowInfeasible(Row{Lower: L, Upper: U}) {
				return Infeasible
			}
		case math.IsInf(L, -1) && math.IsInf(U, 1):
		case L == U:
			f.eq = append(f.eq, wrow{terms, L, U})
		default:
			f.ineq = append(f.ineq, wrow{terms, L, U})
		}
	}
	return Optimal
}

// dropDependent drops equality rows that are linear combinations of earlier
// ones (Gaussian elimination, row by row), or finds the problem infeasible
// when such a row's right-hand side does not reduce to zero.
func (f *stdForm) dropDependent() Status {
	var basis [][]float64 // reduced rows, basis[k][pivot[k]] == 1
	var basisRHS []float64
	var pivot []int
	kept := f.eq[:0]
	for _, r := range f.eq {
		v := make([]float64, f.n)
		scale := 0.0
		for _, t := range r.terms {
			v[t.Var] = t.Coef
			scale = math.Max(scale, math.Abs(t.Coef))
		}
		rhs := r.lo
		for k, b := range basis {
			if g := v[pivot[k]]; g != 0 {
				for j := range v {
					v[j] -= g * b[j]
				}
				rhs -= g * basisRHS[k]
			}
		}
		piv, big := -1, 0.0
		for j, a := range v {
			if math.Abs(a) > big {
				piv, big = j, math.Abs(a)
			}
		}
		if big <= rankTol*scale {
			if math.Abs(rhs) > FeasibilityTolerance*(1+math.Abs(r.lo)) {
				return Infeasible
			}
			continue
		}
		pv := v[piv]
		for j := range v {
			v[j] /= pv
		}
		basis = append(basis, v)
		basisRHS = append(basisRHS, rhs/pv)
		pivot = append(pivot, piv)
		kept = append(kept, r)
	}
	f.eq = kept
	return Optimal
}

// settleFree sets the variables that are in no row to their best bound.
func (f *stdForm) settleFree() Status {
	f.inRow = make([]bool, f.n)
	for _, rs := range [][]wrow{f.eq, f.ineq} {
		for _, r := range rs {
			for _, t := range r.terms {
				f.inRow[t.Var] = true
			}
		}
	}
	for j := range f.n {
		if f.fixed[j] || f.inRow[j] {
			continue
		}
		switch {
		case f.c[j] > 0:
			f.x[j] = f.lo[j]
		case f.c[j] < 0:
			f.x[j] = f.hi[j]
		default:
			f.x[j] = math.Max(f.lo[j], math.Min(f.hi[j], 0))
		}
		if math.IsInf(f.x[j], 0) {
			f.unbounded = true
			f.x[j] = 0
		}
	}
	return Optimal
}

// columns makes the standard-form columns of the variables in rows.
func (f *stdForm) columns() {
	f.shift = make([]float64, f.n)
	f.first = make([]int, f.n)
	for j := range f.n {
		f.first[j] = -1
		if f.fixed[j] || !f.inRow[j] {
			continue
		}
		f.first[j] = len(f.cols)
		switch {
		case !math.IsInf(f.lo[j], -1):
			f.shift[j] = f.lo[j]
			f.cols = append(f.cols, stdColumn{orig: j, sign: 1, upper: f.hi[j] - f.lo[j]})
		case !math.IsInf(f.hi[j], 1):
			f.shift[j] = f.hi[j]
			f.cols = append(f.cols, stdColumn{orig: j, sign: -1, upper: math.Inf(1)})
		default:
			f.cols = append(f.cols,
				stdColumn{orig: j, sign: 1, upper: math.Inf(1)},
				stdColumn{orig: j, sign: -1, upper: math.Inf(1)})
		}
	}
	f.nStruct = len(f.cols)
}

// addRow writes r·x = rhs over the standard columns.
func (f *stdForm) addRow(r wrow, rhs float64) *srow {
	var s srow
	for _, t := range r.terms {
		rhs -= t.Coef * f.shift[t.Var]
		k := f.first[t.Var]
		s.idx = append(s.idx, k)
		s.coef = append(s.coef, t.Coef*f.cols[k].sign)
		if f.cols[k].orig == t.Var && k+1 < f.nStruct && f.cols[k+1].orig == t.Var {
			s.idx = append(s.idx, k+1)
			s.coef = append(s.coef, -t.Coef)
		}
	}
	s.rhs = rhs
	f.srows = append(f.srows, s)
	return &f.srows[len(f.srows)-1]
}

// standardRows writes the rows and the finite upper bounds as equalities.
func (f *stdForm) standardRows() {
	for _, r := range f.eq {
		f.addRow(r, r.lo)
	}
	for _, r := range f.ineq {
		if math.IsInf(r.lo, -1) { // a·x + s = U
			s := f.addRow(r, r.hi)
			f.cols = append(f.cols, stdColumn{orig: -1, sign: 1, upper: math.Inf(1)})
			s.idx, s.coef = append(s.idx, len(f.cols)-1), append(s.coef, 1)
			continue
		}
		// a·x − s = L, s ≤ U − L
		s := f.addRow(r, r.lo)
		f.cols = append(f.cols, stdColumn{orig: -1, sign: 1, upper: r.hi - r.lo})
		s.idx, s.coef = append(s.idx, len(f.cols)-1), append(s.coef, -1)
	}
	implied := impliedUppers(f.eq, f.ineq, f.lo, f.shift, f.first, f.cols)
	nBounded := len(f.cols)
	for k := range nBounded {
		if u := f.cols[k].upper; !math.IsInf(u, 1) && !(k < f.nStruct && implied[f.cols[k].orig] <= u) {
			f.cols = append(f.cols, stdColumn{orig: -1, sign: 1, upper: math.Inf(1)})
			f.srows = append(f.srows, srow{idx: []int{k, len(f.cols) - 1}, coef: []float64{1, 1}, rhs: u})
		}
	}
}

// solveStandard solves the standard form densely: directly when it is
// square, else with the (bounded) simplex.
func (f *stdForm) solveStandard(lim *simplex.Limit) ([]float64, relaxation) {
	m, N := len(f.srows), len(f.cols)
	A := mat.NewDense(m, N, nil)
	b := make([]float64, m)
	for i, s := range f.srows {
		for k, j := range s.idx {
			A.Set(i, j, A.At(i, j)+s.coef[k])
		}
		b[i] = s.rhs
	}
	cs := make([]float64, N)
	for k, col := range f.cols {
		if col.orig >= 0 {
			cs[k] = col.sign * f.c[col.orig]
		}
	}
	if m == N {
		return squareStandard(A, b)
	}
	_, xs, err := simplex.Simplex(cs, A, b, simplexTol, nil, lim)
	switch {
	case errors.Is(err, simplex.ErrInfeasible):
		return nil, relaxation{status: Infeasible}
	case errors.Is(err, simplex.ErrUnbounded):
		return nil, relaxation{status: Unbounded}
	case errors.Is(err, simplex.ErrLimit) && lim.Stop != nil && lim.Stop():
		return nil, relaxation{status: LimitReached}
	case errors.Is(err, simplex.ErrLimit):
		return nil, relaxation{status: Error, err: fmt.Errorf("gonum simplex (%d×%d standard form): no optimum after %d iterations (cycling?)", m, N, lim.Iterations)}
	case err != nil:
		return nil, relaxation{status: Error, err: fmt.Errorf("gonum simplex (%d×%d standard form): %w", m, N, err)}
	}
	return xs, relaxation{status: Optimal}
}

// squareStandard solves a square standard form: gonum's Simplex rejects tiny
// negative components outright; here they are allowed a tolerance.
func squareStandard(A *mat.Dense, b []float64) ([]float64, relaxation) {
	m := len(b)
	var v mat.VecDense
	if err := v.SolveVec(A, mat.NewVecDense(m, b)); err != nil {
		return nil, relaxation{status: Error, err: fmt.Errorf("square standard form: %w", err)}
	}
	xs := v.RawVector().Data
	scale := 1.0
	for _, bi := range b {
		scale = math.Max(scale, math.Abs(bi))
	}
	for k, val := range xs {
		if val < -FeasibilityTolerance*scale {
			return nil, relaxation{status: Infeasible}
		}
		xs[k] = math.Max(val, 0)
	}
	return xs, relaxation{status: Optimal}
}

// recover maps the standard form's solution back to x.
func (f *stdForm) recover(xs []float64) relaxation {
	x := f.x
	for j := range f.n {
		if f.first[j] >= 0 {
			x[j] = f.shift[j]
		}
	}
	for k := range f.nStruct {
		x[f.cols[k].orig] += f.cols[k].sign * xs[k]
	}
	for j := range f.n { // clip round-off outside the bounds
		x[j] = math.Max(f.lo[j], math.Min(f.hi[j], x[j]))
	}
	return relaxation{status: Optimal, obj: dot(f.c, x), x: x}
}

// impliedUppers returns, per variable, an upper bound on its standard
// column x' = x − lo implied by one row, or +Inf. A row Σ a_k·x_k ≤ U whose
// variables all have finite lower bounds and whose coefficients are all
// non-negative gives a_j·x'_j ≤ U − Σ a_k·lo_k; a row ≥ L with all
// coefficients non-positive likewise. Where the implied bound is no larger
// than the column's own, the row y + t = u for that bound is redundant and
// left out, which keeps the dense standard form small (in Gavel's LPs,
// Σ_g x[j][g] ≤ 1 implies every x[j][g] ≤ 1).
func impliedUppers(eq, ineq []wrow, lo, shift []float64, first []int, cols []stdColumn) []float64 {
	out := make([]float64, len(lo))
	for j := range out {
		out[j] = math.Inf(1)
	}
	scan := func(r wrow) {
		pos, neg := true, true
		rest := 0.0 // Σ a_k·lo_k
		for _, t := range r.terms {
			if math.IsInf(lo[t.Var], -1) || first[t.Var] < 0 || cols[first[t.Var]].sign < 0 {
				return
			}
			pos = pos && t.Coef > 0
			neg = neg && t.Coef < 0
			rest += t.Coef * shift[t.Var]
		}
		var room float64 // bound on Σ |a_k|·x'_k
		switch {
		case pos && !math.IsInf(r.hi, 1):
			room = r.hi - rest
		case neg && !math.IsInf(r.lo, -1):
			room = rest - r.lo
		default:
			return
		}
		for _, t := range r.terms {
			out[t.Var] = math.Min(out[t.Var], room/math.Abs(t.Coef))
		}
	}
	for _, r := range eq {
		scan(r)
	}
	for _, r := range ineq {
		scan(r)
	}
	return out
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
