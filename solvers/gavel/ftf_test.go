package gavel_test

import (
	"math"
	"testing"

	"fairbench/models"
)

// ftfTol is how close gavel-ftf's max ρ comes to the optimum: its
// default tolerance 1e-3 (relative to the upper bound), plus LP noise.
const ftfTol = 1.1e-3

// At time 0 with no history, t_j = τ_j = 0 and ρ_j = e_j / y_j: minimising
// the largest ρ is maximising the least y_j / e_j, gavel-las with the
// equal-share normaliser. On the comparative-advantage instance of TestLAS
// (e_A = 5/3, e_B = e_C = 2/3, the same c) the least y/e is 8/7, so the
// least max ρ is 7/8, with the same allocation.
func TestFTFAtStart(t *testing.T) {
	s := snap(t, 0, nil, oneV100OneK80, job(1, 0, "fast", 1, 100), job(2, 0, "flat", 1, 100), job(3, 0, "flat", 1, 100))
	p := build(t, "gavel-ftf", nil)
	a := allocate(t, p, s)
	if got := p.Objective(); got < 7.0/8-1e-9 || !near(got, 7.0/8, ftfTol) {
		t.Errorf("max ρ = %.9g, want 7/8 within %v", got, ftfTol)
	}
	wantShares(t, a, map[models.JobID]map[string]float64{
		1: {"V100": 20.0 / 42},
		2: {"V100": 11.0 / 42, "K80": 0.5},
		3: {"V100": 11.0 / 42, "K80": 0.5},
	}, 0.01)
}

// A job that has waited is served first. At t = 1000 s on 1 V100 + 1 K80:
// A (fast: 4, 1) arrived at 0 with 4000 steps, B (flat: 1, 1) arrives now
// with 1000. n = 2: e_A = 4/2 + 1/2 = 2.5, e_B = 1; no history, so
// D_A = 4000/2.5 = 1600 and D_B = 1000:
//
//	ρ_A = (1000 + 4000/y_A) / 1600,   ρ_B = (0 + 1000/y_B) / 1000 = 1/y_B.
//
// y_A ≤ 4 (all of the V100), so ρ_A ≥ (1000 + 1000)/1600 = 1.25, and A on
// the V100 with B on the K80 (y_B = 1, ρ_B = 1) reaches it: max ρ = 1.25,
// with A's V100 share ≥ 4000 / (1.25·(1 + tol)·1600 − 1000) / 4 ≈ 0.997.
func TestFTFWaitingJobFirst(t *testing.T) {
	s := snap(t, 1000, nil, oneV100OneK80, job(1, 0, "fast", 1, 4000), job(2, 1000, "flat", 1, 1000))
	p := build(t, "gavel-ftf", nil)
	a := allocate(t, p, s)
	if got := p.Objective(); got < 1.25-1e-9 || !near(got, 1.25, ftfTol) {
		t.Errorf("max ρ = %.9g, want 1.25", got)
	}
	if got := a.Fractions[1]["V100"]; got < 0.997 {
		t.Errorf("A's V100 share = %v, want ≥ 0.997", got)
	}
	if got := a.Fractions[2]["K80"]; got < 0.8-1e-6 {
		t.Errorf("B's K80 share = %v, want ≥ 0.8 (1/y_B ≤ 1.25)", got)
	}
}

// The cumulative isolated time τ. One V100, flat jobs (1 step/s).
// Decision 1 at t = 0: A alone (n = 1), e_A = 1. Decision 2 at t = 100: A
// has done 100 of its 200 steps, B (100 steps) arrives. Then n = 2,
// e = 1/2 each, and τ_A = 100 steps / e_A(then) = 100 s, so
// D_A = 100 + 100/0.5 = 300, D_B = 100/0.5 = 200, and with y_A + y_B ≤ 1:
//
//	ρ_A = (100 + 100/y_A)/300 = ρ_B = (100/y_B)/200
//	→ (100·y + 100)(1 − y) = 150·y → 2y² + 3y − 2 = 0 → y_A = 1/2, max ρ = 1.
//
// A policy that did not see decision 1 has τ_A = 0, D_A = 200:
// (100·y + 100)(1 − y) = 100·y → y² + y − 1 = 0 → y_A = (√5 − 1)/2 and
// max ρ = 0.5 / (1 − y_A) = (3 + √5)/4 ≈ 1.309.
func TestFTFIsolatedTime(t *testing.T) {
	v100 := []models.Server{{Type: "V100", GPUs: 1}}
	p := build(t, "gavel-ftf", nil)
	allocate(t, p, snap(t, 0, nil, v100, job(1, 0, "flat", 1, 200)))
	second := snap(t, 100, nil, v100, done(job(1, 0, "flat", 1, 200), 100), job(2, 100, "flat", 1, 100))
	a := allocate(t, p, second)
	if got := p.Objective(); !near(got, 1, ftfTol) {
		t.Errorf("with history: max ρ = %.9g, want 1", got)
	}
	if got := a.Fractions[1]["V100"]; !near(got, 0.5, 0.01) {
		t.Errorf("with history: y_A = %v, want 1/2", got)
	}

	fresh := build(t, "gavel-ftf", nil)
	a = allocate(t, fresh, second)
	if got, want := fresh.Objective(), (3+math.Sqrt(5))/4; !near(got, want, ftfTol) {
		t.Errorf("without history: max ρ = %.9g, want %.9g", got, want)
	}
	if got, want := a.Fractions[1]["V100"], (math.Sqrt(5)-1)/2; !near(got, want, 0.01) {
		t.Errorf("without history: y_A = %v, want %v", got, want)
	}
}

// A tighter tolerance gets closer; max_bisections bounds the work.
func TestFTFTolerance(t *testing.T) {
	s := snap(t, 1000, nil, oneV100OneK80, job(1, 0, "fast", 1, 4000), job(2, 1000, "flat", 1, 1000))
	p := build(t, "gavel-ftf", map[string]any{"tolerance": 1e-8})
	allocate(t, p, s)
	if got := p.Objective(); !near(got, 1.25, 2e-8) {
		t.Errorf("tolerance 1e-8: max ρ = %.12g, want 1.25", got)
	}
	p = build(t, "gavel-ftf", map[string]any{"max_bisections": 1})
	allocate(t, p, s)
	if got := p.Objective(); got < 1.25 || got > 1.625 {
		t.Errorf("one bisection: max ρ = %v, want within [1.25, 1.625] (the equal split's)", got)
	}
}
