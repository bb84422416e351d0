package check

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"fairbench/models"
)

// Status is the outcome of checking one property.
type Status string

const (
	// Holds: no counterexample up to the bound and in the random cases.
	Holds Status = "holds"
	// Violated: a counterexample was found (Result.Counterexample).
	Violated Status = "violated"
	// Errored: the policy (or a solver) failed while the property was
	// checked, and no counterexample was found; never a violation.
	Errored Status = "error"
)

// Result is one property's outcome for one policy.
type Result struct {
	Property string `json:"property"`
	Formula  string `json:"formula"`
	// Kind is "single" (one decision) or "temporal" (simulations).
	Kind    string `json:"kind"`
	Claimed bool   `json:"claimed"`
	// Source cites the paper behind a claim.
	Source string `json:"source,omitempty"`
	// Conditions are the claim's conditions: Status is the verdict on the
	// instances that meet them (empty: on every instance).
	Conditions []string `json:"conditions,omitempty"`
	Status     Status   `json:"status"`
	// Method says how it was checked: exhaustive bound and instance count,
	// random cases and seed, or workloads.
	Method string `json:"method"`
	// Exhaustive and Random count the instances checked each way
	// (Workloads the simulated workloads of a temporal property).
	Exhaustive int `json:"exhaustive,omitempty"`
	Random     int `json:"random,omitempty"`
	Workloads  int `json:"workloads,omitempty"`
	// Relaxed counts the instances among those that the property did not
	// judge: gangs above one GPU in the Realised mode (Decision.Relaxed).
	Relaxed int `json:"relaxed,omitempty"`
	// Reason is the violation (with its numbers) or the error.
	Reason string `json:"reason,omitempty"`
	// Counterexample is the file written for the violation (or the first
	// instance on which the policy failed), when an output folder is set.
	Counterexample string `json:"counterexample,omitempty"`
	// Shrinks counts the shrinking steps from the first failing instance.
	Shrinks int `json:"shrinks,omitempty"`
	// Instance is the counterexample itself.
	Instance *models.Instance `json:"-"`
	// Measures are a temporal property's measurements, one per workload.
	Measures []*Measure `json:"measures,omitempty"`
	Seconds  float64    `json:"seconds"`
	// Unconditional is the verdict on every instance, reported beside a
	// claim's verdict under its conditions.
	Unconditional *Result `json:"unconditional,omitempty"`

	// infeasible marks a violation that is an infeasible answer found while
	// checking another property (a misreport of strategy-proofness).
	infeasible bool
}

// Report is a policy's check.
type Report struct {
	Policy  string         `json:"policy"`
	Claims  []models.Claim `json:"claims"`
	Seed    int64          `json:"seed"`
	Cases   int            `json:"cases"`
	Bound   Bound          `json:"bound"`
	Results []Result       `json:"results"`
	// Instances and Seconds total the single-decision search, and Rate is
	// their quotient (instances per second).
	Instances int     `json:"instances"`
	Seconds   float64 `json:"seconds"`
	Rate      float64 `json:"instances_per_s"`
}

// Violated reports whether a claimed property was violated (under its
// conditions).
func (r *Report) Violated() bool {
	for _, res := range r.Results {
		if res.Claimed && res.Status == Violated {
			return true
		}
	}
	return false
}

// Errored reports whether any property could not be checked.
func (r *Report) Errored() bool {
	for _, res := range r.Results {
		if res.Status == Errored || res.Unconditional != nil && res.Unconditional.Status == Errored {
			return true
		}
	}
	return false
}

// ExitCode is `fairbench check`'s exit status for r: 1 when a claimed
// property is violated under its conditions, else 2 when the policy failed
// (crashed, hung, answered malformed, or erred) so that some property could
// not be checked, else 0.
func (r *Report) ExitCode() int {
	switch {
	case r.Violated():
		return 1
	case r.Errored():
		return 2
	}
	return 0
}

// task is one property checked in one scope.
type task struct {
	prop  Property
	scope Scope
	claim *models.Claim
}

// runner holds one check in progress.
type runner struct {
	subj *Subject
	cfg  *Config
	mu   sync.Mutex
	memo map[string]*memoEntry
}

type memoEntry struct {
	once sync.Once
	d    *Decision
}

// decision is the memoised decision of subj on s (for the random search
// and shrinking; the exhaustive pass decides each instance once and keeps
// nothing).
func (r *runner) decision(s Spec) *Decision {
	key := s.Key()
	r.mu.Lock()
	e := r.memo[key]
	if e == nil {
		e = &memoEntry{}
		r.memo[key] = e
	}
	r.mu.Unlock()
	e.once.Do(func() {
		sc := s
		e.d = decide(r.subj, r.cfg, sc.Instance(), &sc)
	})
	return e.d
}

// check runs one property on one decision: ok, reason, the lie found (for
// strategy-proofness) and a failure that is not a violation. Feasibility
// comes first, whatever the property: an infeasible allocation violates
// every property.
func check(p SingleProperty, d *Decision, grid []float64) (bool, string, *Case, error) {
	c := &Case{Decision: d, grid: grid}
	if d.PolicyErr != nil {
		return true, "", c, d.PolicyErr
	}
	if d.Infeasible != nil {
		return false, infeasibleReason(d.Infeasible), c, nil
	}
	ok, why := p.Check(c)
	if c.Err() != nil {
		return true, "", c, c.Err()
	}
	return ok, why, c, nil
}

