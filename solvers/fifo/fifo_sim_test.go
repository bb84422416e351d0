package fifo_test

import (
	"testing"

	"fairbench/models"
	"fairbench/solvers/internal/policytest"
)

// End to end through the simulator: 2 V100 on one server, unit jobs at
// 1 step/s, no restore cost.
//
//	J1 gang 1, 100 steps, arrives 0    J2 gang 2, 50 steps, arrives 10
//	J3 gang 1, 30 steps, arrives 20
//
// Strict FIFO:
//
//	t=0    J1 starts.
//	t=10   J2 needs 2 GPUs, 1 free: waits.
//	t=20   J3 would fit but waits behind J2.
//	t=100  J1 ends; J2 starts (100 + 50 = 150); J3 still blocked.
//	t=150  J2 ends; J3 starts, ends at 180.
//	JCTs: J1 100, J2 150 − 10 = 140, J3 180 − 20 = 160; mean 400/3.
//
// Backfill:
//
//	t=20   J3 takes the free GPU, ends at 50 (JCT 30).
//	t=100  J1 ends; J2 starts, ends at 150 (JCT 140).
//	JCTs: 100, 140, 30; mean 90.
func TestSimBlockingAndBackfill(t *testing.T) {
	servers := []models.Server{{Type: "V100", GPUs: 2}}
	jobs := []models.Job{policytest.Job(1, 0, "unit", 1, 100).Job, policytest.Job(2, 10, "unit", 2, 50).Job, policytest.Job(3, 20, "unit", 1, 30).Job}
	tests := []struct {
		backfill bool
		want     map[models.JobID]float64
		mean     float64
	}{
		{false, map[models.JobID]float64{1: 100, 2: 140, 3: 160}, 400.0 / 3},
		{true, map[models.JobID]float64{1: 100, 2: 140, 3: 30}, 90},
	}
	for _, tc := range tests {
		got, r := policytest.Simulate(t, newFIFO(t, map[string]any{"backfill": tc.backfill}), servers, nil, jobs...)
		policytest.WantJCT(t, got, tc.want)
		if d := r.Summary.MeanJCT - tc.mean; d > 1e-6 || d < -1e-6 {
			t.Errorf("backfill %v: mean JCT %v, want %v", tc.backfill, r.Summary.MeanJCT, tc.mean)
		}
		if r.Summary.Preemptions != 0 {
			t.Errorf("backfill %v: %d preemptions, want 0", tc.backfill, r.Summary.Preemptions)
		}
	}
}

// Heterogeneous: 1 V100 + 1 K80, resnet at 3 steps/s on V100 and 1 on K80.
//
//	J1 300 steps, arrives 0: V100, ends at 100.
//	J2 300 steps, arrives 0: the V100 is taken, so K80, ends at 300
//	   (non-preemptive: it stays there when the V100 frees at 100).
//	J3 150 steps, arrives 50: waits (both taken); V100 at 100, ends at 150.
//	JCTs: J1 100, J2 300, J3 100.
func TestSimHeterogeneous(t *testing.T) {
	servers := []models.Server{{Type: "V100", GPUs: 1}, {Type: "K80", GPUs: 1}}
	got, r := policytest.Simulate(t, newFIFO(t, nil), servers, nil,
		policytest.Job(1, 0, "resnet", 1, 300).Job, policytest.Job(2, 0, "resnet", 1, 300).Job, policytest.Job(3, 50, "resnet", 1, 150).Job)
	policytest.WantJCT(t, got, map[models.JobID]float64{1: 100, 2: 300, 3: 100})
	if r.Summary.Migrations != 0 || r.Summary.Preemptions != 0 {
		t.Errorf("%d migrations, %d preemptions; want none", r.Summary.Migrations, r.Summary.Preemptions)
	}
}
