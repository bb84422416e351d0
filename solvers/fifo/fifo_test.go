package fifo_test

import (
	"reflect"
	"slices"
	"testing"

	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/fifo"
	"fairbench/solvers/internal/policytest"
)

func newFIFO(t *testing.T, opts map[string]any) solvers.Policy {
	t.Helper()
	p, err := fifo.New(solvers.Config{Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestAllocate(t *testing.T) {
	oneServer := []models.Server{{Type: "V100", GPUs: 4}}
	hetero := []models.Server{{Type: "V100", GPUs: 4}, {Type: "K80", GPUs: 4}}
	tests := []struct {
		name     string
		servers  []models.Server
		jobs     []models.JobState
		strict   []string // backfill: false
		backfill []string // backfill: true
	}{
		{
			// Job 1 holds 2 of 4 GPUs; job 2 needs 4 and blocks job 3 (1 GPU)
			// unless backfilling lets job 3 into the 2 free GPUs.
			name:    "head-of-line blocking",
			servers: oneServer,
			jobs: []models.JobState{
				policytest.Running(policytest.Job(1, 0, "resnet", 2, 1e6), "V100", 0, 10, 30),
				policytest.Job(2, 10, "resnet", 4, 100),
				policytest.Job(3, 20, "resnet", 1, 100),
			},
			strict:   []string{"1/V100"},
			backfill: []string{"1/V100", "3/V100"},
		},
		{
			// Arrival order, not job size: job 2 (gang 1) waits behind job 1 only
			// if job 1 fits; here both fit: 3 + 1 = 4.
			name:     "arrival order",
			servers:  oneServer,
			jobs:     []models.JobState{policytest.Job(1, 0, "resnet", 3, 1e6), policytest.Job(2, 5, "resnet", 1, 10)},
			strict:   []string{"1/V100", "2/V100"},
			backfill: []string{"1/V100", "2/V100"},
		},
		{
			// resnet is 3× faster on V100: job 1 takes all 4 V100, job 2 the 4
			// K80, job 3 finds no room.
			name:     "fastest type with room",
			servers:  hetero,
			jobs:     []models.JobState{policytest.Job(1, 0, "resnet", 4, 10), policytest.Job(2, 1, "resnet", 4, 10), policytest.Job(3, 2, "resnet", 2, 10)},
			strict:   []string{"1/V100", "2/K80"},
			backfill: []string{"1/V100", "2/K80"},
		},
		{
			// Non-preemptive: job 1 keeps running on K80 although the faster
			// V100 are free and job 2, which arrived later, takes them.
			name:    "running job stays on its type",
			servers: hetero,
			jobs: []models.JobState{
				policytest.Running(policytest.Job(1, 0, "resnet", 2, 1e6), "K80", 0, 100, 100),
				policytest.Job(2, 50, "resnet", 4, 10),
			},
			strict:   []string{"1/K80", "2/V100"},
			backfill: []string{"1/K80", "2/V100"},
		},
		{
			// A later job never preempts: job 1 (running, 4 GPUs) keeps all of
			// them while job 2 waits.
			name:    "no preemption",
			servers: oneServer,
			jobs: []models.JobState{
				policytest.Running(policytest.Job(1, 0, "resnet", 4, 1e6), "V100", 0, 100, 300),
				policytest.Job(2, 50, "resnet", 1, 10),
			},
			strict:   []string{"1/V100"},
			backfill: []string{"1/V100"},
		},
	}
	for _, tc := range tests {
		for _, bf := range []bool{false, true} {
			s := policytest.Snap(t, policytest.Sec(100), nil, tc.servers, tc.jobs...)
			a, err := newFIFO(t, map[string]any{"backfill": bf}).Allocate(s)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.strict
			if bf {
				want = tc.backfill
			}
			if got := policytest.IDs(a); !reflect.DeepEqual(got, want) {
				t.Errorf("%s (backfill %v): run %v, want %v", tc.name, bf, got, want)
			}
			if err := models.Feasible(s, a); err != nil {
				t.Errorf("%s (backfill %v): %v", tc.name, bf, err)
			}
		}
	}
}

func TestOptions(t *testing.T) {
	if _, err := fifo.New(solvers.Config{Options: map[string]any{"backfil": true}}); err == nil {
		t.Error("a misspelt option was accepted")
	}
	if _, err := fifo.New(solvers.Config{Options: map[string]any{"backfill": "yes please"}}); err == nil {
		t.Error("a non-boolean backfill was accepted")
	}
	p := newFIFO(t, nil)
	if p.Name() != fifo.Name {
		t.Errorf("Name = %q", p.Name())
	}
	if got := solvers.TriggersOf(p); got != models.AtArrival|models.AtCompletion {
		t.Errorf("Triggers = %v", got)
	}
}

func TestDeterministic(t *testing.T) {
	jobs := []models.JobState{
		policytest.Running(policytest.Job(1, 0, "resnet", 2, 1e6), "K80", 0, 10, 10),
		policytest.Job(2, 1, "unit", 2, 10), policytest.Job(3, 1, "unit", 2, 10), policytest.Job(4, 2, "recsys", 1, 10), policytest.Job(5, 3, "resnet", 4, 10),
	}
	servers := []models.Server{{Type: "V100", GPUs: 2}, {Type: "P100", GPUs: 2}, {Type: "K80", GPUs: 4}}
	p := newFIFO(t, map[string]any{"backfill": true})
	first, _ := p.Allocate(policytest.Snap(t, policytest.Sec(50), nil, servers, jobs...))
	first.Run = slices.Clone(first.Run) // p may reuse it (solvers.Policy)
	for i := 0; i < 20; i++ {
		a, _ := p.Allocate(policytest.Snap(t, policytest.Sec(50), nil, servers, jobs...))
		if !reflect.DeepEqual(a, first) {
			t.Fatalf("decision %d differs: %v vs %v", i, policytest.IDs(a), policytest.IDs(first))
		}
	}
}
