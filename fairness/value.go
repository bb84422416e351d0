package fairness

import (
	"fmt"
	"math"
	"sort"

	"fairbench/solvers/lp"
)

// Value is V_u(f·b), the best utility user u can get from f·b[g] GPUs of
// each type (see Division). A user with one job fills its fastest types
// first (a fractional knapsack, exact); a user with several jobs gets the
// greedy fill when it provably equals the LP bound below, and the
// transportation LP (solvers/lp) otherwise. An error is the LP backend
// failing, never a property of the instance.
func (d *Division) Value(u int, b []float64, f float64) (float64, error) {
	jobs := d.byUser[u]
	if len(jobs) == 1 {
		return d.knapsack(jobs[0], b, f), nil
	}
	lo, hi := d.valueBounds(u, b, f)
	if hi-lo <= 1e-12*math.Max(1, hi) {
		return lo, nil
	}
	return d.transport(u, b, f)
}

// valueBounds brackets V_u(f·b) without an LP: the greedy fill (jobs and
// types by value per GPU, a[j][g]/d_j, highest first) is a feasible y, so
// a lower bound; the sum of each job's knapsack alone (dropping the shared
// capacities) and Σ_g f·b[g]·max_j a[j][g]/d_j (dropping the jobs' time
// limits) are upper bounds.
func (d *Division) valueBounds(u int, b []float64, f float64) (lo, hi float64) {
	jobs := d.byUser[u]
	alone, perGPU := 0.0, 0.0
	for _, j := range jobs {
		alone += d.knapsack(j, b, f)
	}
	for g := range d.Types {
		best := 0.0
		for _, j := range jobs {
			best = math.Max(best, d.a[j][g]/d.Jobs[j].Gang)
		}
		perGPU += math.Max(0, f*b[g]) * best
	}
	return d.greedy(u, b, f), math.Min(alone, perGPU)
}

// greedy is the value of filling (job, type) pairs in descending a[j][g]/d_j,
// each as far as the job's time and the type's GPUs allow.
func (d *Division) greedy(u int, b []float64, f float64) float64 {
	type pair struct {
		j, g int
		v    float64
	}
	var pairs []pair
	for _, j := range d.byUser[u] {
		for g := range d.Types {
			if d.a[j][g] > 0 && b[g] > 0 {
				pairs = append(pairs, pair{j, g, d.a[j][g] / d.Jobs[j].Gang})
			}
		}
	}
	sort.SliceStable(pairs, func(x, y int) bool { return pairs[x].v > pairs[y].v })
	left := make(map[int]float64, len(d.byUser[u]))
	for _, j := range d.byUser[u] {
		left[j] = 1
	}
	room := make([]float64, len(b))
	for g := range b {
		room[g] = math.Max(0, f*b[g])
	}
	val := 0.0
	for _, p := range pairs {
		y := math.Min(left[p.j], room[p.g]/d.Jobs[p.j].Gang)
		if y <= 0 {
			continue
		}
		val += d.a[p.j][p.g] * y
		left[p.j] -= y
		room[p.g] -= y * d.Jobs[p.j].Gang
	}
	return val
}

// knapsack is Σ_g a[j][g]·y_g maximised over Σ y ≤ 1, d_j·y_g ≤ f·b[g]:
// the types in descending a, each filled as far as its GPUs allow (optimal
// for a fractional knapsack with unit weights per unit of time).
func (d *Division) knapsack(j int, b []float64, f float64) float64 {
	a := d.a[j]
	gang := d.Jobs[j].Gang
	order := make([]int, 0, len(a))
	for g := range a {
		if a[g] > 0 && b[g] > 0 {
			order = append(order, g)
		}
	}
	sort.SliceStable(order, func(x, y int) bool { return a[order[x]] > a[order[y]] })
	left, val := 1.0, 0.0
	for _, g := range order {
		if left <= 0 {
			break
		}
		y := math.Min(left, f*b[g]/gang)
		val += a[g] * y
		left -= y
	}
	return val
}

// transport solves V_u(f·b) for a user with several jobs as the LP
// max Σ a[j][g]·y[j][g] s.t. Σ_g y[j][g] ≤ 1, Σ_j d_j·y[j][g] ≤ f·b[g], y ≥ 0.
func (d *Division) transport(u int, b []float64, f float64) (float64, error) {
	inf := math.Inf(1)
	p := &lp.Problem{Sense: lp.Maximize}
	caps := make([]lp.Row, len(d.Types))
	for g := range caps {
		caps[g] = lp.Row{Name: "capacity " + d.Types[g], Lower: -inf, Upper: math.Max(0, f*b[g])}
	}
	for _, j := range d.byUser[u] {
		time := lp.Row{Name: fmt.Sprintf("time of job %d", d.Jobs[j].ID), Lower: -inf, Upper: 1}
		for g := range d.Types {
			if d.a[j][g] <= 0 || b[g] <= 0 {
				continue
			}
			v := len(p.Vars)
			p.Vars = append(p.Vars, lp.Var{Upper: inf, Obj: d.a[j][g]})
			time.Coefs = append(time.Coefs, lp.Term{Var: v, Coef: 1})
			caps[g].Coefs = append(caps[g].Coefs, lp.Term{Var: v, Coef: d.Jobs[j].Gang})
		}
		p.Rows = append(p.Rows, time)
	}
	p.Rows = append(p.Rows, caps...)
	res, err := d.solver().Solve(p, lp.Options{})
	if err != nil {
		return 0, fmt.Errorf("%w: value of a bundle to user %s: %w", errLP, d.Users[u].Name, err)
	}
	return res.Objective, nil
}

// atLeast decides U ≥ V_u(f·b) − tol.Slack(V_u(f·b)) for got = U, with an
// LP only when the bounds cannot decide it. It returns the verdict and,
// when it fails, V_u(f·b) itself (for the reason's numbers).
func (d *Division) atLeast(u int, b []float64, f, got float64, tol Tolerance) (bool, float64, error) {
	jobs := d.byUser[u]
	if len(jobs) == 1 {
		v := d.knapsack(jobs[0], b, f)
		return got >= v-tol.Slack(v), v, nil
	}
	lo, hi := d.valueBounds(u, b, f)
	if got >= hi-tol.Slack(hi) {
		return true, hi, nil
	}
	v := lo
	if hi-lo > 1e-12*math.Max(1, hi) {
		var err error
		if v, err = d.transport(u, b, f); err != nil {
			return false, 0, err
		}
	}
	return got >= v-tol.Slack(v), v, nil
}
