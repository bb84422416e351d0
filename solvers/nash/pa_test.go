package nash

import (
	"math"
	"math/rand/v2"
	"testing"
)

// An agent that runs only on a type nobody else can use and that it leaves
// half idle costs the others nothing. Types A (1 GPU) and B (4 GPUs);
// buyer 0's one job runs only on B, buyer 1's only on A. The optimum runs
// each job all the time (U = 1, 1); B is a quarter used, so its price is
// 0, and without buyer 0 buyer 1's optimum is the one it has: the full
// optimum's certificate proves it (no solve), and f_0 = 1 exactly. Without
// buyer 1, buyer 0 still runs all the time: f_1 = 1 too (A's price is
// positive, so that market is solved).
func TestUnmovedAgentKeepsAll(t *testing.T) {
	m := &Market{Caps: []float64{1, 4}, Weights: []float64{1, 1}, Classes: []Class{
		{Buyer: 0, Count: 1, Gang: 1, Value: []float64{0, 1}},
		{Buyer: 1, Count: 1, Gang: 1, Value: []float64{1, 0}},
	}}
	sol, err := Solver{}.Solve(m)
	if err != nil {
		t.Fatal(err)
	}
	f, others, err := Solver{}.Discounts(m, sol)
	if err != nil {
		t.Fatal(err)
	}
	if f[0] != 1 || f[1] != 1 {
		t.Errorf("f = %v, want exactly 1, 1", f)
	}
	if o := others[0]; o.Iterations != 0 || !o.Exact || o.Cert.Verify(m.without(0), o.X, 1e-11) != nil {
		t.Errorf("without buyer 0: %d LP solves, exact %v: want the full optimum, certified, without a solve", o.Iterations, o.Exact)
	}
	if others[1].Iterations == 0 {
		t.Error("without buyer 1: no LP solve, but A's price is positive and its GPU left idle")
	}
}

// without is m without buyer i (for the test above).
func (m *Market) without(i int) *Market { rest, _ := m.withoutOne(i); return rest }

// On random markets, user markets and job markets (buyers standing for
// several identical agents), Discounts equals the definition computed from
// cold solves of every leave-one-out market,
//
//	f_i = ( Π_{j≠i} (Ū_j* / Ū_j^{−i})^{ω_j} )^{1/ω_i}  over agents j,
//
// to 1e-9, and is exactly 1 where the definition is within 1e-9 of 1.
func TestDiscountsMatchDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for k := 0; k < 300; k++ {
		m := randomMarket(r)
		switch k % 4 {
		case 1:
			m = jobMarket(m, 1)
		case 3:
			m = jobMarket(m, 4) // buyers of 4–12 agents: nearby's markets
		}
		if m.Validate() != nil {
			continue
		}
		sol, err := Solver{}.Solve(m)
		if err != nil {
			t.Fatal(err)
		}
		f, _, err := Solver{}.Discounts(m, sol)
		if err != nil {
			t.Fatal(err)
		}
		for i := range m.Weights {
			want := definedDiscount(t, m, sol, i)
			switch {
			case want > 1-1e-9 && f[i] != 1:
				t.Fatalf("market %d, buyer %d: f = %.17g, want 1 (defined %.17g)", k, i, f[i], want)
			case math.Abs(f[i]-want) > 1e-9:
				t.Fatalf("market %d, buyer %d: f = %.17g, defined %.17g", k, i, f[i], want)
			}
		}
	}
}

// definedDiscount is f_i by the definition: the product over the agents
// other than one agent of buyer i of their utility ratios to their
// weights, each agent's utility its buyer's over its agents, from a cold
// cutting-plane solve of the market without that agent.
func definedDiscount(t *testing.T, m *Market, sol *Solution, i int) float64 {
	t.Helper()
	rest, back := m.withoutOne(i)
	if len(rest.Weights) == 0 {
		return 1
	}
	other, err := Solver{}.Solve(rest)
	if err != nil {
		t.Fatal(err)
	}
	omega := m.Weights[i] / m.agents(i)
	prod := 1.0
	for k, b := range back {
		agents := m.agents(b)
		if b == i {
			agents-- // the others of i's buyer
		}
		per := m.Weights[b] / m.agents(b)
		ratio := (sol.U[b] / m.agents(b)) / (other.U[k] / rest.agents(k))
		prod *= math.Pow(ratio, per*agents)
	}
	return math.Min(1, math.Pow(prod, 1/omega))
}

// jobMarket turns m into a market of jobs as agents (JobMarket's form):
// every class its own buyer, standing for its jobs (times scale), each of
// weight 1.
func jobMarket(m *Market, scale float64) *Market {
	out := &Market{Caps: m.Caps, Agents: []float64{}}
	for _, cl := range m.Classes {
		cl.Count *= scale
		cl.Buyer = len(out.Weights)
		out.Weights = append(out.Weights, cl.Count)
		out.Agents = append(out.Agents, cl.Count)
		out.Classes = append(out.Classes, cl)
	}
	return out
}
