package oef

import (
	"fmt"

	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/lp"
	"fairbench/solvers/nash"
)

// Registered names and summaries.
const (
	Name           = "oef"
	Summary        = "OEF (Mo, Xu, Lau, Middleware 2024), cooperative: the most total normalised throughput under sharing incentive and envy-freeness constraints, one LP per decision"
	NonCoopName    = "oef-noncoop"
	NonCoopSummary = "OEF (Mo, Xu, Lau, Middleware 2024), non-cooperative: the largest equal weighted normalised throughput for every user, by progressive filling over LPs"
	aggregate      = true
)

// Stats is what an OEF policy records over a run.
type Stats struct {
	Decisions int `json:"decisions"`
	LPSolves  int `json:"lp_solves"`
	// EnvySlack counts the cooperative decisions whose envy-freeness rows
	// could not all hold (Result.Envy > 0).
	EnvySlack int `json:"envy_slack_decisions,omitempty"`
}

// Policy is oef or oef-noncoop.
type Policy struct {
	name    string
	coop    bool
	backend lp.Solver
	stats   Stats
	last    *Result
}

// options: OEF has none; unknown keys are refused.
type options struct{}

func build(name string, coop bool, c solvers.Config) (solvers.Policy, error) {
	var o options
	if err := c.Decode(&o); err != nil {
		return nil, fmt.Errorf("%s: options: %w", name, err)
	}
	return &Policy{name: name, coop: coop, backend: lp.Default()}, nil
}

// New builds oef (the cooperative program).
func New(c solvers.Config) (solvers.Policy, error) { return build(Name, true, c) }

// NewNonCoop builds oef-noncoop (the non-cooperative program).
func NewNonCoop(c solvers.Config) (solvers.Policy, error) { return build(NonCoopName, false, c) }

// Name is the registered name.
func (p *Policy) Name() string { return p.name }

// Triggers is models.AtRound.
func (p *Policy) Triggers() models.Trigger { return models.AtRound }

// Report returns the run's Stats.
func (p *Policy) Report() any { st := p.stats; return &st }

// Last is the last decision's Result (nil before the first and after one
// with no active job).
func (p *Policy) Last() *Result { return p.last }

// Allocate solves the policy's program over s's users.
func (p *Policy) Allocate(s *models.Snapshot) (models.Allocation, error) {
	p.last = nil
	if len(s.Jobs) == 0 {
		return models.Allocation{}, nil
	}
	b, err := nash.UserMarket(s, aggregate)
	if err != nil {
		return models.Allocation{}, fmt.Errorf("%s: %w", p.name, err)
	}
	if len(b.Market.Classes) == 0 { // no job can run anywhere
		return models.Allocation{}, nil
	}
	solve := NonCooperative
	if p.coop {
		solve = Cooperative
	}
	r, err := solve(b.Market, p.backend)
	if err != nil {
		return models.Allocation{}, fmt.Errorf("%s: %w", p.name, err)
	}
	p.last = r
	p.stats.Decisions++
	p.stats.LPSolves += r.Solves
	if r.Envy > 0 {
		p.stats.EnvySlack++
	}
	return models.Allocation{Fractions: b.Fractions(s, r.X, nil)}, nil
}

var (
	_ solvers.Policy    = (*Policy)(nil)
	_ solvers.Triggered = (*Policy)(nil)
	_ solvers.Reporter  = (*Policy)(nil)
)
