package lp

import (
	"errors"
	"math"
	"testing"
	"time"
)

var inf = math.Inf(1)

// le, ge and eq build rows a·x ≤ b, a·x ≥ b and a·x = b from dense
// coefficients (zeros skipped).
func le(b float64, a ...float64) Row { return Row{Coefs: dense(a), Lower: -inf, Upper: b} }
func ge(b float64, a ...float64) Row { return Row{Coefs: dense(a), Lower: b, Upper: inf} }
func eq(b float64, a ...float64) Row { return Row{Coefs: dense(a), Lower: b, Upper: b} }

func dense(a []float64) []Term {
	var ts []Term
	for j, c := range a {
		if c != 0 {
			ts = append(ts, Term{Var: j, Coef: c})
		}
	}
	return ts
}

// nonneg is a variable x ≥ 0 with objective coefficient c.
func nonneg(c float64) Var { return Var{Lower: 0, Upper: inf, Obj: c} }

// integer is an integral variable in [lo, hi] with objective coefficient c.
func integer(lo, hi, c float64) Var { return Var{Lower: lo, Upper: hi, Obj: c, Integer: true} }

// knownCase is a problem with its answer worked out by hand.
type knownCase struct {
	name   string
	p      Problem
	status Status
	obj    float64   // checked when Optimal
	x      []float64 // checked when non-nil (the optimum is unique)
}

