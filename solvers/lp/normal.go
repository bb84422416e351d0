package lp

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"
)

// This file solves the interior-point method's normal equations
//
//	N·dx = rhs,   N = GᵀΩD⁻²G = Σ_r (ω_r / d²_r)·g_r·g_rᵀ
//
// either densely (Cholesky of the whole matrix, O(n³)) or, for problems
// built of many small classes — the policies' LPs — in time linear in their
// number. There each variable belongs to a small block (a class's shares),
// except a few "border" variables that many rows share (the max-min level
// t); each row touches one block and the border ("local" rows), except a
// few rows that touch many blocks (the capacity rows). Then
//
//	N = [ B  E ]  +  U·Uᵀ
//	    [ Eᵀ F ]
//
// with B block-diagonal (the local rows on the blocks), E and F the local
// rows' border parts, and one column u_r = √(ω_r/d²_r)·g_r of U per wide
// row. The arrow is solved through its blocks and the Schur complement of
// the border, F − EᵀB⁻¹E, and U·Uᵀ through the Sherman–Morrison–Woodbury
// identity. Both are followed by iterative refinement against N itself
// (ipmKKT.normalSolve).

// normalFactor is a factorised N.
type normalFactor interface {
	// solve returns N⁻¹·rhs, or false when the factorisation cannot. The
	// answer may be the factor's work space, valid until its next solve.
	solve(rhs []float64) ([]float64, bool)
}

// Layout limits: a row with more terms than wideRow, or a variable in more
// rows than wideVar, is wide; blocks above maxBlock variables, or more than
// maxBorder border variables or maxWide wide rows, make the problem dense.
const (
	wideRow   = 12
	wideVar   = 12
	maxBlock  = 24
	maxBorder = 16
	maxWide   = 32
	// denseBelow is the size under which the dense factorisation is used
	// whatever the structure.
	denseBelow = 60
)

// arrowLayout is the partition of a problem's variables and rows.
type arrowLayout struct {
	blocks [][]int // variables of each block
	where  []int   // position of a variable: index in its block, or in border
	block  []int   // block of a variable, −1 for the border
	border []int   // border variables
	wide   []int   // wide rows
	local  []int   // local rows
}

// newArrowLayout finds the layout of q, or nil when q is small or not built
// of small blocks.
func newArrowLayout(q *ipmProblem) *arrowLayout {
	n := len(q.c)
	if n < denseBelow {
		return nil
	}
	deg := make([]int, n)
	for _, r := range q.rows {
		for _, t := range r {
			deg[t.Var]++
		}
	}
	l := &arrowLayout{where: make([]int, n), block: make([]int, n)}
	isBorder := make([]bool, n)
	for j := range deg {
		if deg[j] > wideVar {
			isBorder[j] = true
			l.block[j] = -1
			l.where[j] = len(l.border)
			l.border = append(l.border, j)
		}
	}
	parent := make([]int, n)
	for j := range parent {
		parent[j] = j
	}
	find := func(j int) int {
		for parent[j] != j {
			parent[j] = parent[parent[j]]
			j = parent[j]
		}
		return j
	}
	for i, r := range q.rows {
		if len(r) > wideRow {
			l.wide = append(l.wide, i)
			continue
		}
		l.local = append(l.local, i)
		first := -1
		for _, t := range r {
			if isBorder[t.Var] {
				continue
			}
			if first < 0 {
				first = t.Var
				continue
			}
			parent[find(t.Var)] = find(first)
		}
	}
	if len(l.border) > maxBorder || len(l.wide) > maxWide {
		return nil
	}
	index := map[int]int{}
	for j := 0; j < n; j++ {
		if isBorder[j] {
			continue
		}
		root := find(j)
		b, ok := index[root]
		if !ok {
			b = len(l.blocks)
			index[root] = b
			l.blocks = append(l.blocks, nil)
		}
		l.block[j] = b
		l.where[j] = len(l.blocks[b])
		l.blocks[b] = append(l.blocks[b], j)
		if len(l.blocks[b]) > maxBlock {
			return nil
		}
	}
	return l
}

