package gavel_test

import (
	"testing"

	"fairbench/models"
)

// 1 V100 + 1 K80; A fast (4, 1) with 800 steps, B mid (2, 1) with 300.
// Both must run all the time and share the V100: with a = A's V100 share,
// A has k = 1 − a of the K80 and B the rest of each, so
// y_A = 4a + (1 − a) = 1 + 3a and y_B = 2(1 − a) + a = 2 − a. The makespan
// is smallest where both finish together: 800/(1 + 3a) = 300/(2 − a)
// → 1300 = 1700·a, a = 13/17, T = 800·17/56 = 1700/7 ≈ 242.86 s. Dual check
// (maximise s = 1/T with y_j ≥ R_j·s): u_A = 1/1700, u_B = 3/1700, V100 price
// 3/1700, time prices 1/1700 and 3/1700; their sum 7/1700 = s.
func TestMakespan(t *testing.T) {
	s := snap(t, 0, nil, oneV100OneK80, job(1, 0, "fast", 1, 800), job(2, 0, "mid", 1, 300))
	for _, agg := range []bool{true, false} {
		p := build(t, "gavel-makespan", map[string]any{"aggregate": agg})
		a := allocate(t, p, s)
		if !near(p.Objective(), 1700.0/7, tol) {
			t.Errorf("T = %.9g s, want 1700/7", p.Objective())
		}
		wantShares(t, a, map[models.JobID]map[string]float64{
			1: {"V100": 13.0 / 17, "K80": 4.0 / 17},
			2: {"V100": 4.0 / 17, "K80": 13.0 / 17},
		}, 1e-7)
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
	wantShares(t, a, map[models.JobID]map[string]float64{1: {"V100": 1}, 2: {"K80": 1}}, 1e-9)

	a = allocate(t, p, snap(t, 0, nil, []models.Server{{Type: "V100", GPUs: 1}}, job(1, 0, "fast", 1, 100), job(2, 0, "mid", 1, 100)))
	if !near(p.Objective(), 4, tol) {
		t.Errorf("one V100: Σ throughput = %v, want 4", p.Objective())
	}
	wantShares(t, a, map[models.JobID]map[string]float64{1: {"V100": 1}}, 1e-9)
}
