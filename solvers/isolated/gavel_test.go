package isolated_test

import (
	"math"
	"testing"

	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/internal/policytest"
	"fairbench/solvers/isolated"
)

// Gavel's isolated on 2 V100 + 4 K80 with m = 3 jobs: x = (N_g/3)/d, then
// each job's shares divided by max(1, their sum).
//
//	job 1, gang 1: (2/3, 4/3), sum 2 → (1/3, 2/3)
//	job 2, gang 2: (1/3, 2/3), sum 1 → (1/3, 2/3)
//	job 3, gang 4: (1/6, 1/3), sum 1/2 → kept; but 4 > 2 V100s, so it
//	               cannot run there and its V100 share is left out: K80 1/3
//
// Capacity: V100 1/3 + 2·1/3 = 1 ≤ 2; K80 2/3 + 2·2/3 + 4·1/3 = 10/3 ≤ 4.
func TestGavelIsolated(t *testing.T) {
	s := policytest.Snap(t, 0, nil, []models.Server{{Type: "V100", GPUs: 2}, {Type: "K80", GPUs: 4}},
		policytest.Job(1, 0, "resnet", 1, 100), policytest.Job(2, 1, "resnet", 2, 100), policytest.Job(3, 2, "resnet", 4, 100))
	p, err := isolated.NewGavel(solvers.Config{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := p.Allocate(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := models.Feasible(s, a); err != nil {
		t.Fatal(err)
	}
	want := map[models.JobID]map[string]float64{
		1: {"V100": 1.0 / 3, "K80": 2.0 / 3},
		2: {"V100": 1.0 / 3, "K80": 2.0 / 3},
		3: {"K80": 1.0 / 3},
	}
	for id, w := range want {
		for g, x := range w {
			if math.Abs(a.Fractions[id][g]-x) > eps {
				t.Errorf("job %d on %s: %v, want %v", id, g, a.Fractions[id][g], x)
			}
		}
		if len(a.Fractions[id]) != len(w) {
			t.Errorf("job %d: %v, want %v", id, a.Fractions[id], w)
		}
	}
	r := solvers.RoundsOf(p)
	if r.Resolve != solvers.GavelResolve || r.Order == nil {
		t.Errorf("round rules %+v: want Gavel's cadence and a shuffled order", r)
	}
}