// denseFactor is the Cholesky factor of the whole of N.
type denseFactor struct {
	chol chol
	h    *mat.SymDense // N before factoring (its memory is reused)
	v    []float64     // solve's answer
}

func (f *denseFactor) solve(rhs []float64) ([]float64, bool) {
	f.v = append(f.v[:0], rhs...)
	if !f.chol.solveInPlace(f.v) {
		return nil, false
	}
	return f.v, true
}

// ridge is the relative amount added to the diagonal: it keeps a matrix
// factorisable when a variable has no row left to bound it, far below the
// scale of the matrix (iterative refinement removes its effect).
func ridge(maxDiag float64) float64 { return ipmTiny * math.Max(1, maxDiag) }

// factorDense forms and factors N, in the memory of f (a factor of an
// earlier scaling of the same problem, or nil).
func factorDense(q *ipmProblem, d2 []float64, f *denseFactor) (*denseFactor, error) {
	n := len(q.c)
	if f == nil || f.h == nil || f.h.SymmetricDim() != n {
		f = &denseFactor{h: mat.NewSymDense(n, nil)}
	} else {
		clear(f.h.RawSymmetric().Data)
	}
	raw := f.h.RawSymmetric()
	data, stride := raw.Data, raw.Stride
	for i, r := range q.rows {
		w := q.w[i] / d2[i]
		for a, ta := range r {
			for _, tb := range r[a:] {
				i0, j0 := ta.Var, tb.Var
				if i0 > j0 {
					i0, j0 = j0, i0
				}
				data[i0*stride+j0] += w * ta.Coef * tb.Coef
			}
		}
	}
	addRidge(f.h, n)
	if ok := f.chol.factorize(f.h); !ok {
		return nil, errors.New("normal equations are not positive definite")
	}
	return f, nil
}

// arrowFactor is N factored by its layout.
type arrowFactor struct {
	l      *arrowLayout
	n      int
	blocks []chol      // B_b
	e      [][]float64 // E_b, row-major: len(block)×len(border)
	binvE  [][]float64 // B_b⁻¹·E_b, same shape
	schur  chol        // F − EᵀB⁻¹E
	// Work space kept from one factorisation to the next: the blocks and
	// the border before factoring.
	bs     []*mat.SymDense
	border *mat.SymDense
	u      [][]float64 // columns of U
	hinvU  [][]float64 // arrow⁻¹·U
	smw    chol        // I + Uᵀ·arrow⁻¹·U
	// Work space of arrowSolve: B_b⁻¹·r_b for every block, one slice.
	binvR []float64
	start []int     // where block b's part of binvR starts
	rg    []float64 // the border's part
	y     []float64 // solve's answer
	uy    []float64 // Uᵀ·y
	col   []float64 // factorBlock's column
	smwM  *mat.SymDense
}

// factorArrow forms and factors N by the layout l, in the memory of f (a
// factor of an earlier scaling by the same layout, or nil).
func factorArrow(q *ipmProblem, l *arrowLayout, d2 []float64, f *arrowFactor) (*arrowFactor, error) {
	if f == nil || f.l != l {
		f = &arrowFactor{l: l, n: len(q.c)}
	}
	bs, border := f.accumulate(q, d2)
	if err := f.factorBlocks(bs, border); err != nil {
		return nil, err
	}
	if err := f.factorWide(q, d2); err != nil {
		return nil, err
	}
	return f, nil
}

