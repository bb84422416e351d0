package gavel_test

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"fairbench/models"
	"fairbench/solvers/gavel"
	"fairbench/solvers/lp"
)

// gavel-hierarchical on flat jobs (1 step/s on the V100), gang 1, so that
// P = T·N/N = 1 and n_j(x) = x_j, σ = 1.
func TestHierarchical(t *testing.T) {
	for _, tc := range []struct {
		name    string
		gpus    int
		users   []models.User
		jobs    []models.JobState
		want    map[models.JobID]float64 // V100 share
		t       float64                  // the first level
		userGPU map[string]float64       // Σ d·x per user
	}{{
		// 2 V100, X (weight 1) with one job, Y (weight 1) with three.
		// n_j = x_j. Weights: X's job 1, Y's jobs 1/3 each.
		// max t: x_1 ≥ t, x_k ≥ t/3; capacity t + 3·t/3 = 2t ≤ 2 → t = 1,
		// x_1 = 1, x_k = 1/3; the V100s are full, so every job is
		// saturated. One GPU per user (gavel-las would give every job 1/2:
		// user Y three times X).
		name:  "users first",
		gpus:  2,
		users: []models.User{{Name: "X", Weight: 1}, {Name: "Y", Weight: 1}},
		jobs: []models.JobState{owner(job(1, 0, "flat", 1, 100), "X"), owner(job(2, 0, "flat", 1, 100), "Y"),
			owner(job(3, 0, "flat", 1, 100), "Y"), owner(job(4, 0, "flat", 1, 100), "Y")},
		want:    map[models.JobID]float64{1: 1, 2: 1.0 / 3, 3: 1.0 / 3, 4: 1.0 / 3},
		t:       1,
		userGPU: map[string]float64{"X": 1, "Y": 1},
	}, {
		// 3 V100, X weight 2 and Y weight 1, two jobs each. n_j = x_j;
		// weights X's jobs 2/2 = 1, Y's 1/2. x = t, y = t/2; capacity
		// 2·t + 2·t/2 = 3t ≤ 3 → t = 1, x = 1, y = 1/2: X holds 2 GPUs,
		// Y 1 (2 : 1).
		name:  "user weights",
		gpus:  3,
		users: []models.User{{Name: "X", Weight: 2}, {Name: "Y", Weight: 1}},
		jobs: []models.JobState{owner(job(1, 0, "flat", 1, 100), "X"), owner(job(2, 0, "flat", 1, 100), "X"),
			owner(job(3, 0, "flat", 1, 100), "Y"), owner(job(4, 0, "flat", 1, 100), "Y")},
		want:    map[models.JobID]float64{1: 1, 2: 1, 3: 0.5, 4: 0.5},
		t:       1,
		userGPU: map[string]float64{"X": 2, "Y": 1},
	}, {
		// Water filling over two iterations. 4 V100, X (weight 1) with
		// one job, Y (weight 1) with two. n_j = x_j. Weights:
		// X's job 1, Y's 1/2 each. Iteration 1: x_1 ≥ t, y ≥ t/2 and
		// x_1 ≤ 1 → t = 1, x_1 = 1 (saturated: no time left), y = 1/2 with
		// 2 GPUs free. Iteration 2: Y's jobs rise to their time limit,
		// y = 1, with one GPU left idle — every job is then saturated
		// (Pareto efficient).
		name:  "two levels",
		gpus:  4,
		users: []models.User{{Name: "X", Weight: 1}, {Name: "Y", Weight: 1}},
		jobs: []models.JobState{owner(job(1, 0, "flat", 1, 100), "X"), owner(job(2, 0, "flat", 1, 100), "Y"),
			owner(job(3, 0, "flat", 1, 100), "Y")},
		want:    map[models.JobID]float64{1: 1, 2: 1, 3: 1},
		t:       1,
		userGPU: map[string]float64{"X": 1, "Y": 2},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			for _, agg := range []bool{true, false} {
				p := build(t, "gavel-hierarchical", map[string]any{"aggregate": agg})
				s := snap(t, 0, tc.users, []models.Server{{Type: "V100", GPUs: tc.gpus}}, tc.jobs...)
				a := allocate(t, p, s)
				if !near(p.Objective(), tc.t, tol) {
					t.Errorf("aggregate %v: first level %.9g, want %.9g", agg, p.Objective(), tc.t)
				}
				got := map[string]float64{}
				for id, w := range tc.want {
					x := a.Fractions[id]["V100"]
					j, _ := s.Job(id)
					got[j.User] += float64(j.Gang) * x
					if !near(x, w, 1e-6) {
						t.Errorf("aggregate %v: job %d: x = %.9g, want %.9g", agg, id, x, w)
					}
				}
				for u, w := range tc.userGPU {
					if !near(got[u], w, 1e-6) {
						t.Errorf("aggregate %v: user %s holds %.9g GPUs, want %v", agg, u, got[u], w)
					}
				}
			}
		})
	}
}

