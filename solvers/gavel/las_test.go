package gavel_test

import (
	"reflect"
	"testing"

	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/gavel"
)

const tol = 1e-7

var (
	oneV100OneK80 = []models.Server{{Type: "V100", GPUs: 1}, {Type: "K80", GPUs: 1}}
)

// Hand-solved gavel-las instances. Every job has gang 1 unless said.
func TestLAS(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    map[string]any
		servers []models.Server
		jobs    []models.JobState
		want    map[models.JobID]map[string]float64
		t       float64
	}{{
		// 1 V100 + 1 K80; A fast (4, 1), B and C flat (1, 1). Σ N = 2,
		// so P = (T_V100 + T_K80)/2: P_A = 5/2, P_B = P_C = 1, and
		// c = d·T/P: c_A = (1.6, 0.4), c_B = c_C = (1, 1).
		//
		//	max t: 1.6·a_A + 0.4·k_A ≥ t, a_B + k_B ≥ t (B and C alike)
		//	       a_A + a_B + a_C ≤ 1 (V100), k_A + k_B + k_C ≤ 1 (K80)
		//
		// A has the comparative advantage on the V100 (1.6/0.4 = 4 > 1): A
		// on V100 only, B and C share the K80 (1/2 each) and the V100 left,
		// y each: 1.6·(1 − 2y) = 1/2 + y → 4.2·y = 1.1, y = 11/42,
		// t = 1.6·20/42 = 16/21. Dual check: capacity prices p = q = 8/21,
		// row weights 5/21 (A) and 8/21 (B, C); p + q = 16/21 = t. A's K80
		// reduced cost 0.4·5/21 − 8/21 < 0, so k_A = 0 and the optimum is
		// unique.
		name:    "comparative advantage",
		servers: oneV100OneK80,
		jobs:    []models.JobState{job(1, 0, "fast", 1, 100), job(2, 0, "flat", 1, 100), job(3, 0, "flat", 1, 100)},
		want: map[models.JobID]map[string]float64{
			1: {"V100": 20.0 / 42},
			2: {"V100": 11.0 / 42, "K80": 0.5},
			3: {"V100": 11.0 / 42, "K80": 0.5},
		},
		t: 16.0 / 21,
	}, {
		// The same with the equal-share normaliser: E_A = 4·1/3 + 1·1/3 =
		// 5/3, E_B = 2/3 and c = T/E = (3/2)·(the c above) (n = 3 ≥ Σ N,
		// where the two normalisers differ by the common factor n/Σ N), so
		// the same optimum with t = (3/2)·(16/21) = 8/7.
		name:    "comparative advantage, equal-share",
		opts:    map[string]any{"normaliser": "equal-share"},
		servers: oneV100OneK80,
		jobs:    []models.JobState{job(1, 0, "fast", 1, 100), job(2, 0, "flat", 1, 100), job(3, 0, "flat", 1, 100)},
		want: map[models.JobID]map[string]float64{
			1: {"V100": 20.0 / 42},
			2: {"V100": 11.0 / 42, "K80": 0.5},
			3: {"V100": 11.0 / 42, "K80": 0.5},
		},
		t: 8.0 / 7,
	}, {
		// Priority weights on 4 V100 (one server), two gang-4 jobs, w = 1
		// and 3. P = 4·T/4 = T, c = d·T/(w·P) = 4/w:
		// max min(4·x_1, 4·x_2/3) s.t. 4·x_1 + 4·x_2 ≤ 4 → x_2 = 3·x_1,
		// x_1 = 1/4, x_2 = 3/4, t = 1.
		name:    "priority weights",
		servers: []models.Server{{Type: "V100", GPUs: 4}},
		jobs:    []models.JobState{job(1, 0, "fast", 4, 100), weighted(job(2, 0, "fast", 4, 100), 3)},
		want:    map[models.JobID]map[string]float64{1: {"V100": 0.25}, 2: {"V100": 0.75}},
		t:       1,
	}, {
		// A job measured at 0 on the V100 ("zero": V100 0, P100 3) and a fast
		// job (V100 4, P100 2) on 1 V100 + 1 P100. n = Σ N = 2:
		// P_zero = 3/2, c_zero = (0, 2); P_fast = (4 + 2)/2 = 3,
		// c_fast = (4/3, 2/3). The fast job reaches at most
		// (4/3)·v + (2/3)·(1 − v) ≤ 4/3, at v = 1; the zero job then needs
		// 2·p ≥ 4/3. So t = 4/3, the fast job all on the V100 and the zero
		// job p ∈ [2/3, 1] of the P100 (not unique), never the V100.
		name:    "zero throughput",
		servers: []models.Server{{Type: "V100", GPUs: 1}, {Type: "P100", GPUs: 1}},
		jobs:    []models.JobState{job(1, 0, "zero", 1, 100), job(2, 0, "fast", 1, 100)},
		t:       4.0 / 3,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			for _, agg := range []bool{true, false} {
				opts := map[string]any{"aggregate": agg}
				for k, v := range tc.opts {
					opts[k] = v
				}
				p := build(t, "gavel-las", opts)
				s := snap(t, 0, nil, tc.servers, tc.jobs...)
				a := allocate(t, p, s)
				if !near(p.Objective(), tc.t, tol) {
					t.Errorf("aggregate %v: t = %.9g, want %.9g", agg, p.Objective(), tc.t)
				}
				if tc.want != nil && agg { // per job, B and C may split their types differently
					wantShares(t, a, tc.want, 1e-6)
				}
				// Every job reaches t: Σ_g c[j][g]·x[j][g] ≥ t (checked
				// through the throughput each job gets).
				if tc.name == "zero throughput" {
					if got := a.Fractions[2]["V100"]; !near(got, 1, 1e-6) {
						t.Errorf("fast job: V100 share %v, want 1", got)
					}
					if got := a.Fractions[1]["P100"]; got < 2.0/3-1e-6 {
						t.Errorf("zero job: P100 share %v, want ≥ 2/3", got)
					}
				}
			}
		})
	}
}

