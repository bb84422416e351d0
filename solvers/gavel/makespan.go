package gavel

import (
	"math"
	"strconv"

	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/lp"
)

// Registered name and summary.
const (
	MakespanName    = "gavel-makespan"
	MakespanSummary = "Gavel minimum makespan: the smallest T by which every active job can finish at its allocated throughput, one LP"
)

// Makespan is Gavel's makespan policy (Narayanan et al., OSDI 2020,
// "Minimize Makespan"; artifact scheduler/policies/min_total_duration.py,
// MinTotalDurationPolicy): the smallest T such that some allocation x
// satisfying the shared constraints (model) has
//
//	Σ_g T[j][g]·x[j][g] ≥ R_j / T          for every job j with R_j > 0 steps left.
//
// Gavel bisects on T (from [100 s, 10^6 s], widening tenfold until
// feasible, stopping when the bracket is within 5%) and returns the last
// feasible allocation. The condition is linear in s = R̄/T, with R̄ the
// largest R_j (a scale that keeps the coefficients near 1), so the smallest
// feasible T is found exactly by one LP:
//
//	maximise   s
//	subject to Σ_g T[j][g]·x[j][g] − (R_j/R̄)·s ≥ 0      for every job j with R_j > 0
//	           the shared constraints
//
// and T* = R̄ / s*. Objective reports T* in seconds. Weights do not enter
// (nor do they in Gavel).
type Makespan struct{ base }

// NewMakespan builds gavel-makespan from Options.
func NewMakespan(c solvers.Config) (solvers.Policy, error) {
	o := defaultOptions()
	if err := decode(MakespanName, c, &o); err != nil {
		return nil, err
	}
	b, err := o.validate(MakespanName)
	if err != nil {
		return nil, err
	}
	return &Makespan{base{name: MakespanName, opt: o, backend: b}}, nil
}

// Allocate solves the LP above.
func (p *Makespan) Allocate(s *models.Snapshot) (models.Allocation, error) {
	p.objective = 0
	if len(s.Jobs) == 0 {
		return models.Allocation{}, nil
	}
	in, err := newInstance(p.name, s)
	if err != nil {
		return models.Allocation{}, err
	}
	rbar := 0.0
	for i := range s.Jobs {
		rbar = math.Max(rbar, s.Jobs[i].Remaining())
	}
	if rbar == 0 {
		return models.Allocation{}, nil
	}
	classes := group(in.n(), p.opt.Aggregate, func(i int) keyer {
		return keyer(nil).num(float64(in.gang(i))).nums(in.tput[i]).num(s.Jobs[i].Remaining())
	})
	m := newModel(in, classes, lp.Maximize)
	sv := m.variable("s", 0, math.Inf(1), 1)
	for c, cl := range classes {
		if r := s.Jobs[cl.rep()].Remaining(); r > 0 {
			row := m.throughputRow("finish["+strconv.Itoa(c)+"]", c, in.tput[cl.rep()], 0, math.Inf(1))
			m.add(row, sv, -r/rbar)
		}
	}
	res, err := p.opt.solver(p.name, p.backend).solve(&m.p, "makespan")
	if err != nil {
		return models.Allocation{}, err
	}
	p.objective = rbar / res.X[sv]
	return models.Allocation{Fractions: m.fractions(m.clean(res.X))}, nil
}
