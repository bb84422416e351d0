package gavel_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"fairbench/models"
	"fairbench/solvers/gavel"
)

// 1 V100 + 1 K80; A fast (4, 1) with 800 steps, B mid (2, 1) with 300.
// Both must run all the time and share the V100: with a = A's V100 share,
// A has k = 1 − a of the K80 and B the rest of each, so
// y_A = 4a + (1 − a) = 1 + 3a and y_B = 2(1 − a) + a = 2 − a. The makespan
// is smallest where both finish together: 800/(1 + 3a) = 300/(2 − a)
// → 1300 = 1700·a, a = 13/17, T = 800·17/56 = 1700/7 ≈ 242.86 s. Dual check
// (maximise s = 1/T with y_j ≥ R_j·s): u_A = 1/1700, u_B = 3/1700, V100 price
// 3/1700, time prices 1/1700 and 3/1700; their sum 7/1700 = s. That is the
// vertex solution. The central one (the default) is an interior point of the
// allocations that finish both jobs by Gavel's bisection value of T, which
// lies within 5% above T*: every share positive, y_A ≥ 800/T and
// y_B ≥ 300/T.
func TestMakespan(t *testing.T) {
	s := snap(t, 0, nil, oneV100OneK80, job(1, 0, "fast", 1, 800), job(2, 0, "mid", 1, 300))
	for _, agg := range []bool{true, false} {
		p := build(t, "gavel-makespan", map[string]any{"aggregate": agg, "solution": "vertex"})
		a := allocate(t, p, s)
		if !near(p.Objective(), 1700.0/7, tol) {
			t.Errorf("T = %.9g s, want 1700/7", p.Objective())
		}
		wantShares(t, a, map[models.JobID]map[string]float64{
			1: {"V100": 13.0 / 17, "K80": 4.0 / 17},
			2: {"V100": 4.0 / 17, "K80": 13.0 / 17},
		}, 1e-7)
	}
	p := build(t, "gavel-makespan", nil)
	a := allocate(t, p, s)
	if !near(p.Objective(), 1700.0/7, tol) {
		t.Errorf("central: T = %.9g s, want 1700/7", p.Objective())
	}
	tb := gavel.GavelBisection(1700.0 / 7)
	if tb < 1700.0/7 || tb > 1.05*1700.0/7 {
		t.Fatalf("bisection value %v outside [T*, 1.05·T*]", tb)
	}
	yA := 4*a.Fractions[1]["V100"] + a.Fractions[1]["K80"]
	yB := 2*a.Fractions[2]["V100"] + a.Fractions[2]["K80"]
	if yA < 800/tb*(1-1e-7) || yB < 300/tb*(1-1e-7) {
		t.Errorf("central: throughputs %v and %v, want at least %v and %v", yA, yB, 800/tb, 300/tb)
	}
	for id, fr := range a.Fractions {
		for _, g := range []string{"V100", "K80"} {
			if !(fr[g] > 1e-6) {
				t.Errorf("central: job %d has share %v on %s, want an interior point", id, fr[g], g)
			}
		}
	}
}

// Gavel's bisection by hand, for T* = 2·10^6 s: no midpoint of
// [100, 10^6] is feasible, so it moves to [10^6, 10^7]: 5.5e6, 3.25e6 and
// 2.125e6 are feasible (upper end), 1.5625e6, 1.84375e6 and 1.984375e6 are
// not (lower end), 2.0546875e6 is feasible; now 1.05·1.984375e6 =
// 2.0836e6 ≥ 2.0546875e6 and it stops there. Below 100 s every midpoint is
// feasible and it stops within 5% of 100 s. In general the value lies in
// [T*, 1.05·T*], except just below a power of ten 10^k: when the bracket
// of the decade below closes short of T* (lo < T* ≤ 10^k ≤ 1.05·lo), the
// next decade stops within 5% above 10^k, so below 1.05²·T*.
func TestGavelBisection(t *testing.T) {
	if got := gavel.GavelBisection(2e6); got != 2.0546875e6 {
		t.Errorf("T* = 2e6: %v, want 2.0546875e6", got)
	}
	if got := gavel.GavelBisection(10); got < 100 || got > 105 {
		t.Errorf("T* = 10: %v, want within 5%% of 100", got)
	}
	if got := gavel.GavelBisection(9.75e8); got <= 1e9 || got > 1.05e9 {
		t.Errorf("T* = 9.75e8: %v, want just above 1e9", got)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		best := 100 * math.Pow(10, 8*r.Float64())
		bound := 1.05 * best
		if k := math.Pow(10, math.Ceil(math.Log10(best))); k < 1.05*best {
			bound = 1.05 * k
		}
		if got := gavel.GavelBisection(best); got < best || got > bound {
			t.Fatalf("T* = %v: %v outside [T*, %v]", best, got, bound)
		}
	}
}

// Remaining steps, not total steps, count: A has done 500 of its 800
// (R_A = 300), B 300 left. A now needs y_A ≥ 300/T: on the full face
// 300/(1 + 3a) = 300/(2 − a) → a = 1/4, T = 300/(7/4) = 1200/7.
func TestMakespanRemaining(t *testing.T) {
	s := snap(t, 0, nil, oneV100OneK80, done(job(1, 0, "fast", 1, 800), 500), job(2, 0, "mid", 1, 300))
	p := build(t, "gavel-makespan", nil)
	allocate(t, p, s)
	if !near(p.Objective(), 1200.0/7, tol) {
		t.Errorf("T = %.9g s, want 1200/7", p.Objective())
	}
}

// Raw steps per second, as Gavel's code counts them. 1 V100 + 1 K80, A
// fast (4, 1), B mid (2, 1): the V100 to A (4 > 2) and the K80 to B:
// 4 + 1 = 5 steps/s; sharing the V100 half and half gives 2 + 1 + ½ + ½ = 4.
// On one V100 alone, A gets everything (4 > 2) and B starves.
func TestMaxThroughput(t *testing.T) {
	p := build(t, "gavel-max-throughput", nil)
	a := allocate(t, p, snap(t, 0, nil, oneV100OneK80, job(1, 0, "fast", 1, 100), job(2, 0, "mid", 1, 100)))
	if !near(p.Objective(), 5, tol) {
		t.Errorf("Σ throughput = %v, want 5", p.Objective())
	}
	wantShares(t, a, map[models.JobID]map[string]float64{1: {"V100": 1}, 2: {"K80": 1}}, 1e-7)

	a = allocate(t, p, snap(t, 0, nil, []models.Server{{Type: "V100", GPUs: 1}}, job(1, 0, "fast", 1, 100), job(2, 0, "mid", 1, 100)))
	if !near(p.Objective(), 4, tol) {
		t.Errorf("one V100: Σ throughput = %v, want 4", p.Objective())
	}
	wantShares(t, a, map[models.JobID]map[string]float64{1: {"V100": 1}}, 1e-7)
}
