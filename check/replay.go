package check

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"time"

	"fairbench/fairness"
	"fairbench/models"
)

var notedProperty = regexp.MustCompile(`fairbench check: property (\S+) `)

// NotedProperty is the property a counterexample names: its check record's,
// else its note's ("" if none).
func NotedProperty(in *models.Instance) string {
	if in.Check != nil && in.Check.Property != "" {
		return in.Check.Property
	}
	if m := notedProperty.FindStringSubmatch(in.Note); m != nil {
		return m[1]
	}
	return ""
}

// Replay re-checks an instance file (a counterexample the checker wrote, or
// any instance) on subj: feasibility first, then the properties of
// cfg.Props, else the one the file names, else every single-allocation
// property. A single-allocation property is checked on the instance as a
// decision; strategy-proofness first re-evaluates the exact lie the file
// records, then searches (with the random search's moves, then every
// report on a grid of the instance's own speeds and the bound's); a
// temporal one takes the instance's jobs as its workload (static when they
// all arrive at 0). The report's results say whether each property still
// fails.
func Replay(subj *Subject, in *models.Instance, cfg Config) (*Report, error) {
	cfg.Defaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	props, err := replayProps(&cfg, in)
	if err != nil {
		return nil, err
	}
	rep := &Report{Policy: subj.Name, Claims: subj.Claims, Seed: cfg.Seed}
	r := &runner{subj: subj, cfg: &cfg, memo: map[string]*memoEntry{}}
	var d *Decision
	for _, p := range props {
		t0 := time.Now()
		res := Result{Property: p.Name(), Formula: p.String(), Status: Holds}
		if c, ok := subj.claimOf(p.Name()); ok {
			res.Claimed, res.Source = true, c.Source
		}
		if in.Check != nil && in.Check.Property == p.Name() {
			res.Conditions = in.Check.Conditions
		}
		switch q := p.(type) {
		case SingleProperty:
			if d == nil {
				var spec *Spec
				if s, ok := SpecOf(in); ok {
					spec = &s
				}
				d = decide(subj, &cfg, in, spec)
			}
			res.Kind, res.Method, res.Exhaustive = "single", "replay", 1
			r.replaySingle(&res, q, d, in)
		case TemporalProperty:
			res.Kind, res.Method, res.Workloads = "temporal", "replay", 1
			m, ok, why, err := r.measure(q, workloadOf(in))
			switch {
			case err != nil:
				res.Status, res.Reason = Errored, err.Error()
			case !ok:
				res.Status, res.Reason, res.Measures = Violated, why, []*Measure{m}
			default:
				res.Reason, res.Measures = m.String(), []*Measure{m}
			}
		}
		res.Seconds = time.Since(t0).Seconds()
		rep.Results = append(rep.Results, res)
	}
	return rep, nil
}

// replayProps resolves the properties a replay checks: feasibility first
// for any single property.
func replayProps(cfg *Config, in *models.Instance) ([]Property, error) {
	names := cfg.Props
	if len(names) == 0 {
		if n := NotedProperty(in); n != "" {
			names = []string{n}
		}
	}
	if len(names) == 0 {
		var props []Property
		for _, p := range Properties(cfg) {
			if _, ok := p.(SingleProperty); ok {
				props = append(props, p)
			}
		}
		return props, nil
	}
	props, err := Lookup(cfg, names)
	if err != nil {
		return nil, err
	}
	return withFeasible(cfg, props), nil
}

// replaySingle checks one single property on the replayed decision.
func (r *runner) replaySingle(res *Result, q SingleProperty, d *Decision, in *models.Instance) {
	if q.Name() == StrategyProof && d.PolicyErr == nil && d.Infeasible == nil && in.Check != nil && len(in.Check.Misreport) > 0 {
		if r.replayLie(res, d, in.Check.Misreport) {
			return
		}
	}
	ok, why, _, err := check(q, d, nil)
	if err == nil && ok && q.Name() == StrategyProof {
		speeds := r.cfg.bound().Speeds
		if speeds == nil {
			b, _ := BoundLevel(DefaultBound)
			speeds = b.Speeds
		}
		ok, why, _, err = check(q, d, replayGrid(in, speeds))
	}
	switch {
	case err != nil:
		res.Status, res.Reason = Errored, err.Error()
	case !ok:
		res.Status, res.Reason = Violated, why
	}
}

// replayLie re-evaluates the lie a file records; it reports whether that
// settled the result (the lie still gains, or the policy failed).
func (r *runner) replayLie(res *Result, d *Decision, lie map[models.JobID]map[string]float64) bool {
	m, err := lieOf(d.Division, lie)
	if err != nil {
		res.Status, res.Reason = Errored, "the recorded misreport: "+err.Error()
		return true
	}
	again, got, err := fairness.Recheck(d.Division, d.Outcome, d.Mechanism, m, r.cfg.tol(r.cfg.Tol.Strategy, d.Mode))
	switch {
	case err != nil:
		res.Status, res.Reason = Errored, err.Error()
		return true
	case again:
		got.Move = "the lie the file records"
		res.Status, res.Reason = Violated, got.Describe(d.Division)
		return true
	}
	return false
}

// lieOf reads a recorded misreport back as a lie of one user.
func lieOf(d *fairness.Division, rec map[models.JobID]map[string]float64) (*fairness.Misreport, error) {
	index := map[models.JobID]int{}
	for j := range d.Jobs {
		index[d.Jobs[j].ID] = j
	}
	user := -1
	for _, id := range slices.Sorted(maps.Keys(rec)) {
		j, ok := index[id]
		if !ok {
			return nil, fmt.Errorf("job %d is not an active job of the instance", id)
		}
		if user >= 0 && d.Jobs[j].User != user {
			return nil, fmt.Errorf("jobs of two users misreport")
		}
		user = d.Jobs[j].User
	}
	if user < 0 {
		return nil, fmt.Errorf("no job")
	}
	m := &fairness.Misreport{User: user}
	for _, j := range d.JobsOf(user) {
		sp := make([]float64, len(d.Types))
		figs, lied := rec[d.Jobs[j].ID]
		for g, t := range d.Types {
			if lied {
				sp[g] = figs[t]
			} else {
				sp[g] = d.Jobs[j].Speed[g]
			}
		}
		m.Speeds = append(m.Speeds, sp)
	}
	return m, nil
}

// replayGrid is 0, the bound's speeds and every speed of the instance.
func replayGrid(in *models.Instance, bound []float64) []float64 {
	grid := append([]float64{0}, bound...)
	for _, j := range in.Jobs {
		for _, t := range j.Throughputs {
			grid = append(grid, t)
		}
	}
	slices.Sort(grid)
	return slices.Compact(grid)
}
