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
