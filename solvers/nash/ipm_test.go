package nash

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The structured Newton solve (Sherman–Morrison per class and per buyer,
// Woodbury over the capacity rows) must solve the system that mul applies
// term by term: at the start of random markets, residual below 1e-9.
func TestInteriorNewtonSystem(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for k := 0; k < 200; k++ {
		m := randomMarket(r)
		if m.Validate() != nil {
			continue
		}
		ip := newIPM(m)
		ns, ok := ip.factor(ip.utilities(ip.y))
		if !ok {
			t.Fatalf("market %d: Woodbury's matrix not positive definite at the start", k)
		}
		h := make([]float64, len(ip.y))
		for e := range h {
			h[e] = r.Float64()*2 - 1
		}
		d := ns.solve(h)
		res := ns.mul(d)
		for e := range res {
			if math.Abs(res[e]-h[e]) > 1e-9*(1+maxAbs(h)) {
				t.Fatalf("market %d: (M·M⁻¹h)[%d] = %g, want %g", k, e, res[e], h[e])
			}
		}
	}
}

// The capped pair of TestCappedNashByHand (x = 1/18 by hand), solved by
// the interior-point start.
func TestInteriorCappedByHand(t *testing.T) {
	m := cappedPair()
	sol, err := Solver{Interior: true}.Solve(m)
	if err != nil {
		t.Fatal(err)
	}
	if sol.Newton == 0 || sol.Iterations != 0 {
		t.Errorf("%d interior-point iterations and %d LP solves: want the interior-point start alone", sol.Newton, sol.Iterations)
	}
	wantCappedOptimum(t, sol)
	if err := sol.Cert.Verify(m, sol.X, 1e-11); !sol.Exact || err != nil {
		t.Errorf("exact %v, certificate: %v", sol.Exact, err)
	}
}

// On random markets the interior-point start and the cutting planes reach
// the same utilities (they are unique; the shares need not be) with
// verified certificates, and the partial-allocation discounts, which read
// only utilities, agree.
func TestInteriorMatchesCuttingPlanes(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	n, settled := 0, 0
	for k := 0; k < 400; k++ {
		m := randomMarket(r)
		if m.Validate() != nil {
			continue
		}
		n++
		cut, err := Solver{}.Solve(m)
		if err != nil {
			t.Fatal(err)
		}
		in, err := Solver{Interior: true}.Solve(m)
		if err != nil {
			t.Fatal(err)
		}
		if in.Iterations == 0 {
			settled++
		}
		if err := in.Cert.Verify(m, in.X, 1e-11); !in.Exact || err != nil {
			t.Fatalf("market %d: exact %v, certificate: %v", k, in.Exact, err)
		}
		for i := range cut.U {
			if !near(in.U[i], cut.U[i], 1e-9) {
				t.Fatalf("market %d: U = %v by the interior point, %v by cutting planes", k, in.U, cut.U)
			}
		}
		f1, _, err1 := Solver{}.Discounts(m, cut)
		f2, _, err2 := Solver{Interior: true}.Discounts(m, cut)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		for i := range f1 {
			if math.Abs(f1[i]-f2[i]) > 1e-9 {
				t.Fatalf("market %d: discounts %v with the interior-point start, %v without", k, f2, f1)
			}
		}
	}
	// The interior-point start must actually carry these small markets
	// (else this test compares the cutting planes with themselves).
	if settled < n*9/10 {
		t.Errorf("the interior-point start settled %d of %d markets, want at least 90%%", settled, n)
	}
}