var knownCases = []knownCase{
	{
		// max 3x+2y s.t. x+y ≤ 4, x+3y ≤ 6, x ≤ 3, x,y ≥ 0.
		// Vertices (0,0)=0, (3,0)=9, (3,1)=11, (0,2)=4: x=3, y=1, obj 11.
		name: "textbook max",
		p: Problem{Sense: Maximize, Vars: []Var{nonneg(3), nonneg(2)},
			Rows: []Row{le(4, 1, 1), le(6, 1, 3), le(3, 1, 0)}},
		status: Optimal, obj: 11, x: []float64{3, 1},
	},
	{
		// max 5x+4y s.t. 6x+4y ≤ 24, x+2y ≤ 6, x,y ∈ ℤ≥0.
		// LP relaxation: x=3, y=1.5, obj 21 (fractional). Integer points on
		// the boundary: (4,0)=20, (3,1)=19, (2,2)=18; 5x+4y=20 has no other
		// feasible integer solution: x=4, y=0, obj 20.
		name: "mip fractional relaxation",
		p: Problem{Sense: Maximize, Vars: []Var{integer(0, inf, 5), integer(0, inf, 4)},
			Rows: []Row{le(24, 6, 4), le(6, 1, 2)}},
		status: Optimal, obj: 20, x: []float64{4, 0},
	},
	{
		// x+y ≤ 1 and x+y ≥ 2 contradict.
		name: "infeasible lp",
		p: Problem{Vars: []Var{nonneg(1), nonneg(1)},
			Rows: []Row{le(1, 1, 1), ge(2, 1, 1)}},
		status: Infeasible,
	},
	{
		// max x+y s.t. x−y ≤ 1: the ray (1,1) keeps feasibility.
		name: "unbounded lp",
		p: Problem{Sense: Maximize, Vars: []Var{nonneg(1), nonneg(1)},
			Rows: []Row{le(1, 1, -1)}},
		status: Unbounded,
	},
	{
		// min x+2y+3z s.t. x+y+z = 6, x−y = 0, x,y,z ≥ 0.
		// x=y, z=6−2x, obj = 3x+3(6−2x) = 18−3x, largest x=3:
		// x=y=3, z=0, obj 9.
		name: "equality rows",
		p: Problem{Vars: []Var{nonneg(1), nonneg(2), nonneg(3)},
			Rows: []Row{eq(6, 1, 1, 1), eq(0, 1, -1, 0)}},
		status: Optimal, obj: 9, x: []float64{3, 3, 0},
	},
	{
		// min x+y s.t. x+2y ≥ −4, x ∈ [−3,5], y ∈ [−2,5].
		// On x+2y = −4: obj = −4−y, growing y until x = −4−2y hits −3:
		// y = −0.5, x = −3, obj −3.5 (the corner y=−2, x=0 gives −2).
		name: "negative lower bounds",
		p: Problem{Vars: []Var{{Lower: -3, Upper: 5, Obj: 1}, {Lower: -2, Upper: 5, Obj: 1}},
			Rows: []Row{ge(-4, 1, 2)}},
		status: Optimal, obj: -3.5, x: []float64{-3, -0.5},
	},
	{
		// x, y free; min 2x+y s.t. x−y = 1, x+y ≥ 3.
		// y = x−1, 2x−1 ≥ 3 ⇒ x ≥ 2, obj = 3x−1: x=2, y=1, obj 5.
		name: "free variables",
		p: Problem{Vars: []Var{{Lower: -inf, Upper: inf, Obj: 2}, {Lower: -inf, Upper: inf, Obj: 1}},
			Rows: []Row{eq(1, 1, -1), ge(3, 1, 1)}},
		status: Optimal, obj: 5, x: []float64{2, 1},
	},
	{
		// max −x s.t. x ≥ −4 (a row), x free: x = −4, obj 4.
		name: "free variable negative optimum",
		p: Problem{Sense: Maximize, Vars: []Var{{Lower: -inf, Upper: inf, Obj: -1}},
			Rows: []Row{ge(-4, 1)}},
		status: Optimal, obj: 4, x: []float64{-4},
	},
	{
		// max x+y, x ≤ 2 and y ≤ −1 (upper bounds only), x−y ≤ 10 (slack):
		// x=2, y=−1, obj 1.
		name: "upper bounds only",
		p: Problem{Sense: Maximize, Vars: []Var{{Lower: -inf, Upper: 2, Obj: 1}, {Lower: -inf, Upper: -1, Obj: 1}},
			Rows: []Row{le(10, 1, -1)}},
		status: Optimal, obj: 1, x: []float64{2, -1},
	},
	{
		// max x+2y s.t. 2 ≤ x+y ≤ 4 (a range), x,y ∈ [0,3]:
		// y=3, x=1, obj 7 (x=3, y=1 gives 5).
		name: "range row",
		p: Problem{Sense: Maximize, Vars: []Var{{Upper: 3, Obj: 1}, {Upper: 3, Obj: 2}},
			Rows: []Row{{Coefs: dense([]float64{1, 1}), Lower: 2, Upper: 4}}},
		status: Optimal, obj: 7, x: []float64{1, 3},
	},
	{
		// min x+y s.t. x ≥ 1, y ∈ [2,5] in no row: x=1, y=2, obj 3.
		name: "variable in no row",
		p: Problem{Vars: []Var{nonneg(1), {Lower: 2, Upper: 5, Obj: 1}},
			Rows: []Row{ge(1, 1, 0)}},
		status: Optimal, obj: 3, x: []float64{1, 2},
	},
	{
		// min x−y, y ≥ 0 in no row and unbounded above: unbounded.
		name: "unbounded variable in no row",
		p: Problem{Vars: []Var{nonneg(1), nonneg(-1)},
			Rows: []Row{ge(1, 1, 0)}},
		status: Unbounded,
	},
	{
		// min x−y s.t. x+y = 2 and 2x+2y = 4 (redundant), x,y ≥ 0:
		// y=2, x=0, obj −2.
		name: "redundant equalities",
		p: Problem{Vars: []Var{nonneg(1), nonneg(-1)},
			Rows: []Row{eq(2, 1, 1), eq(4, 2, 2)}},
		status: Optimal, obj: -2, x: []float64{0, 2},
	},
	{
		// x+y = 2 and 2x+2y = 5 are parallel and inconsistent.
		name: "inconsistent dependent equalities",
		p: Problem{Vars: []Var{nonneg(1), nonneg(-1)},
			Rows: []Row{eq(2, 1, 1), eq(5, 2, 2)}},
		status: Infeasible,
	},
	{
		// y − x ≥ 1 with x fixed at 2: y = 3, obj 3.
		name: "fixed variable",
		p: Problem{Vars: []Var{{Lower: 2, Upper: 2}, nonneg(1)},
			Rows: []Row{ge(1, -1, 1)}},
		status: Optimal, obj: 3, x: []float64{2, 3},
	},
	{
		// 2x+2y = 3 has no integer solution (LP feasible: x=1.5).
		name: "integer infeasible",
		p: Problem{Vars: []Var{integer(0, 5, 1), integer(0, 5, 0)},
			Rows: []Row{eq(3, 2, 2)}},
		status: Infeasible,
	},
	{
		// min x+y s.t. 3x−2y = 1, x,y ∈ ℤ∩[−5,5].
		// Solutions x = 1+2k, y = 1+3k: k=0 → 2, k=−1 → −3, k=−2 → (−3,−5) = −8,
		// k=−3 → y=−8 out of range: x=−3, y=−5, obj −8.
		name: "mip negative integers",
		p: Problem{Vars: []Var{integer(-5, 5, 1), integer(-5, 5, 1)},
			Rows: []Row{eq(1, 3, -2)}},
		status: Optimal, obj: -8, x: []float64{-3, -5},
	},
	{
		// max x+2y, x ∈ ℤ∩[0,10], y ∈ [0,1.2] continuous, x+y ≤ 3.5.
		// LP: y=1.2, x=2.3; with x integral: x=2, y=1.2, obj 4.4 (x=3,
		// y=0.5 gives 4).
		name: "mixed integer",
		p: Problem{Sense: Maximize, Vars: []Var{integer(0, 10, 1), {Upper: 1.2, Obj: 2}},
			Rows: []Row{le(3.5, 1, 1)}},
		status: Optimal, obj: 4.4, x: []float64{2, 1.2},
	},
	{
		// max x s.t. x−2y ≤ 0.5, x,y ∈ ℤ≥0: the relaxation is unbounded.
		name: "mip unbounded",
		p: Problem{Sense: Maximize, Vars: []Var{integer(0, inf, 1), integer(0, inf, 0)},
			Rows: []Row{le(0.5, 1, -2)}},
		status: Unbounded,
	},
	{
		// Integer variable with fractional bounds [0.5, 2.5]: x ∈ {1, 2};
		// max x: 2.
		name: "fractional integer bounds",
		p: Problem{Sense: Maximize, Vars: []Var{integer(0.5, 2.5, 1)},
			Rows: []Row{le(10, 1)}},
		status: Optimal, obj: 2, x: []float64{2},
	},
	{
		// Repeated terms are summed: x + x ≤ 4 is 2x ≤ 4; max x: 2.
		name: "repeated terms",
		p: Problem{Sense: Maximize, Vars: []Var{nonneg(1)},
			Rows: []Row{{Coefs: []Term{{0, 1}, {0, 1}}, Lower: -inf, Upper: 4}}},
		status: Optimal, obj: 2, x: []float64{2},
	},
	{
		// A row with both bounds infinite constrains nothing: min x, x ≥ 1.
		name: "free row",
		p: Problem{Vars: []Var{{Lower: 1, Upper: inf, Obj: 1}},
			Rows: []Row{{Coefs: dense([]float64{1}), Lower: -inf, Upper: inf}}},
		status: Optimal, obj: 1, x: []float64{1},
	},
	{
		name:   "no variables",
		p:      Problem{Rows: []Row{{Lower: -1, Upper: 1}}},
		status: Optimal, obj: 0, x: []float64{},
	},
	{
		name:   "no variables infeasible",
		p:      Problem{Rows: []Row{{Lower: 1, Upper: 2}}},
		status: Infeasible,
	},
}

