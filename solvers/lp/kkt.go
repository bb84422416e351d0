package lp

import (
	"fmt"
	"math"
)

// kktTolerance is the relative tolerance of optimalityViolation.
const kktTolerance = 1e-6

// optimalityViolation checks a claimed optimum x of the LP relaxation of p,
// with variable bounds lo, hi (which may be tighter than p's) and row duals y
// (minimisation form: y_i = ∂(sign·objective)/∂b_i, one per row of p), against the Karush–Kuhn–Tucker conditions, and describes the
// first violation, or returns "". With c = sign·Obj and reduced costs
// d = c − Aᵀy:
//
//   - primal feasibility: l ≤ x ≤ u and L ≤ Ax ≤ U;
//   - dual feasibility and complementary slackness: y_i > 0 only where row i
//     sits at a finite L_i, y_i < 0 only at a finite U_i; d_j > 0 only where
//     x_j sits at a finite l_j, d_j < 0 only at a finite u_j.
//
// A multiplier counts when it exceeds kktTolerance·(1 + max_j |c_j|); a
// value sits at a bound within kktTolerance·(1 + |bound| + magnitude of
// its terms). The Coin backend uses this to catch wrong optima. d, of one
// entry per variable, is overwritten with the reduced costs.
func optimalityViolation(p *Problem, rows [][]Term, lo, hi, x, y, d []float64) string {
	sign := p.Sense.sign()
	cmax := 0.0
	for j, v := range p.Vars {
		d[j] = sign * v.Obj
		cmax = max(cmax, math.Abs(v.Obj))
	}
	sig := kktTolerance * (1 + cmax)
	near := func(v, bound, mag float64) bool {
		return !math.IsInf(bound, 0) && math.Abs(v-bound) <= kktTolerance*(1+math.Abs(bound)+mag)
	}
	for i, r := range rows {
		act, mag := 0.0, 0.0
		for _, t := range r {
			act += t.Coef * x[t.Var]
			mag = max(mag, math.Abs(t.Coef*x[t.Var]))
			d[t.Var] -= t.Coef * y[i]
		}
		L, U := p.Rows[i].Lower, p.Rows[i].Upper
		switch {
		case (act < L && !near(act, L, mag)) || (act > U && !near(act, U, mag)):
			return fmt.Sprintf("row %d activity %g outside [%g, %g]", i, act, L, U)
		case y[i] > sig && !near(act, L, mag):
			return fmt.Sprintf("row %d has dual %g but activity %g is not at its lower bound %g", i, y[i], act, L)
		case y[i] < -sig && !near(act, U, mag):
			return fmt.Sprintf("row %d has dual %g but activity %g is not at its upper bound %g", i, y[i], act, U)
		}
	}
	for j := range p.Vars {
		switch {
		case (x[j] < lo[j] && !near(x[j], lo[j], 0)) || (x[j] > hi[j] && !near(x[j], hi[j], 0)):
			return fmt.Sprintf("var %d = %g outside [%g, %g]", j, x[j], lo[j], hi[j])
		case d[j] > sig && !near(x[j], lo[j], 0):
			return fmt.Sprintf("var %d has reduced cost %g but %g is not at its lower bound %g", j, d[j], x[j], lo[j])
		case d[j] < -sig && !near(x[j], hi[j], 0):
			return fmt.Sprintf("var %d has reduced cost %g but %g is not at its upper bound %g", j, d[j], x[j], hi[j])
		}
	}
	return ""
}