// accumulate sums the local rows into the blocks B_b, the border parts E_b
// (into f.e) and F (the returned border matrix).
func (f *arrowFactor) accumulate(q *ipmProblem, d2 []float64) ([]*mat.SymDense, *mat.SymDense) {
	l, nb := f.l, len(f.l.border)
	if f.bs == nil {
		f.bs = make([]*mat.SymDense, len(l.blocks))
		f.e = make([][]float64, len(l.blocks))
		for b, vars := range l.blocks {
			f.bs[b] = mat.NewSymDense(len(vars), nil)
			f.e[b] = make([]float64, len(vars)*nb)
		}
		f.border = mat.NewSymDense(max(nb, 1), nil)
	} else {
		for b := range l.blocks {
			clear(f.bs[b].RawSymmetric().Data)
			clear(f.e[b])
		}
		clear(f.border.RawSymmetric().Data)
	}
	bs, border := f.bs, f.border
	for _, i := range l.local {
		w := q.w[i] / d2[i]
		r := q.rows[i]
		for a, ta := range r {
			for _, tb := range r[a:] {
				v := w * ta.Coef * tb.Coef
				ba, bb := l.block[ta.Var], l.block[tb.Var]
				pa, pb := l.where[ta.Var], l.where[tb.Var]
				switch {
				case ba >= 0 && bb >= 0: // same block (a local row touches one)
					addSym(bs[ba], pa, pb, v)
				case ba >= 0:
					f.e[ba][pa*nb+pb] += v
				case bb >= 0:
					f.e[bb][pb*nb+pa] += v
				default:
					addSym(border, pa, pb, v)
				}
			}
		}
	}
	return bs, border
}

// factorBlocks factors every block, forms B_b⁻¹·E_b, and factors the
// border's Schur complement F − Σ_b E_bᵀ·B_b⁻¹·E_b.
func (f *arrowFactor) factorBlocks(bs []*mat.SymDense, border *mat.SymDense) error {
	l, nb := f.l, len(f.l.border)
	if f.blocks == nil {
		f.blocks = make([]chol, len(l.blocks))
		f.binvE = make([][]float64, len(l.blocks))
	}
	for b, vars := range l.blocks {
		if err := f.factorBlock(b, bs[b]); err != nil {
			return err
		}
		for g := 0; g < nb; g++ {
			for h := g; h < nb; h++ {
				s := 0.0
				for k := range vars {
					s += f.e[b][k*nb+g] * f.binvE[b][k*nb+h]
				}
				addSym(border, g, h, -s)
			}
		}
	}
	if nb == 0 {
		return nil
	}
	addRidge(border, nb)
	if ok := f.schur.factorize(border); !ok {
		return errors.New("normal equations: the border is not positive definite")
	}
	return nil
}

// factorBlock factors block b and forms B_b⁻¹·E_b.
func (f *arrowFactor) factorBlock(b int, m *mat.SymDense) error {
	vars, nb := f.l.blocks[b], len(f.l.border)
	addRidge(m, len(vars))
	if ok := f.blocks[b].factorize(m); !ok {
		return errors.New("normal equations: a block is not positive definite")
	}
	if f.binvE[b] == nil {
		f.binvE[b] = make([]float64, len(vars)*nb)
	}
	if cap(f.col) < len(vars) {
		f.col = make([]float64, maxBlock)
	}
	col := f.col[:len(vars)]
	for g := 0; g < nb; g++ {
		for k := range vars {
			col[k] = f.e[b][k*nb+g]
		}
		if !f.blocks[b].solveInPlace(col) {
			return errors.New("normal equations: a block solve failed")
		}
		for k := range vars {
			f.binvE[b][k*nb+g] = col[k]
		}
	}
	return nil
}

// addRidge adds ridge(largest diagonal entry) to the diagonal of m's first
// n rows.
func addRidge(m *mat.SymDense, n int) {
	maxDiag := 0.0
	for k := 0; k < n; k++ {
		maxDiag = math.Max(maxDiag, math.Abs(m.At(k, k)))
	}
	for k := 0; k < n; k++ {
		m.SetSym(k, k, m.At(k, k)+ridge(maxDiag))
	}
}

