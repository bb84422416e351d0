package check

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

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
	Status  Status `json:"status"`
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
}

// Report is a policy's check.
type Report struct {
	Policy  string   `json:"policy"`
	Claims  []string `json:"claims"`
	Seed    int64    `json:"seed"`
	Cases   int      `json:"cases"`
	Bound   Bound    `json:"bound"`
	Results []Result `json:"results"`
}

// Violated reports whether a claimed property was violated.
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
		if res.Status == Errored {
			return true
		}
	}
	return false
}

// ExitCode is `fairbench check`'s exit status for r: 1 when a claimed
// property is violated, else 2 when the policy failed (crashed, hung,
// answered malformed, or erred) so that some property could not be
// checked, else 0.
func (r *Report) ExitCode() int {
	switch {
	case r.Violated():
		return 1
	case r.Errored():
		return 2
	}
	return 0
}

// runner holds one check in progress.
type runner struct {
	subj *Subject
	cfg  *Config
	mu   sync.Mutex
	memo map[string]*memoEntry
	// exSpecs are the exhaustive search's instances, in order.
	exSpecs []Spec
}

type memoEntry struct {
	once sync.Once
	d    *Decision
}

// decision is the memoised decision of subj on s.
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
		e.d = decide(r.subj, r.cfg, s.Instance(), &sc)
	})
	return e.d
}

// check runs one property on one decision: ok, reason, and a failure that
// is not a violation.
func check(p SingleProperty, d *Decision, grid []float64) (bool, string, error) {
	c := &Case{Decision: d, grid: grid}
	if c.Err() != nil {
		return true, "", c.Err()
	}
	ok, why := p.Check(c)
	if c.Err() != nil {
		return true, "", c.Err()
	}
	return ok, why, nil
}

