package fifo_test

import (
	"slices"
	"testing"

	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/fifo"
	"fairbench/solvers/internal/policytest"
)

func gavelAssignments(t *testing.T, s *models.Snapshot) []string {
	t.Helper()
	p, err := fifo.NewGavel(solvers.Config{})
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
	var out []string
	for _, as := range a.Run {
		out = append(out, string(rune('0'+as.Job))+"/"+as.Type)
	}
	return out
}

// Gavel's fifo_perf (the fixture's resnet runs 3, 2, 1 steps/s on V100,
// P100, K80; recsys 1, 2, 1; k80 only on K80).
func TestGavelFIFO(t *testing.T) {
	for _, tc := range []struct {
		name    string
		servers []models.Server
		jobs    []models.JobState
		want    []string
	}{{
		// Arrival order, fastest type with room: job 1 (gang 2) takes both
		// V100s, job 2 the P100, job 3 (gang 2) finds no type with 2 free
		// GPUs (1 K80) and blocks job 4, which would fit the K80.
		name:    "fastest with room, head-of-line blocking",
		servers: []models.Server{{Type: "V100", GPUs: 2}, {Type: "P100", GPUs: 1}, {Type: "K80", GPUs: 1}},
		jobs: []models.JobState{policytest.Job(1, 0, "resnet", 2, 100), policytest.Job(2, 1, "resnet", 1, 100),
			policytest.Job(3, 2, "resnet", 2, 100), policytest.Job(4, 3, "resnet", 1, 100)},
		want: []string{"1/V100", "2/P100"},
	}, {
		// Every allocation starts afresh: job 1 ran on the K80, the V100 is
		// free now, so it moves there.
		name:    "moves to faster GPUs",
		servers: []models.Server{{Type: "V100", GPUs: 1}, {Type: "K80", GPUs: 1}},
		jobs:    []models.JobState{policytest.Running(policytest.Job(1, 0, "resnet", 1, 1e6), "K80", 0, 10, 30)},
		want:    []string{"1/V100"},
	}, {
		// Equal throughputs (unit: 1 everywhere): the type whose name sorts
		// first, K80 before P100 and V100, as in Gavel's code.
		name:    "ties by name",
		servers: []models.Server{{Type: "V100", GPUs: 1}, {Type: "P100", GPUs: 1}, {Type: "K80", GPUs: 1}},
		jobs:    []models.JobState{policytest.Job(1, 0, "unit", 1, 100), policytest.Job(2, 1, "unit", 1, 100)},
		want:    []string{"1/K80", "2/P100"},
	}, {
		// A job that cannot run on the best type with room (the k80 job,
		// with only the V100 free) is passed over without blocking.
		name:    "cannot run: passed over",
		servers: []models.Server{{Type: "V100", GPUs: 2}, {Type: "K80", GPUs: 1}},
		jobs: []models.JobState{policytest.Job(1, 0, "resnet", 1, 100), policytest.Job(2, 1, "resnet", 1, 100),
			policytest.Job(3, 2, "resnet", 1, 100), policytest.Job(4, 3, "k80", 1, 100), policytest.Job(5, 4, "resnet", 1, 100)},
		want: []string{"1/V100", "2/V100", "3/K80"},
	}} {
		s := policytest.Snap(t, 0, nil, tc.servers, tc.jobs...)
		if got := gavelAssignments(t, s); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// gavel-fifo takes Gavel's cadence and refuses unknown options.
func TestGavelFIFOOptions(t *testing.T) {
	p, err := fifo.NewGavel(solvers.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if r := solvers.RoundsOf(p); r.Resolve != solvers.GavelResolve || solvers.TriggersOf(p) != models.AtRound {
		t.Errorf("rules %+v, triggers %v: want Gavel's 1920 s cadence at round starts", r, solvers.TriggersOf(p))
	}
	p, err = fifo.NewGavel(solvers.Config{Options: map[string]any{"resolve_seconds": 0}})
	if err != nil || solvers.RoundsOf(p).Resolve != 0 {
		t.Errorf("resolve_seconds 0: %v %v", err, p)
	}
	for _, bad := range []map[string]any{{"resolve_seconds": -1}, {"arrivals": "later"}, {"backfill": true}} {
		if _, err := fifo.NewGavel(solvers.Config{Options: bad}); err == nil {
			t.Errorf("options %v accepted", bad)
		}
	}
}
