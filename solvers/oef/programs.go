package oef

import (
	"errors"
	"fmt"
	"math"

	"fairbench/solvers/lp"
	"fairbench/solvers/nash"
)

// Result is one OEF decision: the time X[c][g] of every class on every
// type, the users' utilities U_u, and what the program needed.
type Result struct {
	X         [][]float64
	Utilities []float64
	// Envy is Σ of the slack the envy-freeness rows (Eq. 4) needed, 0
	// when program (C) was feasible as stated (cooperative only).
	Envy float64
	// Level is the equal weighted throughput t of program (N)
	// (non-cooperative only).
	Level float64
	// Solves counts the LPs solved, bundle values included.
	Solves int
}

// relax lowers a floor against rounding: 1e-9 of it.
func relax(v float64) float64 { return v - 1e-9*math.Abs(v) }

// tangentRounds bounds the re-linearisations of program (C).
const tangentRounds = 8

// Cooperative solves program (C) of docs/algorithms/oef.md:
//
//	max Σ_u U_u                                          (efficiency, Eq. 5)
//	s.t. capacity and time rows                           (Eq. 1, 2)
//	     U_u ≥ V_u(e_u·N),  e_u = w_u/Σ_v w_v             (sharing incentive, Eq. 3)
//	     U_u ≥ V_u((w_u/w_v)·G_v)   for all u ≠ v         (envy-freeness, Eq. 4)
//
// G_v being user v's GPUs per type. V_u is concave, so Eq. 4 is not convex
// in G_v; each envy row is written with one of V_u's linear upper bounds
// L_λ (Eq. 4a), which makes every solution envy-free, and the bound is
// re-chosen as the tightest at the last solution until none changes (at
// most tangentRounds LPs; each keeps the last solution feasible, so the
// efficiency never falls). The first bounds are the tightest at the
// weighted equal split, which satisfies them all. Should an LP still be
// infeasible (a user with unlike jobs, whose bounds are not exact), the
// least total slack on the envy rows is found first and efficiency
// maximised under it (Result.Envy > 0).
func Cooperative(m *nash.Market, solver lp.Solver) (*Result, error) {
	n := len(m.Weights)
	total := 0.0
	for _, w := range m.Weights {
		total += w
	}
	res := &Result{}
	si := make([]float64, n)
	cands := make([][]bound, n)
	pick := make([][]int, n) // pick[u][v]: the bound of row (u, v)
	for u, w := range m.Weights {
		share := make([]float64, len(m.Caps))
		for g, c := range m.Caps {
			share[g] = w / total * c
		}
		v, err := Value(m, u, share, solver)
		if err != nil {
			return nil, err
		}
		res.Solves++
		si[u] = v
		// At the equal split v holds at most e_v·N, and (w_u/w_v)·e_v·N
		// = e_u·N: the bound tightest there is met by the split.
		cands[u] = bounds(m, u)
		first, _ := tightest(cands[u], 1, share)
		pick[u] = make([]int, n)
		for v := range pick[u] {
			pick[u][v] = first
		}
	}
	build := func(slack bool) (*program, []int) {
		pr := newProgram(m, m.Caps, lp.Maximize)
		for u := range m.Weights {
			pr.p.Rows = append(pr.p.Rows, lp.Row{Name: fmt.Sprintf("si[%d]", u), Coefs: pr.utility(u, 1), Lower: relax(si[u]), Upper: math.Inf(1)})
		}
		var slacks []int
		for u := range m.Weights {
			for v := range m.Weights {
				if u == v {
					continue
				}
				b := cands[u][pick[u][v]]
				row := lp.Row{Name: fmt.Sprintf("ef[%d,%d]", u, v), Lower: b.time, Upper: math.Inf(1)}
				row.Coefs = append(pr.utility(u, 1), pr.held(v, b.price, m.Weights[u]/m.Weights[v])...)
				if slack {
					k := pr.addVar(fmt.Sprintf("s[%d,%d]", u, v), 0, math.Inf(1), 0)
					slacks = append(slacks, k)
					row.Coefs = append(row.Coefs, lp.Term{Var: k, Coef: 1})
				}
				pr.p.Rows = append(pr.p.Rows, row)
			}
		}
		for c, cl := range m.Classes {
			for g, k := range pr.col[c] {
				if k >= 0 {
					pr.p.Vars[k].Obj = cl.Value[g]
				}
			}
		}
		return pr, slacks
	}
	for round := 0; round < tangentRounds; round++ {
		pr, _ := build(false)
		x, _, err := pr.solve(solver)
		res.Solves++
		if errors.Is(err, lp.ErrInfeasible) {
			x, res.Envy, err = leastEnvy(build, solver, res)
		}
		if err != nil {
			return nil, fmt.Errorf("oef: cooperative program: %w", err)
		}
		res.X = x
		if res.Envy > 0 || !repick(m, cands, pick, x) {
			break
		}
	}
	res.Utilities = m.Utilities(res.X)
	return res, nil
}

