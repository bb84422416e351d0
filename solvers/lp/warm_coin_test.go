//go:build cgo && !nocoin

package lp

import (
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

// A warm start changes where CLP's simplex starts, not the optimum: a
// sequence of LPs of one shape (random feasible problems whose objective and
// non-zero coefficients are perturbed from one solve to the next, the way
// the water filling's bisection changes one column), each solved cold and
// warm from the basis the previous warm solve left, has the same optimal
// value both ways, a feasible warm answer, and a basis kept after every
// solve.
func TestWarmStartKeepsOptimum(t *testing.T) {
	props := gopter.NewProperties(propParams())
	props.Property("warm and cold solves agree on the optimum", prop.ForAll(
		func(seed int64, nv, nr int) string {
			r := rand.New(rand.NewSource(seed))
			p, _ := randomProblem(r, genConfig{nv: nv, nr: nr, maxWidth: 7})
			warm := &Basis{}
			for step := range 4 {
				if step > 0 {
					perturb(r, p)
				}
				cold, err := Coin{}.Solve(p, Options{})
				if cold.Status != Optimal {
					// The perturbed problem may have lost x0; the optimum
					// invariant is checked where it is known feasible.
					if step == 0 {
						return fmt.Sprintf("cold: status %v (%v)", cold.Status, err)
					}
					warm = &Basis{}
					continue
				}
				hot, err := Coin{}.Solve(p, Options{Warm: warm})
				if hot.Status != Optimal {
					return fmt.Sprintf("step %d: warm: status %v (%v), cold optimal", step, hot.Status, err)
				}
				if why := feasibleWithin(p, hot.X, 1e-6); why != "" {
					return fmt.Sprintf("step %d: warm: %s", step, why)
				}
				if !sameObjective(hot.Objective, cold.Objective) {
					return fmt.Sprintf("step %d: warm optimum %v, cold %v", step, hot.Objective, cold.Objective)
				}
				if warm.status == nil || len(warm.status) != warm.cols+warm.rows || warm.cols != len(p.Vars) {
					return fmt.Sprintf("step %d: no basis kept (%d entries for %d columns, %d rows)", step, len(warm.status), warm.cols, warm.rows)
				}
			}
			return ""
		},
		gen.Int64(), gen.IntRange(1, 10), gen.IntRange(1, 8)))
	props.TestingRun(t)
}

// A basis of another shape is not used: the solve starts cold and the basis
// is replaced by the new problem's.
func TestWarmStartOtherShape(t *testing.T) {
	small := &Problem{Sense: Maximize, Vars: []Var{{Name: "x", Upper: 4, Obj: 1}}}
	warm := &Basis{}
	if res, err := (Coin{}).Solve(small, Options{Warm: warm}); err != nil || res.Objective != 4 {
		t.Fatalf("small: %v, %v; want 4", res.Objective, err)
	}
	if warm.cols != 1 || warm.rows != 0 {
		t.Fatalf("basis of %d columns, %d rows; want 1, 0", warm.cols, warm.rows)
	}
	// max x + y, x + y ≤ 3, x ≤ 2, y ≤ 2: optimum 3.
	big := &Problem{Sense: Maximize,
		Vars: []Var{{Name: "x", Upper: 2, Obj: 1}, {Name: "y", Upper: 2, Obj: 1}},
		Rows: []Row{{Name: "sum", Coefs: []Term{{Var: 0, Coef: 1}, {Var: 1, Coef: 1}}, Lower: math.Inf(-1), Upper: 3}}}
	if res, err := (Coin{}).Solve(big, Options{Warm: warm}); err != nil || !sameObjective(res.Objective, 3) {
		t.Fatalf("big: %v, %v; want 3", res.Objective, err)
	}
	if warm.cols != 2 || warm.rows != 1 || len(warm.status) != 3 {
		t.Fatalf("basis of %d columns, %d rows, %d entries; want 2, 1, 3", warm.cols, warm.rows, len(warm.status))
	}
}

// perturb scales every objective coefficient and row coefficient of p by a
// random factor in [0.8, 1.2], keeping its shape (no coefficient becomes 0).
func perturb(r *rand.Rand, p *Problem) {
	for j := range p.Vars {
		p.Vars[j].Obj *= 0.8 + 0.4*r.Float64()
	}
	for i := range p.Rows {
		for k := range p.Rows[i].Coefs {
			p.Rows[i].Coefs[k].Coef *= 0.8 + 0.4*r.Float64()
		}
	}
}

// The Coin backend's arrays live in Options.Work from one solve to the
// next, and change no answer: a sequence of random problems of changing
// sizes (feasible LPs and MIPs, infeasible and unbounded ones, warm starts
// included) solved through one Work gives, solve for solve, the status,
// solution, duals and basis that fresh memory gives.
func TestCoinWorkChangesNoAnswer(t *testing.T) {
	props := gopter.NewProperties(propParams())
	props.Property("one Work for many solves answers as fresh memory", prop.ForAll(
		func(seed int64) string {
			r := rand.New(rand.NewSource(seed))
			work := &Work{}
			warmA, warmB := &Basis{}, &Basis{}
			for step := range 6 {
				c := genConfig{nv: 1 + r.Intn(10), nr: 1 + r.Intn(8), maxWidth: 7}
				switch r.Intn(4) {
				case 1:
					c.intFrac = 0.5
				case 2:
					c.ray = true
				}
				p, x0 := randomProblem(r, c)
				if r.Intn(4) == 0 {
					makeInfeasible(r, p, x0)
				}
				a, errA := Coin{}.Solve(p, Options{Warm: warmA})
				b, errB := Coin{}.Solve(p, Options{Warm: warmB, Work: work})
				if a.Status != b.Status || fmt.Sprint(errA) != fmt.Sprint(errB) {
					return fmt.Sprintf("step %d: status %v (%v) fresh, %v (%v) with Work", step, a.Status, errA, b.Status, errB)
				}
				if !reflect.DeepEqual(a.X, b.X) || !reflect.DeepEqual(a.Duals, b.Duals) || !sameFloat(a.Objective, b.Objective) {
					return fmt.Sprintf("step %d: answer %v %v fresh, %v %v with Work", step, a.X, a.Duals, b.X, b.Duals)
				}
				if !reflect.DeepEqual(warmA, warmB) {
					return fmt.Sprintf("step %d: basis %v fresh, %v with Work", step, warmA, warmB)
				}
			}
			return ""
		},
		gen.Int64()))
	props.TestingRun(t)
}

// sameFloat reports whether a and b are the same float64, NaN included.
func sameFloat(a, b float64) bool { return a == b || (a != a && b != b) }
