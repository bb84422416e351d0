package oef

import (
	"fmt"
	"math"

	"fairbench/solvers/lp"
	"fairbench/solvers/nash"
)

// program is the LP skeleton every OEF program shares: a variable X[c][g]
// for each class c and type g it can use, with the capacity rows
// Σ_c d_c·X[c][g] ≤ N_g (Eq. 1 of docs/algorithms/oef.md) and the time
// rows Σ_g X[c][g] ≤ k_c (Eq. 2).
type program struct {
	m     *nash.Market
	p     lp.Problem
	col   [][]int // col[c][g]: the variable of X[c][g], -1 if c cannot use g
	users [][]int // classes of each user
}

// The capacity rows bound by caps (the market's capacities, or a bundle's);
// which class can use which type is the market's (Market.Usable).
func newProgram(m *nash.Market, caps []float64, sense lp.Sense) *program {
	pr := &program{m: m, p: lp.Problem{Sense: sense}, users: make([][]int, len(m.Weights))}
	capRows := make([]lp.Row, len(m.Caps))
	for g, n := range caps {
		capRows[g] = lp.Row{Name: fmt.Sprintf("cap[%d]", g), Lower: math.Inf(-1), Upper: n}
	}
	pr.col = make([][]int, len(m.Classes))
	for c, cl := range m.Classes {
		pr.users[cl.Buyer] = append(pr.users[cl.Buyer], c)
		pr.col[c] = make([]int, len(m.Caps))
		time := lp.Row{Name: fmt.Sprintf("time[%d]", c), Lower: math.Inf(-1), Upper: cl.Count}
		for g := range m.Caps {
			pr.col[c][g] = -1
			if !m.Usable(c, g) {
				continue
			}
			k := len(pr.p.Vars)
			pr.col[c][g] = k
			pr.p.Vars = append(pr.p.Vars, lp.Var{Name: fmt.Sprintf("x[%d,%d]", c, g), Upper: math.Inf(1)})
			capRows[g].Coefs = append(capRows[g].Coefs, lp.Term{Var: k, Coef: cl.Gang})
			time.Coefs = append(time.Coefs, lp.Term{Var: k, Coef: 1})
		}
		if len(time.Coefs) > 0 {
			pr.p.Rows = append(pr.p.Rows, time)
		}
	}
	for _, r := range capRows {
		if len(r.Coefs) > 0 {
			pr.p.Rows = append(pr.p.Rows, r)
		}
	}
	return pr
}

// utility is the terms of f·U_u = f·Σ_{c∈u} Σ_g a_cg·X_cg.
func (pr *program) utility(u int, f float64) []lp.Term {
	var t []lp.Term
	for _, c := range pr.users[u] {
		for g, k := range pr.col[c] {
			if k >= 0 {
				t = append(t, lp.Term{Var: k, Coef: f * pr.m.Classes[c].Value[g]})
			}
		}
	}
	return t
}

// held is the terms of f·Σ_g ρ_g·G_vg, user v's GPUs G_vg = Σ_{c∈v} d_c·X_cg
// valued at rates ρ_g per GPU.
func (pr *program) held(v int, rho []float64, f float64) []lp.Term {
	var t []lp.Term
	for _, c := range pr.users[v] {
		for g, k := range pr.col[c] {
			if k >= 0 && rho[g] > 0 {
				t = append(t, lp.Term{Var: k, Coef: -f * rho[g] * pr.m.Classes[c].Gang})
			}
		}
	}
	return t
}

// addVar appends a variable and returns its index.
func (pr *program) addVar(name string, lower, upper, obj float64) int {
	pr.p.Vars = append(pr.p.Vars, lp.Var{Name: name, Lower: lower, Upper: upper, Obj: obj})
	return len(pr.p.Vars) - 1
}