func TestKnownAnswers(t *testing.T) {
	for _, s := range backends() {
		for _, kc := range knownCases {
			t.Run(s.Name()+"/"+kc.name, func(t *testing.T) {
				res, err := s.Solve(&kc.p, Options{})
				if res.Status != kc.status {
					t.Fatalf("status %v (err %v), want %v", res.Status, err, kc.status)
				}
				checkErr(t, res.Status, err)
				switch kc.status {
				case Optimal:
					if math.Abs(res.Objective-kc.obj) > 1e-7*math.Max(1, math.Abs(kc.obj)) {
						t.Errorf("objective %v, want %v", res.Objective, kc.obj)
					}
					if kc.x != nil {
						if len(res.X) != len(kc.x) {
							t.Fatalf("x = %v, want %v", res.X, kc.x)
						}
						for j := range kc.x {
							if math.Abs(res.X[j]-kc.x[j]) > 1e-7 {
								t.Errorf("x = %v, want %v", res.X, kc.x)
								break
							}
						}
					}
					for j, v := range kc.p.Vars {
						if v.Integer && res.X[j] != math.Round(res.X[j]) {
							t.Errorf("integer x[%d] = %v not rounded", j, res.X[j])
						}
					}
				case Unbounded:
					if want := math.Inf(-int(kc.p.Sense.sign())); res.Objective != want {
						t.Errorf("objective %v, want %v", res.Objective, want)
					}
				default:
					if !math.IsNaN(res.Objective) || res.X != nil {
						t.Errorf("objective %v, x %v; want NaN, nil", res.Objective, res.X)
					}
				}
			})
		}
	}
}

