package isolated_test

import (
	"testing"

	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/internal/policytest"
	"fairbench/solvers/isolated"
)

// Users A and B, weight 1 each, on 2 V100 (one server): each owns 1 GPU.
// Unit jobs at 1 step/s, no restore cost.
//
//	A: J1 100 steps and J2 100 steps, both at 0.   B: J3 50 steps at 0.
//
//	t=0    A's slice: J1 x = 1, J2 nothing left. B's: J3 x = 1. J1 and J3 run.
//	t=50   J3 ends (JCT 50). B has no job: its GPU stays idle, A may not
//	       use it (not work-conserving).
//	t=100  J1 ends (JCT 100); A's slice is free: J2 x = 1, runs to 200
//	       (JCT 200).
//
// A work-conserving policy would start J2 at 50 (JCT 150).
func TestSimNotWorkConserving(t *testing.T) {
	p, err := isolated.New(solvers.Config{})
	if err != nil {
		t.Fatal(err)
	}
	users := []models.User{{Name: "A", Weight: 1}, {Name: "B", Weight: 1}}
	got, r := policytest.Simulate(t, p, []models.Server{{Type: "V100", GPUs: 2}}, users,
		policytest.Owner(policytest.Job(1, 0, "unit", 1, 100), "A").Job, policytest.Owner(policytest.Job(2, 0, "unit", 1, 100), "A").Job,
		policytest.Owner(policytest.Job(3, 0, "unit", 1, 50), "B").Job)
	policytest.WantJCT(t, got, map[models.JobID]float64{1: 100, 2: 200, 3: 50})
	if r.Summary.Preemptions != 0 {
		t.Errorf("%d preemptions, want 0", r.Summary.Preemptions)
	}
}
