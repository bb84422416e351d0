package oef

import (
	"math"
	"math/rand/v2"
	"testing"

	"fairbench/solvers/lp"
	"fairbench/solvers/nash"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*(1+math.Abs(b)) }

func wantUtilities(t *testing.T, r *Result, want ...float64) {
	t.Helper()
	for u, w := range want {
		if !near(r.Utilities[u], w, 1e-7) {
			t.Fatalf("U = %v, want %v", r.Utilities, want)
		}
	}
}

// Two users who each prefer another type (a = T/max T): A runs V100 at 1,
// P100 at 2 → a_A = (0.5, 1); B runs V100 at 2, P100 at 1 → a_B = (1, 0.5);
// one GPU of each, two single-GPU jobs each (no time cap binds). The most
// total throughput is 2 (each on its best type: 1 + 1); it is fair: A's
// share ½V100 + ½P100 is worth 0.5·0.5 + 0.5·1 = 0.75 ≤ 1, and A values
// B's V100 at 0.5 ≤ 1 (B likewise).
func TestCooperativeEachOnItsBestType(t *testing.T) {
	m := &nash.Market{Caps: []float64{1, 1}, Weights: []float64{1, 1}, Classes: []nash.Class{
		{Buyer: 0, Count: 2, Gang: 1, Value: []float64{0.5, 1}},
		{Buyer: 1, Count: 2, Gang: 1, Value: []float64{1, 0.5}},
	}}
	r, err := Cooperative(m, lp.Default())
	if err != nil {
		t.Fatal(err)
	}
	wantUtilities(t, r, 1, 1)
	if !near(r.X[0][1], 1, 1e-9) || !near(r.X[1][0], 1, 1e-9) || r.Envy != 0 {
		t.Errorf("X = %v, envy %v; want A on the P100, B on the V100, no slack", r.X, r.Envy)
	}
}

// Envy-freeness fixes the split when efficiency does not: two GPUs of one
// type, users of weights 1 and 3 with two jobs each (every split has total
// 2). Eq. 4: U_A ≥ (1/3)·G_B and U_B ≥ 3·G_A with U = G and G_A + G_B = 2:
// G_A ≥ (2 − G_A)/3 ⇒ G_A ≥ 0.5, and 2 − G_A ≥ 3·G_A ⇒ G_A ≤ 0.5. So
// U = (0.5, 1.5), the weighted split.
func TestCooperativeWeightedEnvy(t *testing.T) {
	m := &nash.Market{Caps: []float64{2}, Weights: []float64{1, 3}, Classes: []nash.Class{
		{Buyer: 0, Count: 2, Gang: 1, Value: []float64{1}},
		{Buyer: 1, Count: 2, Gang: 1, Value: []float64{1}},
	}}
	r, err := Cooperative(m, lp.Default())
	if err != nil {
		t.Fatal(err)
	}
	wantUtilities(t, r, 0.5, 1.5)
}

// Jobs' time caps count in the envy rows (Eq. 4a): two GPUs of one type,
// users of weights 1 and 2 with one job each. Linearly, B would value
// 2 × A's one GPU at 2 > U_B = 1 and hold A to 2/3 of a GPU; with its one
// job B can use one GPU at most (the bound with λ = 1 gives L = 1), so
// both jobs run all the time: U = (1, 1).
func TestCooperativeCapsInEnvy(t *testing.T) {
	m := &nash.Market{Caps: []float64{2}, Weights: []float64{1, 2}, Classes: []nash.Class{
		{Buyer: 0, Count: 1, Gang: 1, Value: []float64{1}},
		{Buyer: 1, Count: 1, Gang: 1, Value: []float64{1}},
	}}
	r, err := Cooperative(m, lp.Default())
	if err != nil {
		t.Fatal(err)
	}
	wantUtilities(t, r, 1, 1)
}

// Program (N): two GPUs of one type, weights 1 and 3, four jobs each:
// U_A = t, U_B = 3t, U_A + U_B = 2 ⇒ t = 0.5, U = (0.5, 1.5).
func TestNonCooperativeWeighted(t *testing.T) {
	m := &nash.Market{Caps: []float64{2}, Weights: []float64{1, 3}, Classes: []nash.Class{
		{Buyer: 0, Count: 4, Gang: 1, Value: []float64{1}},
		{Buyer: 1, Count: 4, Gang: 1, Value: []float64{1}},
	}}
	r, err := NonCooperative(m, lp.Default())
	if err != nil {
		t.Fatal(err)
	}
	wantUtilities(t, r, 0.5, 1.5)
	if !near(r.Level, 0.5, 1e-9) {
		t.Errorf("t = %v, want 0.5", r.Level)
	}
}

// Eq. 7: four GPUs, equal weights, A with one job (M_A = 1), B with five.
// Equal shares would be t = 2, more than A can use: A is held at 1 and B
// takes the other three GPUs, U = (1, 3).
func TestNonCooperativeHeldAtMost(t *testing.T) {
	m := &nash.Market{Caps: []float64{4}, Weights: []float64{1, 1}, Classes: []nash.Class{
		{Buyer: 0, Count: 1, Gang: 1, Value: []float64{1}},
		{Buyer: 1, Count: 5, Gang: 1, Value: []float64{1}},
	}}
	r, err := NonCooperative(m, lp.Default())
	if err != nil {
		t.Fatal(err)
	}
	wantUtilities(t, r, 1, 3)
}

