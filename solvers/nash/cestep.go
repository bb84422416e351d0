package nash

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// The Newton systems of the continuation (ceResidual, ceJacobian) without
// the dense matrix. Call the buyers' μ_i and the types' p_g that are
// unknowns the *globals* (at most buyers + types of them) and the buyers'
// and types' rows the global rows. What is left is local to a class c:
//
//	edge rows     B_e·ΔG − Δλ_c = r_e     for each active pair e of c
//	                                      (B_e: −d_c·p_g at μ_i, −d_c·μ_i at p_g;
//	                                      the λ term only when c is rented)
//	rent row      Σ_{e∈c} ΔX_e = r_c      (only when c is rented)
//
// The edge rows hold no share. So a rented class's first pair e₁ gives
// Δλ_c = B_{e₁}·ΔG − r_{e₁} and its rent row ΔX_{e₁} = r_c − Σ_{e≠e₁} ΔX_e;
// every other pair e of the class (every pair of a class that is not
// rented) keeps its share ΔX_e as an unknown and contributes the row
// (B_e − B_{e₁})·ΔG = r_e − r_{e₁} (resp. B_e·ΔG = r_e) on the globals alone.
// Substituting into the global rows leaves a square system in ΔG and those
// free shares, one row per free share plus the global rows. A nonsingular
// Jacobian has at most as many free shares as globals (the edge rows, in
// the rents and globals alone, must be independent), so the system has at
// most 2·(buyers + types) unknowns: the step costs O(pairs·(buyers + types))
// to set up and a tiny dense solve, where the dense Jacobian cost O(n³) in
// the n ≈ pairs + classes unknowns.

// ceStep solves ceJacobian(m, st, z, theta)·s = r by the elimination
// above. ok is false when the reduced system is singular or ill conditioned
// (or too large to be nonsingular); the caller then falls back to the
// dense Jacobian.
func ceStep(m *Market, st *ceState, z []float64, theta float64, r []float64) ([]float64, bool) {
	q := ceReduction{m: m, st: st, z: z, theta: theta, r: r, final: theta == ceFinal}
	ne := len(st.edges)
	// Globals and global rows, in the residual's order.
	q.gcol, q.gpos = ceGlobals(st)
	ng := len(q.gpos)
	// Global rows are numbered from 0 (the buyers', then the types'); the
	// rent rows' positions in the residual follow the edges' and theirs.
	var rows int
	q.brow, q.prow, q.rentRow, rows = st.rowsFrom(0)
	for c, k := range q.rentRow {
		if k >= 0 {
			q.rentRow[c] = ne + k
		}
	}
	q.rowBase = ne
	if ne+rows != len(r) {
		return nil, false
	}
	var ok bool
	if q.first, ok = firstPairs(m, st); !ok {
		return nil, false
	}
	if q.free, ok = freeShares(st, q.first, ng); !ok {
		return nil, false
	}
	if ng+len(q.free) == 0 {
		return nil, false
	}
	a, rhs := q.system()
	u, ok := newtonStep(a, rhs)
	if !ok {
		return nil, false
	}
	step := q.expand(u)
	for _, v := range step {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, false
		}
	}
	return step, true
}

// ceReduction is ceStep's elimination at one point: the market and active
// set, the point z, θ and the residual r, and what the elimination numbers
// (the globals, the rows, each class's first pair and the free shares).
type ceReduction struct {
	m     *Market
	st    *ceState
	z     []float64
	theta float64
	r     []float64
	final bool

	gcol    map[int]int // z position → global index
	gpos    []int       // global index → z position
	brow    []int       // buyer → global row, −1 for none
	prow    []int       // type → global row, −1 for none
	rentRow []int       // class → its rent row's position in r, −1 for none
	rowBase int         // the global rows' position in r
	first   []int       // class → its first pair, −1 for none
	free    []int       // the free shares' pairs
}

// ceTerm is a coefficient at a global index, or at a global row.
type ceTerm struct {
	at int
	v  float64
}

// ceGlobals numbers the globals: the buyers' μ_i that are unknowns, then
// the types' p_g. gcol maps a z position to its global index, gpos back.
func ceGlobals(st *ceState) (gcol map[int]int, gpos []int) {
	gcol = map[int]int{}
	for _, k := range st.mu {
		if k >= 0 {
			gcol[k] = len(gpos)
			gpos = append(gpos, k)
		}
	}
	for _, k := range st.price {
		if k >= 0 {
			gcol[k] = len(gpos)
			gpos = append(gpos, k)
		}
	}
	return gcol, gpos
}

// firstPairs is each class's first pair (−1 for a class with none); ok is
// false when a rented class has none, which makes the system singular.
func firstPairs(m *Market, st *ceState) (first []int, ok bool) {
	first = make([]int, len(m.Classes))
	for c := range first {
		first[c] = -1
	}
	for e, ed := range st.edges {
		if first[ed[0]] < 0 {
			first[ed[0]] = e
		}
	}
	for c, k := range st.rent {
		if k >= 0 && first[c] < 0 {
			return nil, false // a rented class with no pair: singular
		}
	}
	return first, true
}

// freeShares lists the pairs whose shares stay unknowns: every pair but the
// first of a rented class. ok is false when there are more of them than the
// ng globals and the system is too large for an SVD.
func freeShares(st *ceState, first []int, ng int) (free []int, ok bool) {
	free = make([]int, 0, ng)
	for e, ed := range st.edges {
		if st.rent[ed[0]] >= 0 && first[ed[0]] == e {
			continue
		}
		free = append(free, e)
		if ng+len(free) > svdLimit {
			return nil, false // singular (more free shares than globals), and too large for an SVD
		}
	}
	return free, true
}

