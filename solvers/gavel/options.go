package gavel

import (
	"fmt"
	"math"
	"time"

	"fairbench/solvers"
	"fairbench/solvers/lp"
)

// Backends accepted by the backend option.
const (
	BackendAuto = "auto" // lp.Default(): CLP with cgo, else the pure-Go simplex
	BackendCoin = "coin" // COIN-OR CLP; an error in a build without it
	BackendPure = "pure" // the pure-Go simplex (lp.Pure)
)

// Solutions accepted by the solution option: which optimum of a degenerate
// LP a policy returns.
const (
	// SolutionCentral is the interior point lp.Interior returns: the
	// optimum Gavel's solver (ECOS) returns, spread over every type.
	SolutionCentral = "central"
	// SolutionVertex is a vertex of the optimal face, from the backend's
	// simplex method.
	SolutionVertex = "vertex"
)

// Normalisers accepted by the normaliser option of the max-min policies.
const (
	// NormProportional is Gavel's: a job's throughput with its time split
	// over the types in proportion to their GPU counts.
	NormProportional = "proportional"
	// NormEqualShare is the "equal split" of docs/algorithms/gavel.md
	// ("Normalisers"): the job's best throughput on 1/n of every type
	// (models.EqualShareThroughput).
	NormEqualShare = "equal-share"
)

// Defaults of the options.
const (
	DefaultBackend   = BackendAuto
	DefaultTimeLimit = time.Minute
	DefaultAggregate = true
	DefaultSolution  = SolutionCentral
	// DefaultTolerance is the relative width at which gavel-ftf stops
	// bisecting on ρ: it returns an allocation whose max ρ is within 0.1%
	// of the optimum.
	DefaultTolerance = 1e-3
	// DefaultMaxBisections bounds gavel-ftf's bisection steps.
	DefaultMaxBisections = 60
	// DefaultSlack is the relative improvement below which the water
	// filling of gavel-hierarchical counts a job as saturated (Gavel's
	// slack 1.0001 in _get_bottleneck_jobs).
	DefaultSlack = 1e-4
	// DefaultNormaliser is Gavel's.
	DefaultNormaliser = NormProportional
)

// Options are the settings every Gavel policy takes (the keys of the
// scenario file's options map):
//
//	backend: auto | coin | pure   LP backend (default auto: lp.Default())
//	time_limit: 1m                solver time for one decision, all its LP
//	                              solves together; 0 means none (default 1m)
//	aggregate: true               one set of LP variables per class of jobs
//	                              the LP cannot tell apart (default true)
//
// See the package comment for what each does.
type Options struct {
	Backend              string        `mapstructure:"backend"`
	TimeLimit            time.Duration `mapstructure:"time_limit"`
	Aggregate            bool          `mapstructure:"aggregate"`
	Solution             string        `mapstructure:"solution"`
	solvers.RoundOptions `mapstructure:",squash"`
}

// MaxMinOptions are the options of gavel-las, gavel-las-agnostic,
// gavel-las-ss and gavel-hierarchical: Options plus
//
//	normaliser: proportional | equal-share   what a job's throughput is
//	                                         divided by (default proportional)
type MaxMinOptions struct {
	Options    `mapstructure:",squash"`
	Normaliser string `mapstructure:"normaliser"`
}

// FTFOptions are gavel-ftf's: Options plus
//
//	tolerance: 0.001     stop bisecting when (hi − lo) ≤ tolerance·hi
//	max_bisections: 60   bound on the bisection steps
type FTFOptions struct {
	Options       `mapstructure:",squash"`
	Tolerance     float64 `mapstructure:"tolerance"`
	MaxBisections int     `mapstructure:"max_bisections"`
}

// HierarchicalOptions are gavel-hierarchical's: MaxMinOptions plus
//
//	slack: 0.0001   relative improvement below which a job is saturated
type HierarchicalOptions struct {
	MaxMinOptions `mapstructure:",squash"`
	Slack         float64 `mapstructure:"slack"`
}

func defaultOptions() Options {
	return Options{Backend: DefaultBackend, TimeLimit: DefaultTimeLimit, Aggregate: DefaultAggregate,
		Solution: DefaultSolution, RoundOptions: solvers.GavelRoundOptions()}
}

func defaultMaxMin() MaxMinOptions {
	return MaxMinOptions{Options: defaultOptions(), Normaliser: DefaultNormaliser}
}

// decode fills out (already holding the defaults) from c's options.
func decode(name string, c solvers.Config, out any) error {
	if err := c.Decode(out); err != nil {
		return fmt.Errorf("%s: options: %w", name, err)
	}
	return nil
}

func (o *Options) common() *Options             { return o }
func (o *MaxMinOptions) common() *Options       { return &o.Options }
func (o *FTFOptions) common() *Options          { return &o.Options }
func (o *HierarchicalOptions) common() *Options { return &o.Options }

// validate checks the common options and returns the backend they name.
func (o Options) validate(name string) (lp.Solver, error) {
	if o.TimeLimit < 0 {
		return nil, fmt.Errorf("%s: options: time_limit must not be negative, got %v", name, o.TimeLimit)
	}
	if o.Solution != SolutionCentral && o.Solution != SolutionVertex {
		return nil, fmt.Errorf("%s: options: solution must be %q or %q, got %q", name, SolutionCentral, SolutionVertex, o.Solution)
	}
	def := lp.Default()
	switch o.Backend {
	case BackendAuto:
		return def, nil
	case BackendPure:
		return lp.Pure{}, nil
	case BackendCoin:
		if def.Name() != (lp.Pure{}).Name() {
			return def, nil
		}
		return nil, fmt.Errorf("%s: options: backend coin is not in this build (%s); use auto or pure", name, lp.Backend())
	}
	return nil, fmt.Errorf("%s: options: backend must be %q, %q or %q, got %q", name, BackendAuto, BackendCoin, BackendPure, o.Backend)
}

func (o MaxMinOptions) validate(name string) (lp.Solver, error) {
	if o.Normaliser != NormProportional && o.Normaliser != NormEqualShare {
		return nil, fmt.Errorf("%s: options: normaliser must be %q or %q, got %q", name, NormProportional, NormEqualShare, o.Normaliser)
	}
	return o.Options.validate(name)
}

func (o FTFOptions) validate(name string) (lp.Solver, error) {
	if !(o.Tolerance > 0 && o.Tolerance < 1) || math.IsNaN(o.Tolerance) {
		return nil, fmt.Errorf("%s: options: tolerance must lie in (0, 1), got %v", name, o.Tolerance)
	}
	if o.MaxBisections < 1 {
		return nil, fmt.Errorf("%s: options: max_bisections must be at least 1, got %d", name, o.MaxBisections)
	}
	return o.Options.validate(name)
}

func (o HierarchicalOptions) validate(name string) (lp.Solver, error) {
	if !(o.Slack > 0 && o.Slack < 1) || math.IsNaN(o.Slack) {
		return nil, fmt.Errorf("%s: options: slack must lie in (0, 1), got %v", name, o.Slack)
	}
	return o.MaxMinOptions.validate(name)
}
