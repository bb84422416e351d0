package fft

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"fairbench/solvers/lp"
)

// randomInstance draws jobs×types instances shaped like FFT's rounds: gangs
// 1/2/4/8 with Philly's weights (or all 1), capacities in whole 4-GPU
// servers, some pairs unrunnable (memory), costs of either sign.
func randomInstance(r *rand.Rand, jobs, types int, unitGangs bool) *Instance {
	in := &Instance{Types: types, Cap: make([]int, types), Gang: make([]int, jobs),
		Cost: make([]float64, jobs*types), OK: make([]bool, jobs*types)}
	for i := range in.Cap {
		in.Cap[i] = 4 * (1 + r.IntN(3))
	}
	for j := range in.Gang {
		in.Gang[j] = 1
		if !unitGangs {
			switch u := r.Float64(); {
			case u < 0.1:
				in.Gang[j] = 2
			case u < 0.25:
				in.Gang[j] = 4
			case u < 0.3:
				in.Gang[j] = 8
			}
		}
		size := math.Pow(10, 1+2*r.Float64())
		rho := 0.0
		if r.IntN(3) == 0 {
			rho = 100 * r.Float64()
		}
		for i := range types {
			k := j*types + i
			theta := 0.2 + r.Float64()
			in.OK[k] = r.IntN(6) != 0 && in.Gang[j] <= in.Cap[i]
			in.Cost[k] = float64(in.Gang[j])*size/theta - rho*theta*size/10
		}
	}
	return in
}

func exactOrFatal(t *testing.T, in *Instance, k int) ExactResult {
	t.Helper()
	ex, err := SolveExact(in, lp.Default(), lp.Options{}, k)
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

// With every gang 1 the relaxation is integral (a transportation problem
// with integral data), so the fast path must equal the exact optimum.
func TestFastEqualsExactUnitGangs(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 60 {
		in := randomInstance(r, 3+r.IntN(12), 1+r.IntN(3), true)
		fast := SolveFast(in)
		if fast.Split != 0 {
			t.Fatalf("trial %d: %d split jobs with unit gangs", trial, fast.Split)
		}
		if err := in.Check(fast.Solution); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if fast.Fill != fast.LPFill {
			t.Fatalf("trial %d: fill %d, relaxation %d", trial, fast.Fill, fast.LPFill)
		}
		ex := exactOrFatal(t, in, -1)
		if ex.K != fast.Fill {
			t.Fatalf("trial %d: K(t) = %d, fast fill %d", trial, ex.K, fast.Fill)
		}
		if d := fast.Objective - ex.Objective; math.Abs(d) > 1e-6*(1+math.Abs(ex.Objective)) {
			t.Fatalf("trial %d: fast %v, exact %v", trial, fast.Objective, ex.Objective)
		}
		if math.Abs(fast.Bound-fast.Objective) > 1e-6*(1+math.Abs(ex.Objective)) {
			t.Fatalf("trial %d: bound %v, objective %v", trial, fast.Bound, fast.Objective)
		}
	}
}

// With gangs the fast path is feasible, never below the exact optimum nor
// the relaxation's bound, and the bound never above the exact optimum.
func TestFastGangsBounds(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 60 {
		in := randomInstance(r, 3+r.IntN(10), 1+r.IntN(3), false)
		fast := SolveFast(in)
		if err := in.Check(fast.Solution); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		ex := exactOrFatal(t, in, -1)
		tol := 1e-6 * (1 + math.Abs(ex.Objective))
		if fast.Fill > ex.K {
			t.Fatalf("trial %d: fast fills %d > K(t) %d", trial, fast.Fill, ex.K)
		}
		if fast.Fill == ex.K && fast.Objective < ex.Objective-tol {
			t.Fatalf("trial %d: fast %v below the optimum %v", trial, fast.Objective, ex.Objective)
		}
		if fast.Bound > ex.Objective+tol && fast.Fill <= ex.K {
			t.Fatalf("trial %d: bound %v above the optimum %v", trial, fast.Bound, ex.Objective)
		}
	}
}

// The fast path's solution as a MIP start changes the work, not the
// optimum: on random instances SolveExactFrom reaches SolveExact's objective
// and fill, with a feasible solution, and counts its solves.
func TestExactFromFastStart(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(19, 3))
	for trial := range 60 {
		in := randomInstance(r, 4+r.IntN(20), 1+r.IntN(4), false)
		fast := SolveFast(in)
		cold := exactOrFatal(t, in, -1)
		warm, err := SolveExactFrom(in, lp.Default(), lp.Options{}, -1, fast.Solution)
		if err != nil {
			t.Fatal(err)
		}
		if err := in.Check(warm.Solution); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if warm.K != cold.K || warm.Fill < warm.K || math.Abs(warm.Objective-cold.Objective) > 1e-9*(1+math.Abs(cold.Objective)) {
			t.Fatalf("trial %d: from the fast path K %d fill %d objective %v, cold K %d objective %v",
				trial, warm.K, warm.Fill, warm.Objective, cold.K, cold.Objective)
		}
		if warm.Solves != 2 || cold.Solves != 2 {
			t.Fatalf("trial %d: %d and %d solves, want 2 (K(t), then the round's program)", trial, warm.Solves, cold.Solves)
		}
	}
}

// An order restricted to some jobs is the order of the instance of those
// jobs, so relaxations solved with either agree unit for unit.
func TestOrderRestrict(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(37, 13))
	for trial := range 100 {
		in := randomInstance(r, 5+r.IntN(40), 1+r.IntN(6), trial%2 == 0)
		// Ties by job index matter: copy some jobs' costs onto others.
		for j := 1; j < in.Jobs(); j += 3 {
			copy(in.Cost[j*in.Types:(j+1)*in.Types], in.Cost[(j-1)*in.Types:j*in.Types])
			in.Gang[j] = in.Gang[j-1]
		}
		var jobs []int
		sub := &Instance{Types: in.Types, Cap: in.Cap}
		for j, d := range in.Gang {
			if r.IntN(3) != 0 {
				jobs = append(jobs, j)
				sub.Gang = append(sub.Gang, d)
				sub.Cost = append(sub.Cost, in.Cost[j*in.Types:(j+1)*in.Types]...)
				sub.OK = append(sub.OK, in.OK[j*in.Types:(j+1)*in.Types]...)
			}
		}
		got, want := newOrder(in).restrict(jobs, in.Jobs()), newOrder(sub)
		for k := range want.arcs {
			if !slices.Equal(got.arcs[k], want.arcs[k]) {
				t.Fatalf("trial %d arc %d: restricted %v, fresh %v", trial, k, got.arcs[k], want.arcs[k])
			}
		}
		if !slices.Equal(got.pos, want.pos) {
			t.Fatalf("trial %d: places restricted %v, fresh %v", trial, got.pos, want.pos)
		}
		if !slices.Equal(got.per, want.per) {
			t.Fatalf("trial %d: per-GPU costs restricted %v, fresh %v", trial, got.per, want.per)
		}
		if a, b := relax(sub, got), lpRelaxation(sub); !slices.Equal(a.units, b.units) {
			t.Fatalf("trial %d: flows differ", trial)
		}
	}
}
