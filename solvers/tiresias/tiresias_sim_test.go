package tiresias_test

import (
	"errors"
	"testing"
	"time"

	"fairbench/models"
	"fairbench/sim"
	"fairbench/solvers"
	"fairbench/solvers/internal/policytest"
)

// One V100, unit jobs at 1 step/s, thresholds [100] GPU-s, 360 s rounds,
// default promote knob (8). Tiresias decides at rounds, arrivals and
// completions, so a job crossing a threshold between them is demoted at the
// next decision.
//
//	J1 300 steps, arrives 0    J2 100 steps, arrives 50    J3 50 steps, arrives 150
//
//	t=0    Q0 [J1] → J1 runs.
//	t=50   J1 has 50 GPU-s (< 100): Q0 [J1 (running), J2] → J1 keeps running
//	       (jobs of one queue do not preempt each other).
//	t=150  J1 has 150 GPU-s: demoted, Q1 [J1]; Q0 [J2, J3] → J2 runs, J1
//	       preempted with 150 steps left.
//	t=250  J2 ends (100 steps; JCT 200). J2 had exactly 100 GPU-s but is gone.
//	       Q0 [J3] → J3 runs. J1 has waited 100 s against 8 · 150: no promotion.
//	t=300  J3 ends (JCT 150). J1 resumes.
//	t=360  Round: J1 alone, keeps running.
//	t=450  J1 ends (300 + 150; JCT 450).
//
// Mean JCT (450 + 200 + 150) / 3 = 800/3; one preemption.
func TestSimDemotion(t *testing.T) {
	t.Parallel()
	got, r := policytest.Simulate(t, newTiresias(t, map[string]any{"thresholds": []any{100}}), []models.Server{{Type: "V100", GPUs: 1}}, nil,
		policytest.Job(1, 0, "unit", 1, 300).Job, policytest.Job(2, 50, "unit", 1, 100).Job, policytest.Job(3, 150, "unit", 1, 50).Job)
	policytest.WantJCT(t, got, map[models.JobID]float64{1: 450, 2: 200, 3: 150})
	if r.Summary.Preemptions != 1 {
		t.Errorf("%d preemptions, want 1", r.Summary.Preemptions)
	}
}

// Attained service is GPU time, not wall time. 2 V100 on one server,
// thresholds [100] GPU-s.
//
//	J1 gang 2, 200 steps, arrives 0    J2 gang 1, 100 steps, arrives 60
//
//	t=0    J1 takes both GPUs.
//	t=60   J1 has 2 · 60 = 120 GPU-s ≥ 100 (only 60 s of wall time): demoted
//	       to Q1. J2 in Q0 takes one GPU; J1 needs two and is preempted with
//	       140 steps left.
//	t=160  J2 ends (JCT 100); J1 resumes, ends at 160 + 140 = 300 (JCT 300).
//
// By wall time J1 (60 s < 100) would have stayed ahead and J2 would end at 300
// (JCT 240).
func TestSimGPUTime(t *testing.T) {
	t.Parallel()
	got, _ := policytest.Simulate(t, newTiresias(t, map[string]any{"thresholds": []any{100}}), []models.Server{{Type: "V100", GPUs: 2}}, nil,
		policytest.Job(1, 0, "unit", 2, 200).Job, policytest.Job(2, 60, "unit", 1, 100).Job)
	policytest.WantJCT(t, got, map[models.JobID]float64{1: 300, 2: 100})
}

// An instance serves one run (solvers.Policy): two instances give the same
// results, and a second run on the first is refused at its first decision.
func TestSimOneInstancePerRun(t *testing.T) {
	t.Parallel()
	opts := map[string]any{"thresholds": []any{100}}
	p := newTiresias(t, opts)
	servers := []models.Server{{Type: "V100", GPUs: 1}}
	jobs := []models.Job{policytest.Job(1, 0, "unit", 1, 300).Job, policytest.Job(2, 50, "unit", 1, 100).Job, policytest.Job(3, 150, "unit", 1, 50).Job}
	first, _ := policytest.Simulate(t, p, servers, nil, jobs...)
	second, _ := policytest.Simulate(t, newTiresias(t, opts), servers, nil, jobs...)
	for id, j := range first {
		if second[id].JCT != j.JCT {
			t.Errorf("job %d: JCT %v in the first run, %v in the second", id, j.JCT, second[id].JCT)
		}
	}
	_, err := sim.Run(sim.Config{Cluster: policytest.Cluster(t, servers), Users: []models.User{{Name: "u", Weight: 1}},
		Jobs: jobs, Matrix: policytest.Matrix(t), Round: 360 * time.Second}, p)
	if !errors.Is(err, solvers.ErrTimeWentBack) {
		t.Errorf("a second run on one instance: %v, want ErrTimeWentBack", err)
	}
}

// service: time counts wall time run, as SJF-BSBF's prototype runs
// Tiresias (gputime=False). The TestSimGPUTime workload: J1 (gang 2) has
// run 60 s < 100 at t=60 and stays in Q0 ahead of J2; J1 ends at 200 (JCT
// 200), J2 runs 200–300 (JCT 240).
func TestSimServiceTime(t *testing.T) {
	t.Parallel()
	got, _ := policytest.Simulate(t, newTiresias(t, map[string]any{"thresholds": []any{100}, "service": "time"}), []models.Server{{Type: "V100", GPUs: 2}}, nil,
		policytest.Job(1, 0, "unit", 2, 200).Job, policytest.Job(2, 60, "unit", 1, 100).Job)
	policytest.WantJCT(t, got, map[models.JobID]float64{1: 200, 2: 240})
}

// rounds_only: decisions at round starts (360 s) only. One V100, J1 of 100
// steps at 0, J2 of 100 steps at 10: J1 ends at 100 and the GPU idles until
// the round at 360, when J2 starts (JCT 450 − 10 = 440); with event
// decisions J2 starts at 100 (JCT 190).
func TestSimRoundsOnly(t *testing.T) {
	t.Parallel()
	jobs := []models.Job{policytest.Job(1, 0, "unit", 1, 100).Job, policytest.Job(2, 10, "unit", 1, 100).Job}
	servers := []models.Server{{Type: "V100", GPUs: 1}}
	got, _ := policytest.Simulate(t, newTiresias(t, map[string]any{"rounds_only": true}), servers, nil, jobs...)
	policytest.WantJCT(t, got, map[models.JobID]float64{1: 100, 2: 450})
	got, _ = policytest.Simulate(t, newTiresias(t, nil), servers, nil, jobs...)
	policytest.WantJCT(t, got, map[models.JobID]float64{1: 100, 2: 190})
}
