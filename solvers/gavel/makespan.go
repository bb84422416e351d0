package gavel

import (
	"fmt"
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
// "Minimize Makespan"; docs/algorithms/gavel.md): the smallest T such that
// some allocation x satisfying the shared constraints (model) has
//
//	Σ_g T[j][g]·x[j][g] ≥ R_j / T          for every job j with R_j > 0 steps left.
//
// The condition is linear in s = R̄/T, with R̄ the largest R_j (a scale that
// keeps the coefficients near 1), so the smallest feasible T is found
// exactly by one LP:
//
//	maximise   s
//	subject to Σ_g T[j][g]·x[j][g] − (R_j/R̄)·s ≥ 0      for every job j with R_j > 0
//	           the shared constraints
//
// and T* = R̄ / s*. Objective reports T* in seconds. Weights do not enter
// (nor do they in Gavel).
//
// Which allocation: Gavel bisects on T (from [100 s, 10^6 s], widening
// tenfold until feasible, stopping when the bracket is within 5%) and
// returns what its solver gives for the feasibility problem at the last
// feasible T tried, which lies up to 5% above T* (up to 10.25% just below a
// power of ten, see gavelBisection): a point inside the set of allocations
// that finish every job by that T, not an optimum of anything.
// With the target option bisection (the default) the policy replays that
// bisection on T* (a T is feasible exactly when T ≥ T*) and returns the
// central solution (lp.Interior) of the same feasibility problem, Gavel's
// allocation; with target optimum it returns the central solution at T*
// itself. With solution vertex it returns the vertex of the LP above.
type Makespan struct {
	base
	target string
}

// Targets accepted by gavel-makespan's target option.
const (
	TargetBisection = "bisection"
	TargetOptimum   = "optimum"
)

// MakespanOptions are gavel-makespan's: Options plus
//
//	target: bisection | optimum   the makespan the central allocation
//	                              finishes by (default bisection, Gavel's)
type MakespanOptions struct {
	Options `mapstructure:",squash"`
	Target  string `mapstructure:"target"`
}

func (o *MakespanOptions) common() *Options { return &o.Options }

func (o MakespanOptions) validate(name string) (lp.Solver, error) {
	if o.Target != TargetBisection && o.Target != TargetOptimum {
		return nil, fmt.Errorf("%s: options: target must be %q or %q, got %q", name, TargetBisection, TargetOptimum, o.Target)
	}
	return o.Options.validate(name)
}

// NewMakespan builds gavel-makespan from MakespanOptions.
func NewMakespan(c solvers.Config) (solvers.Policy, error) {
	o := MakespanOptions{Options: defaultOptions(), Target: TargetBisection}
	b, err := newBase(MakespanName, c, &o, false)
	if err != nil {
		return nil, err
	}
	return &Makespan{base: b, target: o.Target}, nil
}

// Allocate solves the LP above, then, for a central solution, the
// feasibility problem at the target makespan.
func (p *Makespan) Allocate(s *models.Snapshot) (models.Allocation, error) {
	in, err := p.open(s)
	if in == nil {
		return models.Allocation{}, err
	}
	rbar := 0.0
	for i := range s.Jobs {
		rbar = math.Max(rbar, s.Jobs[i].Remaining())
	}
	if rbar == 0 {
		return models.Allocation{}, nil
	}
	classes := group(in.n(), p.opt.Aggregate, func(k keyer, i int) keyer {
		return k.num(float64(in.gang(i))).nums(in.tput[i]).num(s.Jobs[i].Remaining())
	})
	m := newModel(in, classes, lp.Maximize, false)
	sv := m.variable("s", 0, math.Inf(1), 1)
	for c, cl := range classes {
		if r := s.Jobs[cl.rep()].Remaining(); r > 0 {
			row := m.throughputRow("finish["+strconv.Itoa(c)+"]", c, in.tput[cl.rep()], 0, math.Inf(1))
			m.add(row, sv, -r/rbar)
		}
	}
	run := p.solver()
	res, err := run.solve(&m.p, "makespan")
	if err != nil {
		return models.Allocation{}, err
	}
	best := rbar / res.X[sv]
	p.objective = best
	if p.opt.Solution == SolutionVertex {
		return models.Allocation{Fractions: m.fractions(m.clean(res.X))}, nil
	}
	target := best
	if p.target == TargetBisection {
		target = gavelBisection(best)
	}
	// Gavel's feasibility problem at the target: no objective, and every job
	// with steps left finishing by then.
	f := newModel(in, classes, lp.Maximize, true)
	for c, cl := range classes {
		if r := s.Jobs[cl.rep()].Remaining(); r > 0 {
			f.throughputRow("finish["+strconv.Itoa(c)+"]", c, in.tput[cl.rep()], r/target, math.Inf(1))
		}
	}
	fr, err := run.solveModel(f, "makespan feasibility")
	if err != nil {
		return models.Allocation{}, err
	}
	return models.Allocation{Fractions: f.fractions(f.clean(fr.X))}, nil
}

// gavelBisection is the makespan at which Gavel's bisection stops when the
// smallest feasible makespan is best: it starts from [100 s, 10^6 s],
// halves the bracket until its ends are within 5% (a midpoint T ≥ best is
// feasible and becomes the upper end, else the lower), and, when no
// midpoint was feasible, moves to the next decade up, [10^6, 10^7] and so
// on. The answer is the last feasible midpoint: best ≤ it ≤ 1.05·best, or
// ≤ 1.05·10^k when best lies within 5% below a power of ten 10^k (the
// bracket below closed short of it), or close to 100 s when best is below
// that. After 60 decades (best above 10^66 s) it gives up and returns best.
func gavelBisection(best float64) float64 {
	lo, hi, top := 100.0, 1e6, 1e6
	for range 60 {
		found := math.NaN()
		for 1.05*lo < hi {
			t := (lo + hi) / 2
			if t >= best {
				found, hi = t, t
			} else {
				lo = t
			}
		}
		if !math.IsNaN(found) {
			return found
		}
		lo, hi, top = top, top*10, top*10
	}
	return best
}
