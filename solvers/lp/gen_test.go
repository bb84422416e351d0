package lp

import (
	"flag"
	"fmt"
	"math"
	"math/rand"

	"github.com/leanovate/gopter"
)

// Random problems for the property tests. Each is built from a seed (and a
// size) that gopter generates, so a failure names the seed that replays it.

var (
	propSeed  = flag.Int64("lp.seed", 1, "gopter seed of the random-problem properties")
	propCases = flag.Int("lp.cases", 200, "cases per random-problem property (raise for a soak test)")
)

// propParams are the gopter parameters of every property here: a fixed
// seed (-lp.seed, default 1) and 200 cases (-lp.cases).
func propParams() *gopter.TestParameters {
	p := gopter.DefaultTestParametersWithSeed(*propSeed)
	p.MinSuccessfulTests = *propCases
	return p
}

// genConfig shapes a random problem.
type genConfig struct {
	nv, nr   int
	intFrac  float64 // probability that a boxed variable is integral
	maxWidth int     // boxes are [lo, lo+w] with w ≤ maxWidth
	ray      bool    // add 1–2 unboxed variables along an improving ray
}

// randomProblem returns a feasible problem and a feasible point x0 of it:
// boxed variables (some fixed, integral ones with integral boxes and x0),
// rows of every kind (≤, ≥, =, range, free) whose bounds are set around
// a·x0, sometimes an extra equality that is the sum of two others (so the
// equality rows lose rank). With ray, 1–2 extra variables with one infinite
// bound are added such that moving along d (±1 on them) keeps every row
// satisfied and improves the objective: the problem is unbounded.
func randomProblem(r *rand.Rand, c genConfig) (*Problem, []float64) {
	p := &Problem{Sense: Sense(r.Intn(2))}
	x0, d := randomBoxes(r, c, p)
	var rayVars []int
	if c.ray {
		rayVars, x0, d = addRays(r, c, p, x0, d)
	}
	eqRows := randomRows(r, c, p, x0, d, rayVars)
	if len(eqRows) >= 2 && r.Intn(2) == 0 {
		a, b := p.Rows[eqRows[0]], p.Rows[eqRows[1]]
		p.Rows = append(p.Rows, Row{
			Name:  "dependent",
			Coefs: append(append([]Term(nil), a.Coefs...), b.Coefs...),
			Lower: a.Lower + b.Lower, Upper: a.Upper + b.Upper,
		})
	}
	return p, x0
}

// randomBoxes adds c.nv boxed variables to p and returns a point x0 in the
// boxes and a zero direction.
func randomBoxes(r *rand.Rand, c genConfig, p *Problem) (x0, d []float64) {
	for j := range c.nv {
		v := Var{Name: fmt.Sprintf("x%d", j), Obj: float64(r.Intn(11) - 5), Integer: r.Float64() < c.intFrac}
		v.Lower = float64(r.Intn(11) - 5)
		w := r.Intn(c.maxWidth + 1)
		var x float64
		if v.Integer {
			x = v.Lower + float64(r.Intn(w+1))
		} else {
			if r.Intn(3) == 0 {
				v.Lower += math.Round(r.Float64()*100) / 100
			}
			x = v.Lower + r.Float64()*float64(w)
		}
		v.Upper = v.Lower + float64(w)
		p.Vars = append(p.Vars, v)
		x0 = append(x0, x)
		d = append(d, 0)
	}
	return x0, d
}

// addRays adds 1–2 variables with one infinite bound and sets d (±1 on
// them) to an improving direction.
func addRays(r *rand.Rand, c genConfig, p *Problem, x0, d []float64) ([]int, []float64, []float64) {
	var rayVars []int
	for range 1 + r.Intn(2) {
		v := Var{Name: fmt.Sprintf("ray%d", len(rayVars)), Obj: float64(r.Intn(11) - 5), Integer: r.Float64() < c.intFrac}
		b := float64(r.Intn(7) - 3)
		dir := float64(1 - 2*r.Intn(2))
		if dir > 0 {
			v.Lower, v.Upper = b, math.Inf(1)
			if r.Intn(3) == 0 {
				v.Lower = math.Inf(-1)
			}
		} else {
			v.Lower, v.Upper = math.Inf(-1), b
			if r.Intn(3) == 0 {
				v.Upper = math.Inf(1)
			}
		}
		rayVars = append(rayVars, len(p.Vars))
		p.Vars = append(p.Vars, v)
		x0 = append(x0, b)
		d = append(d, dir)
	}
	// Make the ray improving: sign·(c·d) = −1 if it is not < 0.
	sign := p.Sense.sign()
	t := 0.0
	for j, v := range p.Vars {
		t += v.Obj * d[j]
	}
	if sign*t >= 0 {
		k := rayVars[0]
		p.Vars[k].Obj -= (sign*t + 1) / (sign * d[k])
	}
	return rayVars, x0, d
}

