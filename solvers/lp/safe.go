package lp

import (
	"fmt"
	"math"
)

// coinRange is the largest magnitude of an objective coefficient, row
// coefficient or finite bound that reaches COIN-OR's C library. CLP 1.17
// aborts the whole process on an objective coefficient of 1e25 or more (an
// assertion in ClpSimplex::createRim), fails with status 4 on a row
// coefficient of 1e26, and takes a finite bound of 1e26 for infinity (and a
// bounded LP for unbounded); 1e20 leaves a margin.
const coinRange = 1e20

// coinScaling is how a problem was scaled to fit coinRange: the objective
// divided by obj, row i (coefficients and bounds) by rows[i].
type coinScaling struct {
	obj  float64
	rows []float64
}

// fitCoinRange returns p, or a copy of p scaled by powers of two so that
// every objective and row coefficient lies within coinRange (the solutions
// are unchanged; unscale restores the duals), or an error matching
// ErrInvalid that names the variable or row whose finite bound lies beyond
// coinRange — such a bound means nothing to the solver — or whose
// coefficients span more than the doubles can scale into range.
func fitCoinRange(p *Problem) (*Problem, coinScaling, error) {
	sc := coinScaling{obj: 1}
	big := 0.0
	for _, v := range p.Vars {
		big = max(big, math.Abs(v.Obj))
	}
	q := p
	clone := func() {
		if q == p {
			c := *p
			c.Vars = append([]Var(nil), p.Vars...)
			c.Rows = append([]Row(nil), p.Rows...)
			q = &c
		}
	}
	if big > coinRange {
		clone()
		sc.obj = math.Exp2(math.Ceil(math.Log2(big)))
		for j := range q.Vars {
			q.Vars[j].Obj /= sc.obj
		}
	}
	for j, v := range p.Vars {
		for _, b := range []float64{v.Lower, v.Upper} {
			if !math.IsInf(b, 0) && math.Abs(b) > coinRange {
				return nil, sc, fmt.Errorf("%w: var %d %q: finite bound %g beyond the LP library's range (±%g; use ±Inf for no bound)",
					ErrInvalid, j, v.Name, b, coinRange)
			}
		}
	}
	for i, r := range p.Rows {
		big := 0.0
		for _, t := range r.Coefs {
			big = max(big, math.Abs(t.Coef))
		}
		f := 1.0
		if big > coinRange {
			clone()
			if sc.rows == nil {
				sc.rows = make([]float64, len(p.Rows))
				for k := range sc.rows {
					sc.rows[k] = 1
				}
			}
			f = math.Exp2(math.Ceil(math.Log2(big)))
			sc.rows[i] = f
			row := r
			row.Coefs = make([]Term, len(r.Coefs))
			for k, t := range r.Coefs {
				row.Coefs[k] = Term{Var: t.Var, Coef: t.Coef / f}
			}
			row.Lower, row.Upper = r.Lower/f, r.Upper/f
			q.Rows[i] = row
		}
		for _, b := range []float64{r.Lower / f, r.Upper / f} {
			if !math.IsInf(b, 0) && math.Abs(b) > coinRange {
				return nil, sc, fmt.Errorf("%w: row %d %q: finite bound %g beyond the LP library's range (±%g; use ±Inf for no bound)",
					ErrInvalid, i, r.Name, b*f, coinRange)
			}
		}
	}
	return q, sc, nil
}

// unscale turns the duals of the scaled problem into those of the original:
// ∂(objective)/∂(bound) scales with the objective and inversely with the
// row.
func (sc coinScaling) unscale(duals []float64) {
	for i := range duals {
		duals[i] *= sc.obj
		if sc.rows != nil {
			duals[i] /= sc.rows[i]
		}
	}
}