// repick sets every envy row's bound to the tightest at x's bundles and
// reports whether one changed.
func repick(m *nash.Market, cands [][]bound, pick [][]int, x [][]float64) bool {
	gpus := make([][]float64, len(m.Weights))
	for v := range gpus {
		gpus[v] = make([]float64, len(m.Caps))
	}
	for c, cl := range m.Classes {
		for g, t := range x[c] {
			gpus[cl.Buyer][g] += cl.Gang * t
		}
	}
	changed := false
	for u := range m.Weights {
		for v := range m.Weights {
			if u == v {
				continue
			}
			f := m.Weights[u] / m.Weights[v]
			i, _ := tightest(cands[u], f, gpus[v])
			if i != pick[u][v] {
				pick[u][v], changed = i, true
			}
		}
	}
	return changed
}

// leastEnvy is program (C) with slack on the envy rows: the least total
// slack s*, then the most efficient allocation with at most s*.
func leastEnvy(build func(bool) (*program, []int), solver lp.Solver, res *Result) ([][]float64, float64, error) {
	pr, slacks := build(true)
	objs := make([]float64, len(pr.p.Vars))
	for k := range pr.p.Vars {
		objs[k] = pr.p.Vars[k].Obj
		pr.p.Vars[k].Obj = 0
	}
	pr.p.Sense = lp.Minimize
	sum := lp.Row{Name: "envy", Lower: math.Inf(-1)}
	for _, k := range slacks {
		pr.p.Vars[k].Obj = 1
		sum.Coefs = append(sum.Coefs, lp.Term{Var: k, Coef: 1})
	}
	_, r, err := pr.solve(solver)
	res.Solves++
	if err != nil {
		return nil, 0, err
	}
	envy := math.Max(0, r.Objective)
	sum.Upper = envy*(1+1e-9) + 1e-12
	pr.p.Rows = append(pr.p.Rows, sum)
	pr.p.Sense = lp.Maximize
	for k := range pr.p.Vars {
		pr.p.Vars[k].Obj = objs[k]
	}
	x, _, err := pr.solve(solver)
	res.Solves++
	return x, envy, err
}

// NonCooperative solves program (N) of docs/algorithms/oef.md: the largest
// t with
//
//	U_u = w_u·t   for every user that can reach it      (equal throughput, Eq. 6)
//	U_u = M_u     for the others, M_u = V_u(N)           (Eq. 7)
//
// under the capacity and time rows, by progressive filling: a user whose
// jobs cannot use more than w_u·t (M_u ≤ w_u·t) is held at M_u and t is
// raised again, at most once per user.
func NonCooperative(m *nash.Market, solver lp.Solver) (*Result, error) {
	n := len(m.Weights)
	res := &Result{}
	most := make([]float64, n)
	held := make([]bool, n)
	for u := range m.Weights {
		v, err := Value(m, u, m.Caps, solver)
		if err != nil {
			return nil, err
		}
		res.Solves++
		most[u], held[u] = v, v <= 0
	}
	top := 0.0 // no t beyond every user's most
	for u, w := range m.Weights {
		top = math.Max(top, most[u]/w)
	}
	for range n + 1 {
		pr := newProgram(m, m.Caps, lp.Maximize)
		t := pr.addVar("t", 0, top, 1)
		for u, w := range m.Weights {
			row := lp.Row{Name: fmt.Sprintf("eq[%d]", u), Coefs: pr.utility(u, 1)}
			if held[u] {
				row.Lower, row.Upper = relax(most[u]), most[u]
			} else {
				row.Coefs = append(row.Coefs, lp.Term{Var: t, Coef: -w})
			}
			pr.p.Rows = append(pr.p.Rows, row)
		}
		x, r, err := pr.solve(solver)
		res.Solves++
		if err != nil {
			return nil, fmt.Errorf("oef: non-cooperative program: %w", err)
		}
		res.X, res.Level = x, r.X[t]
		more := false
		for u, w := range m.Weights {
			if !held[u] && w*res.Level >= relax(most[u]) {
				held[u], more = true, true
			}
		}
		if !more {
			break
		}
	}
	res.Utilities = m.Utilities(res.X)
	return res, nil
}
