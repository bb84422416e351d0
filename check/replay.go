package check

import (
	"fmt"
	"regexp"
	"slices"
	"time"

	"fairbench/models"
)

var notedProperty = regexp.MustCompile(`fairbench check: property (\S+) `)

// NotedProperty is the property a counterexample's note names ("" if none).
func NotedProperty(in *models.Instance) string {
	if m := notedProperty.FindStringSubmatch(in.Note); m != nil {
		return m[1]
	}
	return ""
}

// Replay re-checks an instance file (a counterexample the checker wrote, or
// any instance) on subj: the properties of cfg.Props, else the one its note
// names, else every single-allocation property. A single-allocation
// property is checked on the instance as a decision (strategy-proofness
// also tries every report on a grid of the instance's own speeds and the
// bound's); a temporal one takes the instance's jobs as its workload (static
// when they all arrive at 0). The report's results say whether each property
// still fails.
func Replay(subj *Subject, in *models.Instance, cfg Config) (*Report, error) {
	cfg.Defaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	names := cfg.Props
	if len(names) == 0 {
		if n := NotedProperty(in); n != "" {
			names = []string{n}
		}
	}
	var props []Property
	var err error
	if len(names) == 0 {
		for _, p := range Properties(&cfg) {
			if _, ok := p.(SingleProperty); ok {
				props = append(props, p)
			}
		}
	} else if props, err = Lookup(&cfg, names); err != nil {
		return nil, err
	}
	rep := &Report{Policy: subj.Name, Claims: subj.Claims, Seed: cfg.Seed}
	var d *Decision
	for _, p := range props {
		t0 := time.Now()
		res := Result{Property: p.Name(), Formula: p.String(), Claimed: claims(subj.Claims, p.Name()), Status: Holds}
		switch q := p.(type) {
		case SingleProperty:
			res.Kind, res.Method, res.Exhaustive = "single", "replay", 1
			if d == nil {
				var spec *Spec
				if s, ok := SpecOf(in); ok {
					spec = &s
				}
				d = decide(subj, &cfg, in, spec)
			}
			ok, why, err := check(q, d, nil)
			if err == nil && ok && q.Name() == StrategyProof {
				ok, why, err = check(q, d, replayGrid(in, cfg.bound().Speeds))
			}
			switch {
			case err != nil:
				res.Status, res.Reason = Errored, err.Error()
			case !ok:
				res.Status, res.Reason = Violated, why
			}
		case TemporalProperty:
			res.Kind, res.Method, res.Workloads = "temporal", "replay", 1
			m, err := q.Measure(subj, workloadOf(in))
			if err != nil {
				res.Status, res.Reason = Errored, err.Error()
				break
			}
			res.Measures = []*Measure{m}
			if ok, why := q.Check(m); !ok {
				res.Status, res.Reason = Violated, why
			} else {
				res.Reason = m.String()
			}
		}
		res.Seconds = time.Since(t0).Seconds()
		rep.Results = append(rep.Results, res)
	}
	if len(rep.Results) == 0 {
		return nil, fmt.Errorf("check: replay: no property to check")
	}
	return rep, nil
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
