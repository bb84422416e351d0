package lp

import (
	"math"
	"reflect"
	"testing"
)

// The steps of the pure-Go backend's standard-form builder, one at a time,
// on a problem worked by hand:
//
//	x0 ∈ [2, 2] (fixed), x1 ∈ [0, 3], x2 ∈ (−∞, 5], x3 free, x4 ∈ [1, 4]
//	(in no row, objective −1), objective c = (0, 1, −1, 0, −1)
//	r0: x0 + x1 = 4         → x1 = 2 after fixing x0 (an equality)
//	r1: 2·x1 + 2·x3 ∈ [−∞, 6]   (≤ row)
//	r2: x0 ∈ [1, 3]         → 0 ∈ [−1, 1] (no variable left: dropped)
//	r3: x1 + x2 ∈ [1, 9]    (range row)
//	r4: 2·x0 + 2·x1 = 8     → 2·x1 = 4: r0 times 2 (dependent, dropped)
func TestStandardFormSteps(t *testing.T) {
	t.Parallel()
	inf := math.Inf(1)
	p := &Problem{Rows: []Row{
		{Lower: 4, Upper: 4}, {Lower: -inf, Upper: 6}, {Lower: 1, Upper: 3}, {Lower: 1, Upper: 9}, {Lower: 8, Upper: 8},
	}}
	rows := [][]Term{
		{{0, 1}, {1, 1}}, {{1, 2}, {3, 2}}, {{0, 1}}, {{1, 1}, {2, 1}}, {{0, 2}, {1, 2}},
	}
	f := &stdForm{n: 5, c: []float64{0, 1, -1, 0, -1}, lo: []float64{2, 0, -inf, -inf, 1}, hi: []float64{2, 3, 5, inf, 4}}

	if st := f.fix(); st != Optimal || !reflect.DeepEqual(f.fixed, []bool{true, false, false, false, false}) || f.x[0] != 2 {
		t.Fatalf("fix: %v, fixed %v, x %v", st, f.fixed, f.x)
	}
	if st := f.reduce(rows, p); st != Optimal {
		t.Fatalf("reduce: %v", st)
	}
	// Equalities r0 (x1 = 4 − 2) and r4 (2·x1 = 8 − 4); inequalities r1, r3.
	wantEq := []wrow{{[]Term{{1, 1}}, 2, 2}, {[]Term{{1, 2}}, 4, 4}}
	wantIneq := []wrow{{[]Term{{1, 2}, {3, 2}}, -inf, 6}, {[]Term{{1, 1}, {2, 1}}, 1, 9}}
	if !reflect.DeepEqual(f.eq, wantEq) || !reflect.DeepEqual(f.ineq, wantIneq) {
		t.Fatalf("reduce: eq %v ineq %v", f.eq, f.ineq)
	}
	if st := f.dropDependent(); st != Optimal || len(f.eq) != 1 || f.eq[0].lo != 2 {
		t.Fatalf("dropDependent: %v, eq %v", st, f.eq)
	}
	// x4 is in no row, objective −1 (minimised): its upper bound 4.
	if st := f.settleFree(); st != Optimal || f.x[4] != 4 || f.unbounded || f.inRow[4] || !f.inRow[3] {
		t.Fatalf("settleFree: %v, x %v, inRow %v, unbounded %v", st, f.x, f.inRow, f.unbounded)
	}
	f.columns()
	// x1 = 0 + y0 (y0 ≤ 3); x2 = 5 − y1; x3 = y2 − y3.
	wantCols := []stdColumn{{1, 1, 3}, {2, -1, inf}, {3, 1, inf}, {3, -1, inf}}
	if !reflect.DeepEqual(f.cols, wantCols) || f.nStruct != 4 || !reflect.DeepEqual(f.first, []int{-1, 0, 1, 2, -1}) ||
		!reflect.DeepEqual(f.shift, []float64{0, 0, 5, 0, 0}) {
		t.Fatalf("columns: %v (%d structural), first %v, shift %v", f.cols, f.nStruct, f.first, f.shift)
	}
	f.standardRows()
	// r0: y0 = 2. r1: 2·y0 + 2·y2 − 2·y3 + s4 = 6. r3: y0 − y1 − s5 = 1 − 5,
	// s5 ≤ 9 − 1 = 8. Then the finite upper bounds (y0 ≤ 3, s5 ≤ 8) as rows
	// y + t = u, unless a row implies them (impliedUppers).
	want := []srow{
		{[]int{0}, []float64{1}, 2},
		{[]int{0, 2, 3, 4}, []float64{2, 2, -2, 1}, 6},
		{[]int{0, 1, 5}, []float64{1, -1, -1}, -4},
	}
	if len(f.srows) < len(want) || !reflect.DeepEqual(f.srows[:len(want)], want) {
		t.Fatalf("standardRows: %v", f.srows)
	}
	for _, s := range f.srows[len(want):] {
		if len(s.idx) != 2 || s.coef[0] != 1 || s.coef[1] != 1 {
			t.Fatalf("bound row %v", s)
		}
	}
	// The slack of the range row r3 must be bounded by U − L = 8.
	if f.cols[5].upper != 8 {
		t.Fatalf("range slack bound %v", f.cols[5].upper)
	}
}

// Each step's infeasibility verdicts: crossed bounds, an empty row whose
// constant falls outside its bounds, and dependent equalities that
// disagree; a variable in no row that improves without bound.
func TestStandardFormVerdicts(t *testing.T) {
	t.Parallel()
	inf := math.Inf(1)
	f := &stdForm{n: 1, c: []float64{0}, lo: []float64{1}, hi: []float64{0}}
	if st := f.fix(); st != Infeasible {
		t.Errorf("crossed bounds: %v", st)
	}
	f = &stdForm{n: 1, c: []float64{0}, lo: []float64{3}, hi: []float64{3}}
	f.fix()
	if st := f.reduce([][]Term{{{0, 1}}}, &Problem{Rows: []Row{{Lower: 4, Upper: 5}}}); st != Infeasible {
		t.Errorf("empty row 3 ∈ [4, 5]: %v", st)
	}
	f = &stdForm{n: 2, c: []float64{0, 0}, lo: []float64{0, 0}, hi: []float64{inf, inf}}
	f.fix()
	f.reduce([][]Term{{{0, 1}, {1, 1}}, {{0, 2}, {1, 2}}}, &Problem{Rows: []Row{{Lower: 1, Upper: 1}, {Lower: 3, Upper: 3}}})
	if st := f.dropDependent(); st != Infeasible {
		t.Errorf("x + y = 1 and 2x + 2y = 3: %v", st)
	}
	f = &stdForm{n: 1, c: []float64{-1}, lo: []float64{0}, hi: []float64{inf}}
	f.fix()
	f.reduce(nil, &Problem{})
	f.settleFree()
	if !f.unbounded {
		t.Error("min −x over x ≥ 0 in no row: not unbounded")
	}
}
