// Package gavelsp is Gavel's strategy-proof max-min fairness policy
// (Narayanan et al., OSDI 2020; artifact
// scheduler/policies/max_min_fairness_strategy_proof.py,
// MaxMinFairnessStrategyProofPolicyWithPerf), registered as
// gavel-strategy-proof. docs/algorithms/gavel-strategy-proof.md states it
// with the proof of its claim and its conditions.
//
// Every active job is an agent. The policy maximises the geometric mean of
// the jobs' throughputs over Gavel's time fractions,
//
//	maximise   Π_j (Σ_g T[j][g]·x[j][g])^{1/n}
//	subject to Σ_g x[j][g] ≤ 1,  Σ_j d_j·x[j][g] ≤ N_g,  x ≥ 0,
//
// solves it again without each job j, and gives job j the fraction
//
//	f_j = Π_{k≠j} T_k(x*) / T_k(x*_{−j})
//
// of its optimal shares (Cole, Gkatzelis and Goel's partial allocation,
// EC 2013), clipped to [0, 1]. Gavel multiplies each job's throughput by
// its scale factor (gang) and divides it by its priority weight and its
// proportional throughput before taking the geometric mean; a positive
// factor per job changes neither the maximiser of a product nor the ratios
// in f_j, so those weights have no effect on Gavel's allocation, and they
// are left out here (jobs are unweighted agents, as in Gavel's result).
//
// The program is nash.Solver's Eisenberg–Gale program over nash.JobMarket
// (identical jobs pooled as one buyer standing for that many agents, which
// changes neither the optimum nor the discounts), solved exactly with
// cutting planes on CLP and a certified polish; the partial allocation is
// nash.Solver.Discounts. Options are nash.Options (backend, time_limit,
// aggregate, capped); capped defaults to false here, as in Gavel, whose
// round mechanism lets jobs use GPUs the allocation leaves idle (set capped:
// true to keep the withheld shares idle, as the mechanism's guarantee
// assumes).
package gavelsp

import (
	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/lp"
	"fairbench/solvers/nash"
)

// Registered name and summary (the claims are in solvers/registry,
// claims.go).
const (
	Name    = "gavel-strategy-proof"
	Summary = "Gavel's strategy-proof max-min fairness: Nash welfare over jobs with Cole–Gkatzelis–Goel partial-allocation discounts from leave-one-out re-solves"
)

// Policy is gavel-strategy-proof.
type Policy struct {
	opt     nash.Options
	backend lp.Solver
	partial nash.Partial
	stats   nash.Stats
	last    map[models.JobID]float64
}

// New builds the policy from nash.Options (capped defaulting to false).
func New(c solvers.Config) (solvers.Policy, error) {
	def := nash.DefaultOptions()
	def.Capped = false
	o, b, err := nash.DecodeOver(Name, c, def)
	if err != nil {
		return nil, err
	}
	return &Policy{opt: o, backend: b}, nil
}

// Name is the registered name.
func (p *Policy) Name() string { return Name }

// Triggers is models.AtRound, as for Gavel's other policies.
func (p *Policy) Triggers() models.Trigger { return models.AtRound }

// Report returns the run's nash.Stats.
func (p *Policy) Report() any { st := p.stats; return &st }

// Discounts are the last decision's f_j by job.
func (p *Policy) Discounts() map[models.JobID]float64 { return p.last }

// Allocate solves the geometric-mean program and its leave-one-out
// variants (nash.Partial.Decide: the decision before's answer when the
// market is the same), and returns the discounted shares.
func (p *Policy) Allocate(s *models.Snapshot) (models.Allocation, error) {
	p.last = nil
	if len(s.Jobs) == 0 {
		return models.Allocation{}, nil
	}
	b, err := nash.JobMarket(s, p.opt.Aggregate)
	if err != nil {
		return models.Allocation{}, p.opt.Wrap(Name, err)
	}
	if len(b.Market.Classes) == 0 { // no job can run anywhere
		return models.Allocation{}, nil
	}
	sol, f, err := p.partial.Decide(p.opt.Solver(p.backend), b.Market, &p.stats)
	if err != nil {
		return models.Allocation{}, p.opt.Wrap(Name, err)
	}
	p.last = map[models.JobID]float64{}
	scale := make([]float64, len(b.Market.Classes))
	for c, cl := range b.Market.Classes {
		scale[c] = f[cl.Buyer]
		for _, i := range b.Jobs[c] {
			p.last[s.Jobs[i].ID] = f[cl.Buyer]
		}
	}
	return models.Allocation{Fractions: b.Fractions(s, sol.X, scale), Capped: p.opt.Capped}, nil
}

var (
	_ solvers.Policy    = (*Policy)(nil)
	_ solvers.Triggered = (*Policy)(nil)
	_ solvers.Reporter  = (*Policy)(nil)
)
