package lp

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
)

// Sense is the direction of optimisation. The zero value is Minimize.
type Sense int

const (
	// Minimize asks for the smallest objective.
	Minimize Sense = iota
	// Maximize asks for the largest objective.
	Maximize
)

// String returns "minimize" or "maximize".
func (s Sense) String() string {
	switch s {
	case Minimize:
		return "minimize"
	case Maximize:
		return "maximize"
	}
	return fmt.Sprintf("Sense(%d)", int(s))
}

// sign is +1 for Minimize and -1 for Maximize: the factor that turns the
// problem's objective into a minimisation.
func (s Sense) sign() float64 {
	if s == Maximize {
		return -1
	}
	return 1
}

// Var is one decision variable: Lower ≤ x ≤ Upper (math.Inf for no bound),
// objective coefficient Obj, integral when Integer.
type Var struct {
	Name         string
	Lower, Upper float64
	Obj          float64
	Integer      bool
}

// Term is one non-zero of a row: Coef·x[Var].
type Term struct {
	Var  int
	Coef float64
}

// Row is one constraint Lower ≤ Σ Coefs ≤ Upper (math.Inf for no bound;
// Lower == Upper for an equality).
type Row struct {
	Name         string
	Coefs        []Term
	Lower, Upper float64
}

// Problem is a linear or mixed-integer program; see the package comment.
type Problem struct {
	Sense Sense
	Vars  []Var
	Rows  []Row
}

// ErrInvalid is matched (errors.Is) by every error of Problem.Validate.
var ErrInvalid = errors.New("lp: invalid problem")

// HasInteger reports whether any variable is integral, i.e. whether p is a
// MIP rather than an LP.
func (p *Problem) HasInteger() bool {
	for _, v := range p.Vars {
		if v.Integer {
			return true
		}
	}
	return false
}

// Validate reports the first defect of p, naming the variable, row or term:
// an unknown sense; a NaN or infinite objective coefficient or row
// coefficient; a NaN bound, a lower bound of +Inf or an upper bound of -Inf;
// Lower > Upper; a term whose variable index is out of range.
func (p *Problem) Validate() error {
	if p == nil {
		return fmt.Errorf("%w: nil problem", ErrInvalid)
	}
	if p.Sense != Minimize && p.Sense != Maximize {
		return fmt.Errorf("%w: unknown sense %d", ErrInvalid, int(p.Sense))
	}
	for j, v := range p.Vars {
		if err := checkBounds(v.Lower, v.Upper); err != nil {
			return fmt.Errorf("%w: var %d %q: %s", ErrInvalid, j, v.Name, err)
		}
		if math.IsNaN(v.Obj) || math.IsInf(v.Obj, 0) {
			return fmt.Errorf("%w: var %d %q: objective coefficient %v is not finite", ErrInvalid, j, v.Name, v.Obj)
		}
	}
	for i, r := range p.Rows {
		if err := checkBounds(r.Lower, r.Upper); err != nil {
			return fmt.Errorf("%w: row %d %q: %s", ErrInvalid, i, r.Name, err)
		}
		for k, t := range r.Coefs {
			if t.Var < 0 || t.Var >= len(p.Vars) {
				return fmt.Errorf("%w: row %d %q: term %d: variable index %d out of range [0,%d)", ErrInvalid, i, r.Name, k, t.Var, len(p.Vars))
			}
			if math.IsNaN(t.Coef) || math.IsInf(t.Coef, 0) {
				return fmt.Errorf("%w: row %d %q: term %d (var %d): coefficient %v is not finite", ErrInvalid, i, r.Name, k, t.Var, t.Coef)
			}
		}
	}
	return nil
}

func checkBounds(lo, hi float64) error {
	switch {
	case math.IsNaN(lo) || math.IsNaN(hi):
		return fmt.Errorf("bound is NaN (lower %v, upper %v)", lo, hi)
	case math.IsInf(lo, 1):
		return fmt.Errorf("lower bound is +Inf")
	case math.IsInf(hi, -1):
		return fmt.Errorf("upper bound is -Inf")
	case lo > hi:
		return fmt.Errorf("lower %v > upper %v", lo, hi)
	}
	return nil
}

// compareVar orders terms by variable.
func compareVar(a, b Term) int { return cmp.Compare(a.Var, b.Var) }

// mergedRows returns each row's terms sorted by variable, repeated variables
// summed and zero coefficients dropped. p must be valid.
func (p *Problem) mergedRows() [][]Term { return p.mergedRowsIn(nil, nil) }

