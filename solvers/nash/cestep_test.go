package nash

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The eliminated Newton solve of the continuation (ceStep) must solve the
// system the dense Jacobian states: on the active sets of random markets'
// Nash-welfare optima (from the interior-point start: no LP, fast without
// cgo), at θ = 0, 1/2 and in the final form, at points moved off the path,
// for right-hand sides r = J·s₀ (consistent even where J is singular, as
// at degenerate points, where ceStep answers with a least-squares
// solution of its reduced system), J·s = r to 1e-8 whenever ceStep
// answers, and it answers whenever the dense Jacobian is well conditioned.
func TestCEStepSolvesTheJacobian(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	solved, singular := 0, 0
	for k := 0; k < 300; k++ {
		m := randomMarket(r)
		if m.Validate() != nil {
			continue
		}
		eg, err := Solver{Interior: true}.Solve(m)
		if err != nil {
			t.Fatal(err)
		}
		st, z0 := ceStart(m, eg)
		for _, theta := range []float64{0, 0.5, ceFinal} {
			z := append([]float64(nil), z0...)
			for i := range z {
				z[i] += 0.1 * (r.Float64() - 0.5)
			}
			rows := len(ceResidual(m, st, z, theta))
			if rows != st.n || rows == 0 {
				continue
			}
			j := ceJacobian(m, st, z, theta, rows)
			s0 := make([]float64, rows)
			for i := range s0 {
				s0[i] = 2*r.Float64() - 1
			}
			var rv mat.VecDense
			rv.MulVec(j, mat.NewVecDense(rows, s0))
			res := rv.RawVector().Data
			var lu mat.LU
			lu.Factorize(j)
			well := lu.Cond() < 1e6
			s, ok := ceStep(m, st, z, theta, res)
			if !ok {
				if well {
					t.Fatalf("market %d, θ = %g: ceStep refused a system of condition %g", k, theta, lu.Cond())
				}
				continue
			}
			solved++
			if !well {
				singular++
			}
			var js mat.VecDense
			js.MulVec(j, mat.NewVecDense(len(s), s))
			for i := range res {
				if math.Abs(js.AtVec(i)-res[i]) > 1e-8*(1+maxAbs(res)) {
					t.Fatalf("market %d, θ = %g (well conditioned: %v): (J·s)[%d] = %g, want %g", k, theta, well, i, js.AtVec(i), res[i])
				}
			}
		}
	}
	if solved < 100 || singular == 0 {
		t.Errorf("ceStep solved %d systems, %d of them ill conditioned; want at least 100 and some", solved, singular)
	}
}

// An active set's key names the set, not the order its pairs joined in:
// equal for the same pairs in another order, different when a pair, a
// price or a rent changes.
func TestCEStateKey(t *testing.T) {
	a := &ceState{edges: [][2]int{{0, 1}, {2, 0}, {1, 1}}, mu: []int{3, -1}, price: []int{4, -1}, rent: []int{-1, 5, -1}}
	b := a.clone()
	b.edges = [][2]int{{1, 1}, {0, 1}, {2, 0}}
	if a.key() != b.key() {
		t.Error("the same pairs in another order have another key")
	}
	for name, change := range map[string]func(*ceState){
		"pair":  func(s *ceState) { s.edges[0] = [2]int{0, 0} },
		"price": func(s *ceState) { s.price[1] = 6 },
		"rent":  func(s *ceState) { s.rent[1] = -1 },
		"μ":     func(s *ceState) { s.mu[0] = -1 },
	} {
		c := a.clone()
		change(c)
		if c.key() == a.key() {
			t.Errorf("changing a %s kept the key", name)
		}
	}
}
