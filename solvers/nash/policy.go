package nash

import (
	"errors"
	"fmt"

	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/lp"
)

// base is what the package's policies share: their name, options,
// backend and run statistics. They decide at round starts, as Gavel's LP
// policies do.
type base struct {
	name    string
	opt     Options
	backend lp.Solver
	stats   Stats
}

func newBase(name string, c solvers.Config) (base, error) {
	o, b, err := Decode(name, c)
	return base{name: name, opt: o, backend: b}, err
}

// Name is the registered name.
func (b *base) Name() string { return b.name }

// Triggers is models.AtRound.
func (b *base) Triggers() models.Trigger { return models.AtRound }

// Report returns the run's Stats.
func (b *base) Report() any { st := b.stats; return &st }

// market builds s's user market and the decision's solver (nil when no
// job can run).
func (b *base) market(s *models.Snapshot) (*Built, Solver, error) {
	m, err := UserMarket(s, b.opt.Aggregate)
	if err != nil {
		return nil, Solver{}, fmt.Errorf("%s: %w", b.name, err)
	}
	if len(m.Market.Classes) == 0 { // no job can run anywhere
		return nil, Solver{}, nil
	}
	return m, b.opt.Solver(b.backend), nil
}

// Nash is the nash policy: the Eisenberg–Gale allocation of UserMarket.
type Nash struct {
	base
	last *Solution
}

// New builds nash from Options.
func New(c solvers.Config) (solvers.Policy, error) {
	b, err := newBase(Name, c)
	if err != nil {
		return nil, err
	}
	return &Nash{base: b}, nil
}

// Last is the solution of the last decision (nil before the first and
// after one with no active job), with its certificate.
func (p *Nash) Last() *Solution { return p.last }

// Allocate solves the Eisenberg–Gale program of s.
func (p *Nash) Allocate(s *models.Snapshot) (models.Allocation, error) {
	p.last = nil
	if len(s.Jobs) == 0 {
		return models.Allocation{}, nil
	}
	b, sv, err := p.market(s)
	if err != nil || b == nil {
		return models.Allocation{}, err
	}
	sol, err := sv.Solve(b.Market)
	if err != nil {
		return models.Allocation{}, p.opt.Wrap(Name, err)
	}
	p.last = sol
	p.stats.Add(sol)
	return models.Allocation{Fractions: b.Fractions(s, sol.X, nil)}, nil
}

// PA is the nash-pa policy: Nash's allocation with every user's shares
// scaled by its partial-allocation fraction (Solver.Discounts).
type PA struct {
	base
	last []float64
}

// NewPA builds nash-pa from Options.
func NewPA(c solvers.Config) (solvers.Policy, error) {
	b, err := newBase(PAName, c)
	if err != nil {
		return nil, err
	}
	return &PA{base: b}, nil
}

// Discounts are the users' fractions f_u of the last decision, in the order
// of the users with active jobs.
func (p *PA) Discounts() []float64 { return p.last }

// Allocate solves the Eisenberg–Gale program of s and once more without
// each user, and scales every user's shares by its discount.
func (p *PA) Allocate(s *models.Snapshot) (models.Allocation, error) {
	p.last = nil
	if len(s.Jobs) == 0 {
		return models.Allocation{}, nil
	}
	b, sv, err := p.market(s)
	if err != nil || b == nil {
		return models.Allocation{}, err
	}
	sol, err := sv.Solve(b.Market)
	if err != nil {
		return models.Allocation{}, p.opt.Wrap(PAName, err)
	}
	f, others, err := sv.Discounts(b.Market, sol)
	if err != nil {
		return models.Allocation{}, p.opt.Wrap(PAName, err)
	}
	p.last = f
	p.stats.Add(append([]*Solution{sol}, present(others)...)...)
	scale := make([]float64, len(b.Market.Classes))
	for c, cl := range b.Market.Classes {
		scale[c] = f[cl.Buyer]
	}
	return models.Allocation{Fractions: b.Fractions(s, sol.X, scale), Capped: p.opt.Capped}, nil
}

// present is sols without its nil entries.
func present(sols []*Solution) []*Solution {
	var out []*Solution
	for _, s := range sols {
		if s != nil {
			out = append(out, s)
		}
	}
	return out
}

// CEEI is the ceei policy: Solver.CEEI on UserMarket.
type CEEI struct {
	base
	last *CECertificate
}

// NewCEEI builds ceei from Options.
func NewCEEI(c solvers.Config) (solvers.Policy, error) {
	b, err := newBase(CEEIName, c)
	if err != nil {
		return nil, err
	}
	return &CEEI{base: b}, nil
}

// Certificate is the last decision's equilibrium certificate (nil after a
// fallback).
func (p *CEEI) Certificate() *CECertificate { return p.last }

// Allocate computes the equilibrium of s's user market. Its Stats count as
// Exact the decisions whose equilibrium was verified at 1e-9; MaxGap stays
// 0 (the equilibrium certificate has no duality gap).
func (p *CEEI) Allocate(s *models.Snapshot) (models.Allocation, error) {
	p.last = nil
	if len(s.Jobs) == 0 {
		return models.Allocation{}, nil
	}
	b, sv, err := p.market(s)
	if err != nil || b == nil {
		return models.Allocation{}, err
	}
	sol, cert, err := sv.CEEI(b.Market)
	if errors.Is(err, ErrNoEquilibrium) {
		// No verified equilibrium: answer with the Nash-welfare optimum
		// (Pareto efficient), counted, rather than fail the decision.
		if sol, err = sv.Solve(b.Market); err == nil {
			p.stats.Fallbacks++
		}
	}
	if err != nil {
		return models.Allocation{}, p.opt.Wrap(CEEIName, err)
	}
	p.last = cert
	p.stats.Decisions++
	p.stats.LPSolves += sol.Iterations
	if cert != nil && sol.Exact {
		p.stats.Exact++
	}
	return models.Allocation{Fractions: b.Fractions(s, sol.X, nil)}, nil
}

var (
	_ solvers.Policy    = (*Nash)(nil)
	_ solvers.Triggered = (*Nash)(nil)
	_ solvers.Reporter  = (*Nash)(nil)
	_ solvers.Policy    = (*PA)(nil)
	_ solvers.Reporter  = (*PA)(nil)
	_ solvers.Policy    = (*CEEI)(nil)
	_ solvers.Reporter  = (*CEEI)(nil)
)
