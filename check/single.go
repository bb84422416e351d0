package check

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"fairbench/fairness"
	"fairbench/models"
)

// exhaustiveResult is what the exhaustive pass found for one task.
type exhaustiveResult struct {
	checked  int
	relaxed  int
	first    int // index of the first violating instance in the scope, or -1
	spec     Spec
	reason   string
	errFirst int // index of the first instance the policy failed on, or -1
	errSpec  Spec
	err      error
	relaxIdx []int
	admitted atomic.Int64 // instances of the scope decided
	seconds  float64
}

// item is one instance of the enumeration.
type item struct {
	idx  int
	spec Spec
}

// exhaustive checks every single task on every instance within the bound
// that its scope admits, in parallel. The first violation and failure in
// enumeration order are kept, so the outcome does not depend on
// scheduling; a task stops being checked past its first violation, and the
// enumeration stops once every task has one.
func (r *runner) exhaustive(tasks []*task) []*exhaustiveResult {
	out := make([]*exhaustiveResult, len(tasks))
	b := r.cfg.bound()
	open := 0
	for i, t := range tasks {
		if t != nil && b.Users > 0 {
			out[i] = &exhaustiveResult{first: -1, errFirst: -1}
			open++
		}
	}
	if open == 0 {
		return out
	}
	first := make([]atomic.Int64, len(tasks))
	for i := range first {
		first[i].Store(-1)
	}
	var mu sync.Mutex
	start := time.Now()
	items := make(chan item, 64)
	go func() {
		defer close(items)
		i := 0
		b.Each(func(s Spec) bool {
			if i%256 == 0 && allFound(tasks, first, i) {
				return false
			}
			items <- item{i, s}
			i++
			return true
		})
	}()
	var wg sync.WaitGroup
	for w := 0; w < r.cfg.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range items {
				r.exhaustOne(it, tasks, out, first, b.Speeds, &mu)
			}
		}()
	}
	wg.Wait()
	secs := time.Since(start).Seconds()
	r.countChecked(b, tasks, out, secs)
	return out
}

// allFound reports whether every task has a violation before index i.
func allFound(tasks []*task, first []atomic.Int64, i int) bool {
	for k, t := range tasks {
		if t != nil && (first[k].Load() < 0 || int(first[k].Load()) >= i) {
			return false
		}
	}
	return true
}

// exhaustOne decides one instance and checks every task that still needs
// it (each property once, whatever the number of its scopes).
func (r *runner) exhaustOne(it item, tasks []*task, out []*exhaustiveResult, first []atomic.Int64, grid []float64, mu *sync.Mutex) {
	var d *Decision
	type verdict struct {
		ok  bool
		why string
		err error
	}
	seen := map[string]verdict{}
	for k, t := range tasks {
		if t == nil || !t.scope.Admits(it.spec) {
			continue
		}
		if f := first[k].Load(); f >= 0 && int64(it.idx) > f {
			continue
		}
		if d == nil {
			sc := it.spec
			d = decide(r.subj, r.cfg, sc.Instance(), &sc)
		}
		out[k].admitted.Add(1)
		v, ok := seen[t.prop.Name()]
		if !ok {
			good, why, _, err := check(t.prop.(SingleProperty), d, grid)
			v = verdict{good, why, err}
			seen[t.prop.Name()] = v
		}
		mu.Lock()
		e := out[k]
		if d.Relaxed && judges(t.prop) {
			e.relaxIdx = append(e.relaxIdx, it.idx)
		}
		switch {
		case v.err != nil:
			if e.errFirst < 0 || it.idx < e.errFirst {
				e.errFirst, e.errSpec, e.err = it.idx, it.spec, v.err
			}
		case !v.ok:
			if e.first < 0 || it.idx < e.first {
				e.first, e.spec, e.reason = it.idx, it.spec, v.why
				first[k].Store(int64(it.idx))
			}
		}
		mu.Unlock()
	}
}

