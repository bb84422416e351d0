package gavel_test

import (
	"errors"
	"strings"
	"testing"

	"fairbench/models"
	"fairbench/solvers/gavel"
	"fairbench/solvers/lp"
)

var names = []string{"gavel-las", "gavel-las-agnostic", "gavel-ftf", "gavel-makespan", "gavel-max-throughput",
	"gavel-hierarchical", "gavel-las-ss"}

// A job that no GPU type of the cluster can run is refused with an error
// that names the job, its type and gang, and each GPU type with the reason;
// a missing figure is named by its full key. A figure missing on some types
// only is not an error.
func TestUnrunnable(t *testing.T) {
	for _, tc := range []struct {
		name    string
		servers []models.Server
		types   map[string]models.JobType
		job     models.JobState
		want    []string // substrings of the message
		missing []string // GPU types reported as missing a figure
	}{{
		name:    "no figures",
		servers: []models.Server{{Type: "V100", GPUs: 4}, {Type: "K80", GPUs: 8}},
		job:     job(7, 0, "ghost", 1, 100),
		want: []string{`job 7 of type "ghost" at gang 1 cannot run on any GPU type`,
			"V100: the throughput matrix has no figure for ghost on 1×V100 (consolidated)",
			"K80: the throughput matrix has no figure for ghost on 1×K80 (consolidated)"},
		missing: []string{"V100", "K80"},
	}, {
		name:    "measured elsewhere only",
		servers: []models.Server{{Type: "V100", GPUs: 2}, {Type: "V100", GPUs: 2}, {Type: "P100", GPUs: 4}},
		job:     job(3, 0, "k80", 4, 100),
		want: []string{`job 3 of type "k80" at gang 4`,
			"V100: the throughput matrix has no figure for k80 on 4×V100 (spread)",
			"P100: the throughput matrix has no figure for k80 on 4×P100 (consolidated)"},
		missing: []string{"V100", "P100"},
	}, {
		name:    "measured 0, too big, too much memory",
		servers: []models.Server{{Type: "V100", GPUs: 2}, {Type: "P100", GPUs: 4}},
		types:   map[string]models.JobType{"zero": {Name: "zero", MemoryGB: 20}},
		job:     job(1, 0, "zero", 4, 100),
		want: []string{"V100: gang 4 > 2 GPUs of this type",
			"P100: needs 20 GB per worker, a P100 has 16 GB"},
	}, {
		name:    "measured 0",
		servers: []models.Server{{Type: "V100", GPUs: 2}},
		job:     job(1, 0, "zero", 1, 100),
		want:    []string{"V100: measured throughput 0 for zero on 1×V100 (consolidated)"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			for _, n := range names {
				s := snap(t, 0, nil, tc.servers, job(1000, 0, "flat", 1, 100), tc.job)
				if tc.types != nil {
					s.JobTypes = tc.types
				}
				a, err := build(t, n, nil).Allocate(s)
				var ue *gavel.UnrunnableError
				if !errors.As(err, &ue) || !errors.Is(err, gavel.ErrUnrunnable) {
					t.Fatalf("%s: error %v (allocation %v), want an *UnrunnableError", n, err, a)
				}
				if a.Fractional() {
					t.Errorf("%s: allocation %v returned with the error", n, a)
				}
				msg := err.Error()
				if !strings.HasPrefix(msg, n+": ") {
					t.Errorf("%s: message %q does not name the policy", n, msg)
				}
				for _, w := range tc.want {
					if !strings.Contains(msg, w) {
						t.Errorf("%s: message %q lacks %q", n, msg, w)
					}
				}
				var missing []string
				for _, r := range ue.Reasons {
					if r.Missing {
						missing = append(missing, r.GPU)
					}
				}
				if strings.Join(missing, ",") != strings.Join(tc.missing, ",") {
					t.Errorf("%s: missing figures on %v, want %v", n, missing, tc.missing)
				}
			}
		})
	}
	// Missing on the V100 only: the job runs on the K80.
	for _, n := range names {
		s := snap(t, 0, nil, oneV100OneK80, job(1, 0, "k80", 1, 100), job(2, 0, "flat", 1, 100))
		a := allocate(t, build(t, n, nil), s)
		if share(a, 1, "V100") != 0 {
			t.Errorf("%s: the K80-only job got V100 time", n)
		}
	}
}

// limitSolver reports the time limit on solve number at (counting from 1)
// and solves the others with lp.Pure.
type limitSolver struct{ at, n int }

func (l *limitSolver) Name() string { return "limit" }

func (l *limitSolver) Solve(p *lp.Problem, o lp.Options) (lp.Result, error) {
	l.n++
	if l.n == l.at {
		return lp.Result{Status: lp.LimitReached}, lp.ErrLimit
	}
	return lp.Pure{}.Solve(p, o)
}

