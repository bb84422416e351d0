package models

import (
	"errors"
	"fmt"
	"math"
	"strings"
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
// weighted 1/n of every type (DESIGN.md, "Properties"; Gavel §4.1, DRF):
//
//	∀u: U_u(x) ≥ V_u(e_u·N) − tol,  e_u = w_u / Σ_v w_v,
//
// the slack scaled by V_u(e_u·N). The reason names the first user short of
// its share, with both numbers.
func SharingIncentive(d *Division, o *Outcome, tol Tolerance) (bool, string) {
	for u := range d.Users {
		share := d.knapsackOrLP(u, d.Capacity, d.Entitlement(u))
		got := d.Utility(o, u)
		if got < share-tol.Slack(share) {
			return false, fmt.Sprintf("user %s gets U = %.6g < V(%.4g of every type) = %.6g (%.3g%% short)",
				d.Users[u].Name, got, d.Entitlement(u), share, 100*(share-got)/share)
		}
	}
	return true, ""
}

// EnvyFree checks that no user prefers another's bundle, scaled by their
// weights (DESIGN.md, "Properties"):
//
//	∀u ≠ v: U_u(x) ≥ V_u((w_u/w_v)·Held_v) − tol,
//
// the slack scaled by V_u of the scaled bundle. Users value bundles at their
// best use (V_u), their own allocation at what it gives them (U_u).
func EnvyFree(d *Division, o *Outcome, tol Tolerance) (bool, string) {
	for u := range d.Users {
		got := -1.0
		for v := range d.Users {
			if v == u {
				continue
			}
			f := d.Users[u].Weight / d.Users[v].Weight
			other := d.knapsackOrLP(u, o.Held[v], f)
			if other <= 0 {
				continue
			}
			if got < 0 {
				got = d.Utility(o, u)
			}
			if got < other-tol.Slack(other) {
				return false, fmt.Sprintf("user %s envies %s: U = %.6g < V(%.4g × %s's bundle %s) = %.6g (%.3g%% more)",
					d.Users[u].Name, d.Users[v].Name, got, f, d.Users[v].Name, d.bundleString(o.Held[v]), other, 100*(other-got)/math.Max(got, 1e-300))
			}
		}
	}
	return true, ""
}

// knapsackOrLP is value without a caller-supplied LP buffer, allocation-free
// for users with one job.
func (d *Division) knapsackOrLP(u int, b []float64, f float64) float64 {
	if jobs := d.byUser[u]; len(jobs) == 1 {
		return d.knapsack(jobs[0], b, f)
	}
	var lp denseLP
	return lp.bundle(d, d.byUser[u], b, f)
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

// Improver solves the Pareto-improvement LP of ParetoEfficient: over the
// time-sharing allocations x of d (x ≥ 0, Σ_g x[j][g] ≤ 1,
// Σ_j d_j·x[j][g] ≤ N_g, x[j][g] = 0 where T[j][g] = 0), maximise
// Σ_u c_u·U_u(x) subject to U_u(x) ≥ floor_u for every user; it returns the
// users' utilities at an optimum, and an error matching
// ErrInfeasibleFloors when no x meets the floors. DenseImprover is the
// built-in one; check supplies one backed by solvers/lp (models imports no
// other package of the project, so the solver is passed in).
type Improver interface {
	Improve(d *Division, floor, c []float64) ([]float64, error)
}

// ErrInfeasibleFloors is returned by an Improver when no allocation meets
// the utility floors.
var ErrInfeasibleFloors = errors.New("models: no time-sharing allocation meets the utility floors")

// DenseImprover is the Improver of models: an exact dense simplex, fast on
// the small instances the checker searches (a few dozen jobs × types). The
// zero value is ready; it is not safe for concurrent use.
type DenseImprover struct {
	lp        denseLP
	obj, util []float64
}

// Improve implements Improver. The utilities it returns are valid until the
// next call.
func (im *DenseImprover) Improve(d *Division, floor, c []float64) ([]float64, error) {
	m := len(d.Types)
	n := len(d.Jobs) * m
	lp := &im.lp
	lp.reset(len(d.Jobs)+m+len(d.Users), n)
	im.obj = grow(im.obj, n)
	obj := im.obj
	for j := range d.Jobs {
		u := d.Jobs[j].User
		for g := 0; g < m; g++ {
			v := j*m + g
			if d.a[j][g] <= 0 {
				continue
			}
			obj[v] = c[u] * d.a[j][g]
			lp.set(j, v, 1)
			lp.set(len(d.Jobs)+g, v, d.Jobs[j].Gang)
			lp.set(len(d.Jobs)+m+u, v, -d.a[j][g])
		}
		lp.b[j] = 1
	}
	for g := 0; g < m; g++ {
		lp.b[len(d.Jobs)+g] = d.Capacity[g]
	}
	for u := range d.Users {
		lp.b[len(d.Jobs)+m+u] = -floor[u]
	}
	_, x, err := lp.solve(obj)
	switch {
	case errors.Is(err, errDenseInfeasible):
		return nil, ErrInfeasibleFloors
	case err != nil:
		return nil, err
	}
	im.util = grow(im.util, len(d.Users))
	util := im.util
	for j := range d.Jobs {
		for g := 0; g < m; g++ {
			util[d.Jobs[j].User] += d.a[j][g] * x[j*m+g]
		}
	}
	return util, nil
}

// ParetoEfficient checks that no time-sharing allocation raises one user's
// utility without lowering another's (DESIGN.md, "Properties"): with
// M_u = V_u(N) (the user's value of the whole cluster),
//
//	max { Σ_u (U_u(x') − U_u(x)) / M_u : x' feasible, U_v(x') ≥ U_v(x) ∀v } ≤ tol.Rel + tol.Abs,
//
// solved by imp. The floors are lowered by 1e-9·M_u against rounding. An
// outcome no time-sharing allocation can match (co-location can beat time
// sharing) has nothing to compare with and passes; a solver failure is
// returned as an error, never as a violation.
func ParetoEfficient(d *Division, o *Outcome, tol Tolerance, imp Improver) (bool, string, error) {
	n := len(d.Users)
	buf := make([]float64, 3*n)
	floor, c, now := buf[:n], buf[n:2*n], buf[2*n:]
	for u := range d.Users {
		now[u] = d.Utility(o, u)
		floor[u] = now[u] - 1e-9*d.scale[u]
		c[u] = 1 / d.scale[u]
	}
	util, err := imp.Improve(d, floor, c)
	if errors.Is(err, ErrInfeasibleFloors) {
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
		if util[u]-now[u] > 1e-9*d.scale[u] {
			parts = append(parts, fmt.Sprintf("%s %.6g → %.6g", d.Users[u].Name, now[u], util[u]))
		}
	}
	return false, fmt.Sprintf("a time-sharing allocation raises %s without lowering anyone (Σ gain / V(N) = %.4g)",
		strings.Join(parts, ", "), gain), nil
}
