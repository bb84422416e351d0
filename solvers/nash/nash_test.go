package nash

import (
	"math"
	"testing"

	"fairbench/solvers/lp"
)

// lpName names a test's LP backend (nil: lp.Default()).
func lpName(s lp.Solver) string {
	if s == nil {
		return lp.Default().Name()
	}
	return s.Name()
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*(1+math.Abs(b)) }

// A linear Fisher market (every class can fill the cluster alone, so no
// time cap binds): two buyers of budget 1, types A and B with one GPU
// each, buyer 0 values A twice B, buyer 1 the reverse. The equilibrium
// gives each its favourite type at price 1: U = (2, 2), and
// w·a/U = 1·2/2 = 1 = p on the bought type, 1·1/2 = 0.5 < 1 on the other.
func TestLinearFisherByHand(t *testing.T) {
	m := &Market{Caps: []float64{1, 1}, Weights: []float64{1, 1}, Classes: []Class{
		{Buyer: 0, Count: 10, Gang: 1, Value: []float64{2, 1}},
		{Buyer: 1, Count: 10, Gang: 1, Value: []float64{1, 2}},
	}}
	sol, err := Solver{}.Solve(m)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{{1, 0}, {0, 1}}
	for c := range want {
		for g := range want[c] {
			if !near(sol.X[c][g], want[c][g], 1e-9) {
				t.Errorf("X = %v, want %v", sol.X, want)
			}
		}
	}
	if !sol.Exact || !near(sol.Cert.Prices[0], 1, 1e-9) || !near(sol.Cert.Prices[1], 1, 1e-9) {
		t.Errorf("exact %v, prices %v, want exact and [1 1]", sol.Exact, sol.Cert.Prices)
	}
	if err := sol.Cert.Verify(m, sol.X, 1e-12); err != nil {
		t.Error(err)
	}
	// Spending equals budget: a CEEI (no rents).
	for i, s := range Spending(m, sol.X, sol.Cert.Prices) {
		if !near(s, 1, 1e-9) {
			t.Errorf("buyer %d spends %g, want its budget 1", i, s)
		}
	}
}

// With each job's time capped at 1 the Nash welfare is no longer an
// equilibrium. One job per buyer, one GPU of A and of B; buyer 0's job
// values (A, B) = (1, 0.5), buyer 1's (1, 0.1). Every GPU and every job is
// busy at the optimum, so x = (t, 1−t) and (1−t, t) and
// U0 = t + 0.5(1−t) = 0.5 + 0.5t, U1 = (1−t) + 0.1t = 1 − 0.9t;
// d/dt [log U0 + log U1] = 0.5/U0 − 0.9/U1 = 0 ⇔ 0.5(1 − 0.9t) = 0.9(0.5 + 0.5t)
// ⇔ t = 0.05/0.9 = 1/18: U = (0.52778, 0.95).
func TestCappedNashByHand(t *testing.T) {
	m := cappedPair()
	sol, err := Solver{}.Solve(m)
	if err != nil {
		t.Fatal(err)
	}
	wantCappedOptimum(t, sol)
	if !sol.Exact {
		t.Error("not polished to the exact optimum")
	}
	if err := sol.Cert.Verify(m, sol.X, 1e-12); err != nil {
		t.Error(err)
	}
	// The rents make buyer 0 pay for its own time: its spending on GPUs is
	// below its budget, which is why it envies buyer 1 (V0(bundle 1) =
	// (1−t)·1 + t·0.5 = 0.97 > U0 = 0.53).
	spend := Spending(m, sol.X, sol.Cert.Prices)
	if spend[0] >= 1-1e-3 {
		t.Errorf("buyer 0 spends %g of its budget 1 on GPUs; the time cap's rent should take part of it", spend[0])
	}
}

