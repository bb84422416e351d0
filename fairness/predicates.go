package fairness

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"fairbench/solvers/lp"
)

// Tolerance is the slack a predicate allows: a comparison against a
// quantity q passes when it fails by at most Rel·|q| + Abs. Each predicate
// says which q it scales by.
type Tolerance struct {
	Rel float64 `json:"rel"`
	Abs float64 `json:"abs"`
}

// Slack is Rel·|q| + Abs.
func (t Tolerance) Slack(q float64) float64 { return t.Rel*math.Abs(q) + t.Abs }

func (t Tolerance) String() string {
	switch {
	case t.Abs == 0:
		return fmt.Sprintf("%g relative", t.Rel)
	case t.Rel == 0:
		return fmt.Sprintf("%g absolute", t.Abs)
	}
	return fmt.Sprintf("%g relative + %g absolute", t.Rel, t.Abs)
}

// SharingIncentive checks that every user does at least as well as with its
// weighted 1/n of every type (docs/checker.md; Gavel §4.1, DRF):
//
//	∀u: U_u(x) ≥ V_u(e_u·N) − tol,  e_u = w_u / Σ_v w_v,
//
// the slack scaled by V_u(e_u·N), the sum over the users with active jobs.
// The reason names the first user short of its share, with both numbers.
// An error is the LP backend failing, never a violation.
func SharingIncentive(d *Division, o *Outcome, tol Tolerance) (bool, string, error) {
	for u := range d.Users {
		got := d.Utility(o, u)
		ok, share, err := d.atLeast(u, d.Capacity, d.Entitlement(u), got, tol)
		if err != nil {
			return false, "", err
		}
		if !ok {
			return false, fmt.Sprintf("user %s gets U = %.6g < V(%.4g of every type) = %.6g (%s short)",
				d.Users[u].Name, got, d.Entitlement(u), share, relative(share-got, share)), nil
		}
	}
	return true, "", nil
}

// EnvyFree checks that no user prefers another's bundle, scaled by their
// weights (docs/checker.md):
//
//	∀u ≠ v: U_u(x) ≥ V_u((w_u/w_v)·Held_v) − tol,
//
// the slack scaled by V_u of the scaled bundle. Users value bundles at their
// best use (V_u), their own allocation at what it gives them (U_u).
func EnvyFree(d *Division, o *Outcome, tol Tolerance) (bool, string, error) {
	for u := range d.Users {
		got := d.Utility(o, u)
		for v := range d.Users {
			if v == u {
				continue
			}
			f := d.Users[u].Weight / d.Users[v].Weight
			ok, other, err := d.atLeast(u, o.Held[v], f, got, tol)
			if err != nil {
				return false, "", err
			}
			if !ok {
				return false, fmt.Sprintf("user %s envies %s: U = %.6g < V(%.4g × %s's bundle %s) = %.6g (%s)",
					d.Users[u].Name, d.Users[v].Name, got, f, d.Users[v].Name, d.bundleString(o.Held[v]), other,
					envyMargin(got, other)), nil
			}
		}
	}
	return true, "", nil
}

// relative prints a shortfall as a percentage of its reference.
func relative(short, of float64) string {
	if of <= 0 {
		return fmt.Sprintf("%.3g", short)
	}
	return fmt.Sprintf("%.3g%%", 100*short/of)
}

// envyMargin says how much more the envied bundle is worth than what the
// user has; a user with nothing at all is said so, not given an infinite
// percentage.
func envyMargin(got, other float64) string {
	if got <= 1e-12*math.Max(1, other) {
		return "the user gets nothing"
	}
	return fmt.Sprintf("%.3g%% more", 100*(other-got)/got)
}