// mergedRowsIn is mergedRows in the memory of *rows and *terms where they
// have room (they keep the memory used).
func (p *Problem) mergedRowsIn(rows *[][]Term, terms *[]Term) [][]Term {
	if rows == nil {
		rows, terms = new([][]Term), new([]Term)
	}
	out := take(rows, len(p.Rows))
	nnz := 0
	for _, r := range p.Rows {
		nnz += len(r.Coefs)
	}
	all := take(terms, nnz)[:0] // every row's terms, one array
	for i, r := range p.Rows {
		start := len(all)
		all = append(all, r.Coefs...)
		ts := all[start:len(all):len(all)]
		if !slices.IsSortedFunc(ts, compareVar) { // the common case: already in order
			slices.SortStableFunc(ts, compareVar)
		}
		merged := ts[:0]
		for _, t := range ts {
			if n := len(merged); n > 0 && merged[n-1].Var == t.Var {
				merged[n-1].Coef += t.Coef
				continue
			}
			merged = append(merged, t)
		}
		kept := merged[:0]
		for _, t := range merged {
			if t.Coef != 0 {
				kept = append(kept, t)
			}
		}
		out[i] = kept
	}
	return out
}

// csc is the constraint matrix in compressed sparse column form, as CLP and
// CBC load it: the non-zeros of column j are value[start[j]:start[j+1]] in
// rows index[start[j]:start[j+1]], rows increasing.
type csc struct {
	start []int32
	index []int32
	value []float64
}

// columns converts the merged rows of p to column-major form.
func columns(nvars int, rows [][]Term) csc { return columnsIn(nvars, rows, &cscBuf{}) }

// cscBuf is the memory columnsIn fills, kept from one call to the next.
type cscBuf struct {
	m    csc
	next []int32
}

// columnsIn is columns in the memory of buf (the csc returned is buf's
// until the next call).
func columnsIn(nvars int, rows [][]Term, buf *cscBuf) csc {
	count := take(&buf.m.start, nvars+1)
	clear(count)
	for _, r := range rows {
		for _, t := range r {
			count[t.Var+1]++
		}
	}
	for j := 0; j < nvars; j++ {
		count[j+1] += count[j]
	}
	m := csc{start: count, index: take(&buf.m.index, int(count[nvars])), value: take(&buf.m.value, int(count[nvars]))}
	next := append(buf.next[:0], count[:nvars]...)
	buf.next = next
	for i, r := range rows {
		for _, t := range r {
			k := next[t.Var]
			m.index[k] = int32(i)
			m.value[k] = t.Coef
			next[t.Var]++
		}
	}
	return m
}

// emptyRowInfeasible reports whether a row without non-zeros excludes 0
// (beyond FeasibilityTolerance).
func emptyRowInfeasible(r Row) bool {
	return r.Lower > FeasibilityTolerance*(1+math.Abs(r.Lower)) || r.Upper < -FeasibilityTolerance*(1+math.Abs(r.Upper))
}

// emptyRays lists the variables that appear in no row of m and whose
// objective improves without limit along an infinite bound, with a finite
// value to pin each at (its finite bound, or 0). If the rest of the problem
// is feasible, such a variable makes it unbounded. (CLP 1.17 reports such
// problems as primal infeasible, so the Coin backend pins them and decides
// unboundedness itself.)
func (p *Problem) emptyRays(m csc) (idx []int, at []float64) {
	for j, v := range p.Vars {
		if m.start[j] != m.start[j+1] {
			continue
		}
		c := p.Sense.sign() * v.Obj
		if (c < 0 && math.IsInf(v.Upper, 1)) || (c > 0 && math.IsInf(v.Lower, -1)) {
			pin := 0.0
			switch {
			case !math.IsInf(v.Lower, -1):
				pin = math.Ceil(v.Lower)
			case !math.IsInf(v.Upper, 1):
				pin = math.Floor(v.Upper)
			}
			idx, at = append(idx, j), append(at, pin)
		}
	}
	return idx, at
}

// objectiveOf is Σ Obj_j·x_j in the problem's own sense.
func (p *Problem) objectiveOf(x []float64) float64 {
	s := 0.0
	for j, v := range p.Vars {
		s += v.Obj * x[j]
	}
	return s
}

// roundIntegers snaps integer variables of x within IntegralityTolerance of an
// integer onto it.
func (p *Problem) roundIntegers(x []float64) {
	for j, v := range p.Vars {
		if v.Integer {
			if r := math.Round(x[j]); math.Abs(x[j]-r) <= IntegralityTolerance {
				x[j] = r
			}
		}
	}
}
