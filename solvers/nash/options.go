package nash

import (
	"errors"
	"fmt"
	"math"
	"time"

	"fairbench/solvers"
	"fairbench/solvers/lp"
)

// Registered names and summaries.
const (
	Name        = "nash"
	Summary     = "Nash social welfare over users (Eisenberg–Gale; CEEI for linear markets): maximise Σ_u w_u·log U_u over time fractions, solved exactly with a certificate"
	PAName      = "nash-pa"
	PASummary   = "Cole–Gkatzelis–Goel partial allocation over users: the Nash-welfare allocation, each user keeping the fraction its presence costs the others; strategy-proof"
	CEEIName    = "ceei"
	CEEISummary = "competitive equilibrium from incomes = user weights, with each job's time cap (a Hylland–Zeckhauser-type market): envy-free, sharing incentive and Pareto efficient, computed by continuation from the Nash-welfare optimum with a certificate"
)

// Backends accepted by the backend option.
const (
	BackendAuto = "auto" // lp.Default(): CLP with cgo, else the pure-Go simplex
	BackendCoin = "coin" // COIN-OR CLP; an error in a build without it
	BackendPure = "pure" // the pure-Go simplex (lp.Pure)
)

// Options are the settings of nash and nash-pa (the keys of the scenario
// file's options map):
//
//	backend: auto | coin | pure   LP backend (default auto: lp.Default())
//	time_limit: 1m                solver time for one decision, all its solves
//	                              together; 0 means none (default 1m)
//	aggregate: true               one class per user for jobs of equal gang and
//	                              normalised speeds (default true)
//	capped: true                  nash-pa only: fractions are caps as well as
//	                              targets (Allocation.Capped), so the withheld
//	                              share stays idle, as the mechanism requires
//	                              (default true)
type Options struct {
	Backend   string        `mapstructure:"backend"`
	TimeLimit time.Duration `mapstructure:"time_limit"`
	Aggregate bool          `mapstructure:"aggregate"`
	Capped    bool          `mapstructure:"capped"`
}

// DefaultOptions are the options' defaults.
func DefaultOptions() Options {
	return Options{Backend: BackendAuto, TimeLimit: time.Minute, Aggregate: true, Capped: true}
}

// Decode reads c's options over DefaultOptions and checks them; name is
// the policy, for the errors.
func Decode(name string, c solvers.Config) (Options, lp.Solver, error) {
	return DecodeOver(name, c, DefaultOptions())
}

// DecodeOver is Decode over other defaults o.
func DecodeOver(name string, c solvers.Config, o Options) (Options, lp.Solver, error) {
	if err := c.Decode(&o); err != nil {
		return o, nil, fmt.Errorf("%s: options: %w", name, err)
	}
	if o.TimeLimit < 0 {
		return o, nil, fmt.Errorf("%s: options: time_limit must not be negative, got %v", name, o.TimeLimit)
	}
	def := lp.Default()
	switch o.Backend {
	case BackendAuto:
		return o, def, nil
	case BackendPure:
		return o, lp.Pure{}, nil
	case BackendCoin:
		if def.Name() == (lp.Pure{}).Name() {
			return o, nil, fmt.Errorf("%s: options: backend coin: this build has no COIN-OR (built without cgo)", name)
		}
		return o, def, nil
	}
	return o, nil, fmt.Errorf("%s: options: backend must be auto, coin or pure, got %q", name, o.Backend)
}

// Solver is the Solver of one decision under these options: its deadline
// starts now.
func (o Options) Solver(backend lp.Solver) Solver {
	s := Solver{LP: backend}
	if o.TimeLimit > 0 {
		s.Deadline = time.Now().Add(o.TimeLimit)
	}
	return s
}

// Wrap names the policy in err, and where err is the decision's time limit
// (lp.ErrLimit) says which option ran out and how to lift it, so that a run
// stopped by the limit does not read like a solver failure.
func (o Options) Wrap(name string, err error) error {
	if o.TimeLimit > 0 && errors.Is(err, lp.ErrLimit) {
		return fmt.Errorf("%s: option time_limit (%v a decision) ran out; raise it, or set 0 for none: %w", name, o.TimeLimit, err)
	}
	return fmt.Errorf("%s: %w", name, err)
}

// Stats is what a policy of this package reports over a run
// (solvers.Reporter): how many decisions were solved, how many of them to
// the exact optimum (Solution.Exact, every market solve of the decision),
// the largest certified duality gap, and the LP solves of the cutting-plane
// loops.
type Stats struct {
	Decisions int     `json:"decisions"`
	Exact     int     `json:"exact"`
	MaxGap    float64 `json:"max_gap"`
	LPSolves  int     `json:"lp_solves"`
	// Newton counts the interior-point iterations (every market solve
	// starts with the interior-point method; the cutting planes run only
	// when its point cannot be certified).
	Newton int `json:"newton_iterations,omitempty"`
	// Reused counts the decisions answered from the decision before, whose
	// market was the same (recall.go): counted in Decisions (and Exact when
	// that decision was), with no solve.
	Reused int `json:"reused,omitempty"`
	// Fallbacks counts ceei's decisions without a verified equilibrium,
	// answered with the Nash-welfare allocation instead.
	Fallbacks int `json:"fallbacks,omitempty"`
}

// Add counts one decision whose market solves are sols.
func (st *Stats) Add(sols ...*Solution) {
	st.Decisions++
	exact := true
	for _, s := range sols {
		exact = exact && s.Exact
		st.MaxGap = math.Max(st.MaxGap, s.Cert.Gap)
		st.LPSolves += s.Iterations
		st.Newton += s.Newton
	}
	if exact {
		st.Exact++
	}
}

// reuse counts one decision answered from the decision before, exact if
// that one was.
func (st *Stats) reuse(exact bool) {
	st.Decisions++
	st.Reused++
	if exact {
		st.Exact++
	}
}
