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
	recall recall[*Solution]
	last   *Solution
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
	key := b.Market.key()
	if sol, ok := p.recall.get(key); ok { // the decision before's market (recall.go)
		p.stats.reuse(sol.Exact)
		p.last = sol.clone()
		return models.Allocation{Fractions: b.Fractions(s, sol.X, nil)}, nil
	}
	sol, err := sv.Solve(b.Market)
	if err != nil {
		return models.Allocation{}, p.opt.Wrap(Name, err)
	}
	p.recall.put(key, sol.clone())
	p.last = sol
	p.stats.Add(sol)
	return models.Allocation{Fractions: b.Fractions(s, sol.X, nil)}, nil
}

// PA is the nash-pa policy: Nash's allocation with every user's shares
// scaled by its partial-allocation fraction (Solver.Discounts).
type PA struct {
	base
	partial Partial
	last    []float64
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
// each user (Partial.Decide), and scales every user's shares by its
// discount.
func (p *PA) Allocate(s *models.Snapshot) (models.Allocation, error) {
	p.last = nil
	if len(s.Jobs) == 0 {
		return models.Allocation{}, nil
	}
	b, sv, err := p.market(s)
	if err != nil || b == nil {
		return models.Allocation{}, err
	}
	sol, f, err := p.partial.Decide(sv, b.Market, &p.stats)
	if err != nil {
		return models.Allocation{}, p.opt.Wrap(PAName, err)
	}
	p.last = f
	scale := make([]float64, len(b.Market.Classes))
	for c, cl := range b.Market.Classes {
		scale[c] = f[cl.Buyer]
	}
	return models.Allocation{Fractions: b.Fractions(s, sol.X, scale), Capped: p.opt.Capped}, nil
}

// CEEI is the ceei policy: Solver.CEEI on UserMarket.
type CEEI struct {
	base
	recall recall[ceeiAnswer]
	last   *CECertificate
}

// ceeiAnswer is one decision of ceei: the allocation, its certificate (nil
// after a fallback) and whether it fell back.
type ceeiAnswer struct {
	sol      *Solution
	cert     *CECertificate
	fallback bool
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
	key := b.Market.key()
	d, ok := p.recall.get(key) // the decision before's market (recall.go)
	if !ok {
		if d, err = p.solve(sv, b.Market); err != nil {
			return models.Allocation{}, p.opt.Wrap(CEEIName, err)
		}
		p.recall.put(key, d)
		p.stats.LPSolves += d.sol.Iterations
	} else {
		p.stats.Reused++
	}
	p.last = d.cert.clone()
	p.stats.Decisions++
	if d.fallback {
		p.stats.Fallbacks++
	}
	if d.cert != nil && d.sol.Exact {
		p.stats.Exact++
	}
	return models.Allocation{Fractions: b.Fractions(s, d.sol.X, nil)}, nil
}

// solve computes the equilibrium of m, else (no verified equilibrium) the
// Nash-welfare optimum (Pareto efficient) as a fallback, rather than fail
// the decision.
func (p *CEEI) solve(sv Solver, m *Market) (ceeiAnswer, error) {
	sol, cert, err := sv.CEEI(m)
	if errors.Is(err, ErrNoEquilibrium) {
		sol, err = sv.Solve(m)
		return ceeiAnswer{sol: sol, fallback: true}, err
	}
	return ceeiAnswer{sol: sol, cert: cert}, err
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