// solve runs the LP and returns X (nil rows for nothing) and the result.
func (pr *program) solve(solver lp.Solver) ([][]float64, lp.Result, error) {
	res, err := solver.Solve(&pr.p, lp.Options{})
	if err != nil {
		return nil, res, err
	}
	x := make([][]float64, len(pr.m.Classes))
	for c := range x {
		x[c] = make([]float64, len(pr.m.Caps))
		for g, k := range pr.col[c] {
			if k >= 0 {
				x[c][g] = math.Max(0, res.X[k])
			}
		}
	}
	return x, res, nil
}

// bound is an upper bound on user u's value of a bundle, linear in the
// bundle: L_λ(b) = λ·Σ_{c∈u} k_c + Σ_g p_g(λ)·b_g with
// p_g(λ) = max_{c∈u} (a_cg − λ)⁺ / d_c, a feasible point of the dual of
// V_u's LP (the time of every job priced λ, a GPU of type g p_g), so
// V_u(b) ≤ L_λ(b) for every λ ≥ 0 and b (Eq. 4a). For a user whose jobs
// are alike (one class) min_λ L_λ(b) = V_u(b), attained at λ = 0 or one
// of the a_cg: the user values every bundle exactly by some L_λ.
type bound struct {
	lambda float64
	time   float64   // λ·Σ k_c
	price  []float64 // p_g(λ)
}

// bounds are user u's candidate L_λ, λ ∈ {0} ∪ {a_cg}.
func bounds(m *nash.Market, u int) []bound {
	lams := []float64{0}
	k := 0.0
	for c, cl := range m.Classes {
		if cl.Buyer != u {
			continue
		}
		k += cl.Count
		for g, a := range cl.Value {
			if m.Usable(c, g) {
				lams = append(lams, a)
			}
		}
	}
	out := make([]bound, 0, len(lams))
	for _, l := range lams {
		b := bound{lambda: l, time: l * k, price: make([]float64, len(m.Caps))}
		for c, cl := range m.Classes {
			if cl.Buyer != u {
				continue
			}
			for g, a := range cl.Value {
				if m.Usable(c, g) {
					b.price[g] = math.Max(b.price[g], math.Max(0, a-l)/cl.Gang)
				}
			}
		}
		out = append(out, b)
	}
	return out
}

// tightest is the candidate with the least L_λ(f·b); among equal ones
// (within 1e-9), the one with the least Σ_g p_g, which grows least with
// the bundle.
func tightest(cands []bound, f float64, b []float64) (int, float64) {
	best, val, slope := 0, math.Inf(1), math.Inf(1)
	for i, c := range cands {
		v, sl := c.at(f, b), c.slope()
		tol := 1e-9 * math.Max(1, math.Abs(v))
		if v < val-tol || (v <= val+tol && sl < slope) {
			best, val, slope = i, v, sl
		}
	}
	return best, val
}

// at is L_λ(f·b).
func (c bound) at(f float64, b []float64) float64 {
	v := c.time
	for g, p := range c.price {
		v += p * f * b[g]
	}
	return v
}

// slope is Σ_g p_g(λ).
func (c bound) slope() float64 {
	s := 0.0
	for _, p := range c.price {
		s += p
	}
	return s
}

// Value is V_u(b): the most utility user u can draw from a bundle b of
// GPUs per type with its own jobs (their gangs and time caps), an LP.
func Value(m *nash.Market, u int, b []float64, solver lp.Solver) (float64, error) {
	sub := &nash.Market{Caps: m.Caps, Weights: []float64{1}}
	for _, cl := range m.Classes {
		if cl.Buyer == u {
			cl.Buyer = 0
			sub.Classes = append(sub.Classes, cl)
		}
	}
	if len(sub.Classes) == 0 {
		return 0, nil
	}
	pr := newProgram(sub, b, lp.Maximize)
	for _, t := range pr.utility(0, 1) {
		pr.p.Vars[t.Var].Obj = t.Coef
	}
	if len(pr.p.Vars) == 0 {
		return 0, nil
	}
	_, res, err := pr.solve(solver)
	if err != nil {
		return 0, fmt.Errorf("value of a bundle to user %d: %w", u, err)
	}
	return res.Objective, nil
}
