package gavel_test

import (
	"reflect"
	"sort"
	"testing"

	"fairbench/models"
)

// Hand-solved gavel-las-ss instances (pairRates in the fixture). All gang 1.
func TestSpaceSharing(t *testing.T) {
	v100 := []models.Server{{Type: "V100", GPUs: 1}}
	for _, tc := range []struct {
		name    string
		servers []models.Server
		types   map[string]models.JobType
		jobs    []models.JobState
		t       float64
		single  map[models.JobID]map[string]float64
		shared  []models.SharedFraction
	}{{
		// One V100, two flat jobs that run at 0.6 each together. Σ N = 1:
		// P = T = 1, c = d·T/P = 1; a unit of pair time gives each 0.6.
		// Alone: x_1 = x_2 = 1/2, t = 1/2. Together: the GPU's time is all
		// pair time (1.2 per GPU-time against 1 alone), z = 1, t = 0.6 —
		// its bound: (x_1 + x_2) + 1.2·z with x_1 + x_2 + z ≤ 1 is at most
		// 1.2 = 2t.
		name:    "pair pays",
		servers: v100,
		jobs:    []models.JobState{job(1, 0, "flat", 1, 100), job(2, 0, "flat", 1, 100)},
		t:       0.6,
		shared:  []models.SharedFraction{{Jobs: [2]models.JobID{1, 2}, Type: "V100", X: 1}},
	}, {
		// Three flat jobs on one V100: P = 1, c = 1; pair time gives each
		// 0.6 per unit. Σ of the three values ≤ Σx + 1.2·Σz with
		// Σx + Σz ≤ 1, at most 1.2 = 3t: t = 0.4, every pair 1/3 (each job
		// 2/3 of its time paired, 0.6·2/3 = 0.4).
		name:    "three alike",
		servers: v100,
		jobs:    []models.JobState{job(1, 0, "flat", 1, 100), job(2, 0, "flat", 1, 100), job(3, 0, "flat", 1, 100)},
		t:       0.4,
		shared: []models.SharedFraction{
			{Jobs: [2]models.JobID{1, 2}, Type: "V100", X: 1.0 / 3},
			{Jobs: [2]models.JobID{1, 3}, Type: "V100", X: 1.0 / 3},
			{Jobs: [2]models.JobID{2, 3}, Type: "V100", X: 1.0 / 3},
		},
	}, {
		// One V100, A fast (4) and B flat (1); together A runs at 3, B at
		// 0.5 (0.75 + 0.5 > 1). Σ N = 1: P_A = 4, P_B = 1, c = 1 for both
		// alone, and per unit of pair time A gains 0.75, B 0.5. With a, b
		// alone and z together, a + b + z ≤ 1: a + 0.75z = b + 0.5z →
		// b = a + z/4; a = (1 − 1.25z)/2 ≥ 0, and t = 1/2 + z/8 grows with
		// z up to z = 0.8 (a = 0, b = 0.2): t = 0.6. (Past 0.8, b = 1 − z:
		// 0.75z = 1 − 0.5z at z = 0.8 again.)
		name:    "unequal pair",
		servers: v100,
		jobs:    []models.JobState{job(1, 0, "fast", 1, 100), job(2, 0, "flat", 1, 100)},
		t:       0.6,
		single:  map[models.JobID]map[string]float64{2: {"V100": 0.2}},
		shared:  []models.SharedFraction{{Jobs: [2]models.JobID{1, 2}, Type: "V100", X: 0.8}},
	}, {
		// Time-bound jobs gain nothing from sharing: 1 V100 + 1 K80, two
		// flat jobs (pairs measured on the V100 only). P = (1 + 1)/2 = 1,
		// c = 1: each job's value is at most its time, and pair time
		// counts as time at 0.6: value ≤ 1 − 0.4z. t = 1, no pairs.
		name:    "time-bound",
		servers: oneV100OneK80,
		jobs:    []models.JobState{job(1, 0, "flat", 1, 100), job(2, 0, "flat", 1, 100)},
		t:       1,
	}, {
		// A dominated pair (mid 0.8/2 + flat 0.1/1 = 0.5 ≤ 1) never
		// enters: plain max-min, P_mid = 2, P_flat = 1, c = 1 both,
		// x = 1/2 each, t = 1/2.
		name:    "dominated pair",
		servers: v100,
		jobs:    []models.JobState{job(1, 0, "mid", 1, 100), job(2, 0, "flat", 1, 100)},
		t:       0.5,
		single:  map[models.JobID]map[string]float64{1: {"V100": 0.5}, 2: {"V100": 0.5}},
	}, {
		// Two flat jobs that need 20 GB each do not fit one 32 GB V100
		// together: no pairs, x = 1/2 each, t = 1/2.
		name:    "memory",
		servers: v100,
		types:   map[string]models.JobType{"flat": {Name: "flat", MemoryGB: 20}},
		jobs:    []models.JobState{job(1, 0, "flat", 1, 100), job(2, 0, "flat", 1, 100)},
		t:       0.5,
		single:  map[models.JobID]map[string]float64{1: {"V100": 0.5}, 2: {"V100": 0.5}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			for _, agg := range []bool{true, false} {
				p := build(t, "gavel-las-ss", map[string]any{"aggregate": agg})
				s := snap(t, 0, nil, tc.servers, tc.jobs...)
				if tc.types != nil {
					s.JobTypes = tc.types
				}
				a := allocate(t, p, s)
				if !near(p.Objective(), tc.t, tol) {
					t.Errorf("aggregate %v: t = %.9g, want %.9g", agg, p.Objective(), tc.t)
				}
				if tc.name == "time-bound" {
					if len(a.Shared) != 0 {
						t.Errorf("aggregate %v: pairs %v, want none", agg, a.Shared)
					}
					continue
				}
				wantShares(t, a, tc.single, 1e-7)
				got := append([]models.SharedFraction(nil), a.Shared...)
				sort.Slice(got, func(i, k int) bool {
					return got[i].Jobs[0] < got[k].Jobs[0] || got[i].Jobs[0] == got[k].Jobs[0] && got[i].Jobs[1] < got[k].Jobs[1]
				})
				if len(got) != len(tc.shared) {
					t.Fatalf("aggregate %v: pairs %v, want %v", agg, got, tc.shared)
				}
				for i := range got {
					if got[i].Jobs != tc.shared[i].Jobs || got[i].Type != tc.shared[i].Type || !near(got[i].X, tc.shared[i].X, 1e-7) {
						t.Errorf("aggregate %v: pair %d = %v, want %v", agg, i, got[i], tc.shared[i])
					}
				}
			}
		})
	}
}

