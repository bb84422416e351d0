package nash

import (
	"errors"
	"fmt"
	"math"
	"time"

	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/lp"
)

// Registered names and summaries.
const (
	Name      = "nash"
	Summary   = "Nash social welfare over users (Eisenberg–Gale; CEEI for linear markets): maximise Σ_u w_u·log U_u over time fractions, solved exactly with a certificate"
	PAName    = "nash-pa"
	PASummary = "Cole–Gkatzelis–Goel partial allocation over users: the Nash-welfare allocation, each user keeping the fraction its presence costs the others; strategy-proof"
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
	}
	if exact {
		st.Exact++
	}
}

// Nash is the nash policy: the Eisenberg–Gale allocation of UserMarket.
type Nash struct {
	opt     Options
	backend lp.Solver
	stats   Stats
	last    *Solution
}

// New builds nash from Options.
func New(c solvers.Config) (solvers.Policy, error) {
	o, b, err := Decode(Name, c)
	if err != nil {
		return nil, err
	}
	return &Nash{opt: o, backend: b}, nil
}

// Name is the registered name.
func (p *Nash) Name() string { return Name }

// Triggers is models.AtRound: the allocation is recomputed every round,
// as Gavel's LP policies are.
func (p *Nash) Triggers() models.Trigger { return models.AtRound }

// Report returns the run's Stats.
func (p *Nash) Report() any { return p.stats }

// Last is the solution of the last decision (nil before the first and
// after one with no active job), with its certificate.
func (p *Nash) Last() *Solution { return p.last }

// Allocate solves the Eisenberg–Gale program of s.
func (p *Nash) Allocate(s *models.Snapshot) (models.Allocation, error) {
	p.last = nil
	if len(s.Jobs) == 0 {
		return models.Allocation{}, nil
	}
	b, err := UserMarket(s, p.opt.Aggregate)
	if err != nil {
		return models.Allocation{}, fmt.Errorf("%s: %w", Name, err)
	}
	sol, err := p.opt.Solver(p.backend).Solve(b.Market)
	if err != nil {
		return models.Allocation{}, fmt.Errorf("%s: %w", Name, err)
	}
	p.last = sol
	p.stats.Add(sol)
	return models.Allocation{Fractions: b.Fractions(s, sol.X, nil)}, nil
}

// PA is the nash-pa policy: Nash's allocation with every user's shares
// scaled by its partial-allocation fraction (Solver.Discounts).
type PA struct {
	opt     Options
	backend lp.Solver
	stats   Stats
	last    []float64
}

// NewPA builds nash-pa from Options.
func NewPA(c solvers.Config) (solvers.Policy, error) {
	o, b, err := Decode(PAName, c)
	if err != nil {
		return nil, err
	}
	return &PA{opt: o, backend: b}, nil
}

// Name is the registered name.
func (p *PA) Name() string { return PAName }

// Triggers is models.AtRound.
func (p *PA) Triggers() models.Trigger { return models.AtRound }

// Report returns the run's Stats.
func (p *PA) Report() any { return p.stats }

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
	b, err := UserMarket(s, p.opt.Aggregate)
	if err != nil {
		return models.Allocation{}, fmt.Errorf("%s: %w", PAName, err)
	}
	sv := p.opt.Solver(p.backend)
	sol, err := sv.Solve(b.Market)
	if err != nil {
		return models.Allocation{}, fmt.Errorf("%s: %w", PAName, err)
	}
	f, others, err := sv.Discounts(b.Market, sol)
	if err != nil {
		return models.Allocation{}, fmt.Errorf("%s: %w", PAName, err)
	}
	p.last = f
	all := []*Solution{sol}
	for _, o := range others {
		if o != nil {
			all = append(all, o)
		}
	}
	p.stats.Add(all...)
	scale := make([]float64, len(b.Market.Classes))
	for c, cl := range b.Market.Classes {
		scale[c] = f[cl.Buyer]
	}
	return models.Allocation{Fractions: b.Fractions(s, sol.X, scale), Capped: p.opt.Capped}, nil
}

var (
	_ solvers.Policy    = (*Nash)(nil)
	_ solvers.Triggered = (*Nash)(nil)
	_ solvers.Reporter  = (*Nash)(nil)
	_ solvers.Policy    = (*PA)(nil)
	_ solvers.Reporter  = (*PA)(nil)
)

// Claims are what the checker verifies for nash and nash-pa (see the
// package comment and docs/algorithms/nash.md for the proofs and the
// conditions).
var (
	// Claims: the Eisenberg–Gale optimum is Pareto efficient in the
	// time-sharing model, unconditionally.
	Claims = []string{"pareto-efficient"}
	// PAClaims: partial allocation is strategy-proof (Cole, Gkatzelis,
	// Goel, EC 2013) for utilities linear in the time fractions.
	PAClaims = []string{"strategy-proof"}
)

// CEEIName and CEEISummary name the ceei policy.
const (
	CEEIName    = "ceei"
	CEEISummary = "competitive equilibrium from incomes = user weights, with each job's time cap (a Hylland–Zeckhauser-type market): envy-free, sharing incentive and Pareto efficient, computed by continuation from the Nash-welfare optimum with a certificate"
)

// CEEIClaims: a verified equilibrium is envy-free and gives sharing
// incentive (each compared bundle is affordable) and is Pareto efficient
// (first welfare theorem), in the time-sharing model.
var CEEIClaims = []string{"sharing-incentive", "envy-free", "pareto-efficient"}

// CEEI is the ceei policy: Solver.CEEI on UserMarket.
type CEEI struct {
	opt     Options
	backend lp.Solver
	stats   Stats
	last    *CECertificate
}

// NewCEEI builds ceei from Options.
func NewCEEI(c solvers.Config) (solvers.Policy, error) {
	o, b, err := Decode(CEEIName, c)
	if err != nil {
		return nil, err
	}
	return &CEEI{opt: o, backend: b}, nil
}

// Name is the registered name.
func (p *CEEI) Name() string { return CEEIName }

// Triggers is models.AtRound.
func (p *CEEI) Triggers() models.Trigger { return models.AtRound }

// Report returns the run's Stats (Exact counts decisions whose
// equilibrium was verified at 1e-9; MaxGap stays 0: the CE certificate has
// no duality gap).
func (p *CEEI) Report() any { return p.stats }

// Certificate is the last decision's equilibrium certificate (nil after a
// fallback).
func (p *CEEI) Certificate() *CECertificate { return p.last }

// Allocate computes the equilibrium of s's user market.
func (p *CEEI) Allocate(s *models.Snapshot) (models.Allocation, error) {
	p.last = nil
	if len(s.Jobs) == 0 {
		return models.Allocation{}, nil
	}
	b, err := UserMarket(s, p.opt.Aggregate)
	if err != nil {
		return models.Allocation{}, fmt.Errorf("%s: %w", CEEIName, err)
	}
	sv := p.opt.Solver(p.backend)
	sol, cert, err := sv.CEEI(b.Market)
	if errors.Is(err, ErrNoEquilibrium) {
		// No verified equilibrium: answer with the Nash-welfare optimum
		// (Pareto efficient), counted, rather than fail the decision.
		if sol, err = sv.Solve(b.Market); err == nil {
			p.stats.Fallbacks++
		}
	}
	if err != nil {
		return models.Allocation{}, fmt.Errorf("%s: %w", CEEIName, err)
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
	_ solvers.Policy   = (*CEEI)(nil)
	_ solvers.Reporter = (*CEEI)(nil)
)
