package check

import (
	"fmt"
	"io"
	"math"

	"fairbench/fairness"
)

// Tolerances are the slack every property allows, in one place. Each
// property's String prints the one it uses.
type Tolerances struct {
	// Fair is the slack of sharing incentive and envy-freeness, relative to
	// the value compared against (LP solutions are exact to ~1e-9).
	Fair fairness.Tolerance `json:"fair"`
	// Pareto bounds the normalised gain Σ_u ΔU_u / V_u(N) a Pareto
	// improvement must exceed.
	Pareto fairness.Tolerance `json:"pareto"`
	// Strategy bounds the gain of a lie, relative to V_u(N).
	Strategy fairness.Tolerance `json:"strategy"`
	// RealisedRounds widens the relative slack of every single-allocation
	// property by RealisedRounds / Config.Rounds in Realised mode: a policy
	// that hands out whole rounds can be that many rounds of one job's time
	// away from its target at the horizon.
	RealisedRounds float64 `json:"realised_rounds"`
	// Exponent is the growth exponent α (quantity ∝ H^α over growing
	// horizons H) that long-term fairness, regret and starvation claim not
	// to exceed: 0.5 is the O(√T) of online convex optimisation with
	// long-term constraints. A fitted α is judged against the midpoint
	// between Exponent and 1 (linear growth), see Growth.Verdict.
	Exponent float64 `json:"exponent"`
	// Share bounds share convergence's deviation from the entitlement at
	// the longest horizon.
	Share float64 `json:"share"`
}

// DefaultTolerances are the tolerances `fairbench check` uses.
func DefaultTolerances() Tolerances {
	return Tolerances{
		Fair:           fairness.Tolerance{Rel: 1e-6},
		Pareto:         fairness.Tolerance{Rel: 1e-6},
		Strategy:       fairness.Tolerance{Rel: 1e-3},
		RealisedRounds: 2,
		Exponent:       0.5,
		Share:          0.05,
	}
}

// Config is one check's settings. Start from DefaultConfig; Defaults fills
// the fields whose zero value is never meaningful.
type Config struct {
	// Props names the properties to check; empty: all.
	Props []string
	// Cases is the number of random instances per single-allocation
	// property and scope (0: none; DefaultCases in DefaultConfig).
	Cases int
	// Bound is the exhaustive level (BoundLevel; 0: none).
	Bound int
	// Seed seeds every random stream of the check.
	Seed int64
	// Limits bound the random instances (default DefaultLimits).
	Limits Limits
	// Gangs, when set, replaces the gang sizes of the random instances and
	// of the exhaustive bound (e.g. {1}: single-GPU jobs only).
	Gangs []int
	// Mode is how single-allocation properties see the policy (default Auto).
	Mode Mode
	// Rounds is the Realised mode's horizon in rounds (default 24).
	Rounds int
	// Slowdown is the interference factor of an unmeasured co-located pair
	// (default 2, the simulator's).
	Slowdown float64
	Tol      Tolerances
	// Search is the strategy-proofness search of random instances (default
	// fairness.DefaultSearch; Realised mode spends at most RealisedEvals
	// evaluations per user, each a simulation).
	Search fairness.Search
	// RealisedEvals bounds the search per user in Realised mode (default 40).
	RealisedEvals int
	// Temporal sets the over-time properties' workloads.
	Temporal TemporalConfig
	// Workers bounds the parallel evaluations (default 2).
	Workers int
	// MaxShrinks bounds the shrinking steps of one counterexample (default 200).
	MaxShrinks int
	// OutDir is where counterexamples are written ("" for nowhere).
	OutDir string
	// Log receives one progress line per finished property (nil: none).
	Log io.Writer
}

// DefaultCases is the number of random instances `fairbench check` draws
// per single property and scope.
const DefaultCases = 100

// DefaultConfig is the configuration of a plain `fairbench check`.
func DefaultConfig() Config {
	c := Config{Cases: DefaultCases, Bound: DefaultBound}
	c.Defaults()
	return c
}

// TemporalConfig sets the workloads of the over-time properties.
type TemporalConfig struct {
	// Workloads is the number of seeded workloads per property (default 2).
	Workloads int `json:"workloads"`
	// BaseRounds is the shortest horizon H₀ in rounds (default 8); the
	// horizons are H₀·2^k for k < Horizons (default 5: 8 to 128 rounds),
	// extended one doubling at a time up to MaxHorizons (default 7: 512
	// rounds) while the growth verdict is unsure. The extension applies to
	// static workloads (a few jobs); a dynamic workload's jobs grow with the
	// horizon and each horizon runs to completion, so it keeps Horizons.
	BaseRounds  int `json:"base_rounds"`
	Horizons    int `json:"horizons"`
	MaxHorizons int `json:"max_horizons"`
	// ArrivalsPerRound is the starvation workload's Poisson rate (default
	// 2: about twice what its 6 to 9 GPUs serve, so queues build and waits
	// grow unless the policy shares).
	ArrivalsPerRound float64 `json:"arrivals_per_round"`
	// Underload is the offered load of the starvation workload under the
	// condition load-below-capacity (default 0.7 of capacity).
	Underload float64 `json:"underload"`
}

