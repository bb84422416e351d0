package gavel

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/lp"
)

// Registered name and summary.
const (
	HierarchicalName    = "gavel-hierarchical"
	HierarchicalSummary = "Gavel hierarchical max-min fairness by water filling: users by weight, then each user's jobs by priority"
)

// levelSlack loosens the lower bounds that carry levels found by an earlier
// LP into the next one by this relative amount, against rounding. (The
// levels are capped at what the cleaned allocation of the LP that set them
// reaches, so that allocation satisfies the next LPs' rows.)
const levelSlack = 1e-9

// Hierarchical is Gavel's hierarchical max-min fairness policy (Narayanan et
// al., OSDI 2020, "hierarchical policies"; artifact
// scheduler/policies/max_min_fairness_water_filling.py,
// MaxMinFairnessWaterFillingPolicyWithPerf with the "fairness" reweighting
// policy for every entity): users (Gavel's entities) share the cluster by
// their weights W_u (models.User.Weight), and each user's share goes to its
// jobs by their priority weights p_j (models.Job.PriorityWeight), by water
// filling, so that the allocation is Pareto efficient.
//
// A job's normalised throughput is n_j(x) = Σ_g T[j][g]·x[j][g] / P_j, with
// P_j as in LAS (proportional; E_j with normaliser equal-share), and its
// scale σ_j = d_j (proportional; 1 with equal-share). Every job starts
// unsaturated at level L_j = 0. Each iteration gives every unsaturated job
// of user u the weight w_j = W_u · p_j / Σ_{unsaturated k of u} p_k (a
// saturated job hands its part of W_u to its user's other jobs) and
//
//  1. raises the levels of the unsaturated jobs together, L_j + t·w_j/σ_j,
//     as far as the shared constraints allow with the saturated jobs kept at
//     their levels — but no job beyond its cap C_j = max_g T[j][g]/P_j
//     (all its time on its fastest type), which saturates it;
//  2. saturates the bottleneck jobs: those that cannot go higher;
//
// until every job is saturated. The allocation is the last step 1's.
// Objective reports the weighted max-min value min_j σ_j·n_j(x) / w⁰_j (w⁰
// the first iteration's weights), the level at which the first jobs
// saturated.
//
// Step 1 is Gavel's LP (maximise t subject to n_j(x) ≥ L_j + t·w_j/σ_j for
// the unsaturated jobs, n_j(x) ≥ L_j for the others), except for the caps.
// Gavel lets a job that reaches its cap stop the water for everyone, which
// costs one iteration (two LPs) per distinct cap; on a lightly loaded
// cluster, where every job runs alone on its fastest type, that is one
// iteration per job. Here the unsaturated jobs are sorted by the t at which
// they reach their caps, and the largest k such that the first k can sit at
// their caps while the others rise to the k-th of those t is found by
// bisection, each step one LP (maximise s ∈ [0, 1] with every unsaturated job
// at L_j + s·(target_j − L_j); reachable when s = 1); then one LP maximises t
// below the next cap with the first k at their caps. A job at its cap keeps
// its fastest type's time as a bound on its variables from then on.
//
// Step 2 differs from Gavel, which solves a MILP: maximise the number of
// jobs z_j that can exceed L_j·(1 + slack) at once, with big-M rows. Here it
// is its LP relaxation: maximise Σ_j u_j, u_j ∈ [0, slack], subject to
// n_j(x)/L_j ≥ 1 + u_j for the unsaturated jobs, n_j(x) ≥ L_j for the
// others; a job with u_j below slack (by more than 0.1%) is saturated. If a
// set S of jobs could each gain a_j on its own, averaging those allocations
// gains a_j/|S| for all of them at once (the feasible set is convex), so a
// job that can gain |S|·slack on its own is never saturated, and one that
// cannot gain slack with the others is.
//
// A job whose user is not in the snapshot's users is an error.
type Hierarchical struct {
	base
	normaliser string
	slack      float64
}

// NewHierarchical builds gavel-hierarchical from HierarchicalOptions.
func NewHierarchical(c solvers.Config) (solvers.Policy, error) {
	o := HierarchicalOptions{MaxMinOptions: defaultMaxMin(), Slack: DefaultSlack}
	b, err := newBase(HierarchicalName, c, &o, false)
	if err != nil {
		return nil, err
	}
	return &Hierarchical{base: b,
		normaliser: o.Normaliser, slack: o.Slack}, nil
}

// wfClass is one class's water-filling state.
type wfClass struct {
	user      int       // index into s.Users
	prio      float64   // p_j of each job
	sigma     float64   // σ_j
	coef      []float64 // T[j][g] / P_j
	cap       float64   // max_g coef[g]: n_j with all its time on its fastest type
	best      int       // the type where coef = cap, −1 when several tie
	pinned    bool      // saturated at its cap: x = at on best, 0 elsewhere
	at        float64   // 1, up to the solver's tolerance
	level     float64   // L_j
	saturated bool
}

