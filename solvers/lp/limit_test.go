package lp

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"fairbench/solvers/lp/internal/simplex"
)

// The pure-Go simplex stops at its iteration limit and at its deadline
// instead of running on (gonum's own has no limit: a cycling solve would
// never return). The LP, max Σ x_j s.t. x_j + x_{j+1} ≤ 1 and x_j ≤ 1 over
// 30 variables, takes more than one simplex iteration.
func TestPureSimplexLimit(t *testing.T) {
	p := &Problem{Sense: Maximize}
	for j := 0; j < 30; j++ {
		p.Vars = append(p.Vars, Var{Lower: 0, Upper: 1, Obj: 1 + float64(j%3)})
	}
	for j := 0; j+1 < 30; j++ {
		p.Rows = append(p.Rows, Row{Coefs: []Term{{j, 1}, {j + 1, 1}}, Lower: math.Inf(-1), Upper: 1})
	}
	rows := p.mergedRows()
	c := make([]float64, len(p.Vars))
	lo, hi := make([]float64, len(p.Vars)), make([]float64, len(p.Vars))
	for j, v := range p.Vars {
		c[j], lo[j], hi[j] = -v.Obj, v.Lower, v.Upper
	}
	if r := solveRelaxation(rows, p, c, lo, hi, &simplex.Limit{Iterations: 1}); r.status != Error || !strings.Contains(r.err.Error(), "after 1 iterations") {
		t.Errorf("one iteration: %v %v, want an iteration-limit error", r.status, r.err)
	}
	past := &simplex.Limit{Iterations: 1e6, Stop: func() bool { return true }}
	if r := solveRelaxation(rows, p, c, lo, hi, past); r.status != LimitReached {
		t.Errorf("deadline passed: %v, want limit reached", r.status)
	}
	if r := solveRelaxation(rows, p, c, lo, hi, simplexLimit(p, time.Time{})); r.status != Optimal {
		t.Errorf("default limit: %v %v", r.status, r.err)
	}
	if _, err := (Pure{}).Solve(p, Options{TimeLimit: time.Nanosecond}); err != nil && !errors.Is(err, ErrLimit) {
		t.Errorf("1 ns time limit: %v, want optimal or ErrLimit", err)
	}
}
