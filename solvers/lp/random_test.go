package lp

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

// Invariants on random problems, checked for every backend of the build
// (with cgo: Pure and Coin; without: Pure). The cross-check of Coin against
// Pure is in crosscheck_test.go.

// optimumInvariant checks a solve of a feasible problem p with known
// feasible point x0: Optimal, X feasible, Objective = Obj·X and no worse
// than Obj·x0.
func optimumInvariant(s Solver, p *Problem, x0 []float64) (Result, string) {
	res, err := s.Solve(p, Options{})
	if res.Status != Optimal {
		return res, fmt.Sprintf("%s: status %v (%v)", s.Name(), res.Status, err)
	}
	if why := feasibleWithin(p, res.X, 1e-6); why != "" {
		return res, s.Name() + ": " + why
	}
	if got := p.objectiveOf(res.X); !sameObjective(got, res.Objective) {
		return res, fmt.Sprintf("%s: objective %v but Obj·X = %v", s.Name(), res.Objective, got)
	}
	ref := p.objectiveOf(x0)
	if p.Sense.sign()*(res.Objective-ref) > 1e-6*math.Max(1, math.Abs(ref)) {
		return res, fmt.Sprintf("%s: objective %v worse than the feasible point's %v", s.Name(), res.Objective, ref)
	}
	return res, ""
}

func TestRandomFeasibleLPs(t *testing.T) {
	props := gopter.NewProperties(propParams())
	props.Property("every backend finds a feasible optimum no worse than x0", prop.ForAll(
		func(seed int64, nv, nr int) string {
			p, x0 := randomProblem(rand.New(rand.NewSource(seed)), genConfig{nv: nv, nr: nr, maxWidth: 7})
			for _, s := range backends() {
				if _, why := optimumInvariant(s, p, x0); why != "" {
					return why
				}
			}
			return ""
		},
		gen.Int64(), gen.IntRange(1, 10), gen.IntRange(0, 8)))
	props.TestingRun(t)
}

// bruteForce enumerates every integer point of an all-integer problem with
// small boxes: the optimum objective, or ok = false when none is feasible.
func bruteForce(p *Problem) (best float64, ok bool) {
	n := len(p.Vars)
	x := make([]float64, n)
	var rec func(j int)
	rec = func(j int) {
		if j == n {
			if feasibleWithin(p, x, 1e-9) == "" {
				if o := p.objectiveOf(x); !ok || p.Sense.sign()*(o-best) < 0 {
					best, ok = o, true
				}
			}
			return
		}
		for v := math.Ceil(p.Vars[j].Lower); v <= p.Vars[j].Upper; v++ {
			x[j] = v
			rec(j + 1)
		}
	}
	rec(0)
	return best, ok
}

func TestRandomMIPsAgainstBruteForce(t *testing.T) {
	props := gopter.NewProperties(propParams())
	props.Property("every backend matches enumeration on small integer programs", prop.ForAll(
		func(seed int64, nv, nr int) string {
			p, _ := randomProblem(rand.New(rand.NewSource(seed)), genConfig{nv: nv, nr: nr, intFrac: 1, maxWidth: 3})
			want, feasible := bruteForce(p)
			for _, s := range backends() {
				for _, plain := range []bool{false, true} {
					res, err := s.Solve(p, Options{Plain: plain})
					switch {
					case !feasible && res.Status != Infeasible:
						return fmt.Sprintf("%s (plain %v): status %v (%v), enumeration finds no point", s.Name(), plain, res.Status, err)
					case feasible && res.Status != Optimal:
						return fmt.Sprintf("%s (plain %v): status %v (%v), enumeration finds %v", s.Name(), plain, res.Status, err, want)
					case feasible && !sameObjective(res.Objective, want):
						return fmt.Sprintf("%s (plain %v): objective %v, enumeration finds %v", s.Name(), plain, res.Objective, want)
					}
				}
			}
			return ""
		},
		gen.Int64(), gen.IntRange(1, 5), gen.IntRange(0, 5)))
	props.TestingRun(t)
}

func TestRandomInfeasible(t *testing.T) {
	props := gopter.NewProperties(propParams())
	props.Property("every backend reports Infeasible", prop.ForAll(
		func(seed int64, nv, nr int, mip bool) string {
			r := rand.New(rand.NewSource(seed))
			c := genConfig{nv: nv, nr: nr, maxWidth: 7}
			if mip {
				c.intFrac = 0.7
			}
			p, x0 := randomProblem(r, c)
			makeInfeasible(r, p, x0)
			for _, s := range backends() {
				res, err := s.Solve(p, Options{})
				if res.Status != Infeasible {
					return fmt.Sprintf("%s: status %v (%v)", s.Name(), res.Status, err)
				}
			}
			return ""
		},
		gen.Int64(), gen.IntRange(1, 8), gen.IntRange(0, 6), gen.Bool()))
	props.TestingRun(t)
}

func TestRandomUnbounded(t *testing.T) {
	props := gopter.NewProperties(propParams())
	props.Property("every backend reports Unbounded", prop.ForAll(
		func(seed int64, nv, nr int, mip bool) string {
			c := genConfig{nv: nv, nr: nr, maxWidth: 7, ray: true}
			if mip {
				c.intFrac = 0.7
			}
			p, _ := randomProblem(rand.New(rand.NewSource(seed)), c)
			for _, s := range backends() {
				res, err := s.Solve(p, Options{})
				if res.Status != Unbounded {
					return fmt.Sprintf("%s: status %v (%v)", s.Name(), res.Status, err)
				}
			}
			return ""
		},
		gen.Int64(), gen.IntRange(0, 8), gen.IntRange(0, 6), gen.Bool()))
	props.TestingRun(t)
}