// Without pair figures gavel-las-ss is gavel-las (as vertex solutions of the
// same LP).
func TestSpaceSharingWithoutPairs(t *testing.T) {
	s := snap(t, 0, nil, oneV100OneK80, job(1, 0, "fast", 1, 100), job(2, 0, "recsys", 1, 100), job(3, 0, "k80", 1, 100))
	vertex := map[string]any{"solution": "vertex"}
	las, ss := build(t, "gavel-las", vertex), build(t, "gavel-las-ss", vertex)
	a, b := allocate(t, las, s), allocate(t, ss, s)
	if !near(las.Objective(), ss.Objective(), 1e-9) || len(b.Shared) != 0 || !reflect.DeepEqual(a.Fractions, b.Fractions) {
		t.Fatalf("las %v %v, las-ss %v %v %v", las.Objective(), a.Fractions, ss.Objective(), b.Fractions, b.Shared)
	}
}

// The pairs within a class of k alike jobs: every job gets its share, no job
// is paired with itself; k/2 pairs when k is even, (k − 3)/2 + 3 when odd.
func TestSpaceSharingSplit(t *testing.T) {
	for k := 2; k <= 9; k++ {
		var jobs []models.JobState
		for i := 0; i < k; i++ {
			jobs = append(jobs, job(i, 0, "flat", 1, 100))
		}
		s := snap(t, 0, nil, []models.Server{{Type: "V100", GPUs: 1}}, jobs...)
		a := allocate(t, build(t, "gavel-las-ss", nil), s)
		// As in "three alike": all GPU time is pair time, each job
		// 2/k of its time.
		for i := 0; i < k; i++ {
			if got := share(a, models.JobID(i), "V100"); !near(got, 2/float64(k), 1e-9) {
				t.Errorf("k = %d: job %d shares %v, want %v", k, i, got, 2/float64(k))
			}
		}
		want := (k-3)/2 + 3
		if k%2 == 0 {
			want = k / 2
		}
		if len(a.Shared) != want {
			t.Errorf("k = %d: %d pairs, want %d", k, len(a.Shared), want)
		}
	}
}