// bvec is B_e as (global index, coefficient) pairs (at most two).
func (q *ceReduction) bvec(e int) []ceTerm {
	c, g := q.st.edges[e][0], q.st.edges[e][1]
	cl := &q.m.Classes[c]
	mu, p := q.st.mu[cl.Buyer], q.st.price[g]
	if mu < 0 || p < 0 {
		return nil
	}
	return []ceTerm{{q.gcol[mu], -cl.Gang * q.z[p]}, {q.gcol[p], -cl.Gang * q.z[mu]}}
}

// cvec is the share's column in the global rows.
func (q *ceReduction) cvec(e int) []ceTerm {
	c, g := q.st.edges[e][0], q.st.edges[e][1]
	cl := &q.m.Classes[c]
	var out []ceTerm
	if b := q.brow[cl.Buyer]; b >= 0 {
		switch {
		case !q.final:
			out = append(out, ceTerm{b, cl.Value[g]})
		case q.st.price[g] >= 0:
			out = append(out, ceTerm{b, cl.Gang * q.z[q.st.price[g]]})
		}
	}
	if pr := q.prow[g]; pr >= 0 {
		out = append(out, ceTerm{pr, cl.Gang})
	}
	return out
}

// system is the reduced system: columns ΔG then the free shares; rows one
// per free share (its edge row) then the global rows.
func (q *ceReduction) system() (*mat.Dense, []float64) {
	ng, nf := len(q.gpos), len(q.free)
	n := ng + nf
	a := mat.NewDense(n, n, nil)
	rhs := make([]float64, n)
	q.addFreeShares(a, rhs)
	for b := 0; b < ng; b++ {
		rhs[nf+b] = q.r[q.rowBase+b]
	}
	q.addRentedFirstPairs(a, rhs)
	q.addGlobalColumns(a)
	return a, rhs
}

// addFreeShares adds each free share's edge row, (B_e − B_{e₁})·ΔG =
// r_e − r_{e₁} (B_e·ΔG = r_e when its class is not rented), and its column
// in the global rows.
func (q *ceReduction) addFreeShares(a *mat.Dense, rhs []float64) {
	ng, nf := len(q.gpos), len(q.free)
	for f, e := range q.free {
		c := q.st.edges[e][0]
		for _, t := range q.bvec(e) {
			a.Set(f, t.at, a.At(f, t.at)+t.v)
		}
		rhs[f] = q.r[e]
		if q.st.rent[c] >= 0 {
			e1 := q.first[c]
			for _, t := range q.bvec(e1) {
				a.Set(f, t.at, a.At(f, t.at)-t.v)
			}
			rhs[f] -= q.r[e1]
			// ΔX_{e₁} = r_c − Σ free: the free share's column in the
			// global rows is its own minus e₁'s.
			for _, t := range q.cvec(e1) {
				a.Set(nf+t.at, ng+f, a.At(nf+t.at, ng+f)-t.v)
			}
		}
		for _, t := range q.cvec(e) {
			a.Set(nf+t.at, ng+f, a.At(nf+t.at, ng+f)+t.v)
		}
	}
}

// addRentedFirstPairs adds the rented classes' first pairs: the constant
// part of ΔX_{e₁} and Δλ_c = B_{e₁}·ΔG − r_{e₁} in the buyer rows.
func (q *ceReduction) addRentedFirstPairs(a *mat.Dense, rhs []float64) {
	nf := len(q.free)
	for c, k := range q.st.rent {
		if k < 0 {
			continue
		}
		e1 := q.first[c]
		for _, t := range q.cvec(e1) {
			rhs[nf+t.at] -= t.v * q.r[q.rentRow[c]]
		}
		if b := q.brow[q.m.Classes[c].Buyer]; b >= 0 && !q.final {
			coef := -q.theta * q.m.Classes[c].Count // ∂(buyer row)/∂λ_c
			for _, t := range q.bvec(e1) {
				a.Set(nf+b, t.at, a.At(nf+b, t.at)+coef*t.v)
			}
			rhs[nf+b] += coef * q.r[e1]
		}
	}
}

// addGlobalColumns adds the globals' own columns in the global rows.
func (q *ceReduction) addGlobalColumns(a *mat.Dense) {
	nf := len(q.free)
	for i, k := range q.st.mu {
		if b := q.brow[i]; k >= 0 && b >= 0 && !q.final {
			a.Set(nf+b, q.gcol[k], a.At(nf+b, q.gcol[k])-q.m.Weights[i])
		}
	}
	if q.final {
		for e, ed := range q.st.edges {
			cl := &q.m.Classes[ed[0]]
			if b, p := q.brow[cl.Buyer], q.st.price[ed[1]]; b >= 0 && p >= 0 {
				a.Set(nf+b, q.gcol[p], a.At(nf+b, q.gcol[p])+cl.Gang*q.z[e])
			}
		}
	}
}

// expand is the full step from the reduced system's solution u: the
// globals and free shares as solved, each rented class's λ_c from its first
// pair's edge row and that pair's share from its rent row.
func (q *ceReduction) expand(u []float64) []float64 {
	ng := len(q.gpos)
	step := make([]float64, len(q.z))
	for j, k := range q.gpos {
		step[k] = u[j]
	}
	for f, e := range q.free {
		step[e] = u[ng+f]
	}
	freeTime := make([]float64, len(q.m.Classes))
	for f, e := range q.free {
		freeTime[q.st.edges[e][0]] += u[ng+f]
	}
	for c, k := range q.st.rent {
		if k < 0 {
			continue
		}
		e1 := q.first[c]
		lam := -q.r[e1]
		for _, t := range q.bvec(e1) {
			lam += t.v * u[t.at]
		}
		step[k] = lam
		step[e1] = q.r[q.rentRow[c]] - freeTime[c]
	}
	return step
}
