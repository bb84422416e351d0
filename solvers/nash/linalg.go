package nash

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// svdLimit is the largest system (unknowns) newtonStep solves by SVD when
// LU fails: beyond it a dense SVD costs seconds per step, and the callers
// fall back to what they have.
const svdLimit = 400

// newtonStep solves J·s = r for the Newton step s: by LU when J is square
// and well conditioned (the usual case: the active-set systems have as many
// equations as unknowns), else, up to svdLimit unknowns, as the
// minimum-norm least-squares solution from a thin SVD (rank-deficient at
// degenerate points). ok is false when neither works.
func newtonStep(j *mat.Dense, r []float64) ([]float64, bool) {
	rows, cols := j.Dims()
	if rows == cols {
		var lu mat.LU
		lu.Factorize(j)
		if c := lu.Cond(); c < 1e12 && !math.IsInf(c, 0) {
			var s mat.VecDense
			if err := lu.SolveVecTo(&s, false, mat.NewVecDense(rows, r)); err == nil {
				return s.RawVector().Data, true
			}
		}
	}
	if cols > svdLimit {
		return nil, false
	}
	var svd mat.SVD
	if !svd.Factorize(j, mat.SVDThin) {
		return nil, false
	}
	rank := svd.Rank(1e-12)
	if rank == 0 {
		return nil, false
	}
	var step mat.Dense
	svd.SolveTo(&step, mat.NewVecDense(rows, r), rank)
	out := make([]float64, cols)
	for k := range out {
		out[k] = step.At(k, 0)
	}
	return out, true
}

// The active-set solvers (polish.go, ceei.go) keep their unknowns in one
// vector z: the shares of the active pairs first (edges), then other
// unknowns whose positions index slices hold (−1: fixed at 0).

// mostNegative is the position of the most negative unknown below below,
// among the first edges positions and those the index slices hold, or −1.
func mostNegative(z []float64, below float64, edges int, idx ...[]int) int {
	worst, at := below, -1
	check := func(k int) {
		if k >= 0 && z[k] < worst {
			worst, at = z[k], k
		}
	}
	for k := 0; k < edges; k++ {
		check(k)
	}
	for _, s := range idx {
		for _, k := range s {
			check(k)
		}
	}
	return at
}

// dropUnknown removes position k from z: an active pair when k is among
// the edges (removed from them), else the unknown an index slice points at
// (set to −1); every position above k moves down by one.
func dropUnknown(k int, z []float64, edges *[][2]int, idx ...[]int) []float64 {
	out := append(append([]float64(nil), z[:k]...), z[k+1:]...)
	if k < len(*edges) {
		*edges = append((*edges)[:k:k], (*edges)[k+1:]...)
	}
	for _, s := range idx {
		for i, v := range s {
			switch {
			case v == k:
				s[i] = -1
			case v > k:
				s[i] = v - 1
			}
		}
	}
	return out
}