// factorWide prepares the Sherman–Morrison–Woodbury correction for the wide
// rows: U, arrow⁻¹·U and I + Uᵀ·arrow⁻¹·U factored.
func (f *arrowFactor) factorWide(q *ipmProblem, d2 []float64) error {
	nu := len(f.l.wide)
	if nu == 0 {
		return nil
	}
	if f.u == nil {
		f.u = make([][]float64, nu)
		f.hinvU = make([][]float64, nu)
		for k := range f.u {
			f.u[k], f.hinvU[k] = make([]float64, f.n), make([]float64, f.n)
		}
	}
	for k, i := range f.l.wide {
		s := math.Sqrt(q.w[i] / d2[i])
		u := f.u[k]
		clear(u)
		for _, t := range q.rows[i] {
			u[t.Var] += s * t.Coef
		}
		hu, ok := f.arrowSolve(f.hinvU[k], u)
		if !ok {
			return errors.New("normal equations: arrow solve failed")
		}
		f.hinvU[k] = hu
	}
	if f.smwM == nil {
		f.smwM = mat.NewSymDense(nu, nil)
	}
	m := f.smwM
	for a := 0; a < nu; a++ {
		for b := a; b < nu; b++ {
			v := dot(f.u[a], f.hinvU[b])
			if a == b {
				v++
			}
			m.SetSym(a, b, v)
		}
	}
	if ok := f.smw.factorize(m); !ok {
		return errors.New("normal equations: the wide rows' correction is not positive definite")
	}
	return nil
}

// arrowSolve solves the arrow part, B·y_L + E·y_G = r_L, Eᵀ·y_L + F·y_G =
// r_G, into out (every entry written) and returns it.
func (f *arrowFactor) arrowSolve(out, rhs []float64) ([]float64, bool) {
	l, nb := f.l, len(f.l.border)
	if f.start == nil {
		f.start = make([]int, len(l.blocks)+1)
		for b, vars := range l.blocks {
			f.start[b+1] = f.start[b] + len(vars)
		}
		f.binvR = make([]float64, f.start[len(l.blocks)])
	}
	if f.rg == nil {
		f.rg = make([]float64, nb)
	}
	rg := f.rg
	for g, j := range l.border {
		rg[g] = rhs[j]
	}
	for b, vars := range l.blocks {
		r := f.binvR[f.start[b]:f.start[b+1]]
		for k, j := range vars {
			r[k] = rhs[j]
		}
		if !f.blocks[b].solveInPlace(r) {
			return nil, false
		}
		for g := 0; g < nb; g++ {
			for k := range vars {
				rg[g] -= f.e[b][k*nb+g] * r[k]
			}
		}
	}
	yg := rg
	if nb > 0 && !f.schur.solveInPlace(yg) {
		return nil, false
	}
	for g, j := range l.border {
		out[j] = yg[g]
	}
	for b, vars := range l.blocks {
		r := f.binvR[f.start[b]:f.start[b+1]]
		for k, j := range vars {
			y := r[k]
			for g := 0; g < nb; g++ {
				y -= f.binvE[b][k*nb+g] * yg[g]
			}
			out[j] = y
		}
	}
	return out, true
}

func (f *arrowFactor) solve(rhs []float64) ([]float64, bool) {
	if len(f.y) != f.n {
		f.y = make([]float64, f.n)
	}
	y, ok := f.arrowSolve(f.y, rhs)
	if !ok || len(f.u) == 0 {
		return y, ok
	}
	nu := len(f.u)
	if f.uy == nil {
		f.uy = make([]float64, nu)
	}
	uy := f.uy
	for k := range f.u {
		uy[k] = dot(f.u[k], y)
	}
	if !f.smw.solveInPlace(uy) {
		return nil, false
	}
	for k := range f.hinvU {
		ck := uy[k]
		for j := range y {
			y[j] -= f.hinvU[k][j] * ck
		}
	}
	return y, true
}

// addSym adds v to m[i][j] = m[j][i] (the upper triangle gonum stores).
func addSym(m *mat.SymDense, i, j int, v float64) {
	raw := m.RawSymmetric()
	i, j = min(i, j), max(i, j)
	raw.Data[i*raw.Stride+j] += v
}
