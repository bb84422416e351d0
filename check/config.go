package check

import (
	"fmt"
	"io"

	"fairbench/models"
)

// Tolerances are the slack every property allows, in one place (STYLE.md
// 15: tolerances named and kept in config). Each property's String prints
// the one it uses.
type Tolerances struct {
	// Fair is the slack of sharing incentive and envy-freeness, relative to
	// the value compared against (LP solutions are exact to ~1e-9).
	Fair models.Tolerance `json:"fair"`
	// Pareto bounds the normalised gain Σ_u ΔU_u / V_u(N) a Pareto
	// improvement must exceed.
	Pareto models.Tolerance `json:"pareto"`
	// Strategy bounds the gain of a lie, relative to V_u(N).
	Strategy models.Tolerance `json:"strategy"`
	// RealisedRounds widens the relative slack of every single-allocation
	// property by RealisedRounds / Config.Rounds in Realised mode: a policy
	// that hands out whole rounds can be that many rounds of one job's time
	// away from its target at the horizon.
	RealisedRounds float64 `json:"realised_rounds"`
	// Exponent is the largest growth exponent α (quantity ∝ H^α over growing
	// horizons H) that long-term fairness, regret and starvation accept:
	// 0.5 is the O(√T) of online convex optimisation with long-term
	// constraints; a linear growth (α ≈ 1) fails.
	Exponent float64 `json:"exponent"`
	// Share bounds share convergence's deviation from the entitlement at
	// the longest horizon.
	Share float64 `json:"share"`
}

// DefaultTolerances are the tolerances `fairbench check` uses.
func DefaultTolerances() Tolerances {
	return Tolerances{
		Fair:           models.Tolerance{Rel: 1e-6},
		Pareto:         models.Tolerance{Rel: 1e-6},
		Strategy:       models.Tolerance{Rel: 1e-3},
		RealisedRounds: 2,
		Exponent:       0.5,
		Share:          0.05,
	}
}

// Config is one check's settings. The zero value of a field means its
// default (see Defaults).
type Config struct {
	// Props names the properties to check; empty: all.
	Props []string
	// Cases is the number of random instances per single-allocation
	// property (default 100).
	Cases int
	// Bound is the exhaustive level (BoundLevel; default DefaultBound, -1
	// for none).
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
	// models.DefaultMisreportSearch; Realised mode spends at most 20
	// evaluations per user).
	Search models.MisreportSearch
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

// TemporalConfig sets the workloads of the over-time properties.
type TemporalConfig struct {
	// Workloads is the number of seeded workloads per property (default 2).
	Workloads int `json:"workloads"`
	// BaseRounds is the shortest horizon H₀ in rounds; the horizons are
	// H₀, 2H₀, 4H₀ and 8H₀ (default 8).
	BaseRounds int `json:"base_rounds"`
	// ArrivalsPerRound is the dynamic workloads' Poisson rate (default 2:
	// about 1.2 times what their 6 to 9 GPUs can serve at the best speeds,
	// so queues build and waits grow unless the policy shares).
	ArrivalsPerRound float64 `json:"arrivals_per_round"`
}

// Defaults fills in the zero fields of c.
func (c *Config) Defaults() {
	if c.Cases == 0 {
		c.Cases = 100
	}
	if c.Bound == 0 {
		c.Bound = DefaultBound
	}
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
	if c.Search.MaxEvals == 0 && c.Search.Factors == nil {
		c.Search = models.DefaultMisreportSearch()
	}
	if c.Temporal.Workloads == 0 {
		c.Temporal.Workloads = 2
	}
	if c.Temporal.BaseRounds == 0 {
		c.Temporal.BaseRounds = 8
	}
	if c.Temporal.ArrivalsPerRound == 0 {
		c.Temporal.ArrivalsPerRound = 2
	}
	if c.Workers == 0 {
		c.Workers = 2
	}
	if c.MaxShrinks == 0 {
		c.MaxShrinks = 200
	}
}

// validate refuses settings no check can run with.
func (c *Config) validate() error {
	switch {
	case c.Cases < 0:
		return fmt.Errorf("check: cases must not be negative, got %d", c.Cases)
	case c.Rounds < 1:
		return fmt.Errorf("check: rounds must be positive, got %d", c.Rounds)
	case c.Mode != Auto && c.Mode != OneDecision && c.Mode != Realised:
		return fmt.Errorf("check: mode %q: want auto, decision or realised", c.Mode)
	case c.Limits.MaxUsers < 1 || c.Limits.MaxTypes < 1 || c.Limits.MaxTypes > MaxSpecTypes || c.Limits.MaxGPUs < 1 ||
		c.Limits.MaxJobsPerUser < 1 || len(c.Limits.Gangs) == 0 || len(c.Limits.Weights) == 0 || len(c.Limits.Speeds) == 0:
		return fmt.Errorf("check: limits %+v: every bound must be positive, types at most %d", c.Limits, MaxSpecTypes)
	case c.Temporal.Workloads < 0 || c.Temporal.BaseRounds < 1 || c.Temporal.ArrivalsPerRound <= 0:
		return fmt.Errorf("check: temporal settings %+v", c.Temporal)
	}
	if c.Bound > 0 {
		if _, err := BoundLevel(c.Bound); err != nil {
			return err
		}
	}
	return nil
}

// bound is the configured exhaustive bound (none for Bound < 0).
func (c *Config) bound() Bound {
	if c.Bound < 0 {
		return Bound{}
	}
	b, _ := BoundLevel(c.Bound)
	if len(c.Gangs) > 0 && b.Users > 0 {
		b.Gangs = c.Gangs
	}
	return b
}

// tol widens t for the Realised mode.
func (c *Config) tol(t models.Tolerance, mode Mode) models.Tolerance {
	if mode == Realised {
		t.Rel += c.Tol.RealisedRounds / float64(c.Rounds)
	}
	return t
}
