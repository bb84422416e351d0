package fft

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"fairbench/solvers/lp"
)

// knapsack is one type of 4 GPUs and four jobs (gang, cost): A (3, −9),
// B (2, −5), C (2, −4.8), D (1, −1); per GPU −3, −2.5, −2.4, −1.
func knapsack() *Instance {
	return &Instance{Types: 1, Cap: []int{4}, Gang: []int{3, 2, 2, 1},
		Cost: []float64{-9, -5, -4.8, -1}, OK: []bool{true, true, true, true}}
}

// The search on knapsack from the incumbent {B, C} (−9.8), by hand. The
// relaxation fills 4: A's 3 GPUs (−9) and one of B's (−2.5), bound −11.5,
// B split.
//
// At each node the search fixes by reduced costs at that node's prices: B
// split half in, half out prices a GPU at P = u − w = 2.5, so the reduced
// costs c + 2.5·d are A −1.5, B 0, C 0.2, D 1.5, the least m_j (staying out
// is 0) −1.5, 0, 0, 0, and LB = Σ m_j − 4·P = −11.5 (the bound). An option
// stays while its reduced cost − m_j < −9.8 − LB = 1.7: all do.
//
//	B on the type: 2 GPUs left, −5 fixed; A's 2 GPUs (−6): −11, A split.
//	  Prices: P = 3 (A split); reduced costs A 0, C 1.2, D 2; room
//	  (−9.8 + 5) + 6 = 1.2: C and D on the type are dropped (1.2 is not
//	  below 1.2 − tol), so they stay out. A does not fit (3 > 2), A out:
//	    nothing left to fill 2 GPUs: infeasible.
//	B out: A's 3 (−9) and one of C's (−2.4): −11.4, C split.
//	  Prices: P = 2.4; reduced costs A −1.8, C 0, D 1.4; room 1.6: A out
//	  costs 1.8 more than A on the type, so A is fixed there (1 GPU left,
//	  −9). C does not fit, C out:
//	    D's 1 GPU (−1): −10, integral: the new incumbent {A, D}.
//
// Five relaxations (seven without fixing at the nodes: under "B out", C
// on the type with A's 2 GPUs, and A out below it, are solved too);
// the optimum is {A, D} = −10 (the only other way to fill 4 GPUs is
// {B, C}).
func TestBranchKnapsackByHand(t *testing.T) {
	in := knapsack()
	root := lpRelaxation(in)
	if root.fill() != 4 || root.bound(4) != -11.5 {
		t.Fatalf("relaxation fills %d at %v, want 4 at −11.5", root.fill(), root.bound(4))
	}
	inc := Solution{Type: []int{-1, 0, 0, -1}}
	in.evaluate(&inc)
	got, end, nodes := branchAndBound(in, root, inc, lp.Options{}, maxBranchNodes, optimalTol*(1+math.Abs(inc.Objective)), nil)
	if end != searchProved || nodes != 5 {
		t.Fatalf("search ended %d after %d nodes, want proved after 5", end, nodes)
	}
	if !slices.Equal(got.Type, []int{0, -1, -1, 0}) || got.Objective != -10 || got.Fill != 4 {
		t.Fatalf("got %v (objective %v, fill %d), want [0 -1 -1 0] (−10, 4)", got.Type, got.Objective, got.Fill)
	}
}

// On random instances shaped like FFT's rounds the exact path reaches the
// MIP backend's optimum (relative 1e-9) with a feasible solution that fills
// K(t), by the search wherever the fast path reached the relaxation's fill.
func TestExactFastMatchesBackend(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(23, 5))
	searched, improved := 0, 0
	for trial := range 300 {
		in := randomInstance(r, 4+r.IntN(30), 1+r.IntN(4), false)
		fast := SolveFast(in)
		k := -1
		if fast.Fill == fast.LPFill {
			k = fast.Fill
		}
		got, err := SolveExactFast(in, lp.Default(), lp.Options{}, k, fast)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		want := exactOrFatal(t, in, -1)
		if err := in.Check(got.Solution); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if got.K != want.K || got.Fill < got.K || math.Abs(got.Objective-want.Objective) > 1e-9*(1+math.Abs(want.Objective)) {
			t.Fatalf("trial %d: K %d fill %d objective %v, backend K %d objective %v",
				trial, got.K, got.Fill, got.Objective, want.K, want.Objective)
		}
		var cp Solution
		cp.Type = slices.Clone(got.Type)
		if in.evaluate(&cp); cp.Objective != got.Objective || cp.Fill != got.Fill {
			t.Fatalf("trial %d: reported %v/%d, the solution's %v/%d", trial, got.Objective, got.Fill, cp.Objective, cp.Fill)
		}
		switch {
		case k < 0 && (got.Backend != got.Solves || got.Nodes != 0):
			t.Fatalf("trial %d: K(t) unknown, yet %d of %d solves by the backend and %d nodes", trial, got.Backend, got.Solves, got.Nodes)
		case k >= 0 && got.Nodes > 0:
			searched++
			if got.Objective < fast.Objective-1e-9*(1+math.Abs(fast.Objective)) {
				improved++
			}
		}
	}
	// Enough searches, some of them beating the rounding, for the
	// comparison to mean something.
	if searched < 50 || improved < 5 {
		t.Fatalf("%d searches, %d improving on the fast path: too few", searched, improved)
	}
}

