package lp

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// chol's factor and solve are gonum's to the last bit, condition error
// included (the interior point's answers, and so every run's fingerprint,
// depend on them), on random positive definite matrices of the sizes the
// normal equations' blocks take, with zeros in the factor: well
// conditioned, and (every third) nearly singular, so that both the bound
// and gonum's estimate decide, and both verdicts occur.
func TestCholMatchesGonumBitwise(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(19, 1))
	verdicts := map[bool]int{}
	defer func() {
		if verdicts[true] == 0 || verdicts[false] == 0 {
			t.Errorf("verdicts %v: both must occur", verdicts)
		}
	}()
	for trial := range 400 {
		n := 1 + trial%30
		a := mat.NewDense(n, n, nil)
		rank := n
		if trial%3 == 0 && n > 1 {
			rank = 1 + rng.IntN(n-1)
		}
		for i := range n {
			for j := range rank {
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
		verdicts[ok]++
		// The shortcut's premise: the bound is never below gonum's estimate.
		if bound := got.condBound(mat.Norm(sym, math.Inf(1))); bound < ref.Cond()*(1-1e-12) {
			t.Fatalf("trial %d (n=%d): bound %g below gonum's estimate %g", trial, n, bound, ref.Cond())
		}
		for i := range b {
			if math.Float64bits(b[i]) != math.Float64bits(want.AtVec(i)) {
				t.Fatalf("trial %d (n=%d): x[%d] = %v, gonum %v", trial, n, i, b[i], want.AtVec(i))
			}
		}
	}
}