// Run checks subj against the properties of cfg (feasibility always, and
// first): every single-allocation property on every instance within the
// exhaustive bound and on cfg.Cases random instances (gopter, seeded, with
// shrinking), every temporal one on cfg.Temporal.Workloads seeded
// workloads; a claimed property with conditions both under its conditions
// and unconditionally. It returns an error only for bad settings; policy
// failures are reported in the results.
func Run(subj *Subject, cfg Config) (*Report, error) {
	props, err := cfg.setup()
	if err != nil {
		return nil, err
	}
	tasks, err := tasksOf(subj, props)
	if err != nil {
		return nil, err
	}
	r := &runner{subj: subj, cfg: &cfg, memo: map[string]*memoEntry{}}
	rep := &Report{Policy: subj.Name, Claims: subj.Claims, Seed: cfg.Seed, Cases: cfg.Cases, Bound: cfg.bound()}
	start := time.Now()
	ex := r.exhaustive(singleTasks(tasks))
	results := make([]Result, len(tasks))
	var wg sync.WaitGroup
	var mu sync.Mutex
	var singleEnd time.Time // when the last single-decision task finished
	sem := make(chan struct{}, cfg.Workers)
	for i, t := range tasks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = r.runTask(t, ex[i])
			if results[i].Kind == "single" {
				mu.Lock()
				if now := time.Now(); now.After(singleEnd) {
					singleEnd = now
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	rep.Results = combine(tasks, results)
	propagateInfeasible(rep.Results)
	for i := range rep.Results {
		if err := r.writeAll(&rep.Results[i]); err != nil {
			return rep, err
		}
	}
	if !singleEnd.IsZero() {
		rep.total(singleEnd.Sub(start))
	}
	r.log(rep, time.Since(start))
	return rep, nil
}

// withFeasible puts feasibility first when any single property is
// selected: it is checked first whatever --props says.
func withFeasible(cfg *Config, props []Property) []Property {
	for _, p := range props {
		if p.Name() == Feasible {
			return props
		}
	}
	for _, p := range props {
		if _, ok := p.(SingleProperty); ok {
			return append([]Property{feasibleProp{}}, props...)
		}
	}
	return props
}

// tasksOf is every property unconditionally, followed, for a claim with
// conditions, by the property under them.
func tasksOf(subj *Subject, props []Property) ([]task, error) {
	var out []task
	for _, p := range props {
		claim, claimed := subj.claimOf(p.Name())
		var c *models.Claim
		if claimed {
			c = &claim
		}
		out = append(out, task{prop: p, claim: c})
		if claimed && len(claim.Conditions) > 0 {
			scope, err := lookupConditions(claim.Conditions)
			if err != nil {
				return nil, fmt.Errorf("check: policy %s claims %s: %w", subj.Name, p.Name(), err)
			}
			out = append(out, task{prop: p, scope: scope, claim: c})
		}
	}
	return out, nil
}

// singleTasks marks the tasks of single properties (nil for temporal ones).
func singleTasks(tasks []task) []*task {
	out := make([]*task, len(tasks))
	for i := range tasks {
		if _, ok := tasks[i].prop.(SingleProperty); ok {
			out[i] = &tasks[i]
		}
	}
	return out
}

// runTask checks one task.
func (r *runner) runTask(t task, ex *exhaustiveResult) Result {
	t0 := time.Now()
	var res Result
	switch q := t.prop.(type) {
	case SingleProperty:
		res = r.single(q, t.scope, ex)
	case TemporalProperty:
		res = r.temporal(q, t.scope)
	}
	res.Property, res.Formula = t.prop.Name(), t.prop.String()
	res.Conditions = t.scope.Names()
	if t.claim != nil {
		res.Claimed, res.Source = true, t.claim.Source
	}
	res.Seconds = time.Since(t0).Seconds()
	if ex != nil {
		res.Seconds += ex.seconds
	}
	return res
}

// combine folds each conditional result onto its property: the claim's
// verdict (under its conditions) with the unconditional one beside it.
func combine(tasks []task, results []Result) []Result {
	var out []Result
	for i, t := range tasks {
		if len(t.scope) == 0 {
			out = append(out, results[i])
			continue
		}
		uncond := out[len(out)-1]
		uncond.Claimed = false
		res := results[i]
		res.Unconditional = &uncond
		out[len(out)-1] = res
	}
	return out
}

// propagateInfeasible makes feasibility fail when another property met an
// infeasible answer (the strategy-proofness search, on a misreported
// instance): every policy claims feasibility.
func propagateInfeasible(results []Result) {
	fi := slices.IndexFunc(results, func(r Result) bool { return r.Property == Feasible })
	if fi < 0 || results[fi].Status == Violated {
		return
	}
	for _, res := range results {
		for _, r := range []*Result{&res, res.Unconditional} {
			if r != nil && r.Status == Violated && r.infeasible {
				f := &results[fi]
				f.Status, f.Reason, f.Instance = Violated, r.Reason, r.Instance
				f.Method += fmt.Sprintf("; found by the %s search", r.Property)
				return
			}
		}
	}
}

// total sums the single-decision search of rep, which took d.
func (rep *Report) total(d time.Duration) {
	for _, res := range rep.Results {
		if res.Kind == "single" && res.Property == Feasible {
			rep.Instances += res.Exhaustive + res.Random
		}
	}
	rep.Seconds = d.Seconds()
	if rep.Seconds > 0 {
		rep.Rate = float64(rep.Instances) / rep.Seconds
	}
}

// log prints one progress line per property.
func (r *runner) log(rep *Report, d time.Duration) {
	if r.cfg.Log == nil {
		return
	}
	for _, res := range rep.Results {
		fmt.Fprintf(r.cfg.Log, "%-*s %-8s %s\n", propertyNameWidth, res.Property, res.Status, res.Method)
	}
	fmt.Fprintf(r.cfg.Log, "(%s in %.1fs; %d single-decision instances, %.0f/s)\n", r.subj.Name, d.Seconds(), rep.Instances, rep.Rate)
}
