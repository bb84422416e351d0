package lp

import (
	"fmt"
	"math"
	"runtime/debug"
	"time"

	"fairbench/solvers/lp/internal/simplex"
)

// Pure is the pure-Go backend: gonum's simplex for LPs and a depth-first
// branch and bound for MIPs. It provides no duals. The zero value is ready.
type Pure struct{}

var _ Solver = Pure{}

const pureName = "pure-go"

// Name returns "pure-go".
func (Pure) Name() string { return pureName }

// pureBackend describes the pure-Go backend with gonum's module version.
func pureBackend() string {
	v := "gonum"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "gonum.org/v1/gonum" {
				if d.Replace != nil {
					d = d.Replace
				}
				v += " " + d.Version
			}
		}
	}
	return v + " simplex + branch and bound (pure Go)"
}

// Solve solves p: an LP with one simplex run, a MIP by branch and bound.
func (Pure) Solve(p *Problem, o Options) (Result, error) {
	if err := p.Validate(); err != nil {
		return outcome(pureName, p, Error, nil, nil, err)
	}
	if len(p.Vars) == 0 {
		return trivial(pureName, p)
	}
	n := len(p.Vars)
	rows := p.mergedRows()
	c := make([]float64, n)
	lo := make([]float64, n)
	hi := make([]float64, n)
	for j, v := range p.Vars {
		c[j] = p.Sense.sign() * v.Obj
		lo[j], hi[j] = v.Lower, v.Upper
	}
	if !p.HasInteger() {
		r := solveRelaxation(rows, p, c, lo, hi, simplexLimit(p, deadlineOf(o)))
		if r.status == Optimal {
			if err := checkFeasible(p, rows, r.x); err != nil {
				return outcome(pureName, p, Error, nil, nil, err)
			}
		}
		return outcome(pureName, p, r.status, r.x, nil, r.err)
	}
	return branchAndBound(p, rows, c, lo, hi, o)
}

// deadlineOf is when o's time limit runs out; zero for none.
func deadlineOf(o Options) time.Time {
	if o.TimeLimit > 0 {
		return time.Now().Add(o.TimeLimit)
	}
	return time.Time{}
}

// simplexIterations bounds one simplex solve of p: gonum's Dantzig rule
// needs a small multiple of the rows and columns on the policies' LPs, so
// this many iterations mean cycling (gonum's Simplex has no limit of its
// own; see internal/simplex).
func simplexIterations(p *Problem) int { return 1000 + 50*(len(p.Vars)+len(p.Rows)) }

// simplexLimit is the limit of one simplex solve of p: simplexIterations,
// and the deadline when there is one.
func simplexLimit(p *Problem, deadline time.Time) *simplex.Limit {
	lim := &simplex.Limit{Iterations: simplexIterations(p)}
	if !deadline.IsZero() {
		lim.Stop = func() bool { return !time.Now().Before(deadline) }
	}
	return lim
}

// node is one subproblem of the branch and bound: the variable bounds.
type node struct {
	lo, hi []float64
}

// branchAndBound solves the MIP depth first: each node's LP relaxation is
// solved; it is pruned when infeasible or not better than the incumbent;
// otherwise it branches on the most fractional integer variable x_j = v into
// x_j ≤ ⌊v⌋ and x_j ≥ ⌈v⌉, exploring the nearer rounding first. An
// unbounded root relaxation makes the MIP Unbounded (as CBC reports it).
func branchAndBound(p *Problem, rows [][]Term, c, lo, hi []float64, o Options) (Result, error) {
	deadline := deadlineOf(o)
	for j, v := range p.Vars {
		if v.Integer {
			lo[j] = math.Ceil(lo[j] - IntegralityTolerance)
			hi[j] = math.Floor(hi[j] + IntegralityTolerance)
		}
	}
	stack := []node{{lo, hi}}
	var best []float64
	bestObj := math.Inf(1)
	nodes := 0
	for len(stack) > 0 {
		if (o.NodeLimit > 0 && nodes >= o.NodeLimit) || (!deadline.IsZero() && !time.Now().Before(deadline)) {
			return outcome(pureName, p, LimitReached, best, nil, nil)
		}
		nd := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		nodes++
		r := solveRelaxation(rows, p, c, nd.lo, nd.hi, simplexLimit(p, deadline))
		switch r.status {
		case Infeasible:
			continue
		case Unbounded:
			// Subproblems of a bounded relaxation are bounded, so this is
			// the root (or numerical trouble below it).
			return outcome(pureName, p, Unbounded, nil, nil, nil)
		case Error:
			return outcome(pureName, p, Error, nil, nil, fmt.Errorf("branch and bound node %d: %w", nodes, r.err))
		case LimitReached:
			return outcome(pureName, p, LimitReached, best, nil, nil)
		}
		if best != nil && r.obj >= bestObj-1e-9*math.Max(1, math.Abs(bestObj)) {
			continue
		}
		j, frac := -1, IntegralityTolerance
		for k, v := range p.Vars {
			if !v.Integer {
				continue
			}
			f := r.x[k] - math.Floor(r.x[k])
			if d := math.Min(f, 1-f); d > frac {
				j, frac = k, d
			}
		}
		if j < 0 {
			if err := checkFeasible(p, rows, r.x); err != nil {
				return outcome(pureName, p, Error, nil, nil, err)
			}
			best, bestObj = r.x, r.obj
			continue
		}
		v := r.x[j]
		down := node{nd.lo, append([]float64(nil), nd.hi...)}
		down.hi[j] = math.Floor(v)
		up := node{append([]float64(nil), nd.lo...), nd.hi}
		up.lo[j] = math.Ceil(v)
		if v-math.Floor(v) < 0.5 {
			stack = append(stack, up, down)
		} else {
			stack = append(stack, down, up)
		}
	}
	if best == nil {
		return outcome(pureName, p, Infeasible, nil, nil, nil)
	}
	return outcome(pureName, p, Optimal, best, nil, nil)
}

// checkFeasible verifies x against the bounds and rows of p within
// FeasibilityTolerance, so that numerical failures of the simplex surface as
// errors rather than as wrong answers.
func checkFeasible(p *Problem, rows [][]Term, x []float64) error {
	for j, v := range p.Vars {
		if x[j] < v.Lower-FeasibilityTolerance*(1+math.Abs(v.Lower)) || x[j] > v.Upper+FeasibilityTolerance*(1+math.Abs(v.Upper)) {
			return fmt.Errorf("numerical failure: var %d %q = %g outside [%g, %g]", j, v.Name, x[j], v.Lower, v.Upper)
		}
	}
	for i, r := range rows {
		a, scale := 0.0, 1.0
		for _, t := range r {
			a += t.Coef * x[t.Var]
			scale = math.Max(scale, math.Abs(t.Coef*x[t.Var]))
		}
		L, U := p.Rows[i].Lower, p.Rows[i].Upper
		if a < L-FeasibilityTolerance*math.Max(scale, math.Abs(L)) || a > U+FeasibilityTolerance*math.Max(scale, math.Abs(U)) {
			return fmt.Errorf("numerical failure: row %d %q = %g outside [%g, %g]", i, p.Rows[i].Name, a, L, U)
		}
	}
	return nil
}
