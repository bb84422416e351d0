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
// the border, F − EᵀB⁻¹E (each block's term in the Woodbury form of its
// "coupling" rows, those with block and border terms: factorBlocks), and
// U·Uᵀ through the Sherman–Morrison–Woodbury identity. Both are followed by
// iterative refinement against N itself (ipmKKT.normalSolve).

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
)

// arrowLayout is the partition of a problem's variables and rows.
type arrowLayout struct {
	blocks [][]int // variables of each block
	where  []int   // position of a variable: index in its block, or in border
	block  []int   // block of a variable, −1 for the border
	border []int   // border variables
	wide   []int   // wide rows
	local  []int   // local rows
	vars   []int   // the blocks' variables, block after block (blocks[b] are its slices)
}

// newArrowLayout finds the layout of q, or nil when q is not built
// of small blocks.
func newArrowLayout(q *ipmProblem) *arrowLayout {
	n := len(q.c)
	bf := q.buf
	deg := take(&bf.deg, n)
	clear(deg)
	for _, r := range q.rows {
		for _, t := range r {
			deg[t.Var]++
		}
	}
	l := &bf.layout
	*l = arrowLayout{where: take(&l.where, n), block: take(&l.block, n),
		border: l.border[:0], wide: l.wide[:0], local: l.local[:0], blocks: l.blocks[:0]}
	isBorder := take(&bf.isBorder, n)
	clear(isBorder)
	for j := range deg {
		if deg[j] > wideVar {
			isBorder[j] = true
			l.block[j] = -1
			l.where[j] = len(l.border)
			l.border = append(l.border, j)
		}
	}
	parent := take(&bf.parent, n)
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
	// Blocks are numbered in the order of their first variable and list
	// their variables in order; they lie in one array (bf.blockVars).
	index := take(&bf.index, n) // block of a root variable, plus one (0: none yet)
	clear(index)
	sizes := deg[:0] // each block's size (deg's memory: its counts are used)
	for j := 0; j < n; j++ {
		if isBorder[j] {
			continue
		}
		root := find(j)
		b := index[root] - 1
		if b < 0 {
			b = len(sizes)
			index[root] = b + 1
			sizes = append(sizes, 0)
		}
		l.block[j] = b
		l.where[j] = sizes[b]
		sizes[b]++
		if sizes[b] > maxBlock {
			return nil
		}
	}
	vars := take(&bf.blockVars, n-len(l.border))
	l.vars = vars
	at := 0
	for _, k := range sizes {
		l.blocks = append(l.blocks, vars[at:at+k:at+k])
		at += k
	}
	for j := 0; j < n; j++ {
		if b := l.block[j]; b >= 0 {
			l.blocks[b][l.where[j]] = j
		}
	}
	return l
}