func (d *Division) bundleString(b []float64) string {
	var parts []string
	for g, v := range b {
		if v > 0 {
			parts = append(parts, fmt.Sprintf("%.4g %s", v, d.Types[g]))
		}
	}
	if len(parts) == 0 {
		return "{}"
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// ParetoEfficient checks that no time-sharing allocation raises one user's
// utility without lowering another's (docs/checker.md): with M_u = V_u(N)
// (the user's value of the whole cluster),
//
//	max { Σ_u (U_u(x') − U_u(x)) / M_u : x' feasible, U_v(x') ≥ U_v(x) ∀v } ≤ tol.Rel + tol.Abs,
//
// an LP over x' ≥ 0 with Σ_g x'[j][g] ≤ 1, Σ_j d_j·x'[j][g] ≤ N_g and
// x'[j][g] = 0 where the job cannot run, solved with solvers/lp. The floors
// are lowered by 1e-9·M_u against rounding. An outcome no time-sharing
// allocation can match (co-location can beat time sharing) has nothing to
// compare with and passes; an LP failure is returned as an error, never as
// a violation.
func ParetoEfficient(d *Division, o *Outcome, tol Tolerance) (bool, string, error) {
	n := len(d.Users)
	now, c := make([]float64, n), make([]float64, n)
	for u := range d.Users {
		now[u] = d.Utility(o, u)
		c[u] = 1 / d.Scale(u)
	}
	util, err := d.improve(now, c)
	if errors.Is(err, lp.ErrInfeasible) {
		return true, "", nil
	}
	if err != nil {
		return false, "", err
	}
	gain := 0.0
	for u := range d.Users {
		gain += (util[u] - now[u]) * c[u]
	}
	if gain <= tol.Rel+tol.Abs {
		return true, "", nil
	}
	var parts []string
	for u := range d.Users {
		if util[u]-now[u] > 1e-9*d.Scale(u) {
			parts = append(parts, fmt.Sprintf("%s %.6g → %.6g", d.Users[u].Name, now[u], util[u]))
		}
	}
	return false, fmt.Sprintf("a time-sharing allocation raises %s without lowering anyone (Σ gain / V(N) = %.4g)",
		strings.Join(parts, ", "), gain), nil
}

// improve solves the Pareto-improvement LP: maximise Σ_u c_u·U_u(x') over
// the time-sharing allocations x' with U_u(x') ≥ now_u − 1e-9·M_u. It
// returns the users' utilities at an optimum; an error matching
// lp.ErrInfeasible means no x' meets the floors.
func (d *Division) improve(now, c []float64) ([]float64, error) {
	inf := math.Inf(1)
	m := len(d.Types)
	p := &lp.Problem{Sense: lp.Maximize}
	rows := make([]lp.Row, len(d.Jobs)+m+len(d.Users))
	for j := range d.Jobs {
		rows[j] = lp.Row{Name: fmt.Sprintf("time of job %d", d.Jobs[j].ID), Lower: -inf, Upper: 1}
	}
	for g := 0; g < m; g++ {
		rows[len(d.Jobs)+g] = lp.Row{Name: "capacity " + d.Types[g], Lower: -inf, Upper: d.Capacity[g]}
	}
	for u := range d.Users {
		rows[len(d.Jobs)+m+u] = lp.Row{Name: "floor of " + d.Users[u].Name, Lower: now[u] - 1e-9*d.Scale(u), Upper: inf}
	}
	type col struct{ j, g int }
	var cols []col
	for j := range d.Jobs {
		u := d.Jobs[j].User
		for g := 0; g < m; g++ {
			if d.a[j][g] <= 0 {
				continue
			}
			v := len(p.Vars)
			cols = append(cols, col{j, g})
			p.Vars = append(p.Vars, lp.Var{Upper: inf, Obj: c[u] * d.a[j][g]})
			rows[j].Coefs = append(rows[j].Coefs, lp.Term{Var: v, Coef: 1})
			rows[len(d.Jobs)+g].Coefs = append(rows[len(d.Jobs)+g].Coefs, lp.Term{Var: v, Coef: d.Jobs[j].Gang})
			rows[len(d.Jobs)+m+u].Coefs = append(rows[len(d.Jobs)+m+u].Coefs, lp.Term{Var: v, Coef: d.a[j][g]})
		}
	}
	p.Rows = rows
	res, err := d.solver().Solve(p, lp.Options{})
	if errors.Is(err, lp.ErrInfeasible) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("%w: Pareto LP: %w", errLP, err)
	}
	util := make([]float64, len(d.Users))
	for v, cl := range cols {
		util[d.Jobs[cl.j].User] += d.a[cl.j][cl.g] * res.X[v]
	}
	return util, nil
}
