package check

import (
	"fmt"
	"sort"
	"strings"

	"fairbench/fairness"
)

// Property names, as policies claim them (solvers.Entry.Claims) and the CLI
// selects them (--props).
const (
	Feasible          = "feasible"
	SharingIncentive  = "sharing-incentive"
	EnvyFree          = "envy-free"
	ParetoEfficient   = "pareto-efficient"
	StrategyProof     = "strategy-proof"
	LongTermFairness  = "long-term-fairness"
	Regret            = "regret"
	StarvationBound   = "starvation-bound"
	ShareConvergence  = "share-convergence"
	propertyNameWidth = 18
)

// Property is a fairness property as a value: a name and a String that
// prints its formula with its tolerance. It is either a SingleProperty,
// checked on one decision, or a TemporalProperty, checked on simulations
// over growing horizons.
type Property interface {
	Name() string
	String() string
}

// SingleProperty is checked on one instance and the policy's answer.
type SingleProperty interface {
	Property
	// Check reports whether the case keeps the property and, if not, why,
	// with the numbers. It is called only on a feasible allocation (an
	// infeasible one violates every property before Check is reached). A
	// failure that is not a violation (the policy or a solver failing while
	// checking) goes to c.Fail.
	Check(c *Case) (ok bool, reason string)
}

// Case is one check of one property on one decision.
type Case struct {
	*Decision
	// grid, in the exhaustive search, is the bound's speed grid, over which
	// strategy-proofness tries every report.
	grid []float64
	// lie is the profitable lie strategy-proofness found (nil: none).
	lie *fairness.Misreport
	err error
}

// Fail records a failure that is not a violation.
func (c *Case) Fail(err error) { c.err = err }

// Err is the failure of the decision or of the check, if any.
func (c *Case) Err() error {
	if c.PolicyErr != nil {
		return c.PolicyErr
	}
	return c.err
}

// Properties returns every property with the tolerances of cfg, single
// ones first, in the order of docs/checker.md.
func Properties(cfg *Config) []Property {
	return []Property{
		feasibleProp{},
		siProp{cfg},
		efProp{cfg},
		peProp{cfg},
		spProp{cfg},
		ltfProp{cfg},
		regretProp{cfg},
		starveProp{cfg},
		shareProp{cfg},
	}
}

// Names lists every property name.
func Names() []string {
	var out []string
	for _, p := range Properties(&Config{}) {
		out = append(out, p.Name())
	}
	return out
}

// Lookup resolves property names (all when names is empty), refusing
// unknown ones with the list of known names.
func Lookup(cfg *Config, names []string) ([]Property, error) {
	all := Properties(cfg)
	if len(names) == 0 {
		return all, nil
	}
	byName := map[string]Property{}
	for _, p := range all {
		byName[p.Name()] = p
	}
	var out []Property
	seen := map[string]bool{}
	for _, n := range names {
		p, ok := byName[n]
		if !ok {
			return nil, fmt.Errorf("check: unknown property %q (known: %s)", n, strings.Join(Names(), ", "))
		}
		if !seen[n] {
			out = append(out, p)
			seen[n] = true
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return index(all, out[i]) < index(all, out[j]) })
	return out, nil
}

func index(all []Property, p Property) int {
	for i, q := range all {
		if q.Name() == p.Name() {
			return i
		}
	}
	return len(all)
}

// infeasibleReason is the reason every property gives for an infeasible
// allocation: feasibility is checked first, whatever the property.
func infeasibleReason(err error) string {
	return "the policy's allocation is infeasible: " + err.Error()
}

// relaxedNote ends the fairness formulas: what the Realised mode skips.
const relaxedNote = "; realised mode judges instances of single-GPU jobs only (see Decision.Relaxed)"

type feasibleProp struct{}

func (feasibleProp) Name() string { return Feasible }
func (feasibleProp) String() string {
	return "x ≥ 0, Σ_g x[j][g] ≤ 1, Σ_j d_j·x[j][g] ≤ N_g, gangs only on types that run them, no GPU double-booked " +
		"(models.Feasible, slack 1e-6; realised: every decision of the simulation). Checked first for every property: " +
		"an infeasible allocation violates them all"
}
func (feasibleProp) Check(*Case) (bool, string) { return true, "" }

type siProp struct{ cfg *Config }