// A solver that hits its time limit gives a *LimitError that matches
// lp.ErrLimit, and no allocation: at the first solve for every policy, and
// midway for those that solve several LPs (gavel-ftf bisects,
// gavel-hierarchical fills in levels).
func TestTimeLimit(t *testing.T) {
	s := snap(t, 1000, []models.User{{Name: "u", Weight: 1}, {Name: "v", Weight: 2}}, oneV100OneK80,
		job(1, 0, "fast", 1, 4000), owner(job(2, 1000, "flat", 1, 1000), "v"), job(3, 500, "mid", 1, 300))
	check := func(n string, a models.Allocation, err error, solves int) {
		t.Helper()
		var le *gavel.LimitError
		if !errors.As(err, &le) || !errors.Is(err, lp.ErrLimit) {
			t.Fatalf("%s: error %v, want a *LimitError matching lp.ErrLimit", n, err)
		}
		if a.Fractional() || len(a.Run) > 0 {
			t.Errorf("%s: allocation %v returned with the error", n, a)
		}
		if le.Solves != solves || !strings.HasPrefix(err.Error(), n+": solver time limit") {
			t.Errorf("%s: %v after %d solves, want %d", n, err, le.Solves, solves)
		}
	}
	for _, n := range names {
		p := build(t, n, map[string]any{"time_limit": "1ns"})
		a, err := p.Allocate(s)
		check(n, a, err, 1)

		p = build(t, n, map[string]any{"solution": "vertex"})
		gavel.SetBackend(p, &limitSolver{at: 1})
		a, err = p.Allocate(s)
		check(n, a, err, 1)
	}
	for _, n := range []string{"gavel-ftf", "gavel-hierarchical"} {
		p := build(t, n, nil)
		gavel.SetBackend(p, &limitSolver{at: 2})
		a, err := p.Allocate(s)
		check(n, a, err, 2)
	}
}

// CLP itself stops at the limit: Gavel's per-job LP for 3,000 jobs takes CLP
// far longer than 20 ms, and the limit is passed down to it.
func TestTimeLimitInsideCLP(t *testing.T) {
	if lp.Default().Name() == (lp.Pure{}).Name() {
		t.Skip("the pure-Go backend cannot stop inside one LP solve")
	}
	servers := []models.Server{}
	for _, g := range []string{"V100", "P100", "K80"} {
		for k := 0; k < 100; k++ {
			servers = append(servers, models.Server{Type: g, GPUs: 8})
		}
	}
	var jobs []models.JobState
	types := []string{"fast", "mid", "flat", "recsys"}
	for i := 0; i < 3000; i++ {
		jobs = append(jobs, weighted(job(i, 0, types[i%4], 1+i%8, 100), float64(1+i%7)))
	}
	s := snap(t, 0, nil, servers, jobs...)
	p := build(t, "gavel-las", map[string]any{"aggregate": false, "time_limit": "20ms"})
	_, err := p.Allocate(s)
	var le *gavel.LimitError
	if !errors.As(err, &le) || !errors.Is(err, lp.ErrLimit) {
		t.Fatalf("error %v, want a *LimitError", err)
	}
	t.Log(err)
}

// noisySolver calls every LP after the first at solves infeasible, as CLP
// did once on a nearly tight water-filling LP
// (BenchmarkSimulatePolicies/gavel-hierarchical, round 2142).
type noisySolver struct{ from, n int }

func (l *noisySolver) Name() string { return "noisy" }

func (l *noisySolver) Solve(p *lp.Problem, o lp.Options) (lp.Result, error) {
	l.n++
	if l.n > l.from {
		return lp.Result{Status: lp.Infeasible}, lp.ErrInfeasible
	}
	return lp.Pure{}.Solve(p, o)
}

// Every LP of gavel-hierarchical's water filling is feasible in exact
// arithmetic; one the solver calls infeasible ends the water filling with the
// allocation reached, a feasible one, instead of failing the decision.
func TestHierarchicalSurvivesNoise(t *testing.T) {
	s := snap(t, 1000, []models.User{{Name: "u", Weight: 1}, {Name: "v", Weight: 2}}, oneV100OneK80,
		job(1, 0, "fast", 1, 4000), owner(job(2, 1000, "flat", 1, 1000), "v"), job(3, 500, "mid", 1, 300))
	for from := 1; from <= 4; from++ {
		p := build(t, "gavel-hierarchical", map[string]any{"solution": "vertex"})
		gavel.SetBackend(p, &noisySolver{from: from})
		a, err := p.Allocate(s)
		if err != nil {
			t.Fatalf("noise after %d solves: %v", from, err)
		}
		if err := models.Feasible(s, a); err != nil {
			t.Fatalf("noise after %d solves: %v", from, err)
		}
		if !a.Fractional() {
			t.Errorf("noise after %d solves: no allocation", from)
		}
	}
}