func TestHierarchicalUnknownUser(t *testing.T) {
	s := snap(t, 0, nil, []models.Server{{Type: "V100", GPUs: 1}}, owner(job(1, 0, "flat", 1, 1), "nobody"))
	if _, err := build(t, "gavel-hierarchical", nil).Allocate(s); err == nil {
		t.Fatal("a job of an unknown user was accepted")
	}
}

// gavel-hierarchical is Pareto efficient up to its slack: no job's
// normalised throughput n_j = Σ_g T[j][g]·x[j][g] / P_j can rise by more than
// (n + 1)·slack (relative) with every other job kept at its own. Checked on
// random instances with one LP per job: maximise n_j subject to the shared
// constraints and n_k ≥ n_k(x)·(1 − 1e-9) for k ≠ j. (gavel-las, one LP,
// is not: its optimum leaves room on some instances, which this test finds.)
func TestHierarchicalParetoEfficient(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	lasGap := false
	for k := 0; k < 60; k++ {
		s := randomSnapshot(t, r)
		if len(s.Jobs) == 0 {
			continue
		}
		a := allocate(t, build(t, "gavel-hierarchical", nil), s)
		n := float64(len(s.Jobs))
		gap := paretoGap(t, s, a)
		if gap > (n+1)*gavel.DefaultSlack+1e-7 {
			t.Errorf("instance %d: a job can gain %.3g relative; want at most %.3g", k, gap, (n+1)*gavel.DefaultSlack)
		}
		if paretoGap(t, s, allocate(t, build(t, "gavel-las", nil), s)) > 1e-3 {
			lasGap = true
		}
	}
	if !lasGap {
		t.Error("gavel-las was Pareto efficient on every instance: the check is too weak")
	}
}

// paretoGap is the largest relative gain of one job's normalised throughput
// that keeps every other job's (see TestHierarchicalParetoEfficient).
func paretoGap(t *testing.T, s *models.Snapshot, a models.Allocation) float64 {
	t.Helper()
	types := s.Cluster.TypeNames()
	total := 0.0
	for _, g := range types {
		total += float64(s.Cluster.Capacity(g))
	}
	norm := make([]float64, len(s.Jobs))
	have := make([]float64, len(s.Jobs))
	for i := range s.Jobs {
		j := &s.Jobs[i]
		p := 0.0
		for _, g := range types {
			p += s.Throughput(&j.Job, g) * float64(s.Cluster.Capacity(g))
			have[i] += s.Throughput(&j.Job, g) * a.Fractions[j.ID][g]
		}
		norm[i] = p / math.Max(total, float64(len(s.Jobs)))
		have[i] /= norm[i]
	}
	worst := 0.0
	for i := range s.Jobs {
		p := &lp.Problem{Sense: lp.Maximize}
		caps := make([]lp.Row, len(types))
		for g, name := range types {
			caps[g] = lp.Row{Lower: math.Inf(-1), Upper: float64(s.Cluster.Capacity(name))}
		}
		for k := range s.Jobs {
			j := &s.Jobs[k]
			time := lp.Row{Lower: math.Inf(-1), Upper: 1}
			level := lp.Row{Lower: have[k] * (1 - 1e-9), Upper: math.Inf(1)}
			for g, name := range types {
				tput := s.Throughput(&j.Job, name)
				if tput <= 0 {
					continue
				}
				v := len(p.Vars)
				obj := 0.0
				if k == i {
					obj = tput / norm[k]
				}
				p.Vars = append(p.Vars, lp.Var{Upper: 1, Obj: obj})
				time.Coefs = append(time.Coefs, lp.Term{Var: v, Coef: 1})
				level.Coefs = append(level.Coefs, lp.Term{Var: v, Coef: tput / norm[k]})
				caps[g].Coefs = append(caps[g].Coefs, lp.Term{Var: v, Coef: float64(j.Gang)})
			}
			p.Rows = append(p.Rows, time)
			if k != i {
				p.Rows = append(p.Rows, level)
			}
		}
		p.Rows = append(p.Rows, caps...)
		res, err := lp.Default().Solve(p, lp.Options{})
		if err != nil {
			t.Fatal(err)
		}
		worst = math.Max(worst, res.Objective/have[i]-1)
	}
	return worst
}