func (siProp) Name() string { return SharingIncentive }
func (p siProp) String() string {
	return fmt.Sprintf("∀u: U_u(x) ≥ V_u((w_u/Σ_v w_v)·N) − ε·V_u(…), U_u = Σ_{j∈u} Σ_g x[j][g]·T[j][g]/max_h T[j][h], "+
		"V_u(b) = the best U_u within bundle b, Σ_v over the users with active jobs; ε = %s (realised: + %g/rounds)%s",
		p.cfg.Tol.Fair, p.cfg.Tol.RealisedRounds, relaxedNote)
}
func (p siProp) Check(c *Case) (bool, string) {
	if c.Relaxed {
		return true, ""
	}
	ok, why, err := fairness.SharingIncentive(c.Division, c.Outcome, p.cfg.tol(p.cfg.Tol.Fair, c.Mode))
	if err != nil {
		c.Fail(err)
		return true, ""
	}
	return ok, why
}

type efProp struct{ cfg *Config }

func (efProp) Name() string { return EnvyFree }
func (p efProp) String() string {
	return fmt.Sprintf("∀u≠v: U_u(x) ≥ V_u((w_u/w_v)·held_v) − ε·V_u(…), held_v = Σ_{j∈v} d_j·x[j][·]; ε = %s (realised: + %g/rounds)%s",
		p.cfg.Tol.Fair, p.cfg.Tol.RealisedRounds, relaxedNote)
}
func (p efProp) Check(c *Case) (bool, string) {
	if c.Relaxed {
		return true, ""
	}
	ok, why, err := fairness.EnvyFree(c.Division, c.Outcome, p.cfg.tol(p.cfg.Tol.Fair, c.Mode))
	if err != nil {
		c.Fail(err)
		return true, ""
	}
	return ok, why
}

type peProp struct{ cfg *Config }

func (peProp) Name() string { return ParetoEfficient }
func (p peProp) String() string {
	return fmt.Sprintf("max{Σ_u (U_u(x')−U_u(x))/V_u(N) : x' a time-sharing allocation, U_v(x') ≥ U_v(x) ∀v} ≤ ε "+
		"(an LP, solvers/lp); ε = %s (realised: + %g/rounds)%s", p.cfg.Tol.Pareto, p.cfg.Tol.RealisedRounds, relaxedNote)
}
func (p peProp) Check(c *Case) (bool, string) {
	if c.Relaxed {
		return true, ""
	}
	ok, why, err := fairness.ParetoEfficient(c.Division, c.Outcome, p.cfg.tol(p.cfg.Tol.Pareto, c.Mode))
	if err != nil {
		c.Fail(fmt.Errorf("pareto LP: %w", err))
		return true, ""
	}
	return ok, why
}

type spProp struct{ cfg *Config }

func (spProp) Name() string { return StrategyProof }
func (p spProp) String() string {
	s := p.cfg.Search
	return fmt.Sprintf("∀u, ∀T'_u: U_u(M(T'_u, T_−u); T_u) − U_u(M(T); T_u) ≤ ε·V_u(N), M the policy; searched per user "+
		"as an optimisation of the lie's gain: every report on the bound's speed grid (exhaustive search), a ×%g ladder "+
		"of %d steps each way on each type, heterogeneity hidden, best type only, swaps, climbs with an expanding step, "+
		"%d random restarts (≤ %d evaluations; realised ≤ %d); a report answered with an infeasible allocation is a "+
		"violation; the lie found is rechecked exactly; ε = %s (realised: + %g/rounds)%s",
		s.Ladder, s.LadderSteps, s.Restarts, s.MaxEvals, p.cfg.RealisedEvals, p.cfg.Tol.Strategy, p.cfg.Tol.RealisedRounds, relaxedNote)
}
func (p spProp) Check(c *Case) (bool, string) {
	if c.Relaxed {
		return true, ""
	}
	ok, why, lie, err := fairness.StrategyProof(c.Division, c.Outcome, c.Mechanism, p.search(c), p.cfg.tol(p.cfg.Tol.Strategy, c.Mode))
	if err != nil {
		c.Fail(err)
		return true, ""
	}
	c.lie = lie
	return ok, why
}

// search is the search for c: the grid alone in the exhaustive search, the
// configured search otherwise (with the Realised mode's budget), seeded by
// the instance.
func (p spProp) search(c *Case) fairness.Search {
	if c.grid != nil {
		return fairness.Search{Grid: c.grid}
	}
	s := p.cfg.Search
	if c.Mode == Realised && (s.MaxEvals == 0 || s.MaxEvals > p.cfg.RealisedEvals) {
		s.MaxEvals = p.cfg.RealisedEvals
	}
	s.Seed = uint64(p.cfg.Seed)
	return s
}