// Defaults fills in the zero fields of c whose zero is never meaningful.
func (c *Config) Defaults() {
	if c.Limits.MaxUsers == 0 {
		c.Limits = DefaultLimits()
	}
	if len(c.Gangs) > 0 {
		c.Limits.Gangs = c.Gangs
	}
	if c.Mode == "" {
		c.Mode = Auto
	}
	if c.Rounds == 0 {
		c.Rounds = 24
	}
	if c.Slowdown == 0 {
		c.Slowdown = 2
	}
	if c.Tol == (Tolerances{}) {
		c.Tol = DefaultTolerances()
	}
	if c.Search.Ladder == 0 && c.Search.MaxEvals == 0 && c.Search.Grid == nil {
		c.Search = fairness.DefaultSearch()
	}
	if c.RealisedEvals == 0 {
		c.RealisedEvals = 40
	}
	c.Temporal.defaults()
	if c.Workers == 0 {
		c.Workers = 2
	}
	if c.MaxShrinks == 0 {
		c.MaxShrinks = 200
	}
}

func (t *TemporalConfig) defaults() {
	if t.Workloads == 0 {
		t.Workloads = 2
	}
	if t.BaseRounds == 0 {
		t.BaseRounds = 8
	}
	if t.Horizons == 0 {
		t.Horizons = 5
	}
	if t.MaxHorizons == 0 {
		t.MaxHorizons = t.Horizons + 2
	}
	if t.ArrivalsPerRound == 0 {
		t.ArrivalsPerRound = 2
	}
	if t.Underload == 0 {
		t.Underload = 0.7
	}
}

// Limits of the settings, refused above (every one bounds memory or time).
const (
	MaxCases        = 1_000_000
	MaxRounds       = 10_000
	MaxWorkloads    = 100
	MaxHorizonRound = 1 << 14
	MaxArrivals     = 64
	MaxWorkers      = 256
)

// validate refuses settings no check can run with, naming the setting,
// its value and the range it must lie in.
func (c *Config) validate() error {
	for _, r := range []struct {
		name   string
		v      int
		lo, hi int
	}{
		{"cases", c.Cases, 0, MaxCases}, {"bound", c.Bound, 0, MaxBound}, {"rounds", c.Rounds, 1, MaxRounds},
		{"workloads", c.Temporal.Workloads, 0, MaxWorkloads}, {"horizon", c.Temporal.BaseRounds, 1, MaxHorizonRound},
		{"horizons", c.Temporal.Horizons, 3, 12}, {"max horizons", c.Temporal.MaxHorizons, c.Temporal.Horizons, 12},
		{"workers", c.Workers, 1, MaxWorkers}, {"max shrinks", c.MaxShrinks, 0, 100_000},
		{"realised evals", c.RealisedEvals, 1, 100_000},
	} {
		if r.v < r.lo || r.v > r.hi {
			return fmt.Errorf("check: %s must be in [%d, %d], got %d", r.name, r.lo, r.hi, r.v)
		}
	}
	if c.maxHorizon() > MaxHorizonRound {
		return fmt.Errorf("check: horizon %d × 2^%d = %d rounds exceeds %d", c.Temporal.BaseRounds, c.Temporal.MaxHorizons-1,
			c.maxHorizon(), MaxHorizonRound)
	}
	if a := c.Temporal.ArrivalsPerRound; !(a > 0 && a <= MaxArrivals) {
		return fmt.Errorf("check: arrivals per round must be a number in (0, %d], got %v", MaxArrivals, a)
	}
	if u := c.Temporal.Underload; !(u > 0 && u < 1) {
		return fmt.Errorf("check: underload must be in (0, 1), got %v", u)
	}
	if s := c.Slowdown; !(s >= 1) || math.IsInf(s, 0) {
		return fmt.Errorf("check: slowdown must be a finite number ≥ 1, got %v", s)
	}
	if c.Mode != Auto && c.Mode != OneDecision && c.Mode != Realised {
		return fmt.Errorf("check: mode %q: want auto, decision or realised", c.Mode)
	}
	if err := c.Limits.Validate(); err != nil {
		return err
	}
	if err := c.Search.Validate(); err != nil {
		return err
	}
	b := c.bound()
	return b.Validate()
}

// bound is the configured exhaustive bound (none for level 0).
func (c *Config) bound() Bound {
	b, err := BoundLevel(c.Bound)
	if err != nil {
		return Bound{}
	}
	if len(c.Gangs) > 0 && b.Users > 0 {
		b.Gangs = c.Gangs
	}
	return b
}

// tol widens t for the Realised mode.
func (c *Config) tol(t fairness.Tolerance, mode Mode) fairness.Tolerance {
	if mode == Realised {
		t.Rel += c.Tol.RealisedRounds / float64(c.Rounds)
	}
	return t
}

// Validate refuses the settings Run would refuse (after Defaults), naming
// the setting, its value and its range.
func Validate(cfg Config) error {
	cfg.Defaults()
	return cfg.validate()
}

// setup applies the defaults, validates, and resolves the properties
// (feasibility first when any single property is selected).
func (c *Config) setup() ([]Property, error) {
	c.Defaults()
	if err := c.validate(); err != nil {
		return nil, err
	}
	props, err := Lookup(c, c.Props)
	if err != nil {
		return nil, err
	}
	return withFeasible(c, props), nil
}
