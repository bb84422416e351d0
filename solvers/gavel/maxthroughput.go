package gavel

import (
	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/lp"
)

// Registered name and summary.
const (
	MaxThroughputName    = "gavel-max-throughput"
	MaxThroughputSummary = "Gavel maximum total throughput: maximise Σ_j Σ_g T[j][g]·x[j][g] (steps/s), one LP"
)

// MaxThroughput is Gavel's throughput-maximising policy (Narayanan et al.,
// OSDI 2020, without instance costs or SLOs; docs/algorithms/gavel.md):
//
//	maximise   Σ_j Σ_g T[j][g]·x[j][g]
//	subject to the shared constraints (model)
//
// in raw steps per second, as Gavel's code has it: it computes a per-job
// scale 1 / Σ_g T[j][g] but leaves it out of the objective, so jobs with
// many cheap steps count for more. Weights do not enter. Objective reports
// the optimal total in steps per second. The optimum is often not unique
// (jobs of equal throughput can trade types): the allocation is the central
// one (lp.Interior on Gavel's LP; solution vertex gives a vertex). Jobs the
// optimum leaves at x = 0 wait until capacity frees up, or fill GPUs no
// share claims.
type MaxThroughput struct{ base }

// NewMaxThroughput builds gavel-max-throughput from Options.
func NewMaxThroughput(c solvers.Config) (solvers.Policy, error) {
	o := defaultOptions()
	b, err := newBase(MaxThroughputName, c, &o, false)
	if err != nil {
		return nil, err
	}
	return &MaxThroughput{b}, nil
}

// Allocate solves the LP above.
func (p *MaxThroughput) Allocate(s *models.Snapshot) (models.Allocation, error) {
	in, err := p.open(s)
	if in == nil {
		return models.Allocation{}, err
	}
	classes := group(in.n(), p.opt.Aggregate, func(k keyer, i int) keyer {
		return k.num(float64(in.gang(i))).nums(in.tput[i])
	})
	m := newModel(in, classes, lp.Maximize, p.opt.Solution == SolutionCentral)
	for c, cl := range classes {
		for g, v := range m.x[c] {
			if v >= 0 {
				m.p.Vars[v].Obj = cl.size() * in.tput[cl.rep()][g]
			}
		}
	}
	res, err := p.solver().solveModel(m, "max-throughput")
	if err != nil {
		return models.Allocation{}, err
	}
	p.objective = res.Objective
	return models.Allocation{Fractions: m.fractions(m.clean(res.X))}, nil
}
