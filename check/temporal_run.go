package check

import (
	"fmt"

	"fairbench/models"
)

// temporal checks one over-time property in one scope on the seeded
// workloads, extending the horizons of a static workload one doubling at a
// time (up to TemporalConfig.MaxHorizons) while the growth verdict is
// unsure at the stated confidence.
func (r *runner) temporal(p TemporalProperty, scope Scope) Result {
	res := Result{Kind: "temporal", Status: Holds,
		Method: fmt.Sprintf("%d seeded workloads (seed %d)%s, horizons %v rounds", r.cfg.Temporal.Workloads, r.cfg.Seed,
			scopeSuffix(scope), r.cfg.horizons())}
	for k := 0; k < r.cfg.Temporal.Workloads; k++ {
		w := p.Workload(uint64(r.cfg.Seed)*1000 + uint64(k))
		scope.Workload(w, r.cfg)
		m, ok, why, err := r.measure(p, w)
		if err != nil {
			if res.Status == Holds {
				res.Status, res.Reason = Errored, err.Error()
				res.Instance = r.workloadInstance(p, scope, w, "could not be checked: "+err.Error())
			}
			continue
		}
		res.Workloads++
		res.Measures = append(res.Measures, m)
		if !ok && res.Status != Violated {
			res.Status, res.Reason = Violated, why
			res.Instance = r.workloadInstance(p, scope, w, "violated: "+why)
		}
	}
	if res.Status == Holds && len(res.Measures) > 0 {
		res.Reason = res.Measures[len(res.Measures)-1].String()
	}
	return res
}

// measure measures p on w at the configured horizons and, while the
// verdict is unsure on a static workload, at one more doubling.
func (r *runner) measure(p TemporalProperty, w *Workload) (*Measure, bool, string, error) {
	n := r.cfg.Temporal.Horizons
	for {
		m, err := p.Measure(r.subj, w, r.cfg.horizonsN(n))
		if err != nil {
			return nil, false, "", err
		}
		ok, sure, why := p.Check(m)
		if sure || n >= r.cfg.Temporal.MaxHorizons || w.Kind == Dynamic {
			if !sure {
				why += fmt.Sprintf(" (unsure at %.0f%% confidence up to %d rounds)", 100*Confidence, m.Horizons[len(m.Horizons)-1])
				m.Detail += "; verdict unsure at the longest horizon"
			}
			return m, ok, why, nil
		}
		n++
	}
}

// workloadInstance writes a workload down with its note and check record.
func (r *runner) workloadInstance(p Property, scope Scope, w *Workload, what string) *models.Instance {
	in := *w.Instance
	in.Policy, in.Options = r.subj.Name, r.subj.Options
	in.Check = &models.CheckRecord{Property: p.Name(), Conditions: scope.Names(), Claims: r.subj.Claims}
	in.Note = fmt.Sprintf("fairbench check: property %s %s (policy %s, %s workload, %s)", p.Name(), what, r.subj.Name, w.Kind, scope)
	return &in
}
