package fft

import (
	"math"
	"testing"
	"time"

	"fairbench/models"
	"fairbench/solvers"
)

// Eq. 5 on a hand-computed sequence: W = 10, a = 0, τ = 15 (pace
// W/(τ − a) = 2/3 per round), μ(t) = t/15, one round between decisions.
//
//	t  ran   ρ(t+1)
//	0  1     max(0, 0 + 0·(2/3 − 1))            = 0
//	1  1/3   0 + (1/15)(2/3 − 1/3)              = 1/45
//	2  0     1/45 + (2/15)(2/3)                 = 5/45 = 1/9
//	3  1     1/9 + (3/15)(2/3 − 1) = 5/45 − 3/45 = 2/45
//	4  1     max(0, 2/45 + (4/15)(−1/3))        = max(0, −2/45) = 0
//	5  0     0 + (5/15)(2/3)                    = 2/9
func TestRhoSequence(t *testing.T) {
	t.Parallel()
	ran := []float64{1, 1.0 / 3, 0, 1, 1, 0}
	want := []float64{0, 1.0 / 45, 1.0 / 9, 2.0 / 45, 0, 2.0 / 9}
	rho := 0.0
	for k, r := range ran {
		rho = nextRho(rho, float64(k), 0, 15, 10, r, 1, 1)
		if math.Abs(rho-want[k]) > 1e-15 {
			t.Fatalf("after t=%d: ρ = %v, want %v", k, rho, want[k])
		}
	}
	// μ scales with mu_scale; a job before its arrival gets μ = 0.
	if got := nextRho(0, 5, 0, 15, 10, 0, 1, 2); math.Abs(got-4.0/9) > 1e-15 {
		t.Errorf("scale 2: %v, want 4/9", got)
	}
	if got := nextRho(0.5, 1, 3, 15, 10, 0, 1, 1); got != 0.5 {
		t.Errorf("t < a: %v, want 0.5 unchanged", got)
	}
}

// τ_j = a_j + W_j / equal-share rate.
func TestFairFinish(t *testing.T) {
	t.Parallel()
	if got := fairFinish(2, 10, 2.0/3); math.Abs(got-17) > 1e-12 {
		t.Errorf("fairFinish = %v, want 17", got)
	}
	if !math.IsInf(fairFinish(0, 1, 0), 1) {
		t.Error("a job that runs nowhere has a finite fair finish")
	}
}

// TestRestoreFromSimulator: the switching penalty uses the simulator's
// restore cost when the run passes it in (Config.Restore), and an option's
// per-type override still wins. A 2 GB state at the default 1.25 GB/s would
// be 1.6 s; the simulator says 42 s; the override says 7 s.
func TestRestoreFromSimulator(t *testing.T) {
	t.Parallel()
	s := &models.Snapshot{JobTypes: map[string]models.JobType{"m": {Name: "m", StateGB: 2}}}
	j := &models.Job{Type: "m"}
	p, err := New(solvers.Config{Restore: func(models.JobType) time.Duration { return 42 * time.Second }})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.(*FFT).restoreSeconds(s, j); got != 42 {
		t.Errorf("with the simulator's cost: %v s, want 42", got)
	}
	q, _ := New(solvers.Config{})
	if got := q.(*FFT).restoreSeconds(s, j); got != 1.6 {
		t.Errorf("without it: %v s, want 2/1.25 = 1.6", got)
	}
	r, _ := New(solvers.Config{Restore: func(models.JobType) time.Duration { return 42 * time.Second },
		Options: map[string]any{"restore_seconds": map[string]any{"m": 7}}})
	if got := r.(*FFT).restoreSeconds(s, j); got != 7 {
		t.Errorf("with an override: %v s, want 7", got)
	}
}