// coldSolver is a backend that ignores warm starts (lp.Options.Warm).
type coldSolver struct{ lp.Solver }

func (s coldSolver) Solve(p *lp.Problem, o lp.Options) (lp.Result, error) {
	o.Warm = nil
	return s.Solver.Solve(p, o)
}

// The water filling starts each LP from the last one's simplex basis, and
// a decision's first LP from the last decision's (carried by class), so the
// vertex each LP lands on depends on that path; the water levels do not:
// they are the max-min levels, unique up to the solver's tolerance. On
// random instances, a policy that decided every instance before (the
// carried basis) and one that solves every LP from scratch give every job
// the same normalised throughput n_j = Σ_g T[j][g]·x[j][g] / P_j to 1e-6
// (relative), with either solution; and a decision is deterministic: the
// same snapshot to a fresh policy gives the same allocation, bit for bit.
func TestHierarchicalLevelsIndependentOfPath(t *testing.T) {
	if lp.Default().Name() == (lp.Pure{}).Name() {
		t.Skip("built without the coin backend (the pure-Go one ignores warm starts)")
	}
	r := rand.New(rand.NewPCG(7, 8))
	for _, sol := range []string{gavel.SolutionCentral, gavel.SolutionVertex} {
		warm := build(t, gavel.HierarchicalName, map[string]any{"solution": sol})
		for k := 0; k < 150; k++ {
			s := randomSnapshot(t, r)
			if len(s.Jobs) == 0 {
				continue
			}
			cold := build(t, gavel.HierarchicalName, map[string]any{"solution": sol})
			gavel.SetBackend(cold, coldSolver{lp.Default()})
			a, b := allocate(t, warm, s), allocate(t, cold, s)
			if !near(warm.Objective(), cold.Objective(), 1e-6) {
				t.Errorf("instance %d (%s): objective %v from the carried bases, %v cold", k, sol, warm.Objective(), cold.Objective())
			}
			na, nb := normalised(s, a), normalised(s, b)
			for i := range s.Jobs {
				if !near(na[i], nb[i], 1e-6) {
					t.Errorf("instance %d (%s): job %d at %.9g from the carried bases, %.9g cold", k, sol, s.Jobs[i].ID, na[i], nb[i])
				}
			}
			again := build(t, gavel.HierarchicalName, map[string]any{"solution": sol})
			first := allocate(t, build(t, gavel.HierarchicalName, map[string]any{"solution": sol}), s)
			if second := allocate(t, again, s); !reflect.DeepEqual(first, second) {
				t.Errorf("instance %d (%s): two fresh policies disagree: %v, %v", k, sol, first, second)
			}
		}
	}
}

// normalised is every job's n_j under a, with Gavel's proportional P_j.
func normalised(s *models.Snapshot, a models.Allocation) []float64 {
	types := s.Cluster.TypeNames()
	total := 0.0
	for _, g := range types {
		total += float64(s.Cluster.Capacity(g))
	}
	out := make([]float64, len(s.Jobs))
	for i := range s.Jobs {
		j := &s.Jobs[i]
		p, have := 0.0, 0.0
		for _, g := range types {
			p += s.Throughput(&j.Job, g) * float64(s.Cluster.Capacity(g))
			have += s.Throughput(&j.Job, g) * a.Fractions[j.ID][g]
		}
		out[i] = have / (p / total)
	}
	return out
}
