package sim

import (
	"slices"
	"testing"
	"time"

	"fairbench/models"
	"fairbench/solvers"
)

// evenSplit is a test policy with Gavel's round rules: every active job gets
// 1/n of the V100, x = 1/n; it counts its decisions.
type evenSplit struct {
	rules solvers.RoundRules
	calls []time.Duration
}

func (p *evenSplit) Name() string                   { return "even-split" }
func (p *evenSplit) Triggers() models.Trigger       { return models.AtRound }
func (p *evenSplit) RoundRules() solvers.RoundRules { return p.rules }
func (p *evenSplit) Allocate(s *models.Snapshot) (models.Allocation, error) {
	p.calls = append(p.calls, s.Now)
	a := models.Allocation{Fractions: map[models.JobID]map[string]float64{}}
	for i := range s.Jobs {
		a.Fractions[s.Jobs[i].ID] = map[string]float64{"V100": 1 / float64(len(s.Jobs))}
	}
	return a, nil
}

func v100Job(id models.JobID, steps float64, arrival time.Duration) models.Job {
	return models.Job{ID: id, User: "u", Type: "a", Gang: 1, Steps: steps, Arrival: arrival}
}

var oneV100 = map[models.Key]float64{{Job: "a", GPU: "V100", Gang: 1, Placement: models.Consolidated}: 1}

// Gavel's round mechanism on one V100 with two jobs of share 1/2 each and
// 360 s rounds (the credit is 180 s, W = 2·180 = 360 after the allocation):
//
//	round 0: both priorities 0.5·360/180 = 1: tie, job 0 (first) runs;
//	round 1: job 0 0.5·720/540 ≈ 0.67, job 1 0.5·720/180 = 2: job 1;
//	round 2: both 0.5·1080/540 = 1: job 0; and so on, alternating.
//
// Each job needs 1080 steps at 1 step/s, three rounds: job 0 runs rounds
// 0, 2, 4 and ends at 1800 s, job 1 rounds 1, 3, 5 and ends at 2160 s.
func TestRoundsAlternate(t *testing.T) {
	cfg := tinyConfig(t, []models.Server{{Type: "V100", GPUs: 1}}, oneV100, []models.Job{v100Job(0, 1080, 0), v100Job(1, 1080, 0)})
	p := &evenSplit{rules: solvers.RoundRules{Resolve: solvers.GavelResolve}}
	r, err := Run(cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	if r.Jobs[0].Finish != 1800 || r.Jobs[1].Finish != 2160 {
		t.Errorf("finishes %v and %v, want 1800 and 2160", r.Jobs[0].Finish, r.Jobs[1].Finish)
	}
	// Decisions: t = 0; then job 0's completion at 1800 makes the next
	// round start a decision, due at once since the last was at time 0.
	if want := []time.Duration{0, 1800 * time.Second}; !slices.Equal(p.calls, want) {
		t.Errorf("decisions at %v, want %v", p.calls, want)
	}
	if r.Summary.Decisions != 2 {
		t.Errorf("Summary.Decisions = %d, want 2", r.Summary.Decisions)
	}
}

// Gavel's re-solve cadence: an allocation is recomputed at a round start
// only after an arrival or completion, and at least 1920 s after the last
// one unless that was at time 0. Jobs arrive at 0, 400 and 800 s and run
// long on a 3-V100 cluster:
//
//	t = 0:    the first allocation;
//	t = 720:  job 1 arrived (400 s); the last allocation was at time 0, so
//	          it is due at the next round start, 720 s;
//	t = 2880: job 2 arrived (800 s), but the next allocation must wait
//	          until 720 + 1920 = 2640 s: the first round start after it is
//	          2880 s.
func TestResolveCadence(t *testing.T) {
	jobs := []models.Job{v100Job(0, 1e5, 0), v100Job(1, 1e5, 400*time.Second), v100Job(2, 1e5, 800*time.Second)}
	cfg := tinyConfig(t, []models.Server{{Type: "V100", GPUs: 3}}, oneV100, jobs)
	p := &evenSplit{rules: solvers.RoundRules{Resolve: solvers.GavelResolve}}
	if _, err := Run(cfg, p); err != nil {
		t.Fatal(err)
	}
	if got, want := p.calls[:3], []time.Duration{0, 720 * time.Second, 2880 * time.Second}; !slices.Equal(got, want) {
		t.Errorf("first decisions at %v, want %v", got, want)
	}
	// Without the cadence the policy is asked at every round start.
	every := &evenSplit{}
	r, err := Run(cfg, every)
	if err != nil {
		t.Fatal(err)
	}
	if r.Summary.Decisions != r.Summary.Rounds {
		t.Errorf("without the cadence: %d decisions in %d rounds", r.Summary.Decisions, r.Summary.Rounds)
	}
}

// A job that arrives between two allocations runs on GPUs the allocation
// leaves idle (arrivals: fill) or waits for the next allocation (wait;
// block also leaves the GPUs idle, see TestPlanRoundArrivals). Three V100s;
// jobs 0 and 1 arrive at 0 and 10 s and run long; the allocation of 360 s
// (due at once: the first was at time 0) knows both and leaves one V100
// idle. Job 2 arrives at 400 s: under fill it takes the idle V100 at the
// next round start, 720 s; otherwise it waits for the next allocation, at
// the first round start at least 1920 s after 360 s: 2520 s.
func TestArrivalRules(t *testing.T) {
	jobs := []models.Job{v100Job(0, 1e5, 0), v100Job(1, 1e5, 10*time.Second), v100Job(2, 360, 400*time.Second)}
	for _, tc := range []struct {
		rule  solvers.Arrivals
		start float64 // job 2's first run
	}{
		{solvers.ArrivalsFill, 720},
		{solvers.ArrivalsWait, 2520},
		{solvers.ArrivalsBlock, 2520},
	} {
		cfg := tinyConfig(t, []models.Server{{Type: "V100", GPUs: 3}}, oneV100, jobs)
		p := &evenSplit{rules: solvers.RoundRules{Resolve: solvers.GavelResolve, Arrivals: tc.rule}}
		r, err := Run(cfg, p)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Jobs[2].FirstRun; got != tc.start {
			t.Errorf("%s: job 2 first ran at %v, want %v", tc.rule, got, tc.start)
		}
	}
}
