package check

import (
	"fmt"

	"fairbench/models"
)

// temporal checks one over-time property in one scope: it measures every
// seeded workload at the horizons, and judges the growth of the mean over
// the workloads at each horizon (docs/checker.md, "Over-time properties"):
// a rare long value in one workload (a running maximum jumps) moves the
// mean by its share only, while growth that every workload, or one
// workload for good, shows keeps its exponent in the mean. While the
// verdict is unsure at the stated confidence, the horizons of static
// workloads are extended one doubling at a time, up to
// TemporalConfig.MaxHorizons.
func (r *runner) temporal(p TemporalProperty, scope Scope) Result {
	res := Result{Kind: "temporal", Status: Holds,
		Method: fmt.Sprintf("%d seeded workloads (seed %d)%s, horizons %v rounds", r.cfg.Temporal.Workloads, r.cfg.Seed,
			scopeSuffix(scope), r.cfg.horizons())}
	var ws []*Workload
	for k := 0; k < r.cfg.Temporal.Workloads; k++ {
		w := p.Workload(uint64(r.cfg.Seed)*1000 + uint64(k))
		scope.Workload(w, r.cfg)
		ws = append(ws, w)
	}
	if len(ws) == 0 {
		return res
	}
	for n := r.cfg.Temporal.Horizons; ; n++ {
		ms, failed, err := r.measureAll(p, ws, r.cfg.horizonsN(n))
		if err != nil {
			res.Status, res.Reason = Errored, err.Error()
			res.Instance = r.workloadInstance(p, scope, failed, "could not be checked: "+err.Error())
			return res
		}
		mean := meanMeasure(ms)
		ok, sure, why := p.Check(mean)
		if !sure && n < r.cfg.Temporal.MaxHorizons && ws[0].Kind == Static {
			continue
		}
		if !sure {
			why += fmt.Sprintf(" (unsure at %.0f%% confidence up to %d rounds)", 100*Confidence, mean.Horizons[len(mean.Horizons)-1])
		}
		res.Workloads, res.Measures = len(ms), append([]*Measure{mean}, ms...)
		res.Reason = mean.String()
		if !ok {
			worst := worstWorkload(ms)
			res.Status, res.Reason = Violated, why
			res.Instance = r.workloadInstance(p, scope, ws[worst], fmt.Sprintf("violated (the mean over %d workloads; this one has "+
				"the largest value at the longest horizon): %s", len(ms), why))
		}
		return res
	}
}

// measureAll measures p on every workload; on a failure it returns the
// workload that failed.
func (r *runner) measureAll(p TemporalProperty, ws []*Workload, hs []int) ([]*Measure, *Workload, error) {
	var out []*Measure
	for _, w := range ws {
		m, err := p.Measure(r.subj, w, hs)
		if err != nil {
			return nil, w, err
		}
		out = append(out, m)
	}
	return out, nil, nil
}

// meanMeasure is the mean over the measures at each horizon (a horizon a
// stalled simulation left unmeasured is left out of the mean), with its
// growth fitted; an infeasible allocation or a stall in any workload
// carries over.
func meanMeasure(ms []*Measure) *Measure {
	first := ms[0]
	out := &Measure{Horizons: first.Horizons, Unit: first.Unit + ", mean over the workloads"}
	for i := range first.Horizons {
		sum, n := 0.0, 0
		for _, m := range ms {
			if i < len(m.Values) && m.Values[i] >= 0 {
				sum, n = sum+m.Values[i], n+1
			}
		}
		v := -1.0
		if n > 0 {
			v = sum / float64(n)
		}
		out.Values = append(out.Values, v)
	}
	for _, m := range ms {
		if m.Infeasible != "" && out.Infeasible == "" {
			out.Infeasible = m.Infeasible
		}
		if m.Stalled && !out.Stalled {
			out.Stalled, out.Detail = true, m.Detail
		}
	}
	if first.decay {
		out.decay = true
		out.Exponent = logSlope(out.Horizons, out.Values)
		out.Growth = Growth{Alpha: out.Exponent, Lo: out.Exponent, Hi: out.Exponent}
	} else {
		out.fit(1)
	}
	if out.Detail == "" && len(ms) == 1 {
		out.Detail = first.Detail
	}
	return out
}

// worstWorkload is the index of the measure with the largest value at the
// longest horizon (a stalled or infeasible one first).
func worstWorkload(ms []*Measure) int {
	worst, best := 0, -1.0
	for k, m := range ms {
		if m.Infeasible != "" || m.Stalled {
			return k
		}
		if v := m.Values[len(m.Values)-1]; v > best {
			worst, best = k, v
		}
	}
	return worst
}

// measure measures p on one workload (a replayed file) at the configured
// horizons and, while the verdict is unsure on a static workload, at one
// more doubling.
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
