package fairness

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"fairbench/models"
)

// Mechanism is a policy seen through a Division: the outcome it gives when
// the jobs report the speeds of reported (the true division with some
// speeds changed; same users, jobs, types and capacities). The checker
// builds one from a solvers.Policy. An error that wraps a
// *models.Violation means the policy answered the report with an
// infeasible allocation: StrategyProof reports that as a violation (a lie
// that breaks the policy is found like any other); any other error is a
// failure of the policy, never a violation.
type Mechanism func(reported *Division) (*Outcome, error)

// Misreport is a profitable lie: what user User reported for each of its
// jobs (Speeds[k] for the k-th job of Division.JobsOf(User)), and its true
// utility when truthful and when lying. Infeasible is set instead of Lying
// when the policy answered the lie with an infeasible allocation. Move
// names the search move that found it.
type Misreport struct {
	User       int
	Speeds     [][]float64
	Truthful   float64
	Lying      float64
	Infeasible error
	Move       string
}

// Reported returns a copy of d in which the lie's user reports its speeds;
// nil when the report leaves a job with no type it can run on.
func (m *Misreport) Reported(d *Division) *Division {
	return d.withSpeeds(m.User, m.Speeds)
}

// withSpeeds copies d with the speeds of user u's jobs replaced.
func (d *Division) withSpeeds(u int, speeds [][]float64) *Division {
	c := *d
	c.Jobs = append([]Job(nil), d.Jobs...)
	for k, j := range d.byUser[u] {
		c.Jobs[j].Speed = speeds[k]
	}
	if err := c.Index(); err != nil {
		return nil
	}
	return &c
}

// StrategyProof searches for a misreport of one user's speeds that raises
// its true utility (docs/checker.md):
//
//	∀u, ∀T'_u: U_u(M(T'_u, T_−u); T_u) ≤ U_u(M(T); T_u) + tol,
//
// the slack scaled by M_u = V_u(N), where M is the mechanism and truth its
// outcome on the true speeds. The search is Search's, an optimisation over
// reports: it proves nothing when it finds no lie, but it is a search, not
// one sample. A report the policy answers with an infeasible allocation is
// a violation (Misreport.Infeasible); another mechanism error is returned
// as an error.
func StrategyProof(d *Division, truth *Outcome, mech Mechanism, s Search, tol Tolerance) (bool, string, *Misreport, error) {
	for u := range d.Users {
		sr := newSearcher(d, u, truth, mech, s, tol)
		lie, err := sr.run()
		if err != nil {
			return false, "", nil, err
		}
		if lie != nil {
			return false, lie.Describe(d), lie, nil
		}
	}
	return true, "", nil, nil
}

// Recheck evaluates exactly the lie m again (not a new search): the gain it
// brings now, beyond the tolerance or not. A policy that answers the same
// report differently is nondeterministic; one that answers it infeasibly
// again keeps failing.
func Recheck(d *Division, truth *Outcome, mech Mechanism, m *Misreport, tol Tolerance) (bool, *Misreport, error) {
	rep := m.Reported(d)
	if rep == nil {
		return false, nil, fmt.Errorf("fairness: the recorded lie leaves a job of user %s with no type it can run on", d.Users[m.User].Name)
	}
	base := d.Utility(truth, m.User)
	out, err := mech(rep)
	again := &Misreport{User: m.User, Speeds: m.Speeds, Truthful: base, Move: m.Move}
	var v *models.Violation
	switch {
	case errors.As(err, &v):
		again.Infeasible = err
		return true, again, nil
	case err != nil:
		return false, nil, err
	}
	again.Lying = d.Utility(out, m.User)
	return again.Lying-base > tol.Slack(d.Scale(m.User)), again, nil
}

// Describe says what the lie is and what it gains, with the numbers.
func (m *Misreport) Describe(d *Division) string {
	var parts []string
	for k, j := range d.byUser[m.User] {
		var figs []string
		for g, t := range m.Speeds[k] {
			figs = append(figs, fmt.Sprintf("%s %.4g (true %.4g)", d.Types[g], t, d.Jobs[j].Speed[g]))
		}
		parts = append(parts, fmt.Sprintf("job %d: %s", d.Jobs[j].ID, strings.Join(figs, ", ")))
	}
	lie := fmt.Sprintf("user %s misreporting [%s]", d.Users[m.User].Name, strings.Join(parts, "; "))
	if m.Infeasible != nil {
		return fmt.Sprintf("the policy answers %s with an infeasible allocation: %v", lie, m.Infeasible)
	}
	return fmt.Sprintf("%s gains: true utility %.6g → %.6g (+%.3g%% of V(N); found by %s)",
		lie, m.Truthful, m.Lying, 100*(m.Lying-m.Truthful)/d.Scale(m.User), m.Move)
}

// runnable reports whether every job of a report has finite, non-negative
// speeds and can still run somewhere.
func (d *Division) runnable(jobs []int, speeds [][]float64) bool {
	for k, j := range jobs {
		ok := false
		for g, t := range speeds[k] {
			if t < 0 || math.IsNaN(t) || math.IsInf(t, 0) {
				return false
			}
			if t > 0 && d.Jobs[j].Gang <= d.Capacity[g] {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	return true
}
