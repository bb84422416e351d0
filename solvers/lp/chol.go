package lp

import (
	"gonum.org/v1/gonum/mat"
)

// chol is a Cholesky factor N = UᵀU (gonum's, condition estimate included)
// with a solve for one right-hand side that works in place and allocates
// nothing. The solve does the arithmetic of gonum's Cholesky.SolveVecTo
// (LAPACK's dpotrs: Uᵀy = b forward, then Ux = y backward, each step a
// product rounded before it is added and a division by the pivot written
// as a multiplication by its reciprocal), so its answers are the same to
// the last bit; normal equations are solved thousands of times a run on
// blocks of a few variables, where gonum's general path costs more than
// the arithmetic.
type chol struct {
	c      mat.Cholesky
	u      []float64 // U, row-major, stride
	n      int
	stride int
	// illCond: gonum's solve reports its condition error (estimated
	// condition number above mat.ConditionTolerance); the solves do too.
	illCond bool
}

// factorize factors a (which it does not keep); false when a is not
// positive definite.
func (f *chol) factorize(a mat.Symmetric) bool {
	if !f.c.Factorize(a) {
		return false
	}
	raw := f.c.RawU().(*mat.TriDense).RawTriangular()
	f.u, f.n, f.stride = raw.Data, raw.N, raw.Stride
	f.illCond = f.c.Cond() > mat.ConditionTolerance
	return true
}

// solveInPlace overwrites b with N⁻¹·b; false where gonum's solve would
// report an ill-conditioned matrix (b is solved all the same).
func (f *chol) solveInPlace(b []float64) bool {
	u, n, ld := f.u, f.n, f.stride
	for k := 0; k < n; k++ { // Uᵀy = b
		b[k] *= 1 / u[k*ld+k]
		bk := b[k]
		for i := k + 1; i < n; i++ {
			if v := u[k*ld+i]; v != 0 {
				b[i] += float64(-v * bk)
			}
		}
	}
	for i := n - 1; i >= 0; i-- { // Ux = y
		bi := b[i]
		for k := i + 1; k < n; k++ {
			if v := u[i*ld+k]; v != 0 {
				bi += float64(-v * b[k])
			}
		}
		b[i] = bi * (1 / u[i*ld+i])
	}
	return !f.illCond
}