// The checker's counterexample to program (N)'s strategy-proofness
// (docs/algorithms/oef.md, "What the checker finds"): one V100 and one
// P100; A's one job runs only on the P100 (a_A = (0, 1)), B's one job at
// 1 on the V100 and 2 on the P100 (a_B = (0.5, 1)). Truthfully A gets p of
// the P100 and B the rest and v ≤ p of the V100 (one job: v + 1 − p ≤ 1):
// p = 0.5·p + 1 − p ⇒ p = 2/3, U_B = 2/3. B reporting 0.25 on the V100
// (a' = (0.125, 1)): p = 0.125·p + 1 − p ⇒ p = 8/15, v = 8/15, and B's
// true utility is 0.5·8/15 + 7/15 = 11/15 > 2/3.
func TestNonCooperativeMisreportGains(t *testing.T) {
	market := func(bV100 float64) *nash.Market {
		return &nash.Market{Caps: []float64{1, 1}, Weights: []float64{1, 1}, Classes: []nash.Class{
			{Buyer: 0, Count: 1, Gang: 1, Value: []float64{0, 1}},
			{Buyer: 1, Count: 1, Gang: 1, Value: []float64{bV100, 1}},
		}}
	}
	truth, err := NonCooperative(market(0.5), lp.Default())
	if err != nil {
		t.Fatal(err)
	}
	wantUtilities(t, truth, 2.0/3, 2.0/3)
	lie, err := NonCooperative(market(0.125), lp.Default())
	if err != nil {
		t.Fatal(err)
	}
	honest := market(0.5).Utilities(lie.X)[1]
	if !near(honest, 11.0/15, 1e-7) {
		t.Errorf("B's true utility after the lie = %v, want 11/15", honest)
	}
}

// Invariants on random markets of users with alike jobs (one class each):
// program (C) is feasible, keeps sharing incentive and envy-freeness with
// the jobs' time caps counted (V_u by its LP, not the bounds), and is at
// least as efficient as the weighted equal split; program (N) gives every
// user below its most the same U_u / w_u.
func TestProgramsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 2403))
	solver := lp.Default()
	for trial := range 60 {
		m := randomMarket(rng)
		c, err := Cooperative(m, solver)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if v := m.Violation(c.X, 1e-7); v != "" {
			t.Fatalf("trial %d: infeasible: %s", trial, v)
		}
		checkFair(t, trial, m, c)
		n, err := NonCooperative(m, solver)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if v := m.Violation(n.X, 1e-7); v != "" {
			t.Fatalf("trial %d: infeasible: %s", trial, v)
		}
		for u, w := range m.Weights {
			most, err := Value(m, u, m.Caps, solver)
			if err != nil {
				t.Fatal(err)
			}
			if got := n.Utilities[u]; !near(got, math.Min(w*n.Level, most), 1e-6) {
				t.Fatalf("trial %d: user %d: U = %v, want min(w·t, M) = min(%v, %v)", trial, u, got, w*n.Level, most)
			}
		}
	}
}

func randomMarket(rng *rand.Rand) *nash.Market {
	types := 1 + rng.IntN(3)
	m := &nash.Market{}
	for range types {
		m.Caps = append(m.Caps, float64(1+rng.IntN(4)))
	}
	for u := range 2 + rng.IntN(3) {
		m.Weights = append(m.Weights, []float64{0.5, 1, 2, 3}[rng.IntN(4)])
		cl := nash.Class{Buyer: u, Count: float64(1 + rng.IntN(3)), Gang: float64(1 + rng.IntN(2)), Value: make([]float64, types)}
		best := 0.0
		for g := range cl.Value {
			if rng.IntN(5) > 0 {
				cl.Value[g] = float64(1 + rng.IntN(8))
			}
			best = math.Max(best, cl.Value[g])
		}
		if best == 0 {
			cl.Value[0], best = 1, 1
		}
		for g := range cl.Value {
			cl.Value[g] /= best
		}
		m.Classes = append(m.Classes, cl)
	}
	return m
}

func checkFair(t *testing.T, trial int, m *nash.Market, r *Result) {
	t.Helper()
	total := 0.0
	for _, w := range m.Weights {
		total += w
	}
	gpus := make([][]float64, len(m.Weights))
	for u := range gpus {
		gpus[u] = make([]float64, len(m.Caps))
	}
	for c, cl := range m.Classes {
		for g, x := range r.X[c] {
			gpus[cl.Buyer][g] += cl.Gang * x
		}
	}
	split := 0.0
	for u, w := range m.Weights {
		share := make([]float64, len(m.Caps))
		for g, n := range m.Caps {
			share[g] = w / total * n
		}
		si, err := Value(m, u, share, lp.Default())
		if err != nil {
			t.Fatal(err)
		}
		split += si
		if r.Utilities[u] < si-1e-6*(1+si) {
			t.Fatalf("trial %d: user %d below its share: %v < %v", trial, u, r.Utilities[u], si)
		}
		for v, wv := range m.Weights {
			if v == u {
				continue
			}
			b := make([]float64, len(m.Caps))
			for g := range b {
				b[g] = w / wv * gpus[v][g]
			}
			other, err := Value(m, u, b, lp.Default())
			if err != nil {
				t.Fatal(err)
			}
			if r.Utilities[u] < other-1e-6*(1+other) {
				t.Fatalf("trial %d: user %d envies %d: %v < %v (X %v, market %+v)", trial, u, v, r.Utilities[u], other, r.X, m)
			}
		}
	}
	sum := 0.0
	for _, u := range r.Utilities {
		sum += u
	}
	if sum < split-1e-6*(1+split) {
		t.Fatalf("trial %d: efficiency %v below the equal split's %v", trial, sum, split)
	}
}
