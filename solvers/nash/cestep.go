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
	final := theta == ceFinal
	ne := len(st.edges)
	// Globals and global rows, in the residual's order.
	gcol := map[int]int{} // z position → global index
	var gpos []int
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
	ng := len(gpos)
	// Global rows are numbered from 0 (the buyers', then the types'); the
	// rent rows' positions in the residual follow the edges' and theirs.
	brow, prow, rentRow, rows := st.rowsFrom(0)
	for c, k := range rentRow {
		if k >= 0 {
			rentRow[c] = ne + k
		}
	}
	rowBase := ne
	if ne+rows != len(r) {
		return nil, false
	}
	// Each class's pairs, first pair first.
	first := make([]int, len(m.Classes))
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
	// bvec is B_e as (global index, coefficient) pairs (at most two).
	type term struct {
		at int
		v  float64
	}
	bvec := func(e int) []term {
		c, g := st.edges[e][0], st.edges[e][1]
		cl := &m.Classes[c]
		mu, p := st.mu[cl.Buyer], st.price[g]
		if mu < 0 || p < 0 {
			return nil
		}
		return []term{{gcol[mu], -cl.Gang * z[p]}, {gcol[p], -cl.Gang * z[mu]}}
	}
	// cvec is the share's column in the global rows.
	cvec := func(e int) []term {
		c, g := st.edges[e][0], st.edges[e][1]
		cl := &m.Classes[c]
		var out []term
		if b := brow[cl.Buyer]; b >= 0 {
			switch {
			case !final:
				out = append(out, term{b, cl.Value[g]})
			case st.price[g] >= 0:
				out = append(out, term{b, cl.Gang * z[st.price[g]]})
			}
		}
		if pr := prow[g]; pr >= 0 {
			out = append(out, term{pr, cl.Gang})
		}
		return out
	}
	// Free shares: every pair but the first of a rented class.
	free := make([]int, 0, ng)
	for e, ed := range st.edges {
		if st.rent[ed[0]] >= 0 && first[ed[0]] == e {
			continue
		}
		free = append(free, e)
		if ng+len(free) > svdLimit {
			return nil, false // singular (more free shares than globals), and too large for an SVD
		}
	}
	nf := len(free)
	n := ng + nf
	if n == 0 {
		return nil, false
	}
	// Reduced system: columns ΔG then the free shares; rows one per free
	// share (its edge row) then the global rows.
	a := mat.NewDense(n, n, nil)
	rhs := make([]float64, n)
	for f, e := range free {
		c := st.edges[e][0]
		for _, t := range bvec(e) {
			a.Set(f, t.at, a.At(f, t.at)+t.v)
		}
		rhs[f] = r[e]
		if st.rent[c] >= 0 {
			e1 := first[c]
			for _, t := range bvec(e1) {
				a.Set(f, t.at, a.At(f, t.at)-t.v)
			}
			rhs[f] -= r[e1]
			// ΔX_{e₁} = r_c − Σ free: the free share's column in the
			// global rows is its own minus e₁'s.
			for _, t := range cvec(e1) {
				a.Set(nf+t.at, ng+f, a.At(nf+t.at, ng+f)-t.v)
			}
		}
		for _, t := range cvec(e) {
			a.Set(nf+t.at, ng+f, a.At(nf+t.at, ng+f)+t.v)
		}
	}
	for b := 0; b < ng; b++ {
		rhs[nf+b] = r[rowBase+b]
	}
	// The rented classes' first pairs: the constant part of ΔX_{e₁} and
	// Δλ_c = B_{e₁}·ΔG − r_{e₁} in the buyer rows.
	for c, k := range st.rent {
		if k < 0 {
			continue
		}
		e1 := first[c]
		for _, t := range cvec(e1) {
			rhs[nf+t.at] -= t.v * r[rentRow[c]]
		}
		if b := brow[m.Classes[c].Buyer]; b >= 0 && !final {
			coef := -theta * m.Classes[c].Count // ∂(buyer row)/∂λ_c
			for _, t := range bvec(e1) {
				a.Set(nf+b, t.at, a.At(nf+b, t.at)+coef*t.v)
			}
			rhs[nf+b] += coef * r[e1]
		}
	}
	// The globals' own columns in the global rows.
	for i, k := range st.mu {
		if b := brow[i]; k >= 0 && b >= 0 && !final {
			a.Set(nf+b, gcol[k], a.At(nf+b, gcol[k])-m.Weights[i])
		}
	}
	if final {
		for e, ed := range st.edges {
			cl := &m.Classes[ed[0]]
			if b, p := brow[cl.Buyer], st.price[ed[1]]; b >= 0 && p >= 0 {
				a.Set(nf+b, gcol[p], a.At(nf+b, gcol[p])+cl.Gang*z[e])
			}
		}
	}
	u, ok := newtonStep(a, rhs)
	if !ok {
		return nil, false
	}
	step := make([]float64, len(z))
	for j, k := range gpos {
		step[k] = u[j]
	}
	for f, e := range free {
		step[e] = u[ng+f]
	}
	freeTime := make([]float64, len(m.Classes))
	for f, e := range free {
		freeTime[st.edges[e][0]] += u[ng+f]
	}
	for c, k := range st.rent {
		if k < 0 {
			continue
		}
		e1 := first[c]
		lam := -r[e1]
		for _, t := range bvec(e1) {
			lam += t.v * u[t.at]
		}
		step[k] = lam
		step[e1] = r[rentRow[c]] - freeTime[c]
	}
	for _, v := range step {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, false
		}
	}
	return step, true
}