// A search that runs out of its node budget hands the MIP to the backend
// from its incumbent; the caller's node or time limit stops it with the
// incumbent and lp.ErrLimit.
func TestExactFastBudgetAndLimits(t *testing.T) {
	in := knapsack()
	inc := Solution{Type: []int{-1, 0, 0, -1}}
	in.evaluate(&inc)
	fast := FastResult{Solution: inc, LPFill: 4, root: lpRelaxation(in)}

	ex, err := solveExactWithin(in, lp.Default(), lp.Options{}, 4, fast, 2)
	if err != nil || ex.Objective != -10 || ex.Backend != 1 || ex.Nodes != 2 || ex.Solves != 1 {
		t.Fatalf("budget 2: objective %v, %d backend solves of %d, %d nodes, err %v; want −10, 1 of 1, 2",
			ex.Objective, ex.Backend, ex.Solves, ex.Nodes, err)
	}
	for _, o := range []lp.Options{{NodeLimit: 2}, {TimeLimit: time.Nanosecond}} {
		ex, err := SolveExactFast(in, lp.Default(), o, 4, fast)
		if !errors.Is(err, lp.ErrLimit) || ex.Status != lp.LimitReached || ex.Objective != inc.Objective || ex.Backend != 0 {
			t.Fatalf("limits %+v: status %v objective %v backend %d err %v; want the incumbent (−9.8) at LimitReached",
				o, ex.Status, ex.Objective, ex.Backend, err)
		}
	}
}

// The prices read off the relaxation's optimal flow are its optimal duals:
// non-negative, and their Lagrangian bound equals the relaxation's optimum
// (strong duality), so reduced-cost fixing drops all it can.
func TestPricesAreOptimalDuals(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(29, 7))
	for trial := range 300 {
		in := randomInstance(r, 4+r.IntN(30), 1+r.IntN(5), trial%3 == 0)
		f := lpRelaxation(in)
		pr, ok := f.prices()
		if !ok {
			t.Fatalf("trial %d: no prices", trial)
		}
		if pr.w < 0 || slices.ContainsFunc(pr.u, func(u float64) bool { return u < 0 }) {
			t.Fatalf("trial %d: negative prices %v, %v", trial, pr.u, pr.w)
		}
		k := f.fill()
		lb, _ := in.lagrange(pr, k)
		if want := f.bound(k); math.Abs(lb-want) > 1e-9*(1+math.Abs(want)) {
			t.Fatalf("trial %d: Lagrangian bound %v, relaxation %v", trial, lb, want)
		}
	}
}

// knapsackPlus is knapsack with a second type of 1 GPU that only job E
// (gang 1, cost −10) may run on.
func knapsackPlus() *Instance {
	return &Instance{Types: 2, Cap: []int{4, 1}, Gang: []int{3, 2, 2, 1, 1},
		Cost: []float64{-9, 0, -5, 0, -4.8, 0, -1, 0, 0, -10},
		OK:   []bool{true, false, true, false, true, false, true, false, false, true}}
}