// countChecked counts, per task, the admitted instances up to its first
// violation (all those decided when it has none; for the others by
// enumerating again, without deciding, up to the last first violation),
// and the relaxed ones among them.
func (r *runner) countChecked(b Bound, tasks []*task, out []*exhaustiveResult, secs float64) {
	last := -1
	for _, e := range out {
		if e != nil {
			e.checked = int(e.admitted.Load())
			last = max(last, e.first)
			if e.first >= 0 {
				e.checked = 0
			}
		}
	}
	i := 0
	b.Each(func(s Spec) bool {
		if i > last {
			return false
		}
		for k, t := range tasks {
			if e := out[k]; e != nil && e.first >= 0 && i <= e.first && t.scope.Admits(s) {
				e.checked++
			}
		}
		i++
		return true
	})
	for _, e := range out {
		if e == nil {
			continue
		}
		e.seconds = secs / float64(max(1, len(tasks)))
		for _, idx := range e.relaxIdx {
			if e.first < 0 || idx <= e.first {
				e.relaxed++
			}
		}
		e.relaxIdx = nil
	}
}

// single finishes one single-allocation property in one scope: shrink the
// exhaustive counterexample, or search randomly.
func (r *runner) single(p SingleProperty, scope Scope, ex *exhaustiveResult) Result {
	res := Result{Kind: "single"}
	b := r.cfg.bound()
	where := ""
	if len(scope) > 0 {
		where = " " + scope.String()
	}
	if ex != nil {
		res.Exhaustive, res.Relaxed = ex.checked, ex.relaxed
		res.Method = fmt.Sprintf("exhaustive %s%s (%d instances)", b, where, ex.checked)
		if ex.first >= 0 {
			spec, shrinks := r.shrink(p, scope, ex.spec)
			res.Method = fmt.Sprintf("exhaustive %s%s: violated at instance %d", b, where, ex.first+1)
			return r.violation(res, p, scope, spec, shrinks, b.Speeds)
		}
	}
	rnd := r.random(p, scope, &res)
	if rnd.violated != nil {
		return r.violation(res, p, scope, *rnd.violated, rnd.shrinks, r.cfg.Limits.Speeds)
	}
	switch {
	case rnd.panic != nil:
		res.Status, res.Reason = Errored, fmt.Sprintf("check panicked: %v", rnd.panic)
	case ex != nil && ex.err != nil:
		res.Status, res.Reason = Errored, ex.err.Error()
		res.Instance = r.failureInstance(p, &ex.errSpec, ex.err)
	case rnd.err != nil:
		res.Status, res.Reason = Errored, rnd.err.Error()
		res.Instance = r.failureInstance(p, rnd.errSpec, rnd.err)
	default:
		res.Status = Holds
	}
	return res
}

// randomOutcome is what the random search found.
type randomOutcome struct {
	violated *Spec
	shrinks  int
	err      error
	errSpec  *Spec
	panic    error
}

// random runs cfg.Cases random instances of scope through gopter, with
// shrinking within the scope.
func (r *runner) random(p SingleProperty, scope Scope, res *Result) randomOutcome {
	var out randomOutcome
	if r.cfg.Cases <= 0 {
		return out
	}
	seen := map[string]bool{}
	condition := func(s Spec) bool {
		d := r.decision(s)
		if k := s.Key(); d.Relaxed && judges(p) && !seen[k] {
			seen[k] = true
			res.Relaxed++
		}
		ok, _, _, err := check(p, d, nil)
		if err != nil {
			if out.err == nil {
				out.err, out.errSpec = err, &s
			}
			return true
		}
		return ok
	}
	params := gopter.DefaultTestParametersWithSeed(r.cfg.Seed)
	params.MinSuccessfulTests = r.cfg.Cases
	params.MaxShrinkCount = r.cfg.MaxShrinks
	params.Workers = 1
	limits, grid := r.cfg.Limits, r.cfg.Limits.Speeds
	gen := gopter.Gen(func(gp *gopter.GenParameters) *gopter.GenResult {
		rng := rand.New(rand.NewPCG(uint64(gp.Rng.Int63()), 7))
		return gopter.NewGenResult(drawIn(limits, scope, rng), specShrinker(grid, r.keep(scope)))
	})
	o := prop.ForAll(condition, gen).Check(params)
	res.Random = o.Succeeded
	method := fmt.Sprintf("%d random instances%s (gopter, seed %d)", r.cfg.Cases, scopeSuffix(scope), r.cfg.Seed)
	if res.Method != "" {
		method = res.Method + " + " + method
	}
	res.Method = method
	switch {
	case o.Status == gopter.TestFailed && len(o.Args) > 0:
		s := o.Args[0].Arg.(Spec)
		res.Random++
		out.violated, out.shrinks = &s, o.Args[0].Shrinks
	case o.Status == gopter.TestError:
		out.panic = o.Error
	}
	return out
}