// randomRows adds c.nr rows of every kind (≤, ≥, =, range, free) with
// bounds set around a·x0 (kept satisfied along d when there are rays) and
// returns the equality rows.
func randomRows(r *rand.Rand, c genConfig, p *Problem, x0, d []float64, rayVars []int) []int {
	var eqRows []int
	for i := range c.nr {
		row := Row{Name: fmt.Sprintf("r%d", i)}
		coef := make([]float64, len(p.Vars))
		for j := range coef {
			if r.Float64() < 0.6 {
				coef[j] = float64(r.Intn(9) - 4)
				if r.Intn(4) == 0 {
					coef[j] /= 2
				}
			}
		}
		kind := r.Intn(5)
		if c.ray {
			alongRay(kind, coef, d, rayVars)
		}
		act := dot(coef, x0)
		slack := func() float64 {
			if r.Intn(3) == 0 {
				return 0
			}
			return math.Round(r.Float64()*300) / 100
		}
		switch kind {
		case 0:
			row.Lower, row.Upper = math.Inf(-1), act+slack()
		case 1:
			row.Lower, row.Upper = act-slack(), math.Inf(1)
		case 2:
			row.Lower, row.Upper = act, act
			eqRows = append(eqRows, i)
		case 3:
			row.Lower, row.Upper = act-slack(), act+slack()
		case 4:
			row.Lower, row.Upper = math.Inf(-1), math.Inf(1)
		}
		row.Coefs = dense(coef)
		p.Rows = append(p.Rows, row)
	}
	return eqRows
}

// alongRay changes the ray variables' coefficients of a row of the given
// kind so that moving along d keeps it satisfied.
func alongRay(kind int, coef, d []float64, rayVars []int) {
	s := dot(coef, d)
	switch kind {
	case 0: // ≤: need a·d ≤ 0
		if s > 0 {
			for _, k := range rayVars {
				coef[k] = -coef[k]
			}
		}
	case 1: // ≥: need a·d ≥ 0
		if s < 0 {
			for _, k := range rayVars {
				coef[k] = -coef[k]
			}
		}
	case 2, 3: // = and range: need a·d = 0
		last := rayVars[len(rayVars)-1]
		if len(rayVars) == 1 {
			coef[last] = 0
		} else {
			coef[last] -= s / d[last]
		}
	}
}

// makeInfeasible adds rows to a feasible problem so that it has no
// solution, in one of four ways: two rows a·x ≤ β and a·x ≥ β+δ; a row
// a·x ≥ max over the box of a·x + δ; an equality and its double with an
// inconsistent right-hand side; and, when there are integer variables, a row
// 2·Σ x_k = odd over integer variables only.
func makeInfeasible(r *rand.Rand, p *Problem, x0 []float64) {
	n := len(p.Vars)
	coef := make([]float64, n)
	for coef[r.Intn(n)] == 0 {
		for j := range coef {
			coef[j] = float64(r.Intn(9) - 4)
		}
	}
	var ints []int
	for j, v := range p.Vars {
		if v.Integer {
			ints = append(ints, j)
		}
	}
	way := r.Intn(4)
	if way == 3 && len(ints) == 0 {
		way = 0
	}
	delta := 0.5 + math.Round(r.Float64()*250)/100
	switch way {
	case 0:
		beta := dot(coef, x0) + float64(r.Intn(5)-2)
		p.Rows = append(p.Rows, le(beta, coef...), ge(beta+delta, coef...))
	case 1:
		most := 0.0
		for j, a := range coef {
			most += math.Max(a*p.Vars[j].Lower, a*p.Vars[j].Upper)
		}
		p.Rows = append(p.Rows, ge(most+delta, coef...))
	case 2:
		beta := dot(coef, x0)
		double := make([]float64, n)
		for j := range coef {
			double[j] = 2 * coef[j]
		}
		p.Rows = append(p.Rows, eq(beta, coef...), eq(2*beta+delta, double...))
	case 3:
		parity := make([]float64, n)
		k := 0.0
		for _, j := range ints {
			if r.Intn(2) == 0 || k == 0 {
				parity[j] = 2
				k++
			}
		}
		p.Rows = append(p.Rows, eq(2*float64(r.Intn(int(k)+1))+1, parity...))
	}
}

// feasibleWithin reports how x violates p's bounds, rows or integrality by
// more than tol (scaled by 1 + |bound|), or "".
func feasibleWithin(p *Problem, x []float64, tol float64) string {
	if len(x) != len(p.Vars) {
		return fmt.Sprintf("x has %d values for %d variables", len(x), len(p.Vars))
	}
	for j, v := range p.Vars {
		if x[j] < v.Lower-tol*(1+math.Abs(v.Lower)) || x[j] > v.Upper+tol*(1+math.Abs(v.Upper)) {
			return fmt.Sprintf("x[%d] = %g outside [%g, %g]", j, x[j], v.Lower, v.Upper)
		}
		if v.Integer && math.Abs(x[j]-math.Round(x[j])) > IntegralityTolerance {
			return fmt.Sprintf("integer x[%d] = %g", j, x[j])
		}
	}
	for i, row := range p.Rows {
		a := 0.0
		for _, t := range row.Coefs {
			a += t.Coef * x[t.Var]
		}
		if a < row.Lower-tol*(1+math.Abs(row.Lower)) || a > row.Upper+tol*(1+math.Abs(row.Upper)) {
			return fmt.Sprintf("row %d = %g outside [%g, %g]", i, a, row.Lower, row.Upper)
		}
	}
	return ""
}

// sameObjective compares optimal objectives with relative tolerance 1e-6.
func sameObjective(a, b float64) bool {
	return math.Abs(a-b) <= 1e-6*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}
