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
// their caps while the others rise to the k-th of those t is found by a
// search from the k the last search found (stepping away from it by 1, 2,
// 4, … and bisecting; reachability is monotone in k), each step one LP (maximise s ∈ [0, 1] with every unsaturated job
// at L_j + s·(target_j − L_j); reachable when s = 1), after the test of k =
// 1 when the previous step 1 found k = 0 (the usual answer on a loaded
// cluster: that LP is then step 1's LP itself, with t = s·reach of the first
// cap, so one LP settles the iteration); then one LP maximises t below the
// next cap with the first k at their caps. A job at its cap keeps its
// fastest type's time as a bound on its variables from then on.
//
// Step 2 differs from Gavel, which solves a MILP: maximise the number of
// jobs z_j that can exceed L_j·(1 + slack) at once, with big-M rows. Here it
// reads the duals of step 1's LP: a job whose row has a dual y_j with
// |y_j|·(its coefficient on t) above 1e-9 (the duals' shares of the optimum
// sum to 1 when t is below its bound) is tight at every optimum of that LP
// by complementary slackness, so it cannot rise with the others kept at
// their levels: it is a bottleneck, exactly, and is saturated; t stopped
// below its bound means at least one is. A bottleneck whose dual is 0 at
// the vertex found (degenerate duals) is found by the next iteration, whose
// t is then 0. Where no dual names a job (t stopped at the next cap, or a
// backend without duals), the MILP's LP relaxation decides: maximise
// Σ_j u_j, u_j ∈ [0, slack], subject to
// n_j(x)/L_j ≥ 1 + u_j for the unsaturated jobs, n_j(x) ≥ L_j for the
// others; a job with u_j below slack (by more than 0.1%) is saturated. If a
// set S of jobs could each gain a_j on its own, averaging those allocations
// gains a_j/|S| for all of them at once (the feasible set is convex), so a
// job that can gain |S|·slack on its own is never saturated, and one that
// cannot gain slack with the others is.
//
// Each LP of a decision starts from the simplex basis of the one before
// (lp.Options.Warm, renumbered by class: the LPs share their share
// variables and capacity and time rows), and a decision's first LP from the
// last decision's first, its classes found again by their data (the class
// key). Which optimal vertex an LP lands on then depends on that path; its
// optimal value, and so the levels, do not, up to the solver's tolerance
// (about 1e-8 relative, TestHierarchicalLevelsIndependentOfPath), and a
// decision is deterministic.
//
// The allocation returned (solution central, the default) is the central
// point (lp.Interior) of the allocations that keep every class at its final
// level: the water filling fixes the levels, not which shares give them.
// With solution vertex it is the last step 1's vertex, and so it is
// beyond 1,000 variables (classes × types; Tally.Fallbacks counts these),
// where the central solve would fall back to a simplex vertex of that LP
// solved from scratch: the last vertex is one of its feasible points
// already. Every LP of the water
// filling is feasible in exact arithmetic; one the solver finds infeasible
// (noise in nearly tight rows) ends the water filling with the allocation
// reached so far, rather than the run.
//
// A job whose user is not in the snapshot's users is an error.
type Hierarchical struct {
	base
	normaliser string
	slack      float64
	// carry is the basis of the last decision's first LP, for the next
	// decision's first LP (its classes found again by their keys).
	carry *carried
	// capless is whether the last step 1 that solved a level LP found no
	// class able to reach its cap (k = 0): the next one tests k = 1 first.
	capless bool
	// guess holds, per iteration, the k the last search for reachable
	// caps found there (reachableCaps), where the next search of that
	// iteration starts.
	guess []guess
	// pool is the memory of the water filling's LPs.
	pool modelPool
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
	p.pool.reset() // the last decision's LPs are gone
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
		if ok, err = w.blamed(iter); err != nil {
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
	if w.chain.carried != nil {
		p.carry = w.chain.carried
	}
	return w.allocation()
}

// model is a new LP of the water filling: a copy of newModel's, built once
// a decision. Its variables and the slices that grow are copied; the rows
// of w.base share their terms, which no LP here adds to. The copy lives in
// memory of the policy's pool (modelPool) that no LP of this decision uses.
func (w *waterFill) model() *model {
	if w.base == nil {
		w.base = newModel(w.in, w.classes, lp.Maximize, false)
		w.chain.fixedVars = len(w.base.p.Vars)
	}
	return w.p.pool.copyOf(w.base, len(w.classes)*(len(w.in.types)+1))
}

// modelPool is the memory of the water filling's LPs, kept from one
// decision to the next: the LPs of a decision are copies of one model
// (waterFill.model) that live until the decision ends, so a decision's
// n-th LP takes the n-th slot, and the next decision takes the slots again
// (reset).
type modelPool struct {
	slots []*pooledModel
	used  int
}

// pooledModel is one slot: an LP and the memory of its class rows' terms.
type pooledModel struct {
	m     model
	terms []lp.Term
}

// reset starts a decision: every slot is free.
func (pl *modelPool) reset() { pl.used = 0 }

// copyOf is base copied into the next free slot, with room for terms more
// terms in its own rows (model.termsFor).
func (pl *modelPool) copyOf(base *model, terms int) *model {
	if pl.used == len(pl.slots) {
		pl.slots = append(pl.slots, &pooledModel{})
	}
	sl := pl.slots[pl.used]
	pl.used++
	m := &sl.m
	vars, rows, cv, cr, sh := m.p.Vars, m.p.Rows, m.copies.Vars, m.copies.Rows, m.shares
	*m = *base
	m.p.Vars = append(vars[:0], base.p.Vars...)
	m.p.Rows = append(rows[:0], base.p.Rows...)
	m.copies.Vars = append(cv[:0], base.copies.Vars...)
	m.copies.Rows = append(cr[:0], base.copies.Rows...)
	m.shares = append(sh[:0], base.shares...)
	if cap(sl.terms) < terms {
		sl.terms = make([]lp.Term, 0, terms)
	}
	m.terms = sl.terms[:0]
	return m
}

// solve solves m (of shape sh) from the last LP's basis (warmChain.solve).
func (w *waterFill) solve(m *model, sh shape, what string) (lp.Result, error) {
	return w.chain.solve(w.run, m, sh, what, w.p.carry, w.keys)
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
	chain   warmChain // the last LP's basis, to start the next from
	blame   []float64 // the last level LP's blame per class (reached.blame)
	keys    []string  // each class's key (its jobs' data)
	base    *model    // newModel's LP, which every LP of the water filling extends
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
	key := func(k keyer, i int) keyer {
		return k.str(s.Jobs[i].User).num(s.Jobs[i].PriorityWeight()).num(float64(in.gang(i))).num(sigma[i]).nums(coef[i])
	}
	classes := group(n, p.opt.Aggregate, key)
	w := &waterFill{p: p, s: s, in: in, classes: classes, wf: make([]wfClass, len(classes)), run: p.solver(), left: len(classes)}
	w.chain.fixedRows = len(in.types) + len(classes)
	w.keys = make([]string, len(classes))
	for c, cl := range classes {
		w.keys[c] = string(key(nil, cl.rep()))
	}
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
	// w.blame is set by the LP that settles the level, where it has duals.
	w.blame = nil
	reach := make([]float64, len(w.classes)) // the t at which a class reaches its cap
	for _, c := range open {
		reach[c] = math.Max(0, (w.wf[c].cap-w.wf[c].level)/rate[c])
	}
	sort.SliceStable(open, func(a, b int) bool { return reach[open[a]] < reach[open[b]] })
	lo := 0 // k = 0 is reachable: the current levels are
	if len(open) > 1 && w.p.capless {
		// On a loaded cluster no class reaches its cap (k = 0, the answer
		// of nearly every iteration at 20,000 jobs): one LP tells, where
		// the search below takes several. When no class can reach the
		// first cap, that LP is the level LP of k = 0 (its s is
		// t / reach[open[0]]), whose allocation it gives.
		r, err := w.capsReachable(open, 1, reach, rate, iter)
		if err != nil || r.m == nil {
			return false, err
		}
		if !r.ok {
			w.firstCap(open, r, reach, rate)
			return true, nil
		}
		lo = 1
	}
	k, r, err := w.reachableCaps(open, lo, reach, rate, iter)
	switch {
	case err != nil:
		return false, err
	case k == 0 && r.m != nil:
		w.firstCap(open, r, reach, rate)
		return true, nil
	case k < len(open):
		return w.raiseTo(open, k, reach, rate, iter)
	case r.m == nil:
		return false, nil // solver noise
	}
	w.p.capless = false
	w.settle(open, k, r.m, r.v)
	return true, nil
}

// firstCap settles the iteration with r, the LP of k = 1 when no class can
// reach its cap: it is the level LP of k = 0, with t = s·reach[open[0]].
func (w *waterFill) firstCap(open []int, r reached, reach, rate []float64) {
	w.p.capless = true
	w.rise(open, 0, r.s*reach[open[0]], rate)
	w.settle(open, 0, r.m, r.v)
	w.blame = r.blame
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

// reachableCaps finds the largest k ≤ len(open), k = lo known reachable,
// such that the first k open classes (sorted by reach) can sit at their
// caps while the others rise to the k-th reach. Reachability is monotone
// in k (a larger k raises every class's target), so the order of the tests
// changes the LPs solved, not k: the search starts at the k of the last
// search (this decision's or the last one's, p.guess; len(open) if that
// one found every class), steps away from it
// by 1, 2, 4, … until k is bracketed, and bisects. It returns with k the
// LP that settles the iteration, if it solved it: that of k = len(open)
// when every class reaches its cap, that of k = 1 when none does.
func (w *waterFill) reachableCaps(open []int, lo int, reach, rate []float64, iter int) (int, reached, error) {
	n := len(open)
	hi := n + 1 // no k beyond n
	var top, one reached
	probe := func(k int) (bool, error) {
		r, err := w.capsReachable(open, k, reach, rate, iter)
		if err != nil {
			return false, err
		}
		if r.m != nil && w.final == nil {
			// A feasible allocation already, should the LPs below fail.
			w.final, w.shares = r.m, r.v
		}
		if r.ok && r.m != nil {
			lo = k
			if k == n {
				top = r
			}
			return true, nil
		}
		if k == 1 {
			one = r
		}
		hi = k
		return false, nil
	}
	var last guess
	if len(w.p.guess) > 0 {
		last = w.p.guess[min(iter, len(w.p.guess)-1)]
	}
	g := n
	if !last.all {
		g = min(max(last.k, lo+1), n)
	}
	up, err := probe(g)
	if err != nil {
		return 0, reached{}, err
	}
	for step := 1; hi-lo > 1; step *= 2 {
		k := g - step
		if up {
			k = min(g+step, n)
		}
		if k <= lo || k >= hi {
			break
		}
		ok, err := probe(k)
		if err != nil {
			return 0, reached{}, err
		}
		if ok != up {
			break
		}
	}
	for hi-lo > 1 {
		if _, err := probe((lo + hi) / 2); err != nil {
			return 0, reached{}, err
		}
	}
	for len(w.p.guess) <= iter {
		w.p.guess = append(w.p.guess, guess{})
	}
	w.p.guess[iter] = guess{k: lo, all: lo == n}
	if lo == 0 {
		return 0, one, nil
	}
	return lo, top, nil
}

// level solves the LP that raises the open classes beyond the first k
// (held at their caps) as far as t below the next cap; it returns nil when
// the LP was infeasible (solver noise).
func (w *waterFill) level(open []int, k int, reach, rate []float64, iter int) (*model, []float64, error) {
	capped := make([]bool, len(w.classes))
	for _, c := range open[:k] {
		capped[c] = true
	}
	m := w.model()
	t := m.variable("t", 0, reach[open[k]], 1)
	rows := make([]int, len(w.classes))
	for c := range w.classes {
		lo := w.wf[c].level
		if capped[c] {
			lo = w.wf[c].cap
		}
		rows[c] = levelRow(m, c, w.wf[c], "level", lo)
		if !w.wf[c].saturated && !capped[c] {
			m.add(rows[c], t, -rate[c])
		}
	}
	res, err := w.solve(m, newShape(m, rows, t, nil), "water-filling level "+strconv.Itoa(iter))
	if errors.Is(err, lp.ErrInfeasible) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	w.rise(open, k, res.X[t], rate)
	coef := make([]float64, len(w.classes))
	for _, c := range open[k:] {
		coef[c] = rate[c]
	}
	w.blame = blame(res, rows, coef)
	return m, m.clean(res.X), nil
}

// rise raises the levels of the open classes beyond the first k by t.
func (w *waterFill) rise(open []int, k int, t float64, rate []float64) {
	for _, c := range open[k:] {
		w.wf[c].level += t * rate[c]
	}
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

// blamed is step 2 from the duals of step 1's LP: a class whose row holds
// part of the optimum's dual (blame above blameTol) is tight at every
// optimum of that LP, so it cannot rise with the others kept at their
// levels, and is saturated. Where no class is blamed (the level stopped at
// the next cap, or the duals are degenerate) the bottleneck LP decides.
func (w *waterFill) blamed(iter int) (bool, error) {
	n := 0
	for c, b := range w.blame {
		if !w.wf[c].saturated && b > blameTol {
			n++
		}
	}
	if n == 0 {
		return w.bottlenecks(iter)
	}
	for c, b := range w.blame {
		if !w.wf[c].saturated && b > blameTol {
			w.wf[c].saturated = true
			w.left--
		}
	}
	return true, nil
}

// blameTol is the share of an LP's optimum a row's dual must hold for its
// class to count as a bottleneck.
const blameTol = 1e-9

// blame is, per class, |y_c|·coef[c] for the dual y_c of its row (rows[c],
// −1 for none) in res.
func blame(res lp.Result, rows []int, coef []float64) []float64 {
	out := make([]float64, len(rows))
	if res.Duals == nil {
		return out
	}
	for c, r := range rows {
		if r >= 0 {
			out[c] = math.Abs(res.Duals[r]) * coef[c]
		}
	}
	return out
}

// bottlenecks is step 2: it saturates the classes that cannot rise by the
// slack with the others. Each row is divided by the class's level (its cap
// while the level is 0), so that the gains are relative and the
// coefficients near 1. It reports false when the LP was infeasible (solver
// noise).
func (w *waterFill) bottlenecks(iter int) (bool, error) {
	m := w.model()
	u := make([]int, len(w.classes))
	rows := make([]int, len(w.classes))
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
		rows[c] = levelRow(m, c, scaled, "gain", st.level/scale)
		u[c] = -1
		if !st.saturated {
			u[c] = m.variable("u["+strconv.Itoa(c)+"]", 0, w.p.slack, 1)
			m.add(rows[c], u[c], -1)
		}
	}
	res, err := w.solve(m, newShape(m, rows, -1, u), "water-filling bottleneck "+strconv.Itoa(iter))
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
// final level, which the water filling fixes but not which shares give it;
// beyond maxInterior variables, and with solution vertex, the last LP's
// vertex.
func (w *waterFill) allocation() (models.Allocation, error) {
	if w.final == nil {
		return models.Allocation{}, nil
	}
	if w.p.opt.Solution == SolutionVertex {
		return models.Allocation{Fractions: w.final.fractions(w.shares)}, nil
	}
	if len(w.classes)*len(w.in.types) > maxInterior {
		// Too large for the central solve (solveModel would solve the LP
		// below for a simplex vertex instead): the last allocation is a
		// feasible vertex already, every class's row holding at the level
		// it reached.
		w.run.tally.Fallbacks++
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

// guess is the answer of a search for reachable caps: k, and whether it
// was every open class (then the next search tries all first, whatever
// their number).
type guess struct {
	k   int
	all bool
}

// reached is the answer of capsReachable: whether the caps are reachable
// (ok), the LP (m, nil when it was infeasible: solver noise), its cleaned
// solution v and its optimal s.
type reached struct {
	ok bool
	m  *model
	v  []float64
	s  float64
	// blame is, per class, the share of the LP's optimum that its row's
	// dual holds (|y_c| times its coefficient on s): positive only for a
	// class whose row is tight at every optimum.
	blame []float64
}

// capsReachable reports whether the first k classes of open (sorted by
// reach) can be at their caps while the others rise to the level
// t = reach[open[k−1]] (0 when k = 0), with the saturated classes kept at
// their levels: it maximises s ∈ [0, 1] with every unsaturated class's
// normalised throughput at least level + s·(target − level), and answers
// s ≥ 1 − 1e-9. The LP is always feasible (s = 0 holds at the current
// allocation) but for solver noise, which gives false and a nil LP.
func (w *waterFill) capsReachable(open []int, k int, reach, rate []float64, iter int) (reached, error) {
	t0 := 0.0
	if k > 0 {
		t0 = reach[open[k-1]]
	}
	m := w.model()
	sv := m.variable("s", 0, 1, 1)
	rows := make([]int, len(w.classes))
	for c := range w.classes {
		rows[c] = levelRow(m, c, w.wf[c], "reach", w.wf[c].level)
		if !w.wf[c].saturated {
			target := math.Min(w.wf[c].level+t0*rate[c], w.wf[c].cap)
			m.add(rows[c], sv, -(target - w.wf[c].level))
		}
	}
	res, err := w.solve(m, newShape(m, rows, sv, nil), "water-filling caps "+strconv.Itoa(iter))
	if errors.Is(err, lp.ErrInfeasible) {
		return reached{}, nil // solver noise: the current levels are feasible
	}
	if err != nil {
		return reached{}, err
	}
	coef := make([]float64, len(w.classes))
	for c := range w.classes {
		if !w.wf[c].saturated {
			coef[c] = math.Min(w.wf[c].level+t0*rate[c], w.wf[c].cap) - w.wf[c].level
		}
	}
	return reached{ok: res.X[sv] >= 1-1e-9, m: m, v: m.clean(res.X), s: res.X[sv], blame: blame(res, rows, coef)}, nil
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