// checkErr asserts the error contract: nil exactly when Optimal, else the
// status's sentinel.
func checkErr(t *testing.T, st Status, err error) {
	t.Helper()
	want := map[Status]error{Infeasible: ErrInfeasible, Unbounded: ErrUnbounded, LimitReached: ErrLimit, Error: ErrSolver}[st]
	switch {
	case st == Optimal && err != nil:
		t.Errorf("optimal with error %v", err)
	case st != Optimal && !errors.Is(err, want):
		t.Errorf("status %v with error %v, want errors.Is %v", st, err, want)
	}
}

// hardMIP is a market-split instance (Cornuéjols and Dawande, 1999):
// equality knapsack rows Σ_j a_ij·x_j + s⁺_i − s⁻_i = ⌊Σ_j a_ij / 2⌋ over
// binary x, minimising the total slack. LP-based branch and bound needs very
// many nodes for it, which is what the limit tests want.
func hardMIP() *Problem {
	const m, n = 4, 30
	p := &Problem{}
	for range n {
		p.Vars = append(p.Vars, integer(0, 1, 0))
	}
	seed := uint32(12345)
	for range m {
		r := Row{}
		sum := 0.0
		for j := range n {
			seed = seed*1664525 + 1013904223
			a := float64(seed>>16) / 65536 * 100
			a = math.Floor(a)
			r.Coefs = append(r.Coefs, Term{Var: j, Coef: a})
			sum += a
		}
		p.Vars = append(p.Vars, nonneg(1), nonneg(1))
		r.Coefs = append(r.Coefs, Term{Var: len(p.Vars) - 2, Coef: 1}, Term{Var: len(p.Vars) - 1, Coef: -1})
		r.Lower = math.Floor(sum / 2)
		r.Upper = r.Lower
		p.Rows = append(p.Rows, r)
	}
	return p
}

func TestLimits(t *testing.T) {
	for _, s := range backends() {
		t.Run(s.Name()+"/nodes", func(t *testing.T) {
			p := hardMIP()
			res, err := s.Solve(p, Options{NodeLimit: 5})
			if res.Status != LimitReached {
				t.Fatalf("status %v (%v), want limit reached", res.Status, err)
			}
			checkErr(t, res.Status, err)
			if res.X != nil {
				if err := checkFeasible(p, p.mergedRows(), res.X); err != nil {
					t.Errorf("incumbent: %v", err)
				}
				if got := p.objectiveOf(res.X); got != res.Objective {
					t.Errorf("objective %v, incumbent's %v", res.Objective, got)
				}
			}
		})
		t.Run(s.Name()+"/time", func(t *testing.T) {
			res, err := s.Solve(hardMIP(), Options{TimeLimit: time.Nanosecond})
			if res.Status != LimitReached {
				t.Fatalf("status %v (%v), want limit reached", res.Status, err)
			}
			checkErr(t, res.Status, err)
		})
	}
}

func TestPureNodeLimitExact(t *testing.T) {
	res, err := Pure{}.Solve(hardMIP(), Options{NodeLimit: 1})
	if res.Status != LimitReached || !errors.Is(err, ErrLimit) {
		t.Fatalf("status %v (%v), want limit reached after one node", res.Status, err)
	}
}

func TestDefaultAndBackend(t *testing.T) {
	if Default() == nil || Backend() == "" {
		t.Fatal("no default backend")
	}
	t.Logf("default %s: %s", Default().Name(), Backend())
}