func scopeSuffix(scope Scope) string {
	if len(scope) == 0 {
		return ""
	}
	return " " + scope.String()
}

// drawIn draws a random spec that the scope admits: a draw within the
// limits, projected onto the conditions (after 1,000 draws that no
// projection admits, the smallest instance, which every condition admits).
func drawIn(l Limits, scope Scope, rng *rand.Rand) Spec {
	for range 1000 {
		if s, ok := scope.Project(l.Random(rng)); ok {
			return s
		}
	}
	return Spec{GPUs: []int{1}, Users: []UserSpec{{Weight: 1, Jobs: []JobSpec{{Gang: 1, Speed: []float64{1}}}}}}
}

// judges reports whether p is one of the properties the Realised mode
// does not judge on relaxed instances.
func judges(p Property) bool {
	switch p.Name() {
	case SharingIncentive, EnvyFree, ParetoEfficient, StrategyProof:
		return true
	}
	return false
}

// keep is the filter of shrinks: within the scope, and leaving no user
// idle unless the searched space has idle users (a shrink must not leave
// the space the search drew from: the counterexample of a bug in users
// with one job must not turn into one about idle users).
func (r *runner) keep(scope Scope) func(from, to Spec) bool {
	idle := r.cfg.Limits.IdleChance > 0 || r.cfg.bound().Idle
	return func(from, to Spec) bool {
		return scope.Admits(to) && (idle || !from.allActive() || to.allActive())
	}
}

// specShrinker adapts Spec.Shrinks to gopter, keeping what keep keeps.
func specShrinker(grid []float64, keep func(from, to Spec) bool) gopter.Shrinker {
	return func(v interface{}) gopter.Shrink {
		var list []Spec
		for _, c := range v.(Spec).Shrinks(grid) {
			if keep(v.(Spec), c) {
				list = append(list, c)
			}
		}
		i := 0
		return func() (interface{}, bool) {
			if i >= len(list) {
				return nil, false
			}
			i++
			return list[i-1], true
		}
	}
}

// shrink walks from a failing spec to a locally minimal one within the
// scope, taking the first shrink that still fails, as gopter does.
func (r *runner) shrink(p SingleProperty, scope Scope, s Spec) (Spec, int) {
	steps := 0
	keep := r.keep(scope)
	for steps < r.cfg.MaxShrinks {
		moved := false
		for _, c := range s.Shrinks(r.cfg.Limits.Speeds) {
			if !keep(s, c) {
				continue
			}
			if ok, _, _, err := check(p, r.decision(c), nil); err == nil && !ok {
				s, moved = c, true
				steps++
				break
			}
		}
		if !moved {
			break
		}
	}
	return s, steps
}