// On a homogeneous cluster gavel-las gives every job its equal split:
// 8 V100 on two servers of 4, 8 jobs of gangs 1–4 (n·d ≥ Σ N for all, so
// the shares are unique): all d_j·x_j equal, Σ d_j·x_j = 8, so
// d_j·x_j = 1 and x_j = 1/d_j, which is EqualShareThroughput(1/8)/T.
func TestLASHomogeneousEqualSplit(t *testing.T) {
	servers := []models.Server{{Type: "V100", GPUs: 4}, {Type: "V100", GPUs: 4}}
	gangs := []int{1, 1, 2, 2, 4, 4, 1, 2}
	var jobs []models.JobState
	for i, d := range gangs {
		jobs = append(jobs, job(i, float64(i), []string{"fast", "flat", "mid"}[i%3], d, 100))
	}
	for _, norm := range []string{"proportional", "equal-share"} {
		s := snap(t, 0, nil, servers, jobs...)
		a := allocate(t, build(t, "gavel-las", map[string]any{"normaliser": norm}), s)
		for i := range s.Jobs {
			j := &s.Jobs[i]
			tput := s.Throughput(&j.Job, "V100")
			want := s.EqualShareThroughput(&j.Job, 1/float64(len(jobs))) / tput
			if got := a.Fractions[j.ID]["V100"]; !near(got, want, 1e-7) || !near(got, 1/float64(j.Gang), 1e-7) {
				t.Errorf("%s: job %d (gang %d): x = %v, want the equal split %v", norm, j.ID, j.Gang, got, want)
			}
		}
	}
}