// wantCappedOptimum checks cappedPair's optimum: t = 1/18 (see
// TestCappedNashByHand).
func wantCappedOptimum(t *testing.T, sol *Solution) {
	t.Helper()
	tt := 1.0 / 18
	want := [][]float64{{tt, 1 - tt}, {1 - tt, tt}}
	for c := range want {
		for g := range want[c] {
			if !near(sol.X[c][g], want[c][g], 1e-9) {
				t.Fatalf("X = %v, want %v", sol.X, want)
			}
		}
	}
}

func cappedPair() *Market {
	return &Market{Caps: []float64{1, 1}, Weights: []float64{1, 1}, Classes: []Class{
		{Buyer: 0, Count: 1, Gang: 1, Value: []float64{1, 0.5}},
		{Buyer: 1, Count: 1, Gang: 1, Value: []float64{1, 0.1}},
	}}
}

// The same market's competitive equilibrium: both jobs busy all the time
// and both GPUs full, so each buyer's budget line p_A·y + p_B·(1 − y) = 1
// is the same and both buy y = 1/2 of A (p_A + p_B = 2): U = (0.5 + 0.25,
// 0.5 + 0.05) = (0.75, 0.55), the equal split, which is also each one's
// sharing-incentive level.
func TestCEEIByHand(t *testing.T) {
	m := cappedPair()
	sol, cert, err := Solver{}.CEEI(m)
	if err != nil {
		t.Fatal(err)
	}
	for c := range sol.X {
		for g := range sol.X[c] {
			if !near(sol.X[c][g], 0.5, 1e-9) {
				t.Fatalf("X = %v, want every share 0.5", sol.X)
			}
		}
	}
	if !near(sol.U[0], 0.75, 1e-9) || !near(sol.U[1], 0.55, 1e-9) {
		t.Errorf("U = %v, want [0.75 0.55]", sol.U)
	}
	if err := cert.Verify(m, sol.X, 1e-9); err != nil {
		t.Error(err)
	}
	if p := cert.Prices; !near(p[0]+p[1], 2, 1e-9) || p[0] <= p[1] {
		t.Errorf("prices %v, want p_A + p_B = 2 with p_A > p_B", p)
	}
}

