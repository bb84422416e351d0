package themis

import (
	"errors"
	"fmt"
	"math"
	"time"

	"fairbench/solvers/lp"
)

// bidder is one job in an auction: its gang, the value log(1/ρ) it bids
// for a whole gang of each GPU type (−Inf: cannot use it), and the value of
// winning nothing (log(1/ρ) if it waits for the next auction).
type bidder struct {
	gang  float64
	value []float64
	none  float64
}

// of is the bidder's value of type g, or of nothing when g < 0.
func (b *bidder) of(g int) float64 {
	if g < 0 {
		return b.none
	}
	return b.value[g]
}

// auction is one partial-allocation auction over the free GPUs.
type auction struct {
	free    []float64 // free GPUs per type
	bidders []bidder
	backend lp.Solver
	limit   time.Time
}

// solve is winner determination: at most one whole bundle per bidder within
// the free GPUs, maximising Σ_j log(1/ρ_j) — the Nash welfare of 1/ρ —
// over all bidders but skip (−1: none skipped). It returns each bidder's
// type (−1: nothing), by a MIP on the backend (CBC with cgo).
func (a *auction) solve(skip int) ([]int, error) {
	p := lp.Problem{Sense: lp.Maximize}
	type col struct{ b, g int }
	var cols []col
	one := make([]lp.Row, len(a.bidders))
	capRows := make([]lp.Row, len(a.free))
	for i := range one {
		one[i] = lp.Row{Name: fmt.Sprintf("one[%d]", i), Lower: math.Inf(-1), Upper: 1}
	}
	for g, f := range a.free {
		capRows[g] = lp.Row{Name: fmt.Sprintf("cap[%d]", g), Lower: math.Inf(-1), Upper: f}
	}
	for b, bd := range a.bidders {
		if b == skip {
			continue
		}
		for g, v := range bd.value {
			// Only bundles worth more than waiting, and that fit.
			if math.IsInf(v, -1) || v <= bd.none || bd.gang > a.free[g] {
				continue
			}
			k := len(cols)
			cols = append(cols, col{b, g})
			p.Vars = append(p.Vars, lp.Var{Name: fmt.Sprintf("z[%d,%d]", b, g), Upper: 1, Integer: true, Obj: v - bd.none})
			one[b].Coefs = append(one[b].Coefs, lp.Term{Var: k, Coef: 1})
			capRows[g].Coefs = append(capRows[g].Coefs, lp.Term{Var: k, Coef: bd.gang})
		}
	}
	out := make([]int, len(a.bidders))
	for i := range out {
		out[i] = -1
	}
	if len(cols) == 0 {
		return out, nil
	}
	for _, r := range append(one, capRows...) {
		if len(r.Coefs) > 0 {
			p.Rows = append(p.Rows, r)
		}
	}
	opt := lp.Options{}
	if !a.limit.IsZero() {
		if opt.TimeLimit = time.Until(a.limit); opt.TimeLimit <= 0 {
			return nil, fmt.Errorf("themis: auction: time limit: %w", lp.ErrLimit)
		}
	}
	res, err := a.backend.Solve(&p, opt)
	if err != nil && !(errors.Is(err, lp.ErrLimit) && res.X != nil) {
		return nil, fmt.Errorf("themis: auction: %w", err)
	}
	for k, c := range cols {
		if res.X[k] > 0.5 {
			out[c.b] = c.g
		}
	}
	return out, nil
}

// partial runs the auction and the leave-one-out auction of each winner,
// and returns each bidder's type (−1: none) and the fraction c_i of its
// bundle it keeps (Cole, Gkatzelis and Goel's partial allocation, the
// mechanism of Themis's auction):
//
//	c_i = Π_{j≠i} (1/ρ_j(R*)) / Π_{j≠i} (1/ρ_j(R*_{−i})),
//
// the others' Nash welfare with i over their best without i (≤ 1, since
// R*_{−i} is the others' best), every bidder counted, with the value of
// waiting for the unserved.
func (a *auction) partial() ([]int, []float64, error) {
	win, err := a.solve(-1)
	if err != nil {
		return nil, nil, err
	}
	c := make([]float64, len(a.bidders))
	for i, g := range win {
		if g < 0 {
			continue
		}
		alt, err := a.solve(i)
		if err != nil {
			return nil, nil, err
		}
		logc := 0.0
		for j := range a.bidders {
			if j != i {
				logc += a.bidders[j].of(win[j]) - a.bidders[j].of(alt[j])
			}
		}
		c[i] = math.Min(1, math.Exp(logc))
	}
	return win, c, nil
}