// Allocate runs the water filling above.
func (p *Hierarchical) Allocate(s *models.Snapshot) (models.Allocation, error) {
	in, err := p.open(s)
	if in == nil {
		return models.Allocation{}, err
	}
	users := make(map[string]int, len(s.Users))
	for u, usr := range s.Users {
		users[usr.Name] = u
	}
	n := in.n()
	userOf := make([]int, n)
	coef := make([][]float64, n)
	sigma := make([]float64, n)
	for i := range s.Jobs {
		u, ok := users[s.Jobs[i].User]
		if !ok {
			return models.Allocation{}, fmt.Errorf("%s: job %d: unknown user %q", p.name, s.Jobs[i].ID, s.Jobs[i].User)
		}
		userOf[i] = u
		norm := in.normaliser(p.normaliser, i)
		sigma[i] = 1
		if p.normaliser == NormProportional {
			sigma[i] = float64(in.gang(i))
		}
		coef[i] = make([]float64, len(in.types))
		for g, t := range in.tput[i] {
			coef[i][g] = t / norm
		}
	}
	classes := group(n, p.opt.Aggregate, func(i int) keyer {
		return keyer(nil).str(s.Jobs[i].User).num(s.Jobs[i].PriorityWeight()).num(float64(in.gang(i))).num(sigma[i]).nums(coef[i])
	})
	wf := make([]wfClass, len(classes))
	for c, cl := range classes {
		r := cl.rep()
		wf[c] = wfClass{user: userOf[r], prio: s.Jobs[r].PriorityWeight(), sigma: sigma[r], coef: coef[r], cap: maxOf(coef[r]), best: -1}
		for g, v := range coef[r] {
			if v == wf[c].cap {
				if wf[c].best >= 0 {
					wf[c].best = -1
					break
				}
				wf[c].best = g
			}
		}
	}

	run := p.solver()
	var final *model
	var shares []float64
	left := len(classes)
	for iter := 0; left > 0; iter++ {
		before := left
		rate := make([]float64, len(classes)) // w_j / σ_j of the unsaturated
		prioLeft := make([]float64, len(s.Users))
		var open []int // unsaturated classes
		for c, w := range wf {
			if !w.saturated {
				prioLeft[w.user] += classes[c].size() * w.prio
				open = append(open, c)
			}
		}
		for _, c := range open {
			w := wf[c]
			rate[c] = s.Users[w.user].Weight * w.prio / prioLeft[w.user] / w.sigma
		}
		// Step 1: raise the levels, each class up to its cap.
		reach := make([]float64, len(classes)) // the t at which a class reaches its cap
		for _, c := range open {
			reach[c] = math.Max(0, (wf[c].cap-wf[c].level)/rate[c])
		}
		sort.SliceStable(open, func(a, b int) bool { return reach[open[a]] < reach[open[b]] })
		k := len(open)
		ok, m, v, err := p.capsReachable(run, in, classes, wf, open, k, reach, rate, iter)
		if err != nil {
			return models.Allocation{}, err
		}
		if !ok {
			lo, hi := 0, k // k = 0 is reachable: the current levels are.
			for hi-lo > 1 {
				mid := (lo + hi) / 2
				if ok, _, _, err = p.capsReachable(run, in, classes, wf, open, mid, reach, rate, iter); err != nil {
					return models.Allocation{}, err
				}
				if ok {
					lo = mid
				} else {
					hi = mid
				}
			}
			k = lo
			capped := make([]bool, len(classes))
			for _, c := range open[:k] {
				capped[c] = true
			}
			m = newModel(in, classes, lp.Maximize, false)
			t := m.variable("t", 0, reach[open[k]], 1)
			for c := range classes {
				lo := wf[c].level
				if capped[c] {
					lo = wf[c].cap
				}
				if r := levelRow(m, c, wf[c], "level", lo); !wf[c].saturated && !capped[c] {
					m.add(r, t, -rate[c])
				}
			}
			res, err := run.solve(&m.p, "water-filling level "+strconv.Itoa(iter))
			if err != nil {
				return models.Allocation{}, err
			}
			v = m.clean(res.X)
			for _, c := range open[k:] {
				wf[c].level += res.X[t] * rate[c]
			}
		}
		// The new levels, capped at what the cleaned allocation reaches, so
		// that it proves the next LPs feasible whatever the solver's
		// tolerances. Classes at their caps are saturated.
		final, shares = m, v
		x := m.matrix(v)
		for i, c := range open {
			w := &wf[c]
			if i < k && w.best >= 0 {
				// At its cap: all its time on its fastest type, held there
				// by bounds from now on (no nearly tight row), at the share
				// the cleaned allocation gives it.
				w.at = x[c][w.best]
				w.level, w.pinned, w.saturated = w.cap*w.at, true, true
				left--
				continue
			}
			if i < k {
				w.level = w.cap
			}
			w.level = math.Min(w.level, yield(w.coef, x[c]))
			if w.level >= w.cap*(1-p.slack) {
				w.saturated = true
				left--
			}
		}
		if left == 0 {
			break
		}

		// Step 2: saturate the bottleneck jobs. Each row is divided by the
		// class's level (its cap while the level is 0), so that the gains
		// are relative and the coefficients near 1.
		m = newModel(in, classes, lp.Maximize, false)
		u := make([]int, len(classes))
		for c := range classes {
			scale := wf[c].level
			if scale <= 0 {
				scale = wf[c].cap
			}
			scaled := wfClass{coef: make([]float64, len(wf[c].coef)), best: wf[c].best, pinned: wf[c].pinned, at: wf[c].at}
			for g, v := range wf[c].coef {
				scaled.coef[g] = v / scale
			}
			r := levelRow(m, c, scaled, "gain", wf[c].level/scale)
			u[c] = -1
			if !wf[c].saturated {
				u[c] = m.variable("u["+strconv.Itoa(c)+"]", 0, p.slack, 1)
				m.add(r, u[c], -1)
			}
		}
		res, err := run.solve(&m.p, "water-filling bottleneck "+strconv.Itoa(iter))
		if err != nil {
			return models.Allocation{}, err
		}
		for c := range wf {
			if !wf[c].saturated && (res.X[u[c]] < p.slack*(1-1e-3) || iter > len(classes)) {
				wf[c].saturated = true
				left--
			}
		}
		if left == before {
			// Every job can still rise, yet the level LP stopped short of
			// the next cap: solver noise. Stop here.
			for c := range wf {
				wf[c].saturated = true
			}
			left = 0
		}
	}
	// Objective: the weighted max-min value min_j σ_j·n_j(x) / w⁰_j, with
	// w⁰_j = W_u·p_j / Σ_{k of u} p_k the first iteration's weights.
	x := final.matrix(shares)
	prio := make([]float64, len(s.Users))
	for c, w := range wf {
		prio[w.user] += classes[c].size() * w.prio
	}
	p.objective = math.Inf(1)
	for c, w := range wf {
		w0 := s.Users[w.user].Weight * w.prio / prio[w.user]
		p.objective = math.Min(p.objective, w.sigma*yield(w.coef, x[c])/w0)
	}
	return models.Allocation{Fractions: final.fractions(shares)}, nil
}

