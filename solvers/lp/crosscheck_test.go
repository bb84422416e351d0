//go:build cgo && !nocoin

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

// Differential tests: Coin (CLP/CBC) and Pure (gonum + branch and bound)
// must reach the same optimal objective on random feasible bounded problems,
// and CLP's duals must close the duality gap.

// dualGap checks strong duality for CLP's duals of an optimal LP. In
// minimisation form (y = sign·Duals, c = sign·Obj) the dual objective is
//
//	Σ_i (y_i > 0 ? y_i·L_i : y_i·U_i) + Σ_j (d_j > 0 ? d_j·l_j : d_j·u_j),
//	d = c − Aᵀy (reduced costs),
//
// which must equal cᵀx; a non-zero multiplier on an infinite bound is dual
// infeasible.
func dualGap(p *Problem, res Result) string {
	const tol = 1e-7
	sign := p.Sense.sign()
	rows := p.mergedRows()
	d := make([]float64, len(p.Vars))
	for j, v := range p.Vars {
		d[j] = sign * v.Obj
	}
	dual := 0.0
	for i, r := range rows {
		y := sign * res.Duals[i]
		for _, t := range r {
			d[t.Var] -= t.Coef * y
		}
		switch {
		case y > tol:
			if math.IsInf(p.Rows[i].Lower, -1) {
				return fmt.Sprintf("row %d: dual %v on an infinite lower bound", i, res.Duals[i])
			}
			dual += y * p.Rows[i].Lower
		case y < -tol:
			if math.IsInf(p.Rows[i].Upper, 1) {
				return fmt.Sprintf("row %d: dual %v on an infinite upper bound", i, res.Duals[i])
			}
			dual += y * p.Rows[i].Upper
		}
	}
	for j, v := range p.Vars {
		switch {
		case d[j] > tol:
			dual += d[j] * v.Lower
		case d[j] < -tol:
			dual += d[j] * v.Upper
		}
	}
	primal := sign * res.Objective
	if math.Abs(dual-primal) > 1e-6*math.Max(1, math.Abs(primal)) {
		return fmt.Sprintf("dual objective %v ≠ primal %v (duals %v)", dual, primal, res.Duals)
	}
	return ""
}

func TestCrossCheckLP(t *testing.T) {
	props := gopter.NewProperties(propParams())
	props.Property("CLP and gonum reach the same optimum; CLP's duals close the gap", prop.ForAll(
		func(seed int64, nv, nr int) string {
			p, x0 := randomProblem(rand.New(rand.NewSource(seed)), genConfig{nv: nv, nr: nr, maxWidth: 7})
			a, why := optimumInvariant(Coin{}, p, x0)
			if why != "" {
				return why
			}
			b, why := optimumInvariant(Pure{}, p, x0)
			if why != "" {
				return why
			}
			if !sameObjective(a.Objective, b.Objective) {
				return fmt.Sprintf("objectives differ: coin-or %v, pure-go %v", a.Objective, b.Objective)
			}
			if len(a.Duals) != len(p.Rows) {
				return fmt.Sprintf("coin-or: %d duals for %d rows", len(a.Duals), len(p.Rows))
			}
			return dualGap(p, a)
		},
		gen.Int64(), gen.IntRange(1, 12), gen.IntRange(0, 10)))
	props.TestingRun(t)
}

func TestCrossCheckMIP(t *testing.T) {
	props := gopter.NewProperties(propParams())
	props.Property("CBC and branch and bound reach the same optimum", prop.ForAll(
		func(seed int64, nv, nr int) string {
			p, x0 := randomProblem(rand.New(rand.NewSource(seed)), genConfig{nv: nv, nr: nr, intFrac: 0.7, maxWidth: 7})
			a, why := optimumInvariant(Coin{}, p, x0)
			if why != "" {
				return why
			}
			b, why := optimumInvariant(Pure{}, p, x0)
			if why != "" {
				return why
			}
			if !sameObjective(a.Objective, b.Objective) {
				return fmt.Sprintf("objectives differ: coin-or %v, pure-go %v", a.Objective, b.Objective)
			}
			return ""
		},
		gen.Int64(), gen.IntRange(1, 8), gen.IntRange(0, 6)))
	props.TestingRun(t)
}