// Certificates reject allocations that are not what they claim: a feasible
// but suboptimal point fails the Eisenberg–Gale gap, and an unaffordable
// bundle fails the equilibrium check.
func TestCertificatesReject(t *testing.T) {
	m := cappedPair()
	sol, err := Solver{}.Solve(m)
	if err != nil {
		t.Fatal(err)
	}
	worse := [][]float64{{0.5, 0.5}, {0.5, 0.5}} // feasible, welfare lower
	if err := sol.Cert.Verify(m, worse, 1e-6); err == nil {
		t.Error("EG certificate accepted the equal split, which is not the Nash optimum")
	}
	_, cert, err := Solver{}.CEEI(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := cert.Verify(m, sol.X, 1e-6); err == nil {
		t.Error("CE certificate accepted the Nash allocation, which is not an equilibrium")
	}
	over := [][]float64{{1, 0.5}, {0.5, 0.5}} // A over capacity
	if err := cert.Verify(m, over, 1e-6); err == nil {
		t.Error("CE certificate accepted an infeasible allocation")
	}
}

// Partial allocation by hand: two buyers of weight 1, one job each, one
// GPU that both value 1. The Nash optimum halves it (U = 0.5 each); without
// either buyer the other gets the whole GPU (U = 1), so each keeps
// f = 0.5/1 = 1/2 of its half.
func TestDiscountsByHand(t *testing.T) {
	m := &Market{Caps: []float64{1}, Weights: []float64{1, 1}, Classes: []Class{
		{Buyer: 0, Count: 1, Gang: 1, Value: []float64{1}},
		{Buyer: 1, Count: 1, Gang: 1, Value: []float64{1}},
	}}
	s := Solver{}
	sol, err := s.Solve(m)
	if err != nil {
		t.Fatal(err)
	}
	f, _, err := s.Discounts(m, sol)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range f {
		if !near(v, 0.5, 1e-9) {
			t.Errorf("f[%d] = %g, want 0.5", i, v)
		}
	}
	// The same with the two jobs as one buyer of two identical agents
	// (Market.Agents): removing one agent leaves one job of weight 1 alone.
	agg := &Market{Caps: []float64{1}, Weights: []float64{2}, Agents: []float64{2}, Classes: []Class{
		{Buyer: 0, Count: 2, Gang: 1, Value: []float64{1}},
	}}
	sol, err = s.Solve(agg)
	if err != nil {
		t.Fatal(err)
	}
	f, _, err = s.Discounts(agg, sol)
	if err != nil {
		t.Fatal(err)
	}
	if !near(f[0], 0.5, 1e-9) {
		t.Errorf("aggregated f = %g, want 0.5", f[0])
	}
}

// Degenerate markets (ties everywhere, as small integer speeds make) on
// which the continuation once stalled or cycled; each must still end with
// a verified equilibrium (the complementarity fallback, the satiated-buyer
// switch).
func TestCEEIDegenerateMarkets(t *testing.T) {
	markets := []*Market{
		{Caps: []float64{2, 2, 1}, Weights: []float64{1, 1}, Classes: []Class{
			{Buyer: 0, Count: 1, Gang: 2, Value: []float64{0, 1, 0.5}},
			{Buyer: 1, Count: 1, Gang: 2, Value: []float64{0.5, 1, 0}},
			{Buyer: 1, Count: 1, Gang: 1, Value: []float64{1, 0, 1}}}},
		{Caps: []float64{3, 3}, Weights: []float64{1, 1}, Classes: []Class{
			{Buyer: 0, Count: 2, Gang: 2, Value: []float64{1, 1}},
			{Buyer: 1, Count: 1, Gang: 2, Value: []float64{1, 1}},
			{Buyer: 1, Count: 2, Gang: 1, Value: []float64{1, 0.5}}}},
		{Caps: []float64{2}, Weights: []float64{2, 1}, Classes: []Class{
			{Buyer: 0, Count: 1, Gang: 1, Value: []float64{1}},
			{Buyer: 0, Count: 1, Gang: 2, Value: []float64{1}},
			{Buyer: 1, Count: 1, Gang: 1, Value: []float64{1}}}},
		{Caps: []float64{4, 3}, Weights: []float64{2, 1}, Classes: []Class{ // everyone satiated: prices 0
			{Buyer: 0, Count: 1, Gang: 1, Value: []float64{1, 1}},
			{Buyer: 1, Count: 2, Gang: 1, Value: []float64{0, 1}}}},
		{Caps: []float64{4, 4, 2}, Weights: []float64{1, 1, 1}, Classes: []Class{
			{Buyer: 0, Count: 1, Gang: 2, Value: []float64{0.5, 0.5, 1}},
			{Buyer: 1, Count: 1, Gang: 1, Value: []float64{1, 0.5, 0}},
			{Buyer: 1, Count: 2, Gang: 2, Value: []float64{0.5, 1, 0.5}},
			{Buyer: 2, Count: 2, Gang: 2, Value: []float64{0, 0.5, 1}}}},
	}
	// Three starts: the cutting planes' vertex with CLP and with the pure-Go
	// simplex (a build without cgo, where market 0 once stalled at
	// θ = 2/3), and the interior-point method's optimum (on market 0 it
	// stalled at the same θ).
	for _, s := range []Solver{{}, {Interior: true}, {LP: lp.Pure{}}} {
		for k, m := range markets {
			sol, cert, err := s.CEEI(m)
			if err != nil {
				t.Errorf("interior %v, %s: market %d: %v", s.Interior, lpName(s.LP), k, err)
				continue
			}
			if err := cert.Verify(m, sol.X, 1e-9); err != nil {
				t.Errorf("interior %v, %s: market %d: %v", s.Interior, lpName(s.LP), k, err)
			}
		}
	}
}
