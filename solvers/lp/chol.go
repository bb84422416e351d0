package lp

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// chol is a Cholesky factor N = UᵀU computed as gonum's mat.Cholesky
// computes it, with a solve for one right-hand side that works in place and
// allocates nothing. Normal equations are factored and solved thousands of
// times a run on blocks of a few variables, where gonum's general path
// costs more than the arithmetic; the interior point's answers (and every
// run's fingerprint) depend on these to the last bit, so:
//
//   - factorize does what Cholesky.Factorize does — the matrix's norm
//     (LAPACK's dlansy, the infinity norm), dpotrf on its upper triangle —
//     and decides, as gonum's solve does, whether the estimated condition
//     number exceeds mat.ConditionTolerance. gonum estimates it every time
//     (dpocon); that estimate never exceeds the true condition number
//     ‖N‖·‖N⁻¹‖, so where a cheap upper bound of that (condBound) is far
//     below the tolerance, the answer is known without it;
//   - solveInPlace does the arithmetic of Cholesky.SolveVecTo (dpotrs: Uᵀy
//     = b forward, then Ux = y backward, each product rounded before it is
//     added, each division by a pivot written as a multiplication by its
//     reciprocal).
//
// Both are tested bit for bit against gonum.
type chol struct {
	u     []float64 // U, row-major, stride n (the upper triangle)
	n     int
	work  []float64
	iwork []int
	// illCond: gonum's solve would report its condition error; the solves
	// do too.
	illCond bool
}

// factorize factors the symmetric matrix a (whose upper triangle it reads
// and does not keep); false when a is not positive definite.
func (f *chol) factorize(a *mat.SymDense) bool {
	raw := a.RawSymmetric()
	n := raw.N
	if cap(f.u) < n*n {
		f.u, f.work, f.iwork = make([]float64, n*n), make([]float64, 3*n), make([]int, n)
	}
	f.u, f.work, f.iwork, f.n = f.u[:n*n], f.work[:3*n], f.iwork[:n], n
	for i := 0; i < n; i++ {
		copy(f.u[i*n+i:i*n+n], raw.Data[i*raw.Stride+i:i*raw.Stride+n])
	}
	sym := blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: f.u}
	norm := lapack64.Lansy(mat.CondNorm, sym, f.work)
	if _, ok := lapack64.Potrf(sym); !ok {
		return false
	}
	if f.condBound(norm) <= mat.ConditionTolerance/condMargin {
		f.illCond = false
		return true
	}
	f.illCond = 1/lapack64.Pocon(sym, norm, f.work, f.iwork) > mat.ConditionTolerance
	return true
}

// condMargin is how far below the tolerance condBound must be for the
// estimate to be skipped: far more than the rounding of either.
const condMargin = 1e3

// condBound is an upper bound of the condition number ‖N‖·‖N⁻¹‖ in the
// infinity norm (= the 1-norm: N is symmetric), norm = ‖N‖: ‖N⁻¹‖ =
// ‖U⁻¹U⁻ᵀ‖ ≤ ‖U⁻¹‖∞·‖U⁻¹‖₁, and |U⁻¹| ≤ M⁻¹ entrywise for M the comparison
// matrix of U (|u_ii| on the diagonal, −|u_ij| off it), whose inverse is
// non-negative: ‖U⁻¹‖∞ ≤ max(M⁻¹·1) and ‖U⁻¹‖₁ ≤ max(M⁻ᵀ·1), two
// triangular solves with positive terms only. +Inf when they overflow.
func (f *chol) condBound(norm float64) float64 {
	u, n := f.u, f.n
	y, z := f.work[:n], f.work[n:2*n]
	rowMax, colMax := 0.0, 0.0
	for i := n - 1; i >= 0; i-- { // M·y = 1
		s := 1.0
		for k := i + 1; k < n; k++ {
			s += math.Abs(u[i*n+k]) * y[k]
		}
		y[i] = s / math.Abs(u[i*n+i])
		rowMax = max(rowMax, y[i])
	}
	for k := 0; k < n; k++ { // Mᵀ·z = 1
		s := 1.0
		for i := 0; i < k; i++ {
			s += math.Abs(u[i*n+k]) * z[i]
		}
		z[k] = s / math.Abs(u[k*n+k])
		colMax = max(colMax, z[k])
	}
	b := norm * rowMax * colMax
	if math.IsNaN(b) {
		return math.Inf(1)
	}
	return b
}

// solveInPlace overwrites b with N⁻¹·b; false where gonum's solve would
// report an ill-conditioned matrix (b is solved all the same).
func (f *chol) solveInPlace(b []float64) bool {
	u, n := f.u, f.n
	b = b[:n]
	for k := 0; k < n; k++ { // Uᵀy = b
		row := u[k*n : k*n+n]
		b[k] *= 1 / row[k]
		bk := b[k]
		rest, out := row[k+1:], b[k+1:]
		out = out[:len(rest)]
		for i, v := range rest {
			if v != 0 {
				out[i] += float64(-v * bk)
			}
		}
	}
	for i := n - 1; i >= 0; i-- { // Ux = y
		row := u[i*n : i*n+n]
		bi := b[i]
		rest, in := row[i+1:], b[i+1:]
		in = in[:len(rest)]
		for k, v := range rest {
			if v != 0 {
				bi += float64(-v * in[k])
			}
		}
		b[i] = bi * (1 / row[i])
	}
	return !f.illCond
}