// gavel-las-agnostic on the comparative-advantage instance: every T is 1,
// so all three jobs are alike, P = (1 + 1)/2 = 1 and c = 1 on both types:
// max min (a_j + k_j) with 3 jobs on 2 GPUs → 2/3 of the time each,
// t = 2/3; the central solution, like the aggregated LP, gives each job
// 1/3 of each type.
func TestAgnostic(t *testing.T) {
	s := snap(t, 0, nil, oneV100OneK80, job(1, 0, "fast", 1, 100), job(2, 0, "flat", 1, 100), job(3, 0, "flat", 1, 100))
	p := build(t, "gavel-las-agnostic", nil)
	a := allocate(t, p, s)
	if !near(p.Objective(), 2.0/3, tol) {
		t.Errorf("t = %v, want 2/3", p.Objective())
	}
	third := map[string]float64{"V100": 1.0 / 3, "K80": 1.0 / 3}
	wantShares(t, a, map[models.JobID]map[string]float64{1: third, 2: third, 3: third}, 1e-7)

	// A K80-only job beside a flat one. The central LP is Gavel's: every T
	// is 1, also the K80-only job's on the V100, so both jobs get
	// c = (1, 1), t = 1 and, by symmetry, 1/2 of each type; the K80-only
	// job's V100 half is left out of the allocation (it cannot run there,
	// and Gavel's round mechanism never runs it there either).
	s = snap(t, 0, nil, oneV100OneK80, job(1, 0, "k80", 1, 100), job(2, 0, "flat", 1, 100))
	a = allocate(t, p, s)
	if !near(p.Objective(), 1, tol) {
		t.Errorf("k80 job: t = %v, want 1", p.Objective())
	}
	wantShares(t, a, map[models.JobID]map[string]float64{1: {"K80": 0.5}, 2: {"V100": 0.5, "K80": 0.5}}, 1e-7)

	// The vertex LP keeps T = 0 where a job cannot run: the K80-only job
	// gets ones (0, 1), P = 1/2 and c = (0, 2); the flat job P = 1,
	// c = (1, 1). The flat job reaches at most 1 (its time), so t = 1
	// (flat all V100, the K80 job k ∈ [1/2, 1] of the K80), and the
	// K80-only job never gets a V100.
	p = build(t, "gavel-las-agnostic", map[string]any{"solution": "vertex"})
	a = allocate(t, p, s)
	if !near(p.Objective(), 1, tol) {
		t.Errorf("vertex, k80 job: t = %v, want 1", p.Objective())
	}
	if a.Fractions[1]["V100"] != 0 {
		t.Errorf("vertex: the K80-only job got V100 time %v", a.Fractions[1]["V100"])
	}
}

// A decision whose LP is one the policy solved before reuses its solution:
// the same allocation, one LP solve counted, one reuse. A third decision
// with another LP (a job more) solves again.
func TestLASReusesASolvedLP(t *testing.T) {
	t.Parallel()
	p := build(t, "gavel-las", nil)
	jobs := []models.JobState{job(1, 0, "fast", 1, 100), job(2, 0, "flat", 1, 100)}
	first := allocate(t, p, snap(t, 0, nil, oneV100OneK80, jobs...))
	second := allocate(t, p, snap(t, 0, nil, oneV100OneK80, jobs...))
	if !reflect.DeepEqual(first, second) {
		t.Errorf("reused allocation %v, first %v", second, first)
	}
	allocate(t, p, snap(t, 0, nil, oneV100OneK80, append(jobs, job(3, 0, "flat", 1, 100))...))
	tally := p.(solvers.Reporter).Report().(*gavel.Tally)
	if tally.Decisions != 3 || tally.LPs != 2 || tally.Reused != 1 {
		t.Errorf("tally %+v, want 3 decisions, 2 LPs solved, 1 reused", tally)
	}
}

// A policy reuses its last allocation's maps at its next decision: each of
// a sequence of decisions (jobs arriving and leaving, classes growing and
// shrinking) equals what a fresh policy decides on the same snapshot, for
// every policy of the family.
func TestReusedAllocationsMatchFresh(t *testing.T) {
	servers := []models.Server{{Type: "V100", GPUs: 2}, {Type: "P100", GPUs: 1}, {Type: "K80", GPUs: 2}}
	all := []models.JobState{job(1, 0, "fast", 1, 100), job(2, 0, "flat", 1, 100), job(3, 0, "recsys", 2, 100),
		job(4, 0, "flat", 1, 100), job(5, 0, "fast", 1, 100), job(6, 0, "recsys", 1, 100)}
	steps := [][]int{{0, 1, 2}, {0, 1, 2, 3, 4}, {2, 3}, {1, 2, 3, 4, 5}, {5}, {0, 1, 2, 3, 4, 5}}
	for _, e := range gavel.Entries() {
		if e.Name == gavel.AlloXName { // whole GPUs, no time shares
			continue
		}
		p := build(t, e.Name, nil)
		for k, pick := range steps {
			var jobs []models.JobState
			for _, i := range pick {
				jobs = append(jobs, all[i])
			}
			s := snap(t, 360*float64(k), nil, servers, jobs...)
			got := allocate(t, p, s)
			want := allocate(t, build(t, e.Name, nil), s)
			if e.Name == gavel.HierarchicalName {
				// Its LPs start from the last decision's basis: the same
				// levels to the solver's tolerance, not bit for bit.
				wantShares(t, got, want.Fractions, 1e-3)
				continue
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, decision %d: %v after earlier decisions, %v from a fresh policy", e.Name, k, got, want)
			}
		}
	}
}