// denseFactor is the Cholesky factor of the whole of N.
type denseFactor struct {
	chol chol
	h    *mat.SymDense // N before factoring (its memory is reused)
	data []float64     // h's memory, kept for a problem of another size
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
func ridge(maxDiag float64) float64 { return ipmTiny * max(1, maxDiag) }

// factorDense forms and factors N, in the memory of f (a factor of an
// earlier scaling of the same problem, or nil).
func factorDense(q *ipmProblem, d2 []float64, f *denseFactor) (*denseFactor, error) {
	n := len(q.c)
	if f == nil {
		f = &denseFactor{}
	}
	if f.h == nil || f.h.SymmetricDim() != n {
		f.data = grow(f.data, n*n)
		f.h = mat.NewSymDense(n, f.data)
	}
	clear(f.h.RawSymmetric().Data)
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

// arrowFactor is N factored by its layout. Everything lives in flat
// arrays, block after block, and is kept from one factorisation to the next
// (the layout, and so every size, is the same throughout a solve): the
// policies' blocks have three or four variables, where a call per block
// and per entry would cost more than the arithmetic.
type arrowFactor struct {
	l      *arrowLayout
	n, nb  int
	start  []int     // block b's variables are entries start[b]:start[b+1] of the blocks' vectors
	uStart []int     // block b's matrix (then its factor U) is u[uStart[b]:], len(block)² row-major
	u      []float64 // B_b, then its Cholesky factor U_b (B_b = U_bᵀU_b), upper triangle
	m      []float64 // M_b: B_b less the coupling rows (same layout as u), then its factor
	inv    []float64 // B_b⁻¹, whole (same layout as u): a block's solve is a product
	binvE  []float64 // B_b⁻¹·E_b, row-major len(block)×nb, at start[b]·nb
	border []float64 // F less the coupling rows, then the Schur complement F − EᵀB⁻¹E (nb×nb, upper triangle)
	schur  chol
	of3    bool // every block has three variables (a Gavel class on three GPU types)
	loops  bool // always the general loops, never the written-out cases (tests)
	// pairs are the local rows' contributions to N: row, target entry (in
	// u or border, offset by the sections' starts: see accumulate) and
	// the product of the two coefficients.
	pairs   []arrowPair
	rowAt   []int  // pairs of local row l.local[k] are pairs[rowAt[k]:rowAt[k+1]]
	coupled []bool // local row l.local[k] is a coupling row (block and border)
	// The coupling rows, block by block (those of block b are
	// couple[coupleAt[b]:coupleAt[b+1]]), and the work space of their
	// Woodbury form (factorBlocks).
	couple   []arrowCoupling
	coupleAt []int
	spans    []arrowSpan // newArrowFactor's work space
	next     []int       // likewise
	terms    []arrowTerm
	z, c, yb []float64
	// The wide rows' Sherman–Morrison–Woodbury correction.
	u2    [][]float64 // columns of U
	uTerm [][]Term    // the same, their non-zeros only (the wide row's terms, scaled)
	hinvU [][]float64 // arrow⁻¹·U
	smw   chol        // I + Uᵀ·arrow⁻¹·U
	smwM  *mat.SymDense
	// Work space.
	binvR []float64 // B_b⁻¹·r_b for every block
	rg    []float64 // the border's part
	y     []float64 // solve's answer
	uy    []float64 // Uᵀ·y
	schM  *mat.SymDense
}

// arrowSpan is a coupling row of a block while newArrowFactor lists them:
// its terms are f.terms[start:mid] (block) and [mid:end] (border).
type arrowSpan struct{ row, block, start, mid, end int }

// arrowCoupling is a local row that touches a block and the border: its
// block part g (positions in the block) and border part h (positions in
// the border).
type arrowCoupling struct {
	row  int
	g, h []arrowTerm
}

// arrowTerm is one coefficient of a coupling row.
type arrowTerm struct {
	at   int
	coef float64
}

// arrowPair is one product of two terms of a local row.
type arrowPair struct {
	at   int32
	prod float64
}

// factorArrow forms and factors N by the layout l, in the memory of f (a
// factor of an earlier scaling by the same layout, or nil).
func factorArrow(q *ipmProblem, l *arrowLayout, d2 []float64, f *arrowFactor) (*arrowFactor, error) {
	if f == nil || f.l != l {
		f = newArrowFactor(q, l, f)
	}
	f.accumulate(q, d2)
	if err := f.factorBlocks(q, d2); err != nil {
		return nil, err
	}
	if err := f.factorWide(q, d2); err != nil {
		return nil, err
	}
	return f, nil
}

// newArrowFactor sizes the work space of l and lists the local rows' pairs
// of terms with the entry of N each adds to: blocks' matrices first, then
// the E parts, then the border. It reuses the memory of old (a factor of
// another layout, or nil); every array is written before it is read.
func newArrowFactor(q *ipmProblem, l *arrowLayout, old *arrowFactor) *arrowFactor {
	nb := len(l.border)
	f := old
	if f == nil {
		f = &arrowFactor{}
	}
	f.l, f.n, f.nb = l, len(q.c), nb
	f.start, f.uStart = grow(f.start, len(l.blocks)+1), grow(f.uStart, len(l.blocks)+1)
	f.start[0], f.uStart[0] = 0, 0
	f.of3 = true
	for b, vars := range l.blocks {
		f.start[b+1] = f.start[b] + len(vars)
		f.uStart[b+1] = f.uStart[b] + len(vars)*len(vars)
		f.of3 = f.of3 && len(vars) == 3
	}
	nu, ne := f.uStart[len(l.blocks)], f.start[len(l.blocks)]*nb
	f.u, f.m, f.inv = grow(f.u, nu), grow(f.m, nu), grow(f.inv, nu)
	f.binvE = grow(f.binvE, ne)
	f.border = grow(f.border, max(nb, 1)*max(nb, 1))
	f.binvR, f.rg, f.y = grow(f.binvR, f.start[len(l.blocks)]), grow(f.rg, max(nb, 1)), grow(f.y, f.n)
	if f.schM != nil && f.schM.SymmetricDim() != nb {
		f.schM = nil
	}
	f.pairs, f.rowAt, f.coupled = f.pairs[:0], f.rowAt[:0], f.coupled[:0]
	f.u2, f.hinvU, f.uTerm = f.u2[:0], f.hinvU[:0], f.uTerm[:0] // factorWide sizes them
	f.terms = f.terms[:0]
	spans := f.spans[:0]
	for _, i := range l.local {
		f.rowAt = append(f.rowAt, len(f.pairs))
		r := q.rows[i]
		block, border := -1, false
		for _, t := range r {
			if b := l.block[t.Var]; b >= 0 {
				block = b
			} else {
				border = true
			}
		}
		coupled := block >= 0 && border
		f.coupled = append(f.coupled, coupled)
		if coupled {
			start := len(f.terms)
			for _, t := range r {
				if l.block[t.Var] >= 0 {
					f.terms = append(f.terms, arrowTerm{at: l.where[t.Var], coef: t.Coef})
				}
			}
			mid := len(f.terms)
			for _, t := range r {
				if l.block[t.Var] < 0 {
					f.terms = append(f.terms, arrowTerm{at: l.where[t.Var], coef: t.Coef})
				}
			}
			spans = append(spans, arrowSpan{row: i, block: block, start: start, mid: mid, end: len(f.terms)})
		}
		for a, ta := range r {
			for _, tb := range r[a:] {
				ba, bb := l.block[ta.Var], l.block[tb.Var]
				pa, pb := l.where[ta.Var], l.where[tb.Var]
				var at int
				switch {
				case ba >= 0 && bb >= 0: // same block (a local row touches one)
					k := len(l.blocks[ba])
					at = f.uStart[ba] + min(pa, pb)*k + max(pa, pb)
				case ba < 0 && bb < 0 && !coupled:
					at = nu + min(pa, pb)*nb + max(pa, pb)
				default: // a coupling row's border part: through its Woodbury form only
					continue
				}
				f.pairs = append(f.pairs, arrowPair{at: int32(at), prod: ta.Coef * tb.Coef})
			}
		}
	}
	f.rowAt = append(f.rowAt, len(f.pairs))
	// The coupling rows grouped by block, in row order within a block.
	f.coupleAt = grow(f.coupleAt, len(l.blocks)+1)
	clear(f.coupleAt)
	for _, c := range spans {
		f.coupleAt[c.block+1]++
	}
	for b := range l.blocks {
		f.coupleAt[b+1] += f.coupleAt[b]
	}
	if cap(f.couple) < len(spans) {
		f.couple = make([]arrowCoupling, len(spans))
	}
	f.couple = f.couple[:len(spans)]
	f.spans, f.next = spans, grow(f.next, len(l.blocks))
	next := f.next
	copy(next, f.coupleAt)
	for _, c := range spans {
		f.couple[next[c.block]] = arrowCoupling{row: c.row, g: f.terms[c.start:c.mid:c.mid], h: f.terms[c.mid:c.end:c.end]}
		next[c.block]++
	}
	return f
}

// accumulate sums the local rows into the blocks B_b, the blocks less
// the coupling rows M_b, and the border less the coupling rows.
func (f *arrowFactor) accumulate(q *ipmProblem, d2 []float64) {
	clear(f.u)
	clear(f.m)
	clear(f.border)
	nu := len(f.u)
	u, mm := f.u, f.m[:len(f.u)]
	for k, i := range f.l.local {
		w := q.w[i] / d2[i]
		coupled := f.coupled[k]
		for _, p := range f.pairs[f.rowAt[k]:f.rowAt[k+1]] {
			v := w * p.prod
			if at := int(p.at); at >= nu {
				f.border[at-nu] += v
			} else {
				u[at] += v
				if !coupled {
					mm[at] += v
				}
			}
		}
	}
}

// factorBlocks factors every block, forms B_b⁻¹·E_b, and factors the
// border's Schur complement F − Σ_b E_bᵀ·B_b⁻¹·E_b. The coupling rows of
// block b, with block parts G (a row each), border parts H and weights Ω,
// give E_b = GᵀΩH and add GᵀΩG to M_b and HᵀΩH to F; formed so, the Schur
// complement is a difference of nearly equal terms wherever a coupling row's
// weight dominates its block (a tight max-min row, for the level t on the
// border), which lost all its accuracy on some Gavel LPs. It is formed
// instead by the Woodbury identity, as sums of positive terms:
//
//	F_b − E_bᵀB_b⁻¹E_b = Hᵀ(Ω⁻¹ + G·M_b⁻¹·Gᵀ)⁻¹H,   B_b⁻¹E_b = M_b⁻¹Gᵀ·(Ω⁻¹ + G·M_b⁻¹·Gᵀ)⁻¹H.
func (f *arrowFactor) factorBlocks(q *ipmProblem, d2 []float64) error {
	nb := f.nb
	for b := range f.l.blocks {
		k := f.start[b+1] - f.start[b]
		u := f.u[f.uStart[b]:f.uStart[b+1]]
		r := ridgeFlat(u, k)
		m := f.m[f.uStart[b]:f.uStart[b+1]]
		for i := 0; i < k; i++ {
			m[i*k+i] += r
		}
		if !cholFlat(u, k) {
			return errors.New("normal equations: a block is not positive definite")
		}
		// No block is ill-conditioned by gonum's test (an estimated
		// condition number above mat.ConditionTolerance = 1e16, which
		// the dense path applies): with the ridge r = 1e-13·max(1, largest
		// diagonal entry d), the block's smallest eigenvalue is at least r
		// and its 1-norm at most k·(d + r), so its 1-norm condition number
		// is at most k^1.5·(d + r)/r ≤ 24^1.5·(1e13 + 1) ≈ 1.2e15 for
		// blocks of up to maxBlock variables.
		inv := f.inv[f.uStart[b]:f.uStart[b+1]]
		if k == 3 {
			inverse3(u, inv)
		} else {
			clear(inv)
			for i := 0; i < k; i++ {
				inv[i*k+i] = 1
				solveUnitStrided(u, k, inv[i:], k, i)
			}
		}
		be := f.binvE[f.start[b]*nb : f.start[b+1]*nb]
		if err := f.couplings(q, d2, b, k, m, be); err != nil {
			return err
		}
	}
	if nb == 0 {
		return nil
	}
	if f.schM == nil {
		f.schM = mat.NewSymDense(nb, nil)
	}
	raw := f.schM.RawSymmetric()
	for g := 0; g < nb; g++ {
		copy(raw.Data[g*raw.Stride+g:g*raw.Stride+nb], f.border[g*nb+g:g*nb+nb])
	}
	addRidge(f.schM, nb)
	if ok := f.schur.factorize(f.schM); !ok {
		return errors.New("normal equations: the border is not positive definite")
	}
	return nil
}

// ridgeFlat adds ridge(largest diagonal entry) to the diagonal of the k×k
// row-major matrix a, and returns it.
func ridgeFlat(a []float64, k int) float64 {
	maxDiag := 0.0
	for i := 0; i < k; i++ {
		maxDiag = max(maxDiag, math.Abs(a[i*k+i]))
	}
	r := ridge(maxDiag)
	for i := 0; i < k; i++ {
		a[i*k+i] += r
	}
	return r
}

// couplings forms block b's B_b⁻¹·E_b into be and adds its term of the
// Schur complement to the border, from the block's coupling rows and M_b
// (m, k×k with the block's ridge, factored here) by the Woodbury form of
// factorBlocks. Without coupling rows E_b = 0.
func (f *arrowFactor) couplings(q *ipmProblem, d2 []float64, b, k int, m, be []float64) error {
	nb := f.nb
	rows := f.couple[f.coupleAt[b]:f.coupleAt[b+1]]
	clear(be)
	nr := len(rows)
	if nr == 0 {
		return nil
	}
	if k == 3 && nr == 1 && nb == 1 && !f.loops {
		return f.coupling1of3(q, d2, rows[0], m, be)
	}
	if !cholFlat(m, k) {
		return errors.New("normal equations: a block is not positive definite")
	}
	f.z, f.c, f.yb = grow(f.z, k*nr), grow(f.c, nr*nr), grow(f.yb, nr*nb)
	z, c, y := f.z, f.c, f.yb // Z = M⁻¹Gᵀ (k×nr, column j at z[j:] stride nr), C, Y = C⁻¹H (nr×nb)
	clear(z)
	for j, row := range rows {
		for _, t := range row.g {
			z[t.at*nr+j] = t.coef
		}
		solveFlatStrided(m, k, z[j:], nr)
	}
	clear(c)
	for a, ra := range rows {
		i := ra.row
		c[a*nr+a] = d2[i] / q.w[i]
		for bb := a; bb < nr; bb++ {
			s := 0.0
			for _, t := range ra.g {
				s += t.coef * z[t.at*nr+bb]
			}
			c[a*nr+bb] += s
		}
	}
	if !cholFlat(c, nr) {
		return errors.New("normal equations: a coupling block is not positive definite")
	}
	clear(y)
	for j, row := range rows {
		for _, t := range row.h {
			y[j*nb+t.at] += t.coef
		}
	}
	for g := 0; g < nb; g++ {
		solveFlatStrided(c, nr, y[g:], nb)
	}
	for i := 0; i < k; i++ { // B⁻¹E = Z·Y
		for j := 0; j < nr; j++ {
			zij := z[i*nr+j]
			for g := 0; g < nb; g++ {
				be[i*nb+g] += zij * y[j*nb+g]
			}
		}
	}
	for j, row := range rows { // HᵀY, upper triangle
		for _, t := range row.h {
			for h := t.at; h < nb; h++ {
				f.border[t.at*nb+h] += t.coef * y[j*nb+h]
			}
		}
	}
	return nil
}

// coupling1of3 is couplings for a block of three with one coupling row
// and a border of one (a Gavel class's max-min row and the level t),
// written out: the same operations in the same order, in registers.
func (f *arrowFactor) coupling1of3(q *ipmProblem, d2 []float64, row arrowCoupling, m, be []float64) error {
	if !chol3(m) {
		return errors.New("normal equations: a block is not positive definite")
	}
	var z [3]float64 // Z = M⁻¹gᵀ
	for _, t := range row.g {
		z[t.at] = t.coef
	}
	solve3Strided(m, z[:], 1)
	i := row.row
	c := d2[i] / q.w[i] // C = Ω⁻¹ + g·Z, then its factor
	s := 0.0
	for _, t := range row.g {
		s += t.coef * z[t.at]
	}
	c += s
	if !(c > 0) {
		return errors.New("normal equations: a coupling block is not positive definite")
	}
	c = math.Sqrt(c)
	y := 0.0 // Y = C⁻¹H
	for _, t := range row.h {
		y += t.coef
	}
	y = y / c
	y = y / c
	be = be[:3] // B⁻¹E = Z·Y, from +0
	for r := range be {
		v := 0.0
		v += z[r] * y
		be[r] = v
	}
	for _, t := range row.h { // HᵀY
		f.border[0] += t.coef * y
	}
	return nil
}

// cholFlat factors the symmetric k×k matrix whose upper triangle is a
// (row-major) in place into U, UᵀU = a; false when a is not positive
// definite.
func cholFlat(a []float64, k int) bool {
	if k == 3 {
		return chol3(a)
	}
	return cholLoop(a, k)
}

// cholLoop is cholFlat for any k.
func cholLoop(a []float64, k int) bool {
	for j := 0; j < k; j++ {
		s := a[j*k+j]
		for r := 0; r < j; r++ {
			s -= a[r*k+j] * a[r*k+j]
		}
		if !(s > 0) {
			return false
		}
		d := math.Sqrt(s)
		a[j*k+j] = d
		inv := 1 / d
		for i := j + 1; i < k; i++ {
			s := a[j*k+i]
			for r := 0; r < j; r++ {
				s -= a[r*k+j] * a[r*k+i]
			}
			a[j*k+i] = s * inv
		}
	}
	return true
}

// chol3 is cholFlat for k = 3, written out: the same operations in the
// same order.
func chol3(a []float64) bool {
	a = a[:9]
	s := a[0]
	if !(s > 0) {
		return false
	}
	d := math.Sqrt(s)
	a[0] = d
	inv := 1 / d
	a[1] *= inv
	a[2] *= inv
	s = a[4]
	s -= a[1] * a[1]
	if !(s > 0) {
		return false
	}
	d = math.Sqrt(s)
	a[4] = d
	inv = 1 / d
	s = a[5]
	s -= a[1] * a[2]
	a[5] = s * inv
	s = a[8]
	s -= a[2] * a[2]
	s -= a[5] * a[5]
	if !(s > 0) {
		return false
	}
	a[8] = math.Sqrt(s)
	return true
}

// inverse3 writes (UᵀU)⁻¹ of the 3×3 upper factor u into inv (row-major):
// solveUnitStrided for each column, written out (the same operations in
// the same order; inv's entries start at +0 and 1 on the diagonal there).
func inverse3(u, inv []float64) {
	u, inv = u[:9], inv[:9]
	// Column 0: Uᵀy = e_0.
	x0 := 1 / u[0]
	s := 0.0
	s -= u[1] * x0
	x1 := s / u[4]
	s = 0.0
	s -= u[2] * x0
	s -= u[5] * x1
	x2 := s / u[8]
	inv[0], inv[3], inv[6] = back3(u, x0, x1, x2)
	// Column 1: Uᵀy = e_1.
	x1 = 1 / u[4]
	s = 0.0
	s -= u[5] * x1
	x2 = s / u[8]
	inv[1], inv[4], inv[7] = back3(u, 0, x1, x2)
	// Column 2: Uᵀy = e_2.
	inv[2], inv[5], inv[8] = back3(u, 0, 0, 1/u[8])
}

// solveFlatStrided overwrites x (entries 0, inc, 2·inc, …) with
// (UᵀU)⁻¹·x for the k×k upper factor u.
func solveFlatStrided(u []float64, k int, x []float64, inc int) {
	if k == 3 && inc > 0 {
		solve3Strided(u, x, inc)
		return
	}
	solveLoopStrided(u, k, x, inc)
}

// solveLoopStrided is solveFlatStrided for any k: solveUnitStrided's loops
// from entry 0.
func solveLoopStrided(u []float64, k int, x []float64, inc int) {
	solveUnitStrided(u, k, x, inc, 0)
}

// solve3Strided is solveFlatStrided for k = 3, written out: the same
// operations in the same order.
func solve3Strided(u, x []float64, inc int) {
	u, x = u[:9], x[:2*inc+1]
	x0, x1, x2 := x[0], x[inc], x[2*inc]
	x0 = x0 / u[0] // Uᵀy = x
	s := x1
	s -= u[1] * x0
	x1 = s / u[4]
	s = x2
	s -= u[2] * x0
	s -= u[5] * x1
	x2 = s / u[8]
	x[0], x[inc], x[2*inc] = back3(u, x0, x1, x2)
}

// back3 is the back substitution U·z = y of the 3×3 upper factor u
// (row-major), written out: solveFlatStrided's operations in its order.
func back3(u []float64, y0, y1, y2 float64) (float64, float64, float64) {
	u = u[:9]
	z2 := y2 / u[8]
	s := y1
	s -= u[5] * z2
	z1 := s / u[4]
	s = y0
	s -= u[1] * z1
	s -= u[2] * z2
	return s / u[0], z1, z2
}

// solveUnitStrided is solveFlatStrided for x whose entries before i0 are
// +0 (x = e_i0): the forward substitution leaves them at +0, and
// subtracting their products (±0) changes no entry, so it starts at entry
// i0 and skips them; the results are solveFlatStrided's bit for bit. With
// i0 = 0 it is the general solve.
func solveUnitStrided(u []float64, k int, x []float64, inc, i0 int) {
	for i := i0; i < k; i++ { // Uᵀy = e_i0
		s := x[i*inc]
		for r := i0; r < i; r++ {
			s -= u[r*k+i] * x[r*inc]
		}
		x[i*inc] = s / u[i*k+i]
	}
	for i := k - 1; i >= 0; i-- { // U·z = y
		s := x[i*inc]
		for r := i + 1; r < k; r++ {
			s -= u[i*k+r] * x[r*inc]
		}
		x[i*inc] = s / u[i*k+i]
	}
}

// addRidge adds ridge(largest diagonal entry) to the diagonal of m's first
// n rows.
func addRidge(m *mat.SymDense, n int) {
	maxDiag := 0.0
	for k := 0; k < n; k++ {
		maxDiag = max(maxDiag, math.Abs(m.At(k, k)))
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
	if len(f.u2) != nu || len(f.u2[0]) != f.n {
		f.u2 = growRows(f.u2, nu, f.n)
		f.hinvU = growRows(f.hinvU, nu, f.n)
		f.uTerm = f.uTerm[:min(nu, cap(f.uTerm))]
		for len(f.uTerm) < nu {
			f.uTerm = append(f.uTerm, nil)
		}
		f.uy = grow(f.uy, nu)
		if f.smwM == nil || f.smwM.SymmetricDim() != nu {
			f.smwM = mat.NewSymDense(nu, nil)
		}
	}
	for k, i := range f.l.wide {
		s := math.Sqrt(q.w[i] / d2[i])
		u := f.u2[k]
		clear(u)
		f.uTerm[k] = f.uTerm[k][:0]
		for _, t := range q.rows[i] {
			u[t.Var] += s * t.Coef
			f.uTerm[k] = append(f.uTerm[k], Term{Var: t.Var, Coef: s * t.Coef})
		}
		if !f.arrowSolve(f.hinvU[k], u) {
			return errors.New("normal equations: arrow solve failed")
		}
	}
	m := f.smwM
	for a := 0; a < nu; a++ {
		for b := a; b < nu; b++ {
			v := sparseDot(f.uTerm[a], f.hinvU[b])
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
// r_G, into out (every entry written); false when the border's factor is
// ill-conditioned.
func (f *arrowFactor) arrowSolve(out, rhs []float64) bool {
	if f.nb == 1 {
		return f.arrowSolve1(out, rhs)
	}
	l, nb := f.l, f.nb
	rg := f.rg[:nb]
	for g, j := range l.border {
		rg[g] = rhs[j]
	}
	for b, vars := range l.blocks {
		k := len(vars)
		r := f.binvR[f.start[b] : f.start[b]+k]
		inv := f.inv[f.uStart[b]:f.uStart[b+1]]
		for i := range r {
			s := 0.0
			for c, j := range vars {
				s += inv[i*k+c] * rhs[j]
			}
			r[i] = s
		}
		be := f.binvE[f.start[b]*nb : f.start[b+1]*nb] // EᵀB⁻¹r = (B⁻¹E)ᵀr
		for c, j := range vars {
			for g := range rg {
				rg[g] -= be[c*nb+g] * rhs[j]
			}
		}
	}
	if nb > 0 && !f.schur.solveInPlace(rg) {
		return false
	}
	for g, j := range l.border {
		out[j] = rg[g]
	}
	for b, vars := range l.blocks {
		r := f.binvR[f.start[b] : f.start[b]+len(vars)]
		be := f.binvE[f.start[b]*nb : f.start[b+1]*nb]
		for i, j := range vars {
			y := r[i]
			for g := range rg {
				y -= be[i*nb+g] * rg[g]
			}
			out[j] = y
		}
	}
	return true
}

// arrowSolve1 is arrowSolve for a border of one variable (the max-min
// LPs' level t), the same operations in the same order without the loops
// over the border.
func (f *arrowFactor) arrowSolve1(out, rhs []float64) bool {
	if f.of3 {
		return f.arrowSolve1of3(out, rhs)
	}
	l := f.l
	rg := f.rg[:1]
	rg[0] = rhs[l.border[0]]
	for b, vars := range l.blocks {
		k, s0 := len(vars), f.start[b]
		r := f.binvR[s0 : s0+k]
		inv := f.inv[f.uStart[b] : f.uStart[b]+k*k]
		be := f.binvE[s0 : s0+k]
		for i := range r {
			s := 0.0
			row := inv[i*k : i*k+k]
			for c, j := range vars {
				s += row[c] * rhs[j]
			}
			r[i] = s
		}
		g := rg[0]
		for c, j := range vars {
			g -= be[c] * rhs[j]
		}
		rg[0] = g
	}
	if !f.schur.solveInPlace(rg) {
		return false
	}
	t := rg[0]
	out[l.border[0]] = t
	for b, vars := range l.blocks {
		s0 := f.start[b]
		r := f.binvR[s0 : s0+len(vars)]
		be := f.binvE[s0 : s0+len(vars)]
		for i, j := range vars {
			out[j] = r[i] - be[i]*t
		}
	}
	return true
}

// arrowSolve1of3 is arrowSolve1 where every block has three variables:
// block b's entries are 3b… of the blocks' vectors and 9b… of their
// matrices, so the blocks are walked without their starts (the same
// operations in the same order).
func (f *arrowFactor) arrowSolve1of3(out, rhs []float64) bool {
	l := f.l
	nv := len(l.vars)
	vs, r, be, inv := l.vars, f.binvR[:nv], f.binvE[:nv], f.inv[:3*nv]
	g := rhs[l.border[0]]
	for b := 0; b+3 <= nv; b += 3 { // the loops over a block written out
		r, inv, be := r[b:b+3], inv[3*b:3*b+9], be[b:b+3]
		x0, x1, x2 := rhs[vs[b]], rhs[vs[b+1]], rhs[vs[b+2]]
		s := 0.0
		s += inv[0] * x0
		s += inv[1] * x1
		s += inv[2] * x2
		r[0] = s
		s = 0.0
		s += inv[3] * x0
		s += inv[4] * x1
		s += inv[5] * x2
		r[1] = s
		s = 0.0
		s += inv[6] * x0
		s += inv[7] * x1
		s += inv[8] * x2
		r[2] = s
		g -= be[0] * x0
		g -= be[1] * x1
		g -= be[2] * x2
	}
	rg := f.rg[:1]
	rg[0] = g
	if !f.schur.solveInPlace(rg) {
		return false
	}
	t := rg[0]
	out[l.border[0]] = t
	for i, j := range vs {
		out[j] = r[i] - be[i]*t
	}
	return true
}

func (f *arrowFactor) solve(rhs []float64) ([]float64, bool) {
	y := f.y
	if !f.arrowSolve(y, rhs) {
		return nil, false
	}
	if len(f.u2) == 0 {
		return y, true
	}
	uy := f.uy
	if len(f.uTerm) == 3 && len(f.uTerm[1]) == len(f.uTerm[0]) && len(f.uTerm[2]) == len(f.uTerm[0]) {
		uy[0], uy[1], uy[2] = rowDots3(f.uTerm[0], f.uTerm[1], f.uTerm[2], y)
	} else {
		for k := range f.u2 {
			uy[k] = sparseDot(f.uTerm[k], y)
		}
	}
	if !f.smw.solveInPlace(uy) {
		return nil, false
	}
	subtractColumns(y, f.hinvU, uy)
	return y, true
}

// subtractColumns subtracts h[k]·c[k] from y for every k, k after k; with
// three columns (a Gavel LP's three capacity rows) in one pass, each
// entry's operations in the same order.
func subtractColumns(y []float64, h [][]float64, c []float64) {
	if len(h) == 3 {
		c0, c1, c2 := c[0], c[1], c[2]
		h0, h1, h2 := h[0][:len(y)], h[1][:len(y)], h[2][:len(y)]
		for j, v := range y {
			v -= h0[j] * c0
			v -= h1[j] * c1
			v -= h2[j] * c2
			y[j] = v
		}
		return
	}
	for k := range h {
		ck, hk := c[k], h[k][:len(y)]
		for j := range y {
			y[j] -= hk[j] * ck
		}
	}
}

// addSym adds v to m[i][j] = m[j][i] (the upper triangle gonum stores).
func addSym(m *mat.SymDense, i, j int, v float64) {
	raw := m.RawSymmetric()
	i, j = min(i, j), max(i, j)
	raw.Data[i*raw.Stride+j] += v
}

// sparseDot is Σ coef·x[var] over the terms.
func sparseDot(terms []Term, x []float64) float64 {
	s := 0.0
	for _, t := range terms {
		s += t.Coef * x[t.Var]
	}
	return s
}

// grow returns v resliced to n entries, or a new slice where v is too
// short; its contents are not cleared.
func grow[T any](v []T, n int) []T {
	if cap(v) < n {
		return make([]T, n)
	}
	return v[:n]
}

// growRows returns rows rows of n entries each, reusing those of v.
func growRows(v [][]float64, rows, n int) [][]float64 {
	v = v[:min(rows, cap(v))]
	for len(v) < rows {
		v = append(v, nil)
	}
	for k := range v {
		v[k] = grow(v[k], n)
	}
	return v
}
