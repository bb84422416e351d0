package gavelsp

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/internal/policytest"
	"fairbench/solvers/lp"
	"fairbench/solvers/nash"
)

func allocate(t *testing.T, servers []models.Server, jobs ...models.JobState) models.Allocation {
	t.Helper()
	p, err := New(solvers.Config{})
	if err != nil {
		t.Fatal(err)
	}
	s := policytest.Snap(t, 0, nil, servers, jobs...)
	a, err := p.Allocate(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := models.Feasible(s, a); err != nil {
		t.Fatal(err)
	}
	return a
}

func share(a models.Allocation, id int, typ string) float64 {
	return a.Fractions[models.JobID(id)][typ]
}

// Two equal jobs on one K80: the geometric mean halves it (x* = 1/2 each);
// without either job the other would run all the time (T = 1), so each
// keeps f = (1/2)/1 = 1/2 of its half: x = 1/4.
func TestHalvesByHand(t *testing.T) {
	a := allocate(t, []models.Server{{Type: "K80", GPUs: 1}},
		policytest.Job(1, 0, "unit", 1, 100), policytest.Job(2, 0, "unit", 1, 100))
	for _, id := range []int{1, 2} {
		if got := share(a, id, "K80"); math.Abs(got-0.25) > 1e-9 {
			t.Errorf("job %d: x = %g, want 0.25", id, got)
		}
	}
}

// No externality, no discount: one V100 and one K80; a resnet job (3 on
// V100, 1 on K80 in the fixture) and a k80-only job. The optimum gives the
// V100 to resnet (T = 3) and the K80 to the other (T = 1); without either
// job the other's optimum is the same, so f = 1 for both and the shares
// stay whole.
func TestNoExternalityNoDiscount(t *testing.T) {
	a := allocate(t, []models.Server{{Type: "V100", GPUs: 1}, {Type: "K80", GPUs: 1}},
		policytest.Job(1, 0, "resnet", 1, 100), policytest.Job(2, 0, "k80", 1, 100))
	if got := share(a, 1, "V100"); math.Abs(got-1) > 1e-9 {
		t.Errorf("resnet on V100: x = %g, want 1", got)
	}
	if got := share(a, 2, "K80"); math.Abs(got-1) > 1e-9 {
		t.Errorf("k80 job on K80: x = %g, want 1", got)
	}
}

// Priorities do not move Gavel's allocation: a positive factor per job
// multiplies the product being maximised and cancels in the discounts.
func TestPrioritiesHaveNoEffect(t *testing.T) {
	servers := []models.Server{{Type: "V100", GPUs: 2}, {Type: "P100", GPUs: 1}, {Type: "K80", GPUs: 2}}
	jobs := []models.JobState{policytest.Job(1, 0, "resnet", 1, 100), policytest.Job(2, 0, "recsys", 2, 100),
		policytest.Job(3, 0, "unit", 1, 100)}
	plain := allocate(t, servers, jobs...)
	jobs[0].Priority, jobs[1].Priority = 5, 0.5
	weighted := allocate(t, servers, jobs...)
	for id, row := range plain.Fractions {
		for g, v := range row {
			if math.Abs(weighted.Fractions[id][g]-v) > 1e-9 {
				t.Errorf("job %d on %s: %g with priorities, %g without", id, g, weighted.Fractions[id][g], v)
			}
		}
	}
}

// A decision stopped by its time limit names the option and how to lift
// it, and still matches lp.ErrLimit (a 1 ns limit has run out before the
// first solve).
func TestTimeLimitNamesTheOption(t *testing.T) {
	p, err := New(solvers.Config{Options: map[string]any{"time_limit": "1ns"}})
	if err != nil {
		t.Fatal(err)
	}
	s := policytest.Snap(t, 0, nil, []models.Server{{Type: "K80", GPUs: 1}},
		policytest.Job(1, 0, "unit", 1, 100), policytest.Job(2, 0, "unit", 1, 100))
	_, err = p.Allocate(s)
	if !errors.Is(err, lp.ErrLimit) || !strings.Contains(err.Error(), "option time_limit (1ns a decision) ran out") {
		t.Fatalf("err = %v", err)
	}
}

// A decision on the market of the decision before (the same jobs, one of
// them further on) is that decision's answer, counted as reused without an
// LP solve, with the same discounts.
func TestRepeatedMarketReused(t *testing.T) {
	servers := []models.Server{{Type: "V100", GPUs: 2}, {Type: "P100", GPUs: 1}, {Type: "K80", GPUs: 2}}
	jobs := []models.JobState{policytest.Job(1, 0, "resnet", 1, 100), policytest.Job(2, 0, "recsys", 2, 100),
		policytest.Job(3, 0, "unit", 1, 100), policytest.Job(4, 0, "unit", 1, 100)}
	p, err := New(solvers.Config{})
	if err != nil {
		t.Fatal(err)
	}
	pol := p.(*Policy)
	first, err := pol.Allocate(policytest.Snap(t, 0, nil, servers, jobs...))
	if err != nil {
		t.Fatal(err)
	}
	f := pol.Discounts()
	jobs[0] = policytest.Running(jobs[0], "V100", 0, 360, 1080)
	second, err := pol.Allocate(policytest.Snap(t, policytest.Sec(360), nil, servers, jobs...))
	if err != nil {
		t.Fatal(err)
	}
	st := pol.Report().(*nash.Stats)
	if !reflect.DeepEqual(first, second) || !reflect.DeepEqual(f, pol.Discounts()) {
		t.Errorf("repeat: %v with f %v, first %v with f %v", second, pol.Discounts(), first, f)
	}
	if st.Decisions != 2 || st.Reused != 1 || st.Exact != 2 {
		t.Errorf("stats %+v: want 2 exact decisions, 1 reused", st)
	}
}