// A search past its budget hands the backend only what reduced-cost fixing
// left. On knapsackPlus from {B, C, E} (−19.8), by hand: the relaxation runs
// A's 3 GPUs and one of B's on type 0 and E on type 1 (bound −21.5). Its
// prices (Bellman–Ford from 0): B split half out sets x_zero = x_0 − 2.5,
// x_ω = min(x_0, x_1, x_zero) = −2.5, so w = 0, u_0 = 2.5 and u_1 = 2.5:
// E's reduced cost −10 + 2.5 = −7.5 is its least, staying out is 7.5 more,
// past the room −19.8 − (−21.5) = 1.7, so E is fixed on type 1 and jobs A–D
// keep every option (as in TestBranchKnapsackByHand). With a budget of 2
// nodes the search stops, and the backend solves A–D alone (fill row 4):
// {A, D}, −10, so −20 in all with E.
func TestBudgetFallbackSolvesReduced(t *testing.T) {
	in := knapsackPlus()
	inc := Solution{Type: []int{-1, 0, 0, -1, 1}}
	in.evaluate(&inc)
	fast := FastResult{Solution: inc, LPFill: 5, root: lpRelaxation(in)}
	if b := fast.root.bound(5); b != -21.5 {
		t.Fatalf("bound %v, want −21.5", b)
	}
	sr := search(in, fast, lp.Options{}, 2)
	if sr.end != searchBudget || sr.red == nil || !slices.Equal(sr.red.jobs, []int{0, 1, 2, 3}) ||
		sr.red.fixed[4] != 1 || sr.need != 4 {
		t.Fatalf("search: end %d, reduced %+v, need %d; want the budget reached with E fixed on type 1, A–D free, need 4",
			sr.end, sr.red, sr.need)
	}
	ex, err := solveExactWithin(in, lp.Default(), lp.Options{}, 5, fast, 2)
	if err != nil || !slices.Equal(ex.Type, []int{0, -1, -1, 0, 1}) || ex.Objective != -20 || ex.K != 5 ||
		ex.Backend != 1 || ex.Nodes != 2 {
		t.Fatalf("got %v (objective %v, K %d, backend %d, nodes %d, err %v), want [0 -1 -1 0 1] (−20, 5, 1, 2)",
			ex.Type, ex.Objective, ex.K, ex.Backend, ex.Nodes, err)
	}
}

// drawSearched draws a random instance of 8 to 8+spread−1 jobs and 1–4
// types and its fast path's result; false when the fast path fell short of
// the relaxation's fill (no search then).
func drawSearched(r *rand.Rand, spread int) (*Instance, FastResult, bool) {
	in := randomInstance(r, 8+r.IntN(spread), 1+r.IntN(4), false)
	fast := SolveFast(in)
	return in, fast, fast.Fill == fast.LPFill
}

// With any budget, the fallback to the backend on the reduced MIP keeps the
// exact path's answer the backend's optimum on the whole MIP.
func TestSmallBudgetsMatchBackend(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(31, 11))
	fellBack := 0
	for trial := range 200 {
		in, fast, ok := drawSearched(r, 30)
		if !ok {
			continue
		}
		budget := 1 + trial%4
		got, err := solveExactWithin(in, lp.Default(), lp.Options{}, fast.Fill, fast, budget)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if got.Backend > 0 {
			fellBack++
		}
		want := exactOrFatal(t, in, -1)
		if err := in.Check(got.Solution); err != nil || got.Fill < want.K {
			t.Fatalf("trial %d: fill %d < K %d or %v", trial, got.Fill, want.K, err)
		}
		if math.Abs(got.Objective-want.Objective) > 1e-9*(1+math.Abs(want.Objective)) ||
			got.Objective > fast.Objective+1e-9*(1+math.Abs(fast.Objective)) {
			t.Fatalf("trial %d (budget %d): objective %v, backend %v, fast %v", trial, budget, got.Objective, want.Objective, fast.Objective)
		}
	}
	if fellBack < 20 {
		t.Fatalf("only %d searches fell back to the backend", fellBack)
	}
}

// Cutoffs below the incumbent leave the search's answer as it was: on
// random instances, searched with cutoffs wherever a job is left free and
// without any, the same solution job for job, the MIP backend's optimum;
// in some of them the answer was found below a cutoff under the fast
// path's objective.
func TestCutoffsKeepTheAnswer(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(37, 13))
	cut := 0
	for trial := range 300 {
		in, fast, ok := drawSearched(r, 40)
		if !ok || fast.Objective <= fast.Bound+optimalTol*(1+math.Abs(fast.Bound)) {
			continue
		}
		with := searchCutting(in, fast, lp.Options{}, maxBranchNodes, 0)
		without := searchCutting(in, fast, lp.Options{}, maxBranchNodes, math.MaxInt)
		if with.end != searchProved || without.end != searchProved {
			t.Fatalf("trial %d: ended %d and %d, want both proved", trial, with.end, without.end)
		}
		if !slices.Equal(with.best.Type, without.best.Type) {
			t.Fatalf("trial %d: with cutoffs %v (%v), without %v (%v)", trial,
				with.best.Type, with.best.Objective, without.best.Type, without.best.Objective)
		}
		want := exactOrFatal(t, in, fast.Fill)
		if math.Abs(with.best.Objective-want.Objective) > 1e-9*(1+math.Abs(want.Objective)) {
			t.Fatalf("trial %d: objective %v, backend %v", trial, with.best.Objective, want.Objective)
		}
		if with.cut < fast.Objective {
			cut++
		}
	}
	if cut < 20 {
		t.Fatalf("only %d answers found below a cutoff", cut)
	}
}
