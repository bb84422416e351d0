package gavel

import (
	"testing"

	"fairbench/solvers/lp"
)

// memoProblem is a one-variable LP whose upper bound k tells it apart.
func memoProblem(k int) *lp.Problem {
	return &lp.Problem{Sense: lp.Maximize, Vars: []lp.Var{{Name: "x", Upper: float64(k), Obj: 1}}}
}

// TestMemoForgetsTheOldestFirst: after memoSize+1 distinct LPs the first is
// forgotten and the others are remembered with their own answers; putting
// one already remembered forgets nothing; answers are copied in and out.
func TestMemoForgetsTheOldestFirst(t *testing.T) {
	var m memo
	put := func(k int) {
		x := []float64{float64(k)}
		m.put(m.key(memoProblem(k), lp.Copies{}), lp.Result{X: x})
		x[0] = -1 // the caller's slice: the memo holds its own copy
	}
	get := func(k int) (float64, bool) {
		r, ok := m.get(m.key(memoProblem(k), lp.Copies{}))
		if !ok {
			return 0, false
		}
		return r.X[0], true
	}
	for k := 1; k <= memoSize+1; k++ {
		put(k)
	}
	put(memoSize + 1) // already there: forgets nothing
	if _, ok := get(1); ok {
		t.Errorf("LP 1 of %d is still remembered", memoSize+1)
	}
	for k := 2; k <= memoSize+1; k++ {
		if x, ok := get(k); !ok || x != float64(k) {
			t.Errorf("LP %d: got %v, %v; want %d, true", k, x, ok, k)
		}
	}
	r, _ := m.get(m.key(memoProblem(2), lp.Copies{}))
	r.X[0] = 99
	if x, _ := get(2); x != 2 {
		t.Errorf("changing a returned answer changed the remembered one: %v", x)
	}
	put(memoSize + 2) // forgets LP 2, the oldest now
	if _, ok := get(2); ok {
		t.Errorf("LP 2 is still remembered after LP %d", memoSize+2)
	}
	if x, ok := get(3); !ok || x != 3 {
		t.Errorf("LP 3: got %v, %v", x, ok)
	}
}
