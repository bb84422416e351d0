package nash

import (
	"fmt"
	"math"

	"fairbench/solvers/lp"
)

// Certificate proves how close an allocation X is to the Eisenberg–Gale
// optimum, by weak duality. For prices p_g ≥ 0 on the GPU types and rents
// λ_c ≥ 0 on the classes' time, let β_i = min over the (c, g) buyer i can
// use of (d_c·p_g + λ_c)/a[c][g], the cheapest cost of one unit of i's
// utility. Then for every feasible X'
//
//	Σ_i w_i·log U_i(X') ≤ D(p, λ) = Σ_g N_g·p_g + Σ_c k_c·λ_c + Σ_i w_i·(log(w_i/β_i) − 1),
//
// (maximise the Lagrangian over X' ≥ 0: buyer i buys utility q at unit cost
// β_i, worth w_i·log q − β_i·q, largest at q = w_i/β_i), so Gap = D − W(X)
// bounds W(X*) − W(X). At the optimum Gap = 0 and (p, λ) are the market's
// equilibrium prices and the rents of the time caps: the KKT conditions
// w_i·a[c][g]/U_i ≤ d_c·p_g + λ_c, with equality where X[c][g] > 0, p_g > 0
// only on full types, λ_c > 0 only on classes that run all the time, and
// each buyer's budget split as w_i = Σ_{c∈i,g} d_c·p_g·X[c][g] + Σ_{c∈i} λ_c·k_c
// (its spending on GPUs plus the rent of its capped classes).
type Certificate struct {
	Prices []float64 // p_g
	Rents  []float64 // λ_c
	Dual   float64   // D(p, λ)
	Gap    float64   // D(p, λ) − Σ_i w_i·log U_i(X)
}

// Certify computes prices and rents for x: the cheapest (p, λ) with
// d_c·p_g + λ_c ≥ w_i·a[c][g]/U_i(x) on every usable (c, g), an LP whose
// optimum is Σ_i w_i exactly when x is optimal (x maximises the
// linearisation Σ_i (w_i/U_i(x))·U_i of the welfare at itself). It works with
// any LP backend (it needs primal values only).
func Certify(m *Market, x [][]float64, backend lp.Solver) (*Certificate, error) {
	if backend == nil {
		backend = lp.Default()
	}
	u := m.Utilities(x)
	p := lp.Problem{Sense: lp.Minimize}
	for g, c := range m.Caps {
		p.Vars = append(p.Vars, lp.Var{Name: fmt.Sprintf("p[%d]", g), Upper: math.Inf(1), Obj: c})
	}
	for c, cl := range m.Classes {
		p.Vars = append(p.Vars, lp.Var{Name: fmt.Sprintf("λ[%d]", c), Upper: math.Inf(1), Obj: cl.Count})
	}
	for c, cl := range m.Classes {
		if u[cl.Buyer] <= 0 {
			return nil, fmt.Errorf("nash: certify: buyer %d has utility %g", cl.Buyer, u[cl.Buyer])
		}
		for g := range m.Caps {
			if !m.Usable(c, g) {
				continue
			}
			p.Rows = append(p.Rows, lp.Row{
				Name:  fmt.Sprintf("kkt[%d,%d]", c, g),
				Coefs: []lp.Term{{Var: g, Coef: cl.Gang}, {Var: len(m.Caps) + c, Coef: 1}},
				Lower: m.Weights[cl.Buyer] * cl.Value[g] / u[cl.Buyer], Upper: math.Inf(1),
			})
		}
	}
	res, err := backend.Solve(&p, lp.Options{})
	if err != nil {
		return nil, fmt.Errorf("nash: certify: %w", err)
	}
	cert := &Certificate{Prices: make([]float64, len(m.Caps)), Rents: make([]float64, len(m.Classes))}
	for g := range m.Caps {
		cert.Prices[g] = math.Max(0, res.X[g])
	}
	for c := range m.Classes {
		cert.Rents[c] = math.Max(0, res.X[len(m.Caps)+c])
	}
	cert.Dual = Dual(m, cert.Prices, cert.Rents)
	cert.Gap = cert.Dual - m.Welfare(u)
	return cert, nil
}

// Dual is D(p, λ) (see Certificate); +Inf when some buyer can buy utility
// for free.
func Dual(m *Market, prices, rents []float64) float64 {
	beta := make([]float64, len(m.Weights))
	for i := range beta {
		beta[i] = math.Inf(1)
	}
	d := 0.0
	for g, c := range m.Caps {
		d += c * prices[g]
	}
	for c, cl := range m.Classes {
		d += cl.Count * rents[c]
		for g := range m.Caps {
			if m.Usable(c, g) {
				beta[cl.Buyer] = math.Min(beta[cl.Buyer], (cl.Gang*prices[g]+rents[c])/cl.Value[g])
			}
		}
	}
	for i, w := range m.Weights {
		if beta[i] <= 0 {
			return math.Inf(1)
		}
		d += w * (math.Log(w/beta[i]) - 1)
	}
	return d
}

// Verify checks the certificate against m and x from scratch: x feasible
// (to tol), prices and rents non-negative and finite, and the duality gap,
// recomputed, at most tol·Σ_i w_i. It returns the first failure.
func (cert *Certificate) Verify(m *Market, x [][]float64, tol float64) error {
	if v := m.Violation(x, tol); v != "" {
		return fmt.Errorf("nash: certificate: allocation infeasible: %s", v)
	}
	if len(cert.Prices) != len(m.Caps) || len(cert.Rents) != len(m.Classes) {
		return fmt.Errorf("nash: certificate: %d prices and %d rents for %d types and %d classes",
			len(cert.Prices), len(cert.Rents), len(m.Caps), len(m.Classes))
	}
	for _, v := range append(append([]float64(nil), cert.Prices...), cert.Rents...) {
		if !finite(v) || v < 0 {
			return fmt.Errorf("nash: certificate: price or rent %v", v)
		}
	}
	total := 0.0
	for _, w := range m.Weights {
		total += w
	}
	gap := Dual(m, cert.Prices, cert.Rents) - m.Welfare(m.Utilities(x))
	if !(gap <= tol*total) {
		return fmt.Errorf("nash: certificate: duality gap %.3g > %.3g", gap, tol*total)
	}
	return nil
}

// Spending is Σ_{c∈i,g} d_c·p_g·X[c][g] for every buyer i: what it pays for
// its GPUs at prices p.
func Spending(m *Market, x [][]float64, prices []float64) []float64 {
	s := make([]float64, len(m.Weights))
	for c, cl := range m.Classes {
		for g, v := range x[c] {
			s[cl.Buyer] += cl.Gang * prices[g] * v
		}
	}
	return s
}
