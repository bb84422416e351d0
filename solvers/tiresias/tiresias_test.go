package tiresias_test

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/internal/policytest"
	"fairbench/solvers/tiresias"
)

func newTiresias(t *testing.T, opts map[string]any) *tiresias.Tiresias {
	t.Helper()
	p, err := tiresias.New(solvers.Config{Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	return p.(*tiresias.Tiresias)
}

// step is one decision: the snapshot at now and what must come out.
type step struct {
	now    float64
	jobs   []models.JobState
	run    []string
	queues map[models.JobID]int
}

func replay(t *testing.T, p *tiresias.Tiresias, servers []models.Server, steps []step) {
	t.Helper()
	for _, st := range steps {
		s := policytest.Snap(t, policytest.Sec(st.now), nil, servers, st.jobs...)
		a, err := p.Allocate(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := models.Feasible(s, a); err != nil {
			t.Fatalf("t=%v: %v", st.now, err)
		}
		if got := policytest.IDs(a); !reflect.DeepEqual(got, st.run) {
			t.Fatalf("t=%v: run %v, want %v", st.now, got, st.run)
		}
		for id, q := range st.queues {
			if got, ok := p.Queue(id); !ok || got != q {
				t.Fatalf("t=%v: job %d in queue %d (known %v), want %d", st.now, id, got, ok, q)
			}
		}
	}
}

// One V100, unit jobs (1 step/s), thresholds [100] GPU-s (two queues).
//
//	t=0    J0 arrives: Q0 = [J0]                                  → run J0
//	t=100  J0 has 100 GPU-s ≥ 100: demoted, Q1 = [J0].
//	       J1 arrives: Q0 = [J1]                                  → run J1, J0 preempted
//	t=200  J1 has 100 GPU-s: demoted behind J0, Q1 = [J0, J1].
//	       J0 waited 100 s since it first ran (it has run 100 s)   → run J0 (entered Q1 first)
//	t=400  J0 runs on, 300 GPU-s, stays in Q1 (last queue), ahead of
//	       the waiting J1 (running jobs first within a queue).
//	       J1 has waited 200 s, run 100 s: with knob 2, 200 ≥ 2·100,
//	       so J1 is promoted to Q0 and its counters restart        → run J1, J0 preempted
//	       (knob 0: no promotion                                   → run J0, J1 starves)
//	t=500  J1 has 200 − 100 = 100 GPU-s since its promotion: back to Q1,
//	       behind J0 (waiting): Q1 = [J0, J1]. J0 has waited 100 + 100 = 200 s
//	       against 2·300 = 600: no promotion                       → run J0
func TestDemotionPromotion(t *testing.T) {
	t.Parallel()
	one := []models.Server{{Type: "V100", GPUs: 1}}
	j0, j1 := policytest.Job(0, 0, "unit", 1, 1e6), policytest.Job(1, 100, "unit", 1, 1e6)
	steps := func(knob0 bool) []step {
		at400 := step{400, []models.JobState{policytest.Running(j0, "V100", 0, 300, 300), policytest.Ran(j1, 100, 100, 100)},
			[]string{"1/V100"}, map[models.JobID]int{0: 1, 1: 0}}
		if knob0 {
			at400.run, at400.queues[1] = []string{"0/V100"}, 1
		}
		s := []step{
			{0, []models.JobState{j0}, []string{"0/V100"}, map[models.JobID]int{0: 0}},
			{100, []models.JobState{policytest.Running(j0, "V100", 0, 100, 100), j1}, []string{"1/V100"}, map[models.JobID]int{0: 1, 1: 0}},
			{200, []models.JobState{policytest.Ran(j0, 0, 100, 100), policytest.Running(j1, "V100", 100, 100, 100)}, []string{"0/V100"}, map[models.JobID]int{0: 1, 1: 1}},
			at400,
		}
		if !knob0 {
			s = append(s, step{500, []models.JobState{policytest.Ran(j0, 0, 300, 300), policytest.Running(j1, "V100", 100, 200, 200)},
				[]string{"0/V100"}, map[models.JobID]int{0: 1, 1: 1}})
		}
		return s
	}
	t.Run("knob 2", func(t *testing.T) {
		replay(t, newTiresias(t, map[string]any{"thresholds": []any{100}, "promote_knob": 2}), one, steps(false))
	})
	t.Run("knob 0", func(t *testing.T) {
		replay(t, newTiresias(t, map[string]any{"thresholds": []any{100}, "promote_knob": 0}), one, steps(true))
	})
}

// Service is GPU time: a gang of 2 that ran 2,000 s has 4,000 GPU-s.
// Default thresholds 3,250 and 7,200 GPU-s; 2 V100; a fresh policy places
// every job from the snapshot alone.
//
//	J1 gang 1, ran 8,000 s → 8,000 GPU-s ≥ 7,200 → Q2
//	J2 gang 2, ran 2,000 s → 4,000 GPU-s ≥ 3,250 → Q1 (by wall time it would be Q0)
//	J3 gang 1, ran 3,000 s → 3,000 GPU-s         → Q0
//	J4 gang 2, new         → Q0
//	J5 gang 1, new         → Q0
//
// Order Q0 [J3, J4, J5], Q1 [J2], Q2 [J1] (snapshot order within a queue):
// J3 takes 1 GPU, J4 (2) does not fit and is skipped, J5 takes the last GPU;
// the running J1 is preempted.
func TestQueuesFromSnapshot(t *testing.T) {
	t.Parallel()
	servers := []models.Server{{Type: "V100", GPUs: 2}}
	jobs := []models.JobState{
		policytest.Running(policytest.Job(1, 0, "unit", 1, 1e6), "V100", 0, 8000, 8000),
		policytest.Ran(policytest.Job(2, 1, "unit", 2, 1e6), 1, 2000, 2000),
		policytest.Running(policytest.Job(3, 2, "unit", 1, 1e6), "V100", 2, 3000, 3000),
		policytest.Job(4, 3, "unit", 2, 1e6),
		policytest.Job(5, 4, "unit", 1, 1e6),
	}
	p := newTiresias(t, nil)
	if p.Queues() != 3 {
		t.Fatalf("Queues = %d, want 3", p.Queues())
	}
	replay(t, p, servers, []step{{9000, jobs, []string{"3/V100", "5/V100"},
		map[models.JobID]int{1: 2, 2: 1, 3: 0, 4: 0, 5: 0}}})
}

// Within a queue the jobs that run stay ahead of those that wait, so jobs of
// one queue do not preempt each other; a new arrival joins the end of Q0.
// 2 V100, thresholds [1e6] (all in Q0).
//
//	t=0   J1 (1 GPU), J2 (2 GPUs) arrive: Q0 [J1, J2]. J1 runs; J2 does not
//	      fit beside it and waits.
//	t=10  J3 (1 GPU) arrives: Q0 [J1 (running), J2 (waiting), J3] → J1, J3.
//	t=20  Still J1, J3 first (running), then J2                   → J1, J3.
func TestFIFOWithinQueue(t *testing.T) {
	t.Parallel()
	servers := []models.Server{{Type: "V100", GPUs: 2}}
	j1, j2, j3 := policytest.Job(1, 0, "unit", 1, 1e6), policytest.Job(2, 0, "unit", 2, 1e6), policytest.Job(3, 10, "unit", 1, 1e6)
	replay(t, newTiresias(t, map[string]any{"thresholds": []any{1e6}}), servers, []step{
		{0, []models.JobState{j1, j2}, []string{"1/V100"}, nil},
		{10, []models.JobState{policytest.Running(j1, "V100", 0, 10, 10), j2, j3}, []string{"1/V100", "3/V100"}, nil},
		{20, []models.JobState{policytest.Running(j1, "V100", 0, 20, 20), j2, policytest.Running(j3, "V100", 10, 10, 10)}, []string{"1/V100", "3/V100"}, nil},
	})
}

// Finished jobs leave the state; a snapshot earlier than the last decision
// (a second run on the instance) is an error.
func TestForgetsFinishedJobs(t *testing.T) {
	t.Parallel()
	servers := []models.Server{{Type: "V100", GPUs: 1}}
	p := newTiresias(t, map[string]any{"thresholds": []any{100}})
	replay(t, p, servers, []step{
		{0, []models.JobState{policytest.Job(1, 0, "unit", 1, 50), policytest.Job(2, 0, "unit", 1, 50)}, []string{"1/V100"}, nil},
		{50, []models.JobState{policytest.Job(2, 0, "unit", 1, 50)}, []string{"2/V100"}, nil},
	})
	if _, ok := p.Queue(1); ok {
		t.Fatal("finished job 1 is still tracked")
	}
	back := policytest.Snap(t, 0, nil, servers, policytest.Job(7, 0, "unit", 1, 50))
	if _, err := p.Allocate(back); !errors.Is(err, solvers.ErrTimeWentBack) {
		t.Errorf("time going back: %v, want ErrTimeWentBack", err)
	}
}

// Heterogeneity-agnostic ranking, fastest type with room for placement: a
// running job keeps its type.
func TestPlacement(t *testing.T) {
	t.Parallel()
	servers := []models.Server{{Type: "V100", GPUs: 1}, {Type: "K80", GPUs: 1}}
	replay(t, newTiresias(t, nil), servers, []step{{10, []models.JobState{
		policytest.Running(policytest.Job(1, 0, "resnet", 1, 1e6), "K80", 0, 10, 10),
		policytest.Job(2, 5, "resnet", 1, 1e6),
	}, []string{"1/K80", "2/V100"}, nil}})
}

func TestOptions(t *testing.T) {
	t.Parallel()
	bad := []map[string]any{
		{"thresholds": []any{7200, 3250}},
		{"thresholds": []any{100, 100}},
		{"thresholds": []any{-1}},
		{"thresholds": []any{0}},
		{"thresholds": []any{1e12}},
		{"promote_knob": -1},
		{"promote_knob": "lots"},
		{"queue_limit": []any{100}},
	}
	for _, o := range bad {
		if _, err := tiresias.New(solvers.Config{Options: o}); err == nil {
			t.Errorf("options %v accepted", o)
		}
	}
	if p := newTiresias(t, map[string]any{"thresholds": []any{}}); p.Queues() != 1 {
		t.Errorf("empty thresholds: %d queues, want 1", p.Queues())
	}
	if p := newTiresias(t, map[string]any{"thresholds": []any{"60", 600, 6000.5}}); p.Queues() != 4 {
		t.Errorf("three thresholds: %d queues, want 4", p.Queues())
	}
	if got := solvers.TriggersOf(newTiresias(t, nil)); got != models.AtRound|models.AtArrival|models.AtCompletion {
		t.Errorf("Triggers = %v", got)
	}
}

func TestDeterministic(t *testing.T) {
	t.Parallel()
	servers := []models.Server{{Type: "V100", GPUs: 2}, {Type: "P100", GPUs: 2}, {Type: "K80", GPUs: 4}}
	jobs := []models.JobState{
		policytest.Running(policytest.Job(1, 0, "resnet", 2, 1e6), "K80", 0, 5000, 10),
		policytest.Ran(policytest.Job(2, 1, "unit", 2, 1e6), 1, 100, 100), policytest.Job(3, 1, "unit", 2, 100), policytest.Job(4, 2, "recsys", 1, 100),
		policytest.Job(5, 3, "resnet", 4, 30),
	}
	var first []string
	for i := 0; i < 20; i++ {
		a, err := newTiresias(t, nil).Allocate(policytest.Snap(t, policytest.Sec(6000), nil, servers, jobs...))
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = policytest.IDs(a)
		} else if got := policytest.IDs(a); !reflect.DeepEqual(got, first) {
			t.Fatalf("decision %d differs: %v vs %v", i, got, first)
		}
	}
}

// Random sequences of snapshots, their jobs in arrival order or shuffled,
// some leaving and new ones arriving at every decision: after each decision
// every job of the snapshot is in the queue its service puts it in (with
// promotion off a job only moves down, so its queue is the number of
// thresholds its Attained has reached), and a job that left is forgotten.
// The policy meets the last decision's jobs again in that decision's order
// without a lookup and looks up the others, so both paths are exercised.
func TestFindsJobsInAnyOrder(t *testing.T) {
	servers := []models.Server{{Type: "V100", GPUs: 4}, {Type: "K80", GPUs: 2}}
	level := func(attained time.Duration) int {
		switch {
		case attained >= policytest.Sec(300):
			return 2
		case attained >= policytest.Sec(100):
			return 1
		}
		return 0
	}
	for seed := range 40 {
		rng := rand.New(rand.NewPCG(uint64(seed), 19))
		p := newTiresias(t, map[string]any{"thresholds": []float64{100, 300}, "promote_knob": 0})
		var live []models.JobState
		var gone []models.JobID
		id := 0
		for step := range 30 {
			now := float64(100 * step)
			live = slices.DeleteFunc(live, func(j models.JobState) bool {
				if rng.IntN(6) == 0 {
					gone = append(gone, j.ID)
					return true
				}
				return false
			})
			for range rng.IntN(4) {
				live = append(live, policytest.Job(id, now, "unit", 1, 1e6))
				id++
			}
			for i := range live {
				if rng.IntN(2) == 0 {
					ran := live[i].Executed.Seconds() + float64(rng.IntN(120))
					live[i] = policytest.Ran(live[i], live[i].Arrival.Seconds(), ran, ran)
				}
			}
			jobs := slices.Clone(live)
			if rng.IntN(3) == 0 {
				rng.Shuffle(len(jobs), func(a, b int) { jobs[a], jobs[b] = jobs[b], jobs[a] })
			}
			s := policytest.Snap(t, policytest.Sec(now), nil, servers, jobs...)
			a, err := p.Allocate(s)
			if err != nil {
				t.Fatal(err)
			}
			if err := models.Feasible(s, a); err != nil {
				t.Fatalf("seed %d, t=%v: %v", seed, now, err)
			}
			for _, j := range jobs {
				if q, ok := p.Queue(j.ID); !ok || q != level(j.Attained) {
					t.Fatalf("seed %d, t=%v: job %d (%v attained) in queue %d (known %v), want %d", seed, now, j.ID, j.Attained, q, ok, level(j.Attained))
				}
			}
			for _, g := range gone {
				if _, ok := p.Queue(g); ok {
					t.Fatalf("seed %d, t=%v: job %d left but is still tracked", seed, now, g)
				}
			}
		}
	}
}