// capsReachable reports whether the first k classes of open (sorted by
// reach) can be at their caps while the others rise to the level
// t = reach[open[k−1]] (0 when k = 0), with the saturated classes kept at
// their levels: it maximises s ∈ [0, 1] with every unsaturated class's
// normalised throughput at least level + s·(target − level), and answers
// s ≥ 1 − 1e-9. The LP is always feasible (s = 0 holds at the current
// allocation). It returns the LP and its cleaned solution.
func (p *Hierarchical) capsReachable(run *solver, in *instance, classes []class, wf []wfClass, open []int, k int,
	reach, rate []float64, iter int) (bool, *model, []float64, error) {
	t0 := 0.0
	if k > 0 {
		t0 = reach[open[k-1]]
	}
	m := newModel(in, classes, lp.Maximize, false)
	sv := m.variable("s", 0, 1, 1)
	for c := range classes {
		if r := levelRow(m, c, wf[c], "reach", wf[c].level); !wf[c].saturated {
			target := math.Min(wf[c].level+t0*rate[c], wf[c].cap)
			m.add(r, sv, -(target - wf[c].level))
		}
	}
	res, err := run.solve(&m.p, "water-filling caps "+strconv.Itoa(iter))
	if err != nil {
		return false, nil, nil, err
	}
	return res.X[sv] >= 1-1e-9, m, m.clean(res.X), nil
}

// levelRow keeps class c at normalised throughput lo or more in m: a row
// Σ_g coef[g]·x[c][g] ≥ lo·(1 − levelSlack), returned for the caller to add
// terms to; or, for a pinned class, bounds x[c][best] = at and x[c][g] = 0
// elsewhere, and −1.
func levelRow(m *model, c int, w wfClass, name string, lo float64) int {
	if w.pinned {
		for g, v := range m.x[c] {
			if v >= 0 {
				m.p.Vars[v].Upper = 0
				if g == w.best {
					m.p.Vars[v].Lower, m.p.Vars[v].Upper = w.at, w.at
				}
			}
		}
		return -1
	}
	return m.throughputRow(name+"["+strconv.Itoa(c)+"]", c, w.coef, lo*(1-levelSlack), math.Inf(1))
}
