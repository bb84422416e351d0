package lp

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	golp "gonum.org/v1/gonum/optimize/convex/lp"
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
// lo ≤ x ≤ hi, ignoring integrality, with gonum's Simplex.
//
// gonum solves only the standard form min cᵀx s.t. Ax = b, x ≥ 0 with A of
// full row rank and no zero rows or columns, so the problem is transformed:
//
//   - fixed variables (lo = hi) become constants;
//   - rows left without non-zeros are checked (0 ∈ [L, U]) and dropped, as
//     are rows with both bounds infinite;
//   - equality rows that are linear combinations of earlier ones are dropped
//     after checking their right-hand sides agree (the only way the standard
//     form can lose rank, since every other row owns a slack column);
//   - variables left in no row are set to their best bound analytically;
//   - x = lo + x' for a finite lower bound, x = hi − x' for only a finite
//     upper bound, x = x⁺ − x⁻ for a free variable;
//   - L ≤ a·x ≤ U becomes a·x = L (equality), a·x + s = U, a·x − s = L, or
//     a·x − s = L with s ≤ U − L (range);
//   - every finite upper bound u of a standard column y becomes a row
//     y + t = u, unless a row already implies y ≤ u (impliedUppers).
func solveRelaxation(rows [][]Term, p *Problem, c, lo, hi []float64) relaxation {
	n := len(c)
	x := make([]float64, n)
	fixed := make([]bool, n)
	for j := range n {
		if lo[j] > hi[j] {
			return relaxation{status: Infeasible}
		}
		if lo[j] == hi[j] {
			fixed[j] = true
			x[j] = lo[j]
		}
	}

	// Rows in terms of the unfixed variables.
	var eq, ineq []wrow
	inRow := make([]bool, n)
	for i, r := range rows {
		k := 0.0
		var terms []Term
		for _, t := range r {
			if fixed[t.Var] {
				k += t.Coef * x[t.Var]
			} else {
				terms = append(terms, t)
			}
		}
		L, U := p.Rows[i].Lower-k, p.Rows[i].Upper-k
		if len(terms) == 0 {
			if emptyRowInfeasible(Row{Lower: L, Upper: U}) {
				return relaxation{status: Infeasible}
			}
			continue
		}
		switch {
		case math.IsInf(L, -1) && math.IsInf(U, 1):
			continue
		case L == U:
			eq = append(eq, wrow{terms, L, U})
		default:
			ineq = append(ineq, wrow{terms, L, U})
		}
	}

	// Drop dependent equality rows (Gaussian elimination, row by row).
	var basis [][]float64 // reduced rows, basis[k][pivot[k]] == 1
	var basisRHS []float64
	var pivot []int
	kept := eq[:0]
	for _, r := range eq {
		v := make([]float64, n)
		scale := 0.0
		for _, t := range r.terms {
			v[t.Var] = t.Coef
			scale = math.Max(scale, math.Abs(t.Coef))
		}
		rhs := r.lo
		for k, b := range basis {
			if f := v[pivot[k]]; f != 0 {
				for j := range v {
					v[j] -= f * b[j]
				}
				rhs -= f * basisRHS[k]
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
				return relaxation{status: Infeasible}
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
	eq = kept
	for _, r := range eq {
		for _, t := range r.terms {
			inRow[t.Var] = true
		}
	}
	for _, r := range ineq {
		for _, t := range r.terms {
			inRow[t.Var] = true
		}
	}

	// Variables in no row: best bound.
	unbounded := false
	for j := range n {
		if fixed[j] || inRow[j] {
			continue
		}
		switch {
		case c[j] > 0:
			x[j] = lo[j]
		case c[j] < 0:
			x[j] = hi[j]
		default:
			x[j] = math.Max(lo[j], math.Min(hi[j], 0))
		}
		if math.IsInf(x[j], 0) {
			unbounded = true
			x[j] = 0
		}
	}

	// Standard-form columns for the variables in rows.
	var cols []stdColumn
	shift := make([]float64, n)
	first := make([]int, n) // first standard column of each variable
	for j := range n {
		first[j] = -1
		if fixed[j] || !inRow[j] {
			continue
		}
		first[j] = len(cols)
		switch {
		case !math.IsInf(lo[j], -1):
			shift[j] = lo[j]
			cols = append(cols, stdColumn{orig: j, sign: 1, upper: hi[j] - lo[j]})
		case !math.IsInf(hi[j], 1):
			shift[j] = hi[j]
			cols = append(cols, stdColumn{orig: j, sign: -1, upper: math.Inf(1)})
		default:
			cols = append(cols,
				stdColumn{orig: j, sign: 1, upper: math.Inf(1)},
				stdColumn{orig: j, sign: -1, upper: math.Inf(1)})
		}
	}
	nStruct := len(cols)

	// Rows of the standard form, sparse until the end.
	type srow struct {
		idx  []int
		coef []float64
		rhs  float64
	}
	var srows []srow
	addRow := func(r wrow, rhs float64) *srow {
		var s srow
		for _, t := range r.terms {
			rhs -= t.Coef * shift[t.Var]
			k := first[t.Var]
			s.idx = append(s.idx, k)
			s.coef = append(s.coef, t.Coef*cols[k].sign)
			if cols[k].orig == t.Var && k+1 < nStruct && cols[k+1].orig == t.Var {
				s.idx = append(s.idx, k+1)
				s.coef = append(s.coef, -t.Coef)
			}
		}
		s.rhs = rhs
		srows = append(srows, s)
		return &srows[len(srows)-1]
	}
	for _, r := range eq {
		addRow(r, r.lo)
	}
	for _, r := range ineq {
		var s *srow
		switch {
		case math.IsInf(r.lo, -1): // a·x + s = U
			s = addRow(r, r.hi)
			cols = append(cols, stdColumn{orig: -1, sign: 1, upper: math.Inf(1)})
			s.idx, s.coef = append(s.idx, len(cols)-1), append(s.coef, 1)
		default: // a·x − s = L, s ≤ U − L
			s = addRow(r, r.lo)
			cols = append(cols, stdColumn{orig: -1, sign: 1, upper: r.hi - r.lo})
			s.idx, s.coef = append(s.idx, len(cols)-1), append(s.coef, -1)
		}
	}
	implied := impliedUppers(eq, ineq, lo, shift, first, cols)
	nBounded := len(cols)
	for k := range nBounded {
		if u := cols[k].upper; !math.IsInf(u, 1) && !(k < nStruct && implied[cols[k].orig] <= u) {
			cols = append(cols, stdColumn{orig: -1, sign: 1, upper: math.Inf(1)})
			srows = append(srows, srow{idx: []int{k, len(cols) - 1}, coef: []float64{1, 1}, rhs: u})
		}
	}

	if len(srows) == 0 {
		if unbounded {
			return relaxation{status: Unbounded}
		}
		return relaxation{status: Optimal, obj: dot(c, x), x: x}
	}

	m, N := len(srows), len(cols)
	A := mat.NewDense(m, N, nil)
	b := make([]float64, m)
	for i, s := range srows {
		for k, j := range s.idx {
			A.Set(i, j, A.At(i, j)+s.coef[k])
		}
		b[i] = s.rhs
	}
	cs := make([]float64, N)
	for k, col := range cols {
		if col.orig >= 0 {
			cs[k] = col.sign * c[col.orig]
		}
	}

	var xs []float64
	if m == N {
		// gonum's square case rejects tiny negative components outright;
		// solve it here with a tolerance instead.
		var v mat.VecDense
		if err := v.SolveVec(A, mat.NewVecDense(m, b)); err != nil {
			return relaxation{status: Error, err: fmt.Errorf("square standard form: %w", err)}
		}
		xs = v.RawVector().Data
		scale := 1.0
		for _, bi := range b {
			scale = math.Max(scale, math.Abs(bi))
		}
		for k, val := range xs {
			if val < -FeasibilityTolerance*scale {
				return relaxation{status: Infeasible}
			}
			xs[k] = math.Max(val, 0)
		}
	} else {
		var err error
		_, xs, err = golp.Simplex(cs, A, b, simplexTol, nil)
		switch {
		case errors.Is(err, golp.ErrInfeasible):
			return relaxation{status: Infeasible}
		case errors.Is(err, golp.ErrUnbounded):
			return relaxation{status: Unbounded}
		case err != nil:
			return relaxation{status: Error, err: fmt.Errorf("gonum simplex (%d×%d standard form): %w", m, N, err)}
		}
	}
	if unbounded {
		return relaxation{status: Unbounded}
	}
	for j := range n {
		if first[j] >= 0 {
			x[j] = shift[j]
		}
	}
	for k := range nStruct {
		x[cols[k].orig] += cols[k].sign * xs[k]
	}
	for j := range n { // clip round-off outside the bounds
		x[j] = math.Max(lo[j], math.Min(hi[j], x[j]))
	}
	return relaxation{status: Optimal, obj: dot(c, x), x: x}
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
