package lp

import (
	"math"
	"testing"
)

// regressions are problems that random testing caught the backends getting
// wrong (all found by the properties in random_test.go and
// crosscheck_test.go, mostly in COIN-OR CBC 2.10.8 / CLP 1.17.6). The
// expected answers are the pure-Go backend's, confirmed by enumeration for
// the all-integer ones. Every backend of the build must get them right.
var regressions = []knownCase{
	// CBC 2.10.8's preprocessing (CglPreProcess with probing) fixed every
	// variable and reported the feasible point 44 as proven optimal; the
	// optimum is 33. Switched off in cbcSafeParams.
	{name: "cbc preprocess fixes optimum away", status: Optimal, obj: 33,
		p: Problem{
			Vars: []Var{
				{Lower: 0, Upper: 0, Obj: 3, Integer: true},
				{Lower: -4, Upper: 1, Obj: -3, Integer: true},
				{Lower: 0, Upper: 4, Obj: 4, Integer: true},
				{Lower: 5, Upper: 12, Obj: 2, Integer: true},
				{Lower: -4, Upper: 3, Obj: 1, Integer: true},
				{Lower: 0, Upper: 2, Obj: 0, Integer: true},
				{Lower: 4, Upper: 9, Obj: 2, Integer: true},
			},
			Rows: []Row{
				{Lower: -27, Upper: -27, Coefs: []Term{{2, 1}, {3, -4}, {5, -3}}},
				{Lower: -34, Upper: -34, Coefs: []Term{{0, 1}, {3, -4}, {5, 1}, {6, -1}}},
				{Lower: -inf, Upper: inf, Coefs: []Term{{0, -3}, {1, -4}, {2, 0.5}, {3, 2}, {4, 2}}},
				{Lower: -16.5, Upper: -14, Coefs: []Term{{0, -4}, {1, -2}, {3, -1}, {4, -4}, {5, 1}, {6, -1.5}}},
				{Lower: -inf, Upper: 4.15, Coefs: []Term{{0, -4}, {2, 1}}},
				{Lower: 2, Upper: 3.37, Coefs: []Term{{0, -4}, {1, -1.5}, {2, 1}, {4, 1}, {5, -2}}},
			},
		}},
	// With preprocessing off, CBC's probing cut generator (CglProbing) on
	// general integers cut off the optimum −5 and reported −3 as proven
	// optimal (coin-or/Cbc issue #293).
	{name: "cbc probing cuts off optimum", status: Optimal, obj: -5,
		p: Problem{
			Vars: []Var{
				{Lower: -1, Upper: 1, Obj: -2, Integer: true},
				{Lower: 4, Upper: 10, Obj: 3, Integer: true},
				{Lower: -4, Upper: -1, Obj: 3, Integer: true},
				{Lower: -2, Upper: 0, Obj: 3, Integer: true},
			},
			Rows: []Row{
				{Lower: -12.65, Upper: -7.93, Coefs: []Term{{0, -0.5}, {2, 1.5}, {3, 4}}},
				{Lower: -inf, Upper: inf, Coefs: []Term{{0, 2}, {2, -1}}},
				{Lower: -inf, Upper: 19.740000000000002, Coefs: []Term{{1, 3}, {2, 1}}},
			},
		}},
	// With preprocessing off, CBC's crunch of the node LPs failed an assertion
	// in OsiClpSolverInterface::crunch and aborted the process; mipOptions 0
	// avoids it. Also has empty rows.
	{name: "cbc crunch abort with singleton row", status: Optimal, obj: 10,
		p: Problem{
			Vars: []Var{
				{Lower: 2, Upper: 3, Obj: 2, Integer: true},
				{Lower: 4, Upper: 7, Obj: 1, Integer: true},
			},
			Rows: []Row{
				{Lower: -1.48, Upper: inf, Coefs: nil},
				{Lower: -inf, Upper: -4.56, Coefs: []Term{{1, -1}}},
				{Lower: -inf, Upper: 2.03, Coefs: nil},
				{Lower: 32, Upper: inf, Coefs: []Term{{0, 4}, {1, 4}}},
				{Lower: -inf, Upper: inf, Coefs: []Term{{0, -2}}},
			},
		}},
	// A row without non-zeros made CBC abort in OsiClpSolverInterface::crunch;
	// empty rows are no longer loaded.
	{name: "cbc crunch abort with empty row", status: Optimal, obj: -1.4106444661311928,
		p: Problem{
			Vars: []Var{
				{Lower: -2.95, Upper: 3.05, Obj: -3},
				{Lower: -4, Upper: 1, Obj: 1, Integer: true},
			},
			Rows: []Row{
				{Lower: 0, Upper: 0, Coefs: nil},
				{Lower: -0.4106444661311923, Upper: inf, Coefs: []Term{{0, -3}, {1, 2}}},
			},
		}},
	// With preprocessing and probing off, CBC's TwoMIR cut generator cut off
	// the optimum 26.86 (maximise) and reported 26.36 as proven optimal.
	{name: "cbc two-mir cuts off optimum", status: Optimal, obj: 26.86158827588355,
		p: Problem{Sense: Maximize,
			Vars: []Var{
				{Lower: -1, Upper: 3, Obj: -1, Integer: true},
				{Lower: 3, Upper: 6, Obj: -3, Integer: true},
				{Lower: 0, Upper: 4, Obj: 5, Integer: true},
				{Lower: 5, Upper: 7, Obj: 0, Integer: true},
				{Lower: 3, Upper: 7, Obj: 0, Integer: true},
				{Lower: 1, Upper: 5, Obj: 4, Integer: true},
				{Lower: -3, Upper: -1, Obj: 5, Integer: true},
				{Lower: -4, Upper: 2, Obj: 5},
			},
			Rows: []Row{
				{Lower: -inf, Upper: inf, Coefs: []Term{{0, -3}, {1, 1.5}, {2, -3}, {3, 3}, {4, 2}, {5, -3}, {6, 3}, {7, 3}}},
				{Lower: -18.52768234482329, Upper: -18.52768234482329, Coefs: []Term{{1, 2}, {2, -1.5}, {3, -4}, {6, -3}, {7, 1}}},
				{Lower: -28.23, Upper: -27, Coefs: []Term{{2, 1}, {3, -3}, {4, -1}, {6, 2}}},
			},
		}},
	// With CBC's defaults (probing, TwoMIR) a feasible MIP was reported
	// infeasible.
	{name: "cbc calls feasible mip infeasible", status: Optimal, obj: 48.4121495151892,
		p: Problem{Sense: Maximize,
			Vars: []Var{
				{Lower: 1, Upper: 3, Obj: 1, Integer: true},
				{Lower: -1, Upper: 4, Obj: -3, Integer: true},
				{Lower: -2, Upper: 3, Obj: 2},
				{Lower: -3, Upper: 0, Obj: -1},
				{Lower: 3.07, Upper: 6.07, Obj: 4},
				{Lower: -2, Upper: 4, Obj: -5, Integer: true},
				{Lower: -1, Upper: 0, Obj: 0},
				{Lower: 4.11, Upper: 6.11, Obj: 1},
			},
			Rows: []Row{
				{Lower: -inf, Upper: inf, Coefs: []Term{{2, 4}, {4, -0.5}, {7, -3}}},
				{Lower: -inf, Upper: 6.958835602472425, Coefs: []Term{{0, -4}, {1, 4}, {3, -0.5}, {5, 1}}},
				{Lower: -7.132149515189201, Upper: -7.132149515189201, Coefs: []Term{{1, -1}, {2, -2}, {3, 2}, {7, -1}}},
				{Lower: -inf, Upper: -15.881213500962735, Coefs: []Term{{2, -1.5}, {3, 2}, {4, -3}, {5, 1}, {6, 2}}},
			},
		}},
	// A variable in no row whose objective improves along an infinite bound
	// made CLP report a feasible, unbounded LP as primal infeasible; such
	// columns are pinned (Problem.emptyRays).
	{name: "clp empty ray column", status: Unbounded, obj: 0,
		p: Problem{Sense: Maximize,
			Vars: []Var{
				{Lower: 4, Upper: 6, Obj: 2},
				{Lower: 1, Upper: 8, Obj: 2},
				{Lower: -1.71, Upper: 4.29, Obj: 5},
				{Lower: 0, Upper: inf, Obj: 5},
			},
			Rows: []Row{
				{Lower: -10.15298958551842, Upper: -7.952989585518418, Coefs: []Term{{0, -3}, {1, 1}, {2, 2}}},
			},
		}},
	// CLP's default solve called an unbounded LP optimal with secondary status
	// 3 (unscaled problem has dual infeasibilities); such answers are
	// re-solved with the primal simplex.
	{name: "clp scaled optimum of unbounded lp", status: Unbounded, obj: 0,
		p: Problem{
			Vars: []Var{
				{Lower: -4, Upper: 2, Obj: -2},
				{Lower: 5, Upper: 11, Obj: 5},
				{Lower: -2.81, Upper: -2.81, Obj: -5},
				{Lower: -4, Upper: -3, Obj: -4},
				{Lower: -2.95, Upper: -0.9500000000000002, Obj: -1},
				{Lower: -4, Upper: 3, Obj: -2},
				{Lower: -inf, Upper: 2, Obj: 5},
				{Lower: -inf, Upper: 2, Obj: -4},
			},
			Rows: []Row{
				{Lower: 8.932871961010889, Upper: 8.932871961010889, Coefs: []Term{{0, 2}, {2, -2}, {6, -3}, {7, 3}}},
				{Lower: -31.43271189216516, Upper: -31.43271189216516, Coefs: []Term{{0, -2}, {1, -4}, {2, -2}, {5, 1}, {6, -1}, {7, 1}}},
				{Lower: -22.49983993115427, Upper: -22.49983993115427, Coefs: []Term{{0, 2}, {2, -2}, {6, -3}, {7, 3}, {0, -2}, {1, -4}, {2, -2}, {5, 1}, {6, -1}, {7, 1}}},
			},
		}},
	// CLP's default solve called an unbounded LP with free columns in equality
	// rows (and a dependent equality) infeasible; the primal simplex from
	// scratch says unbounded.
	{name: "clp free columns called infeasible", status: Unbounded, obj: 0,
		p: Problem{
			Vars: []Var{
				{Lower: 3, Upper: 4, Obj: 2},
				{Lower: 3, Upper: 10, Obj: 1},
				{Lower: -5, Upper: 1, Obj: 3},
				{Lower: 3, Upper: 7, Obj: 1},
				{Lower: 1, Upper: 8, Obj: 5},
				{Lower: -4.71, Upper: 0.29000000000000004, Obj: -5},
				{Lower: -2, Upper: 0, Obj: 5},
				{Lower: -inf, Upper: inf, Obj: -1},
				{Lower: -inf, Upper: inf, Obj: 2},
			},
			Rows: []Row{
				{Lower: 26.190156229137287, Upper: 26.190156229137287, Coefs: []Term{{0, 4}, {1, 4}, {4, 2}, {6, -1.5}, {7, 4}, {8, -4}}},
				{Lower: 29.4666288667571, Upper: 29.4666288667571, Coefs: []Term{{0, 4}, {2, -4}, {5, -3}, {6, 0.5}, {7, -3}, {8, 3}}},
				{Lower: 32.80664206077763, Upper: 33.846642060777626, Coefs: []Term{{0, 2}, {1, -1}, {2, -3}, {3, 2}, {4, 4}, {5, -3}, {6, 1}}},
				{Lower: 55.65678509589439, Upper: 55.65678509589439, Coefs: []Term{{0, 4}, {1, 4}, {4, 2}, {6, -1.5}, {7, 4}, {8, -4}, {0, 4}, {2, -4}, {5, -3}, {6, 0.5}, {7, -3}, {8, 3}}},
			},
		}},
	// Re-checking an infeasible verdict with the primal simplex ended in CLP
	// status 4 (errors); the first verdict is kept when the second solve
	// settles nothing.
	{name: "clp primal recheck errors on infeasible lp", status: Infeasible, obj: 0,
		p: Problem{Sense: Maximize,
			Vars: []Var{
				{Lower: -2, Upper: 0, Obj: -1},
				{Lower: 5, Upper: 6, Obj: 2},
				{Lower: -4.86, Upper: -4.86, Obj: 2},
				{Lower: 4.82, Upper: 6.82, Obj: 1},
			},
			Rows: []Row{
				{Lower: 37.71100060482112, Upper: inf, Coefs: []Term{{1, 1}, {2, -3}, {3, 3}}},
				{Lower: -21.579763082146478, Upper: -21.579763082146478, Coefs: []Term{{1, 0.5}, {3, -4}}},
				{Lower: -inf, Upper: -6.590846426675725, Coefs: []Term{{0, -4}, {2, 3}}},
				{Lower: -inf, Upper: 22.667045328630515, Coefs: []Term{{0, -2}, {1, -1}, {2, -1}, {3, 3}}},
				{Lower: 25.437045328630514, Upper: inf, Coefs: []Term{{0, -2}, {1, -1}, {2, -1}, {3, 3}}},
			},
		}},
	// CBC's root solve called a MIP with an unbounded, feasible LP relaxation
	// infeasible; the relaxation is now settled by CLP first.
	{name: "cbc calls unbounded mip infeasible", status: Unbounded, obj: 0,
		p: Problem{Sense: Maximize,
			Vars: []Var{
				{Lower: 2, Upper: 5, Obj: -2, Integer: true},
				{Lower: 2.32, Upper: 6.32, Obj: 0},
				{Lower: -1, Upper: inf, Obj: 5, Integer: true},
				{Lower: -inf, Upper: 3, Obj: -3, Integer: true},
			},
			Rows: []Row{
				{Lower: -5.719015572215445, Upper: -3.249015572215445, Coefs: []Term{{1, -2}, {2, 2}, {3, 2}}},
				{Lower: -7.249015572215446, Upper: -7.249015572215446, Coefs: []Term{{1, -2}}},
				{Lower: -7.873523358323169, Upper: -7.873523358323169, Coefs: []Term{{1, -3}, {2, 1.5}, {3, 1.5}}},
				{Lower: -15.122538930538614, Upper: -15.122538930538614, Coefs: []Term{{1, -2}, {1, -3}, {2, 1.5}, {3, 1.5}}},
			},
		}},
	// CLP's default solve (with presolve) called an unbounded LP with two
	// parallel rows optimal, with a clean status and duals that violate
	// complementary slackness; presolve is now off and optima are checked
	// against the KKT conditions.
	{name: "clp presolve calls unbounded lp optimal", status: Unbounded, obj: 0,
		p: Problem{Sense: Maximize,
			Vars: []Var{
				{Lower: -2, Upper: inf, Obj: 4},
				{Lower: -inf, Upper: 2, Obj: 0},
			},
			Rows: []Row{
				{Lower: -2.74, Upper: 0.12, Coefs: []Term{{0, -2}, {1, -2}}},
				{Lower: -0.47, Upper: 1.4, Coefs: []Term{{0, -1}, {1, -1}}},
				{Lower: -2, Upper: inf, Coefs: []Term{{0, 1}}},
			},
		}},
}

func TestRegressions(t *testing.T) {
	for _, s := range backends() {
		for _, rc := range regressions {
			t.Run(s.Name()+"/"+rc.name, func(t *testing.T) {
				res, err := s.Solve(&rc.p, Options{})
				if rc.p.HasInteger() {
					// A plain search reaches the same optimum.
					plain, err := s.Solve(&rc.p, Options{Plain: true})
					if plain.Status != rc.status || (rc.status == Optimal && !sameObjective(plain.Objective, rc.obj)) {
						t.Errorf("plain: status %v, objective %v (%v); want %v, %v", plain.Status, plain.Objective, err, rc.status, rc.obj)
					}
				}
				if res.Status != rc.status {
					t.Fatalf("status %v (%v), want %v", res.Status, err, rc.status)
				}
				checkErr(t, res.Status, err)
				if rc.status == Optimal && !sameObjective(res.Objective, rc.obj) {
					t.Errorf("objective %v, want %v", res.Objective, rc.obj)
				}
				if rc.status == Optimal {
					if why := feasibleWithin(&rc.p, res.X, 1e-6); why != "" {
						t.Error(why)
					}
				}
			})
		}
	}
	_ = math.Inf
}
