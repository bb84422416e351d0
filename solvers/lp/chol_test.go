package lp

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// chol's solve is gonum's to the last bit (the interior point's answers,
// and so every run's fingerprint, depend on it), on random positive
// definite matrices of the sizes the normal equations' blocks take, well
// and badly conditioned, with zeros in the factor.
func TestCholMatchesGonumBitwise(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(19, 1))
	for trial := range 400 {
		n := 1 + trial%30
		a := mat.NewDense(n, n, nil)
		for i := range n {
			for j := range n {
				if rng.IntN(4) > 0 {
					a.Set(i, j, rng.NormFloat64()*math.Pow(10, float64(rng.IntN(9)-4)))
				}
			}
		}
		sym := mat.NewSymDense(n, nil)
		for i := range n {
			for j := i; j < n; j++ {
				s := 0.0
				for k := range n {
					s += a.At(i, k) * a.At(j, k)
				}
				sym.SetSym(i, j, s)
			}
			sym.SetSym(i, i, sym.At(i, i)+1e-9)
		}
		var ref mat.Cholesky
		var got chol
		okRef, okGot := ref.Factorize(sym), got.factorize(sym)
		if okRef != okGot {
			t.Fatalf("trial %d: factorize %v, gonum %v", trial, okGot, okRef)
		}
		if !okRef {
			continue
		}
		b := make([]float64, n)
		for i := range b {
			b[i] = rng.NormFloat64()
		}
		var want mat.VecDense
		errRef := ref.SolveVecTo(&want, mat.NewVecDense(n, append([]float64(nil), b...)))
		ok := got.solveInPlace(b)
		if ok != (errRef == nil) {
			t.Fatalf("trial %d (n=%d): ok %v, gonum's error %v", trial, n, ok, errRef)
		}
		for i := range b {
			if math.Float64bits(b[i]) != math.Float64bits(want.AtVec(i)) {
				t.Fatalf("trial %d (n=%d): x[%d] = %v, gonum %v", trial, n, i, b[i], want.AtVec(i))
			}
		}
	}
}
