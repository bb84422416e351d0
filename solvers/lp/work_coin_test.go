//go:build cgo && !nocoin

package lp

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

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