// violation fills res for a counterexample spec: the property is checked
// again on it (with the random search's moves, then the grid that may have
// found it), and a lie found is rechecked exactly.
func (r *runner) violation(res Result, p SingleProperty, scope Scope, spec Spec, shrinks int, grid []float64) Result {
	d := r.decision(spec)
	ok, why, c, err := check(p, d, nil)
	if err == nil && ok {
		ok, why, c, err = check(p, d, grid)
	}
	res.Status, res.Reason, res.Shrinks = Violated, why, shrinks
	switch {
	case err != nil:
		res.Status, res.Reason = Errored, err.Error()
	case ok:
		res.Reason = "violated when found, not when checked again (nondeterministic policy?)"
	case c.lie != nil:
		res.Reason = r.recheckLie(p, d, c.lie, why)
		res.infeasible = c.lie.Infeasible != nil
	}
	res.Instance = r.counterexample(p.Name(), scope, d, res.Reason, c.lie)
	return res
}

// recheckLie evaluates the lie found once more, exactly: a policy that
// answers the same report differently is nondeterministic.
func (r *runner) recheckLie(p SingleProperty, d *Decision, lie *fairness.Misreport, why string) string {
	again, _, err := fairness.Recheck(d.Division, d.Outcome, d.Mechanism, lie, r.cfg.tol(r.cfg.Tol.Strategy, d.Mode))
	switch {
	case err != nil:
		return why + fmt.Sprintf(" (the recheck of this exact lie failed: %v)", err)
	case !again:
		return why + " — but the same report does not gain when asked again (nondeterministic policy?)"
	}
	return why + " (rechecked: the same report gains again)"
}

// counterexample writes the decision down as a replayable instance, with
// the check record (property, conditions, claims, the lie). A lie answered
// with an infeasible allocation is written as the misreported instance
// with that answer: it breaks feasibility, which every policy claims.
func (r *runner) counterexample(prop string, scope Scope, d *Decision, reason string, lie *fairness.Misreport) *models.Instance {
	in := *d.Instance
	rec := &models.CheckRecord{Property: prop, Conditions: scope.Names(), Claims: r.subj.Claims}
	mode := string(d.Mode)
	if d.Mode == Realised {
		mode = fmt.Sprintf("realised over %d rounds", r.cfg.Rounds)
	}
	what := fmt.Sprintf("property %s violated by policy %s", prop, r.subj.Name)
	switch {
	case lie != nil && lie.Infeasible != nil:
		rin := models.InstanceOf(reportedSnapshot(d.Snapshot, lie.Reported(d.Division)))
		rd := decide(r.subj, r.cfg, rin, nil)
		in, d = *rin, rd
		rec.Property = Feasible
		what = fmt.Sprintf("property feasible violated by policy %s on a misreport found while checking %s", r.subj.Name, prop)
	case lie != nil:
		rec.Misreport = misreportOf(d.Division, lie)
	}
	in.Policy, in.Options, in.Check = r.subj.Name, r.subj.Options, rec
	where := scope.String()
	if d.Spec != nil {
		where += "; " + d.Spec.String()
	}
	in.Note = fmt.Sprintf("fairbench check: %s (%s; %s): %s", what, mode, where, reason)
	in.Result = &models.InstanceResult{Allocation: d.Allocation, Reason: reason}
	return &in
}

// misreportOf writes a lie down as reported throughputs per job.
func misreportOf(d *fairness.Division, lie *fairness.Misreport) map[models.JobID]map[string]float64 {
	out := map[models.JobID]map[string]float64{}
	for k, j := range d.JobsOf(lie.User) {
		figs := map[string]float64{}
		for g, t := range lie.Speeds[k] {
			if t > 0 {
				figs[d.Types[g]] = t
			}
		}
		out[d.Jobs[j].ID] = figs
	}
	return out
}

// failureInstance records the instance a policy failed on.
func (r *runner) failureInstance(p Property, s *Spec, err error) *models.Instance {
	if s == nil {
		return nil
	}
	in := s.Instance()
	in.Policy, in.Options = r.subj.Name, r.subj.Options
	in.Check = &models.CheckRecord{Property: p.Name(), Claims: r.subj.Claims}
	in.Note = fmt.Sprintf("fairbench check: property %s could not be checked: policy %s failed: %v", p.Name(), r.subj.Name, err)
	return in
}