// Run checks subj against the properties of cfg: every single-allocation
// property on every instance within the exhaustive bound and on cfg.Cases
// random instances (gopter, seeded, with shrinking), every temporal one on
// cfg.Temporal.Workloads seeded workloads. It returns an error only for bad
// settings; policy failures are reported in the results.
func Run(subj *Subject, cfg Config) (*Report, error) {
	cfg.Defaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	props, err := Lookup(&cfg, cfg.Props)
	if err != nil {
		return nil, err
	}
	r := &runner{subj: subj, cfg: &cfg, memo: map[string]*memoEntry{}}
	rep := &Report{Policy: subj.Name, Claims: subj.Claims, Seed: cfg.Seed, Cases: cfg.Cases, Bound: cfg.bound()}
	var singles []SingleProperty
	var temporals []TemporalProperty
	for _, p := range props {
		switch q := p.(type) {
		case SingleProperty:
			singles = append(singles, q)
		case TemporalProperty:
			temporals = append(temporals, q)
		}
	}
	results := make([]Result, len(props))
	start := time.Now()
	ex := r.exhaustive(singles)
	var wg sync.WaitGroup
	sem := make(chan struct{}, cfg.Workers)
	for i, p := range props {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			t0 := time.Now()
			var res Result
			switch q := p.(type) {
			case SingleProperty:
				res = r.single(q, ex[q.Name()])
			case TemporalProperty:
				res = r.temporal(q)
			}
			res.Property, res.Formula = p.Name(), p.String()
			res.Claimed = claims(subj.Claims, p.Name())
			res.Seconds = time.Since(t0).Seconds()
			if _, ok := p.(SingleProperty); ok {
				res.Seconds += ex[p.Name()].seconds
			}
			results[i] = res
		}()
	}
	wg.Wait()
	rep.Results = results
	if cfg.Log != nil {
		for _, res := range results {
			fmt.Fprintf(cfg.Log, "%-*s %-8s %s\n", propertyNameWidth, res.Property, res.Status, res.Method)
		}
		fmt.Fprintf(cfg.Log, "(%s in %.1fs)\n", subj.Name, time.Since(start).Seconds())
	}
	for i := range rep.Results {
		if err := r.write(&rep.Results[i]); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// exhaustiveResult is what the exhaustive pass found for one property.
type exhaustiveResult struct {
	checked  int
	relaxed  int
	violated int // index of the first violating spec, or -1
	errored  int // index of the first spec that failed, or -1
	err      error
	reason   string
	seconds  float64
}

// exhaustive checks every single property on every spec within the bound,
// in parallel; the first violation and failure in enumeration order are
// kept, so the outcome does not depend on scheduling.
func (r *runner) exhaustive(props []SingleProperty) map[string]*exhaustiveResult {
	b := r.cfg.bound()
	specs := b.Specs()
	out := map[string]*exhaustiveResult{}
	first := make([]atomic.Int64, len(props))
	type hit struct {
		idx    int
		reason string
		err    error
	}
	viol := make([][]hit, len(props))
	fails := make([][]hit, len(props))
	relaxed := make([]int, len(props))
	var mu sync.Mutex
	for k := range props {
		first[k].Store(int64(len(specs)))
	}
	start := time.Now()
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < r.cfg.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(specs) {
					return
				}
				d := r.decision(specs[i])
				for k, p := range props {
					if int64(i) > first[k].Load() {
						continue
					}
					ok, why, err := check(p, d, b.Speeds)
					mu.Lock()
					if d.Relaxed && judges(p) {
						relaxed[k]++
					}
					switch {
					case err != nil:
						fails[k] = append(fails[k], hit{i, "", err})
					case !ok:
						viol[k] = append(viol[k], hit{i, why, nil})
						for {
							cur := first[k].Load()
							if int64(i) >= cur || first[k].CompareAndSwap(cur, int64(i)) {
								break
							}
						}
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	secs := time.Since(start).Seconds()
	for k, p := range props {
		e := &exhaustiveResult{checked: len(specs), relaxed: relaxed[k], violated: -1, errored: -1, seconds: secs / float64(max(1, len(props)))}
		for _, h := range viol[k] {
			if e.violated < 0 || h.idx < e.violated {
				e.violated, e.reason = h.idx, h.reason
			}
		}
		for _, h := range fails[k] {
			if e.errored < 0 || h.idx < e.errored {
				e.errored, e.err = h.idx, h.err
			}
		}
		if e.violated >= 0 {
			e.checked = e.violated + 1
		}
		out[p.Name()] = e
	}
	r.exSpecs = specs
	return out
}

// single finishes one single-allocation property: shrink the exhaustive
// counterexample, or search randomly.
func (r *runner) single(p SingleProperty, ex *exhaustiveResult) Result {
	res := Result{Kind: "single"}
	b := r.cfg.bound()
	if ex != nil && ex.checked > 0 {
		res.Exhaustive, res.Relaxed = ex.checked, ex.relaxed
		res.Method = fmt.Sprintf("exhaustive %s (%d instances)", b, ex.checked)
	}
	if ex != nil && ex.violated >= 0 {
		spec, shrinks := r.shrink(p, r.exSpecs[ex.violated], b.Speeds)
		res.Method = fmt.Sprintf("exhaustive %s: violated at instance %d", b, ex.violated+1)
		return r.violation(res, p, spec, shrinks, b.Speeds)
	}
	var firstErr error
	var errSpec *Spec
	seen := map[string]bool{}
	condition := func(s Spec) bool {
		d := r.decision(s)
		if k := s.Key(); d.Relaxed && judges(p) && !seen[k] {
			seen[k] = true
			res.Relaxed++
		}
		ok, _, err := check(p, d, nil)
		if err != nil {
			if firstErr == nil {
				firstErr, errSpec = err, &s
			}
			return true
		}
		return ok
	}
	if r.cfg.Cases > 0 {
		params := gopter.DefaultTestParametersWithSeed(r.cfg.Seed)
		params.MinSuccessfulTests = r.cfg.Cases
		params.MaxShrinkCount = r.cfg.MaxShrinks
		params.Workers = 1
		limits, grid := r.cfg.Limits, r.cfg.Limits.Speeds
		gen := gopter.Gen(func(gp *gopter.GenParameters) *gopter.GenResult {
			rng := rand.New(rand.NewPCG(uint64(gp.Rng.Int63()), 7))
			return gopter.NewGenResult(limits.Random(rng), specShrinker(grid))
		})
		out := prop.ForAll(condition, gen).Check(params)
		res.Random = out.Succeeded
		method := fmt.Sprintf("%d random instances (gopter, seed %d)", r.cfg.Cases, r.cfg.Seed)
		if res.Method != "" {
			method = res.Method + " + " + method
		}
		res.Method = method
		switch {
		case out.Status == gopter.TestFailed && len(out.Args) > 0:
			spec := out.Args[0].Arg.(Spec)
			res.Random++
			return r.violation(res, p, spec, out.Args[0].Shrinks, grid)
		case out.Status == gopter.TestError:
			res.Status, res.Reason = Errored, fmt.Sprintf("check panicked: %v", out.Error)
			return res
		}
	}
	switch {
	case ex != nil && ex.err != nil:
		res.Status, res.Reason = Errored, ex.err.Error()
		s := r.exSpecs[ex.errored]
		res.Instance = r.failureInstance(p, &s, ex.err)
	case firstErr != nil:
		res.Status, res.Reason = Errored, firstErr.Error()
		res.Instance = r.failureInstance(p, errSpec, firstErr)
	default:
		res.Status = Holds
	}
	return res
}

// judges reports whether p is one of the properties the Realised mode
// does not judge on relaxed instances.
func judges(p SingleProperty) bool {
	switch p.Name() {
	case SharingIncentive, EnvyFree, ParetoEfficient, StrategyProof:
		return true
	}
	return false
}

// specShrinker adapts Spec.Shrinks to gopter.
func specShrinker(grid []float64) gopter.Shrinker {
	return func(v interface{}) gopter.Shrink {
		list := v.(Spec).Shrinks(grid)
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

// shrink walks from a failing spec to a locally minimal one, taking the
// first shrink that still fails, as gopter does.
func (r *runner) shrink(p SingleProperty, s Spec, grid []float64) (Spec, int) {
	steps := 0
	for steps < r.cfg.MaxShrinks {
		moved := false
		for _, c := range s.Shrinks(grid) {
			if ok, _, err := check(p, r.decision(c), nil); err == nil && !ok {
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

// violation fills res for a counterexample spec.
func (r *runner) violation(res Result, p SingleProperty, spec Spec, shrinks int, grid []float64) Result {
	d := r.decision(spec)
	ok, why, err := check(p, d, grid)
	if err != nil || ok {
		// Found with the exhaustive grid only: recheck with it.
		ok, why, err = check(p, d, r.cfg.bound().Speeds)
	}
	res.Status, res.Reason, res.Shrinks = Violated, why, shrinks
	if err != nil {
		res.Status, res.Reason = Errored, err.Error()
	} else if ok {
		res.Reason = "violated when found, not on recheck (nondeterministic policy?)"
	}
	res.Instance = r.counterexample(p.Name(), d, res.Reason)
	return res
}

// counterexample writes the decision down as a replayable instance.
func (r *runner) counterexample(prop string, d *Decision, reason string) *models.Instance {
	in := *d.Instance
	in.Policy, in.Options = r.subj.Name, r.subj.Options
	mode := string(d.Mode)
	if d.Mode == Realised {
		mode = fmt.Sprintf("realised over %d rounds", r.cfg.Rounds)
	}
	in.Note = fmt.Sprintf("fairbench check: property %s violated by policy %s (%s; %s): %s", prop, r.subj.Name, mode, d.Spec, reason)
	in.Result = &models.InstanceResult{Allocation: d.Allocation, Reason: reason}
	return &in
}

// failureInstance records the instance a policy failed on.
func (r *runner) failureInstance(p Property, s *Spec, err error) *models.Instance {
	if s == nil {
		return nil
	}
	in := s.Instance()
	in.Policy, in.Options = r.subj.Name, r.subj.Options
	in.Note = fmt.Sprintf("fairbench check: property %s could not be checked: policy %s failed: %v", p.Name(), r.subj.Name, err)
	return in
}

// temporal checks one over-time property on the seeded workloads.
func (r *runner) temporal(p TemporalProperty) Result {
	res := Result{Kind: "temporal", Status: Holds,
		Method: fmt.Sprintf("%d seeded workloads (seed %d), horizons %v rounds", r.cfg.Temporal.Workloads, r.cfg.Seed, r.cfg.horizons())}
	for k := 0; k < r.cfg.Temporal.Workloads; k++ {
		w := p.Workload(uint64(r.cfg.Seed)*1000 + uint64(k))
		m, err := p.Measure(r.subj, w)
		if err != nil {
			if res.Status == Holds {
				res.Status, res.Reason = Errored, err.Error()
				res.Instance = r.workloadInstance(p, w, "could not be checked: "+err.Error())
			}
			continue
		}
		res.Workloads++
		res.Measures = append(res.Measures, m)
		if ok, why := p.Check(m); !ok && res.Status != Violated {
			res.Status, res.Reason = Violated, why
			res.Instance = r.workloadInstance(p, w, "violated: "+why)
		}
	}
	if res.Status == Holds && len(res.Measures) > 0 {
		res.Reason = res.Measures[len(res.Measures)-1].String()
	}
	return res
}

// workloadInstance writes a workload down with its note.
func (r *runner) workloadInstance(p Property, w *Workload, what string) *models.Instance {
	in := *w.Instance
	in.Policy, in.Options = r.subj.Name, r.subj.Options
	in.Note = fmt.Sprintf("fairbench check: property %s %s (policy %s, %s workload)", p.Name(), what, r.subj.Name, w.Kind)
	return &in
}
