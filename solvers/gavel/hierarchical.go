package gavel

import (
	"errors"
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
// al., OSDI 2020, "hierarchical policies", with the "fairness" reweighting
// for every entity; docs/algorithms/gavel.md): users (Gavel's entities) share the cluster by
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
// at L_j + s·(target_j − L_j); reachable when s = 1), after the test of k =
// 1 when the previous step 1 found k = 0 (one LP then settles k = 0, the
// usual answer on a loaded cluster); then one LP maximises t below the next
// cap with the first k at their caps. A job at its cap keeps
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
// The allocation returned (solution central, the default) is the central
// point (lp.Interior) of the allocations that keep every class at its final
// level: the water filling fixes the levels, not which shares give them.
// With solution vertex it is the last step 1's vertex. Every LP of the water
// filling is feasible in exact arithmetic; one the solver finds infeasible
// (noise in nearly tight rows) ends the water filling with the allocation
// reached so far, rather than the run.
//
// A job whose user is not in the snapshot's users is an error.
type Hierarchical struct {
	base
	normaliser string
	slack      float64
	// capless is whether the last step 1 that solved a level LP found no
	// class able to reach its cap (k = 0): the next one tests k = 1 first.
	capless bool
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
	w, err := p.newWaterFill(s, in)
	if err != nil {
		return models.Allocation{}, err
	}
	for iter := 0; w.left > 0; iter++ {
		before := w.left
		open, rate := w.weights()
		ok, err := w.raise(open, rate, iter)
		if err != nil {
			return models.Allocation{}, err
		}
		if !ok || w.left == 0 {
			break
		}
		if ok, err = w.bottlenecks(iter); err != nil {
			return models.Allocation{}, err
		}
		if !ok || w.left == before {
			// Every job can still rise, yet the level LP stopped short of
			// the next cap, or an LP of this iteration was infeasible:
			// solver noise. Stop here, with the last allocation.
			break
		}
	}
	p.objective = w.objective()
	return w.allocation()
}

// waterFill is one decision's water filling: the classes' states, the
// decision's solver, and the last allocation reached.
type waterFill struct {
	p       *Hierarchical
	s       *models.Snapshot
	in      *instance
	classes []class
	wf      []wfClass
	run     *solver
	final   *model    // the LP of the last allocation
	shares  []float64 // its cleaned solution
	left    int       // unsaturated classes
	basis   lp.Basis  // the last reachability LP's (capsReachable), to warm-start the next
}

// newWaterFill reads the jobs' users, normalised throughputs and scales
// into classes, all unsaturated at level 0.
func (p *Hierarchical) newWaterFill(s *models.Snapshot, in *instance) (*waterFill, error) {
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
			return nil, fmt.Errorf("%s: job %d: unknown user %q", p.name, s.Jobs[i].ID, s.Jobs[i].User)
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
	w := &waterFill{p: p, s: s, in: in, classes: classes, wf: make([]wfClass, len(classes)), run: p.solver(), left: len(classes)}
	for c, cl := range classes {
		r := cl.rep()
		w.wf[c] = wfClass{user: userOf[r], prio: s.Jobs[r].PriorityWeight(), sigma: sigma[r], coef: coef[r], cap: maxOf(coef[r]), best: -1}
		for g, v := range coef[r] {
			if v == w.wf[c].cap {
				if w.wf[c].best >= 0 {
					w.wf[c].best = -1
					break
				}
				w.wf[c].best = g
			}
		}
	}
	return w, nil
}

// weights lists the unsaturated classes and gives each its rate of rise
// w_j/σ_j, w_j = W_u·p_j/Σ_{unsaturated k of u} p_k.
func (w *waterFill) weights() (open []int, rate []float64) {
	rate = make([]float64, len(w.classes))
	prioLeft := make([]float64, len(w.s.Users))
	for c, st := range w.wf {
		if !st.saturated {
			prioLeft[st.user] += w.classes[c].size() * st.prio
			open = append(open, c)
		}
	}
	for _, c := range open {
		st := w.wf[c]
		rate[c] = w.s.Users[st.user].Weight * st.prio / prioLeft[st.user] / st.sigma
	}
	return open, rate
}

// raise is step 1: it raises the levels of the open classes together, each
// up to its cap, and saturates the classes that reach their caps. It
// reports false when an LP was infeasible (solver noise).
func (w *waterFill) raise(open []int, rate []float64, iter int) (bool, error) {
	reach := make([]float64, len(w.classes)) // the t at which a class reaches its cap
	for _, c := range open {
		reach[c] = math.Max(0, (w.wf[c].cap-w.wf[c].level)/rate[c])
	}
	sort.SliceStable(open, func(a, b int) bool { return reach[open[a]] < reach[open[b]] })
	k := len(open)
	// Whether every open class reaches its cap is a question of the LP's
	// value, so the LP is warm-started from the last of the previous
	// iteration's (when of the same shape) — except where its vertex may
	// be kept: on the first iteration (see below), and when they all do,
	// where it is solved again from scratch.
	cold := w.final == nil
	if cold {
		w.basis = lp.Basis{}
	}
	k1 := false // k = 1 is known reachable
	if k > 1 && w.p.capless {
		// On a loaded cluster no class reaches its cap (k = 0, the answer
		// of nearly every iteration at 20,000 jobs): one LP tells, where
		// the test of them all and the bisection below take log₂ k + 2.
		// Which comes first changes the LPs solved, not k.
		ok, m, v, err := w.p.capsReachable(w.run, w.in, w.classes, w.wf, open, 1, reach, rate, iter, &w.basis)
		if err != nil || m == nil {
			return false, err
		}
		if !ok {
			if w.final == nil {
				w.final, w.shares = m, v
			}
			return w.raiseTo(open, 0, reach, rate, iter)
		}
		k1 = true
	}
	ok, m, v, err := w.p.capsReachable(w.run, w.in, w.classes, w.wf, open, k, reach, rate, iter, &w.basis)
	if err != nil || m == nil {
		return false, err
	}
	if ok && !cold {
		ok, m, v, err = w.p.capsReachable(w.run, w.in, w.classes, w.wf, open, k, reach, rate, iter, nil)
		if err != nil || m == nil {
			return false, err
		}
	}
	if !ok {
		if w.final == nil {
			// A feasible allocation already, should the LPs below fail.
			w.final, w.shares = m, v
		}
		if k, err = w.reachableCaps(open, reach, rate, iter, k1, &w.basis); err != nil {
			return false, err
		}
		return w.raiseTo(open, k, reach, rate, iter)
	}
	w.p.capless = false
	w.settle(open, k, m, v)
	return true, nil
}

// raiseTo holds the first k open classes at their caps, raises the others
// by the level LP and settles the result.
func (w *waterFill) raiseTo(open []int, k int, reach, rate []float64, iter int) (bool, error) {
	w.p.capless = k == 0
	m, v, err := w.level(open, k, reach, rate, iter)
	if err != nil || m == nil {
		return false, err
	}
	w.settle(open, k, m, v)
	return true, nil
}

// reachableCaps finds by bisection the largest k such that the first k open
// classes (sorted by reach) can sit at their caps while the others rise to
// the k-th reach. Only each LP's optimal value counts, which a warm start
// (from warm, the basis of the previous LP of the same shape) leaves as it
// is, so the LPs are warm-started.
func (w *waterFill) reachableCaps(open []int, reach, rate []float64, iter int, k1 bool, warm *lp.Basis) (int, error) {
	lo, hi := 0, len(open) // k = 0 is reachable: the current levels are.
	if k1 {
		lo = 1 // and so is k = 1 (raise tested it)
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		ok, m, _, err := w.p.capsReachable(w.run, w.in, w.classes, w.wf, open, mid, reach, rate, iter, warm)
		if err != nil {
			return 0, err
		}
		if ok && m != nil {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, nil
}

// level solves the LP that raises the open classes beyond the first k
// (held at their caps) as far as t below the next cap; it returns nil when
// the LP was infeasible (solver noise).
func (w *waterFill) level(open []int, k int, reach, rate []float64, iter int) (*model, []float64, error) {
	capped := make([]bool, len(w.classes))
	for _, c := range open[:k] {
		capped[c] = true
	}
	m := newModel(w.in, w.classes, lp.Maximize, false)
	t := m.variable("t", 0, reach[open[k]], 1)
	for c := range w.classes {
		lo := w.wf[c].level
		if capped[c] {
			lo = w.wf[c].cap
		}
		if r := levelRow(m, c, w.wf[c], "level", lo); !w.wf[c].saturated && !capped[c] {
			m.add(r, t, -rate[c])
		}
	}
	res, err := w.run.solve(&m.p, "water-filling level "+strconv.Itoa(iter))
	if errors.Is(err, lp.ErrInfeasible) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	for _, c := range open[k:] {
		w.wf[c].level += res.X[t] * rate[c]
	}
	return m, m.clean(res.X), nil
}

// settle takes the allocation of m (cleaned solution v) as the last one,
// caps the new levels at what it reaches (so that it proves the next LPs
// feasible whatever the solver's tolerances), and saturates the classes at
// their caps.
func (w *waterFill) settle(open []int, k int, m *model, v []float64) {
	w.final, w.shares = m, v
	x := m.matrix(v)
	for i, c := range open {
		st := &w.wf[c]
		if i < k && st.best >= 0 {
			// At its cap: all its time on its fastest type, held there by
			// bounds from now on (no nearly tight row), at the share the
			// cleaned allocation gives it.
			st.at = x[c][st.best]
			st.level, st.pinned, st.saturated = st.cap*st.at, true, true
			w.left--
			continue
		}
		if i < k {
			st.level = st.cap
		}
		st.level = math.Min(st.level, yield(st.coef, x[c]))
		if st.level >= st.cap*(1-w.p.slack) {
			st.saturated = true
			w.left--
		}
	}
}

// bottlenecks is step 2: it saturates the classes that cannot rise by the
// slack with the others. Each row is divided by the class's level (its cap
// while the level is 0), so that the gains are relative and the
// coefficients near 1. It reports false when the LP was infeasible (solver
// noise).
func (w *waterFill) bottlenecks(iter int) (bool, error) {
	m := newModel(w.in, w.classes, lp.Maximize, false)
	u := make([]int, len(w.classes))
	for c := range w.classes {
		st := w.wf[c]
		scale := st.level
		if scale <= 0 {
			scale = st.cap
		}
		scaled := wfClass{coef: make([]float64, len(st.coef)), best: st.best, pinned: st.pinned, at: st.at}
		for g, v := range st.coef {
			scaled.coef[g] = v / scale
		}
		r := levelRow(m, c, scaled, "gain", st.level/scale)
		u[c] = -1
		if !st.saturated {
			u[c] = m.variable("u["+strconv.Itoa(c)+"]", 0, w.p.slack, 1)
			m.add(r, u[c], -1)
		}
	}
	res, err := w.run.solve(&m.p, "water-filling bottleneck "+strconv.Itoa(iter))
	if errors.Is(err, lp.ErrInfeasible) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	for c := range w.wf {
		if !w.wf[c].saturated && (res.X[u[c]] < w.p.slack*(1-1e-3) || iter > len(w.classes)) {
			w.wf[c].saturated = true
			w.left--
		}
	}
	return true, nil
}

// objective is the weighted max-min value min_j σ_j·n_j(x) / w⁰_j of the
// last allocation, with w⁰_j = W_u·p_j / Σ_{k of u} p_k the first
// iteration's weights.
func (w *waterFill) objective() float64 {
	if w.final == nil {
		return 0
	}
	x := w.final.matrix(w.shares)
	prio := make([]float64, len(w.s.Users))
	for c, st := range w.wf {
		prio[st.user] += w.classes[c].size() * st.prio
	}
	obj := math.Inf(1)
	for c, st := range w.wf {
		w0 := w.s.Users[st.user].Weight * st.prio / prio[st.user]
		obj = math.Min(obj, st.sigma*yield(st.coef, x[c])/w0)
	}
	return obj
}

// allocation is the last allocation: with solution central, the central
// point (lp.Interior) of the allocations that keep every class at its
// final level, which the water filling fixes but not which shares give it.
func (w *waterFill) allocation() (models.Allocation, error) {
	if w.final == nil {
		return models.Allocation{}, nil
	}
	if w.p.opt.Solution == SolutionVertex {
		return models.Allocation{Fractions: w.final.fractions(w.shares)}, nil
	}
	x := w.final.matrix(w.shares)
	f := newModel(w.in, w.classes, lp.Maximize, true)
	for c, st := range w.wf {
		if lo := math.Min(st.level, yield(st.coef, x[c])); lo > 0 {
			f.throughputRow("level["+strconv.Itoa(c)+"]", c, st.coef, lo*(1-levelSlack), math.Inf(1))
		}
	}
	res, err := w.run.solveModel(f, "water-filling central")
	if err != nil {
		return models.Allocation{}, err
	}
	return models.Allocation{Fractions: f.fractions(f.clean(res.X))}, nil
}

// capsReachable reports whether the first k classes of open (sorted by
// reach) can be at their caps while the others rise to the level
// t = reach[open[k−1]] (0 when k = 0), with the saturated classes kept at
// their levels: it maximises s ∈ [0, 1] with every unsaturated class's
// normalised throughput at least level + s·(target − level), and answers
// s ≥ 1 − 1e-9. The LP is always feasible (s = 0 holds at the current
// allocation) but for solver noise, which gives false and a nil LP. It
// returns the LP and its cleaned solution. warm is the simplex basis carried
// between these LPs (lp.Options.Warm).
func (p *Hierarchical) capsReachable(run *solver, in *instance, classes []class, wf []wfClass, open []int, k int,
	reach, rate []float64, iter int, warm *lp.Basis) (bool, *model, []float64, error) {
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
	res, err := run.solveWarm(&m.p, "water-filling caps "+strconv.Itoa(iter), warm)
	if errors.Is(err, lp.ErrInfeasible) {
		return false, nil, nil, nil // solver noise: the current levels are feasible
	}
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
