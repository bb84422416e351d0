package reproduce

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat"

	"fairbench/reports"
	"fairbench/sim"
)

// Headline is one published number and how to read ours from the runs.
type Headline struct {
	// Metric says what is compared ("mean JCT, Gavel ÷ FFT").
	Metric string
	// Paper is the paper's number as published, with its setting.
	Paper string
	// Where is where in the paper it is reported.
	Where string
	// Ours writes our value from the runs, per grid point.
	Ours func(r *Results) string
	// Check judges ours against the paper's number.
	Check Check
}

// Results are a reproduce grid's runs, aggregated per grid point and
// policy (means over seeds, as in the report's per-policy table).
type Results struct {
	Set   *reports.Set
	means []reports.GroupMean
	// alias maps a policy the headlines name to the one that ran in its
	// place (a sensitivity variation's Swap).
	alias map[string]string
	runs  int
}

// policy is the policy that ran for the name a headline uses.
func (r *Results) policy(name string) string {
	if p, ok := r.alias[name]; ok {
		return p
	}
	return name
}

func newResults(s *reports.Set) (*Results, error) {
	m, err := s.Means()
	if err != nil {
		return nil, err
	}
	return &Results{Set: s, means: m}, nil
}

// Mean is the mean over seeds of a summary metric (a key of
// tables/policies.csv) for policy at point p.
func (r *Results) Mean(p *reports.Point, policy, key string) (float64, bool) {
	policy = r.policy(policy)
	for _, g := range r.means {
		if g.Point == p && g.Policy == policy {
			v, ok := g.Mean[key]
			return v, ok && !math.IsNaN(v)
		}
	}
	return 0, false
}

// has reports whether the policy ran.
func (r *Results) has(policy string) bool {
	policy = r.policy(policy)
	for _, p := range r.Set.Policies {
		if p == policy {
			return true
		}
	}
	return false
}

// perPoint writes f at every grid point, labelled when there are several.
func (r *Results) perPoint(f func(p *reports.Point) (string, bool)) string {
	var parts []string
	for _, p := range r.Set.Points {
		s, ok := f(p)
		if !ok {
			s = "–"
		}
		if l := r.Set.ShortLabel(p); l != "" && len(r.Set.Points) > 1 {
			s += " (" + l + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// missing says which of the policies did not run, or "".
func (r *Results) missing(policies ...string) string {
	var m []string
	for _, p := range policies {
		if !r.has(p) {
			m = append(m, p)
		}
	}
	if len(m) == 0 {
		return ""
	}
	return "not run (" + strings.Join(m, ", ") + " not in this build)"
}

// ratio is our num ÷ den of a summary metric at each point.
func ratio(num, den, key string) func(r *Results) string {
	return func(r *Results) string {
		if m := r.missing(num, den); m != "" {
			return m
		}
		return r.perPoint(func(p *reports.Point) (string, bool) {
			a, ok1 := r.Mean(p, num, key)
			b, ok2 := r.Mean(p, den, key)
			if !ok1 || !ok2 || b == 0 {
				return "", false
			}
			return fmt.Sprintf("%.2f×", a/b), true
		})
	}
}

// perPolicy writes f's value at each point for each of the policies,
// "POLICY not run" for one that did not run.
func perPolicy(r *Results, policies []string, f func(pol string, p *reports.Point) (string, bool)) string {
	var parts []string
	for _, pol := range policies {
		if !r.has(pol) {
			parts = append(parts, pol+" not run")
			continue
		}
		parts = append(parts, pol+" "+r.perPoint(func(p *reports.Point) (string, bool) { return f(pol, p) }))
	}
	return strings.Join(parts, " · ")
}

// seedMean is the mean over the policy's runs at point p of f (a run f
// gives no value for is left out; false when none gives one).
func seedMean(r *Results, p *reports.Point, policy string, f func(res *sim.Result) (float64, bool)) (float64, bool) {
	var sum float64
	n := 0
	for _, run := range r.Set.Runs {
		if run.Point != p || run.Record.Policy != r.policy(policy) {
			continue
		}
		if v, ok := f(run.Record.Result); ok {
			sum += v
			n++
		}
	}
	return sum / float64(max(n, 1)), n > 0
}

// fairShare is the share of jobs with ρ ≤ 1 (100 − the unfair percentage)
// of each policy at each point.
func fairShare(policies ...string) func(r *Results) string {
	return func(r *Results) string {
		return perPolicy(r, policies, func(pol string, p *reports.Point) (string, bool) {
			u, ok := r.Mean(p, pol, "unfair_pct")
			return fmt.Sprintf("%.0f%%", 100-u), ok
		})
	}
}

// value is a summary metric of each policy at each point.
func value(key, format string, policies ...string) func(r *Results) string {
	return func(r *Results) string {
		return perPolicy(r, policies, func(pol string, p *reports.Point) (string, bool) {
			v, ok := r.Mean(p, pol, key)
			return fmt.Sprintf(format, v), ok
		})
	}
}

// roundTimes are the policy's measured solver seconds per scheduling round
// (the sum over a round's decisions), over the rounds of every run at a
// point, from the runs' timing files.
func roundTimes(r *Results, p *reports.Point, policy string) []float64 {
	var out []float64
	for _, run := range r.Set.Runs {
		if run.Point != p || run.Record.Policy != r.policy(policy) {
			continue
		}
		per := map[int]float64{}
		for _, d := range run.Timing {
			per[d.Round] += d.Seconds
		}
		for _, s := range per {
			out = append(out, s)
		}
	}
	return out
}

// solverPerRound writes the policy's solver time per round, mean, 99th
// percentile and maximum, per point.
func solverPerRound(policy string) func(r *Results) string {
	return func(r *Results) string {
		if !r.has(policy) {
			return policy + " not run"
		}
		return r.perPoint(func(p *reports.Point) (string, bool) {
			ts := roundTimes(r, p, policy)
			if len(ts) == 0 {
				return "", false
			}
			return fmt.Sprintf("mean %s, p99 %s, max %s", seconds(stat.Mean(ts, nil)), seconds(p99(ts)), seconds(floats.Max(ts))), true
		})
	}
}

// p99SolverPerRound is the 99th percentile of the policy's solver time per
// round at a point, in seconds. The verdict uses it rather than the
// maximum: solver times are wall-clock, and on a shared machine the slowest
// of tens of thousands of rounds measures the operating system (a 4-job
// round of fft once took 0.4 s there), not the solver.
func p99SolverPerRound(policy string) func(r *Results, p *reports.Point) (float64, bool) {
	return func(r *Results, p *reports.Point) (float64, bool) {
		ts := roundTimes(r, p, policy)
		if len(ts) == 0 {
			return 0, false
		}
		return p99(ts), true
	}
}

// p99 is the 99th percentile of xs (the smallest value at or above 99% of
// them, as stat.Quantile's Empirical kind); xs is not modified.
func p99(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return stat.Quantile(0.99, stat.Empirical, s, nil)
}

// seconds writes a duration in seconds with a unit that suits it.
func seconds(s float64) string {
	switch {
	case s >= 1:
		return fmt.Sprintf("%.2f s", s)
	case s >= 1e-3:
		return fmt.Sprintf("%.1f ms", s*1e3)
	}
	return fmt.Sprintf("%.0f µs", s*1e6)
}
