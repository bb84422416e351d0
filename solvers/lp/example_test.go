package lp_test

import (
	"errors"
	"fmt"
	"math"

	"fairbench/solvers/lp"
)

// A small production plan: maximise 3x + 2y subject to x + y ≤ 4,
// x + 3y ≤ 6 and x ≤ 3, with x, y ≥ 0. The optimum is the vertex x = 3,
// y = 1 with objective 11; every backend finds it.
func Example() {
	inf := math.Inf(1)
	p := &lp.Problem{
		Sense: lp.Maximize,
		Vars: []lp.Var{
			{Name: "x", Upper: inf, Obj: 3},
			{Name: "y", Upper: inf, Obj: 2},
		},
		Rows: []lp.Row{
			{Name: "a", Coefs: []lp.Term{{Var: 0, Coef: 1}, {Var: 1, Coef: 1}}, Lower: -inf, Upper: 4},
			{Name: "b", Coefs: []lp.Term{{Var: 0, Coef: 1}, {Var: 1, Coef: 3}}, Lower: -inf, Upper: 6},
			{Name: "c", Coefs: []lp.Term{{Var: 0, Coef: 1}}, Lower: -inf, Upper: 3},
		},
	}
	res, err := lp.Default().Solve(p, lp.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%v: objective %.4g at x=%.4g, y=%.4g\n", res.Status, res.Objective, res.X[0], res.X[1])
	// Output: optimal: objective 11 at x=3, y=1
}

// Integer variables make a MIP (solved by CBC or the pure-Go branch and
// bound). Its LP relaxation here has the fractional optimum x=3, y=1.5.
func Example_mip() {
	inf := math.Inf(1)
	p := &lp.Problem{
		Sense: lp.Maximize,
		Vars: []lp.Var{
			{Name: "x", Upper: inf, Obj: 5, Integer: true},
			{Name: "y", Upper: inf, Obj: 4, Integer: true},
		},
		Rows: []lp.Row{
			{Coefs: []lp.Term{{Var: 0, Coef: 6}, {Var: 1, Coef: 4}}, Lower: -inf, Upper: 24},
			{Coefs: []lp.Term{{Var: 0, Coef: 1}, {Var: 1, Coef: 2}}, Lower: -inf, Upper: 6},
		},
	}
	res, _ := lp.Default().Solve(p, lp.Options{})
	fmt.Println(res.Status, res.Objective, res.X)
	// Output: optimal 20 [4 0]
}

// Outcomes other than Optimal come with a sentinel error.
func Example_infeasible() {
	p := &lp.Problem{
		Vars: []lp.Var{{Name: "x", Upper: 1}},
		Rows: []lp.Row{{Coefs: []lp.Term{{Var: 0, Coef: 1}}, Lower: 2, Upper: math.Inf(1)}},
	}
	res, err := lp.Default().Solve(p, lp.Options{})
	fmt.Println(res.Status, errors.Is(err, lp.ErrInfeasible))
	// Output: infeasible true
}
