package gavel

import (
	"math"

	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/lp"
)

// Registered names and summaries.
const (
	LASName         = "gavel-las"
	LASSummary      = "Gavel heterogeneity-aware max-min fairness (LAS): maximise the least weighted normalised throughput, one LP per round"
	AgnosticName    = "gavel-las-agnostic"
	AgnosticSummary = "Gavel max-min fairness with every throughput set to 1 (heterogeneity-agnostic baseline)"
)

// LAS is Gavel's max-min fairness policy (Narayanan et al., OSDI 2020,
// "Max-Min Fairness as Least Attained Service"; docs/algorithms/gavel.md),
// heterogeneity-aware, and, as gavel-las-agnostic, with every throughput 1:
//
//	maximise   t
//	subject to Σ_g c[j][g]·x[j][g] ≥ t                          for every job j
//	           c[j][g] = d_j · T[j][g] / (w_j · P_j)
//	           the shared constraints (model)
//
// T[j][g] is the job's throughput at its gang (models.Environment.Throughput),
// d_j its gang (Gavel's scale factor: a job on d GPUs should get 1/d of the
// time of a job on one GPU when their throughputs are equal), w_j its
// priority weight (models.Job.PriorityWeight) and P_j Gavel's proportional
// throughput Σ_g T[j][g]·N_g / max(Σ_g N_g, n) (proportional). With the
// normaliser option equal-share, c[j][g] = T[j][g] / (w_j · E_j) with E_j
// the job's throughput on 1/n of every type (models.Environment.EqualShareThroughput);
// the two coincide, up to a factor common to all jobs (so with the same
// optimal allocations), whenever every job's 1/n share of the cluster is at
// most one gang's worth of GPU time (n·d_j ≥ Σ_g N_g).
//
// The agnostic variant (gavel-las-agnostic) solves the same LP with every
// T[j][g] replaced by 1 where the job can run and 0 where it cannot, P_j
// computed from those ones: it maximises the least d_j·Σ_g x[j][g] / w_j,
// GPU time per unit of weight, whatever the GPUs.
//
// Objective reports t. The allocation's fractions are targets, not caps
// (Allocation.Capped is false): the round mechanism lets jobs use GPUs left
// idle, as Gavel's does.
type LAS struct {
	base
	agnostic   bool
	normaliser string
	models     modelMemory // its LP's memory, from one decision to the next
}

// NewLAS builds gavel-las from MaxMinOptions.
func NewLAS(c solvers.Config) (solvers.Policy, error) { return newLAS(LASName, false, c) }

// NewAgnostic builds gavel-las-agnostic from MaxMinOptions.
func NewAgnostic(c solvers.Config) (solvers.Policy, error) { return newLAS(AgnosticName, true, c) }

func newLAS(name string, agnostic bool, c solvers.Config) (*LAS, error) {
	o := defaultMaxMin()
	b, err := newBase(name, c, &o, agnostic)
	if err != nil {
		return nil, err
	}
	return &LAS{base: b, agnostic: agnostic, normaliser: o.Normaliser}, nil
}

// Allocate solves the LP above for the active jobs of s.
func (p *LAS) Allocate(s *models.Snapshot) (models.Allocation, error) {
	in, err := p.open(s)
	if in == nil {
		return models.Allocation{}, err
	}
	central := p.opt.Solution == SolutionCentral
	if p.agnostic {
		in = in.agnostic(central)
	}
	coef := maxMinCoefs(in, p.normaliser)
	classes := group(in.n(), p.opt.Aggregate, func(k keyer, i int) keyer {
		return k.num(float64(in.gang(i))).nums(coef[i]).bools(in.can[i])
	})
	m := newModelIn(&p.models, in, classes, lp.Maximize, central)
	defer m.keep()
	t, _ := m.maxMin(coef)
	res, err := p.solver().solveModel(m, "max-min")
	if err != nil {
		return models.Allocation{}, err
	}
	p.objective = res.X[t]
	return models.Allocation{Fractions: m.fractions(m.clean(res.X))}, nil
}

// maxMinCoefs are the c[j][g] of LAS for every job.
func maxMinCoefs(in *instance, normaliser string) [][]float64 {
	coef := make([][]float64, in.n())
	for i := range coef {
		f := maxMinFactor(in, normaliser, i)
		coef[i] = make([]float64, len(in.types))
		for g, t := range in.tput[i] {
			coef[i][g] = f * t
		}
	}
	return coef
}

// maxMinFactor is c[j][g] / T[j][g] for job i: d_j / (w_j·P_j), or
// 1 / (w_j·E_j) with the equal-share normaliser.
func maxMinFactor(in *instance, normaliser string, i int) float64 {
	w := in.s.Jobs[i].PriorityWeight()
	if normaliser == NormEqualShare {
		return 1 / (w * in.normaliser(NormEqualShare, i))
	}
	return float64(in.gang(i)) / (w * in.normaliser(NormProportional, i))
}

// maxMin adds the variable t, maximised, and for every class c the row
// Σ_g coef[c's job][g]·x[c][g] − t ≥ 0; it returns t and the rows, in class
// order. t ≥ 0 in a vertex model; free in a central one, as in Gavel's LP
// (where the bound would be a constraint of its own).
func (m *model) maxMin(coef [][]float64) (int, []int) {
	lo := 0.0
	if m.central {
		lo = math.Inf(-1)
	}
	t := m.variable("t", lo, math.Inf(1), 1)
	rows := make([]int, len(m.classes))
	for c, cl := range m.classes {
		rows[c] = m.throughputRow(m.levelName(c), c, coef[cl.rep()], 0, math.Inf(1))
		m.add(rows[c], t, -1)
	}
	return t, rows
}
