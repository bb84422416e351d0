package sjf_test

import (
	"math"
	"reflect"
	"testing"

	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/internal/policytest"
	"fairbench/solvers/sjf"
)

func allocate(t *testing.T, newPolicy solvers.Factory, s *models.Snapshot) []string {
	t.Helper()
	p, err := newPolicy(solvers.Config{})
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
	return policytest.IDs(a)
}

func TestSJF(t *testing.T) {
	t.Parallel()
	four := []models.Server{{Type: "V100", GPUs: 4}}
	hetero := []models.Server{{Type: "V100", GPUs: 1}, {Type: "K80", GPUs: 1}}
	tests := []struct {
		name    string
		servers []models.Server
		jobs    []models.JobState
		want    []string
	}{
		{
			// unit runs 1 step/s: durations 300, 100, 200 s. Order 2, 3, 1:
			// job 2 takes 2 GPUs, job 3 one, job 1 (2 GPUs) finds 1 free and is
			// skipped.
			name:    "shortest first, skip what does not fit",
			servers: four,
			jobs:    []models.JobState{policytest.Job(1, 0, "unit", 2, 300), policytest.Job(2, 1, "unit", 2, 100), policytest.Job(3, 2, "unit", 1, 200)},
			want:    []string{"2/V100", "3/V100"},
		},
		{
			// Job 1 (2 GPUs, 1e6 s left) runs and is not preempted by the
			// shorter job 2 (3 GPUs, 10 s), which does not fit beside it; job 3
			// (1 GPU, 50 s) backfills.
			name:    "non-preemptive",
			servers: four,
			jobs: []models.JobState{
				policytest.Running(policytest.Job(1, 0, "unit", 2, 1e6), "V100", 0, 10, 10),
				policytest.Job(2, 5, "unit", 3, 10), policytest.Job(3, 6, "unit", 1, 50),
			},
			want: []string{"1/V100", "3/V100"},
		},
		{
			// Duration at the best throughput: job 1 resnet 600 steps / 3 = 200 s
			// (V100), job 2 unit 150 steps / 1 = 150 s: job 2 first, on V100
			// (ties go to the newest type), then job 1 on K80.
			name:    "duration at best throughput",
			servers: hetero,
			jobs:    []models.JobState{policytest.Job(1, 0, "resnet", 1, 600), policytest.Job(2, 1, "unit", 1, 150)},
			want:    []string{"2/V100", "1/K80"},
		},
		{
			// Equal durations (100 s): arrival first, then ID.
			name:    "ties by arrival then ID",
			servers: []models.Server{{Type: "V100", GPUs: 2}},
			jobs:    []models.JobState{policytest.Job(3, 0, "unit", 1, 100), policytest.Job(1, 5, "unit", 1, 100), policytest.Job(2, 5, "unit", 1, 100)},
			want:    []string{"3/V100", "1/V100"},
		},
		{
			// SJF ranks by total work, not what is left: job 1 (400 steps, 300
			// done) waits with 100 s left but ranks by 400 s, behind job 2 (200 s).
			name:    "total duration, not remaining",
			servers: []models.Server{{Type: "V100", GPUs: 1}},
			jobs:    []models.JobState{policytest.Ran(policytest.Job(1, 0, "unit", 1, 400), 0, 300, 300), policytest.Job(2, 1, "unit", 1, 200)},
			want:    []string{"2/V100"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := allocate(t, sjf.New, policytest.Snap(t, policytest.Sec(10), nil, tc.servers, tc.jobs...))
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("run %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSRTF(t *testing.T) {
	t.Parallel()
	one := []models.Server{{Type: "V100", GPUs: 1}}
	hetero := []models.Server{{Type: "V100", GPUs: 1}, {Type: "K80", GPUs: 1}}
	tests := []struct {
		name    string
		servers []models.Server
		jobs    []models.JobState
		want    []string
	}{
		{
			// Job 1 runs with 500 − 0 = 500 s left; job 2 arrives with 100 s:
			// job 2 runs, job 1 is preempted.
			name:    "shorter arrival preempts",
			servers: one,
			jobs:    []models.JobState{policytest.Running(policytest.Job(1, 0, "unit", 1, 600), "V100", 0, 100, 100), policytest.Job(2, 100, "unit", 1, 100)},
			want:    []string{"2/V100"},
		},
		{
			// Remaining, not total: job 1 (1000 steps, 950 done) has 50 s left,
			// job 2 100 s: job 1 keeps the GPU.
			name:    "remaining time",
			servers: one,
			jobs:    []models.JobState{policytest.Running(policytest.Job(1, 0, "unit", 1, 1000), "V100", 0, 950, 950), policytest.Job(2, 950, "unit", 1, 100)},
			want:    []string{"1/V100"},
		},
		{
			// Job 1 (resnet, 300 steps left: 100 s at V100's 3 steps/s) runs on
			// K80 and ranks first; it keeps K80 since it has room there, and job
			// 2 (unit, 1000 s) gets the V100.
			name:    "running job keeps its type",
			servers: hetero,
			jobs:    []models.JobState{policytest.Running(policytest.Job(1, 0, "resnet", 1, 400), "K80", 0, 100, 100), policytest.Job(2, 1, "unit", 1, 1000)},
			want:    []string{"1/K80", "2/V100"},
		},
		{
			// 2 GPUs: job 3 (gang 2, 50 s) ranks first and takes both; jobs 1
			// (200 s) and 2 (100 s) are preempted or wait.
			name:    "gang preempts two",
			servers: []models.Server{{Type: "V100", GPUs: 2}},
			jobs: []models.JobState{
				policytest.Running(policytest.Job(1, 0, "unit", 1, 300), "V100", 0, 100, 100),
				policytest.Running(policytest.Job(2, 0, "unit", 1, 200), "V100", 0, 100, 100),
				policytest.Job(3, 100, "unit", 2, 50),
			},
			want: []string{"3/V100"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := allocate(t, sjf.NewSRTF, policytest.Snap(t, policytest.Sec(100), nil, tc.servers, tc.jobs...))
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("run %v, want %v", got, tc.want)
			}
		})
	}
}

func TestEstimates(t *testing.T) {
	t.Parallel()
	s := policytest.Snap(t, 0, nil, []models.Server{{Type: "P100", GPUs: 1}, {Type: "V100", GPUs: 1}},
		policytest.Ran(policytest.Job(1, 0, "resnet", 1, 900), 0, 100, 300), policytest.Job(2, 0, "k80", 1, 10))
	// resnet's best is V100 at 3 steps/s: 900 / 3 = 300 s in all, 600 / 3 = 200 s left.
	if d := sjf.Duration(s, &s.Jobs[0]); d != 300 {
		t.Errorf("Duration = %v, want 300", d)
	}
	if r := sjf.RemainingTime(s, &s.Jobs[0]); r != 200 {
		t.Errorf("RemainingTime = %v, want 200", r)
	}
	// k80 cannot run on P100 or V100.
	if d := sjf.Duration(s, &s.Jobs[1]); !math.IsInf(d, 1) {
		t.Errorf("Duration of an unrunnable job = %v, want +Inf", d)
	}
}

func TestOptionsAndTriggers(t *testing.T) {
	t.Parallel()
	for _, f := range []solvers.Factory{sjf.New, sjf.NewSRTF} {
		if _, err := f(solvers.Config{Options: map[string]any{"backfill": true}}); err == nil {
			t.Error("an unknown option was accepted")
		}
		p, err := f(solvers.Config{})
		if err != nil {
			t.Fatal(err)
		}
		if got := solvers.TriggersOf(p); got != models.AtArrival|models.AtCompletion {
			t.Errorf("%s: Triggers = %v", p.Name(), got)
		}
	}
}

func TestDeterministic(t *testing.T) {
	t.Parallel()
	servers := []models.Server{{Type: "V100", GPUs: 2}, {Type: "P100", GPUs: 2}, {Type: "K80", GPUs: 4}}
	jobs := []models.JobState{
		policytest.Running(policytest.Job(1, 0, "resnet", 2, 1e4), "K80", 0, 10, 10),
		policytest.Job(2, 1, "unit", 2, 100), policytest.Job(3, 1, "unit", 2, 100), policytest.Job(4, 2, "recsys", 1, 100), policytest.Job(5, 3, "resnet", 4, 30),
	}
	for _, f := range []solvers.Factory{sjf.New, sjf.NewSRTF} {
		first := allocate(t, f, policytest.Snap(t, policytest.Sec(50), nil, servers, jobs...))
		for i := 0; i < 20; i++ {
			if got := allocate(t, f, policytest.Snap(t, policytest.Sec(50), nil, servers, jobs...)); !reflect.DeepEqual(got, first) {
				t.Fatalf("decision %d differs: %v vs %v", i, got, first)
			}
		}
	}
}
