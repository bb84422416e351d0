package isolated_test

import (
	"math"
	"reflect"
	"testing"

	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/internal/policytest"
	"fairbench/solvers/isolated"
)

const eps = 1e-12

func allocate(t *testing.T, s *models.Snapshot) map[models.JobID]map[string]float64 {
	t.Helper()
	p, err := isolated.New(solvers.Config{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := p.Allocate(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Run) != 0 {
		t.Fatalf("isolated returned placements %v", a.Run)
	}
	if err := models.Feasible(s, a); err != nil {
		t.Fatal(err)
	}
	return a.Fractions
}

// Users A (weight 1), B (weight 3) and C (weight 4, no jobs) on 8 V100 and
// 16 K80; resnet runs 3 steps/s on V100, 1 on K80. Σw = 8, so the slices are
//
//	A: 1/8 · 8 = 1 V100, 1/8 · 16 = 2 K80
//	B: 3/8 · 8 = 3 V100, 3/8 · 16 = 6 K80
//	C: 4 V100, 8 K80, idle: nobody else may use them (not work-conserving).
//
// A's jobs in arrival order:
//
//	A1 gang 1: V100 min(1, 1/1) = 1                  → A's V100 left 0
//	A2 gang 1: V100 0; K80 min(1, 2/1) = 1           → A's K80 left 1
//	A3 gang 2: K80 min(1, 1/2) = 0.5                 → A's K80 left 0
//	A4 gang 1: nothing left                          → no entry
//
// B's:
//
//	B1 gang 4: V100 min(1, 3/4) = 0.75; K80 min(0.25, 6/4) = 0.25 → K80 left 5
//	B2 gang 8: V100 0; K80 min(1, 5/8) = 0.625        → K80 left 0
//	B3 k80-only gang 1: K80 0                         → no entry
//
// Per type: V100 1·1 + 4·0.75 = 4 ≤ 8; K80 1 + 2·0.5 + 4·0.25 + 8·0.625 = 8 ≤ 16.
func TestFractions(t *testing.T) {
	users := []models.User{{Name: "A", Weight: 1}, {Name: "B", Weight: 3}, {Name: "C", Weight: 4}}
	servers := []models.Server{{Type: "V100", GPUs: 8}, {Type: "K80", GPUs: 8}, {Type: "K80", GPUs: 8}}
	s := policytest.Snap(t, 0, users, servers,
		policytest.Owner(policytest.Job(1, 0, "resnet", 1, 100), "A"),
		policytest.Owner(policytest.Job(2, 1, "resnet", 4, 100), "B"),
		policytest.Owner(policytest.Job(3, 2, "resnet", 1, 100), "A"),
		policytest.Owner(policytest.Job(4, 3, "resnet", 8, 100), "B"),
		policytest.Owner(policytest.Job(5, 4, "resnet", 2, 100), "A"),
		policytest.Owner(policytest.Job(6, 5, "k80", 1, 100), "B"),
		policytest.Owner(policytest.Job(7, 6, "resnet", 1, 100), "A"),
	)
	got := allocate(t, s)
	want := map[models.JobID]map[string]float64{
		1: {"V100": 1},
		3: {"K80": 1},
		5: {"K80": 0.5},
		2: {"V100": 0.75, "K80": 0.25},
		4: {"K80": 0.625},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("fractions %v, want %v", got, want)
	}
	load := map[string]float64{}
	for id, xs := range got {
		j, _ := s.Job(id)
		for g, x := range xs {
			load[g] += float64(j.Gang) * x
		}
	}
	if math.Abs(load["V100"]-4) > eps || math.Abs(load["K80"]-8) > eps {
		t.Fatalf("load %v, want V100 4 and K80 8 (C's half idle)", load)
	}
}

// A job fills its fastest type first, even when that is not the newest: recsys
// runs 2 steps/s on P100 and 1 on V100. Users A and B weigh 1 each on 4 V100
// and 4 P100, so A owns 2 of each. A's J1 gang 4: P100 min(1, 2/4) = 0.5,
// then V100 min(0.5, 2/4) = 0.5.
func TestFastestFirst(t *testing.T) {
	users := []models.User{{Name: "A", Weight: 1}, {Name: "B", Weight: 1}}
	s := policytest.Snap(t, 0, users, []models.Server{{Type: "V100", GPUs: 4}, {Type: "P100", GPUs: 4}}, policytest.Owner(policytest.Job(1, 0, "recsys", 4, 100), "A"))
	want := map[models.JobID]map[string]float64{1: {"P100": 0.5, "V100": 0.5}}
	if got := allocate(t, s); !reflect.DeepEqual(got, want) {
		t.Fatalf("fractions %v, want %v", got, want)
	}
}

// The slice does not grow when the other users go idle: with B's jobs gone,
// A's jobs still get what they got in TestFractions.
func TestStatic(t *testing.T) {
	users := []models.User{{Name: "A", Weight: 1}, {Name: "B", Weight: 3}}
	servers := []models.Server{{Type: "V100", GPUs: 4}}
	s := policytest.Snap(t, 0, users, servers, policytest.Owner(policytest.Job(1, 0, "resnet", 2, 100), "A"), policytest.Owner(policytest.Job(2, 0, "resnet", 1, 100), "A"))
	// A owns 1/4 · 4 = 1 V100: J1 (gang 2) gets 1/2, J2 nothing.
	want := map[models.JobID]map[string]float64{1: {"V100": 0.5}}
	if got := allocate(t, s); !reflect.DeepEqual(got, want) {
		t.Fatalf("fractions %v, want %v", got, want)
	}
	if got := isolated.Share(s, users[1], "V100"); got != 3 {
		t.Fatalf("B's share = %v, want 3", got)
	}
}

// Feasibility on awkward weights, where the shares are not whole GPUs.
func TestFeasibleThirds(t *testing.T) {
	users := []models.User{{Name: "A", Weight: 1}, {Name: "B", Weight: 1}, {Name: "C", Weight: 1}}
	servers := []models.Server{{Type: "V100", GPUs: 4}, {Type: "P100", GPUs: 3}, {Type: "K80", GPUs: 7}}
	var jobs []models.JobState
	for i := 0; i < 30; i++ {
		jobs = append(jobs, policytest.Owner(policytest.Job(i, float64(i), []string{"resnet", "unit", "recsys", "k80"}[i%4], 1+i%3, 100),
			[]string{"A", "B", "C"}[i%3]))
	}
	allocate(t, policytest.Snap(t, 0, users, servers, jobs...)) // checks models.Feasible
}

func TestUnknownUser(t *testing.T) {
	s := policytest.Snap(t, 0, nil, []models.Server{{Type: "V100", GPUs: 1}}, policytest.Owner(policytest.Job(1, 0, "unit", 1, 1), "nobody"))
	p, _ := isolated.New(solvers.Config{})
	if _, err := p.Allocate(s); err == nil {
		t.Fatal("a job of an unknown user was accepted")
	}
}

func TestOptions(t *testing.T) {
	if _, err := isolated.New(solvers.Config{Options: map[string]any{"weights": 1}}); err == nil {
		t.Fatal("an unknown option was accepted")
	}
	p, _ := isolated.New(solvers.Config{})
	if got := solvers.TriggersOf(p); got != models.AtRound|models.AtArrival|models.AtCompletion {
		t.Fatalf("Triggers = %v", got)
	}
}
