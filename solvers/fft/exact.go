package fft

import (
	"fmt"
	"math"

	"fairbench/solvers/lp"
)

// The exact path: the round's integer program handed to a MIP backend
// (lp.Default(): CBC's branch and bound where built with cgo, else the
// pure-Go branch and bound). K(t) is found first, as its own MIP
// (maximise Σ d_j·x[j][i] under the same rows) unless the fast path already
// reached the relaxation's largest fill, which proves it.

// mip builds the program over the pairs (j, i) that may run. With fill ≥ 0
// it is the round's program with the work-conserving row Σ d·x ≥ fill;
// with fill < 0 it is K(t)'s program (maximise Σ d·x, no fill row).
func (in *Instance) mip(fill int) (*lp.Problem, [][2]int) {
	t := in.Types
	p := &lp.Problem{Sense: lp.Minimize}
	if fill < 0 {
		p.Sense = lp.Maximize
	}
	var pairs [][2]int
	caps := make([]lp.Row, t)
	for i := range caps {
		caps[i] = lp.Row{Name: fmt.Sprintf("cap[%d]", i), Lower: math.Inf(-1), Upper: float64(in.Cap[i])}
	}
	all := lp.Row{Name: "K", Lower: float64(fill), Upper: math.Inf(1)}
	for j, d := range in.Gang {
		one := lp.Row{Name: fmt.Sprintf("one[%d]", j), Lower: math.Inf(-1), Upper: 1}
		for i := range t {
			if !in.OK[j*t+i] {
				continue
			}
			v := len(p.Vars)
			obj := in.Cost[j*t+i]
			if fill < 0 {
				obj = float64(d)
			}
			p.Vars = append(p.Vars, lp.Var{Name: fmt.Sprintf("x[%d][%d]", j, i), Upper: 1, Obj: obj, Integer: true})
			pairs = append(pairs, [2]int{j, i})
			one.Coefs = append(one.Coefs, lp.Term{Var: v, Coef: 1})
			caps[i].Coefs = append(caps[i].Coefs, lp.Term{Var: v, Coef: float64(d)})
			all.Coefs = append(all.Coefs, lp.Term{Var: v, Coef: float64(d)})
		}
		if len(one.Coefs) > 1 {
			p.Rows = append(p.Rows, one)
		}
	}
	for _, r := range caps {
		if len(r.Coefs) > 0 {
			p.Rows = append(p.Rows, r)
		}
	}
	if fill > 0 {
		p.Rows = append(p.Rows, all)
	}
	return p, pairs
}

// solution reads x off a MIP result.
func (in *Instance) solution(x []float64, pairs [][2]int) Solution {
	s := Solution{Type: make([]int, in.Jobs())}
	for j := range s.Type {
		s.Type[j] = -1
	}
	for v, p := range pairs {
		if x[v] > 0.5 {
			s.Type[p[0]] = p[1]
		}
	}
	in.evaluate(&s)
	return s
}

// MaxFill is K(t) (Eq. 7): the largest Σ_j d_j·x[j][i] over the integral x
// that satisfy the job, capacity and memory rows, solved as a MIP.
func MaxFill(in *Instance, s lp.Solver, o lp.Options) (int, error) {
	if len(in.Gang) == 0 {
		return 0, nil
	}
	p, pairs := in.mip(-1)
	if len(pairs) == 0 {
		return 0, nil
	}
	res, err := s.Solve(p, o)
	if err != nil {
		return 0, fmt.Errorf("fft: K(t): %w", err)
	}
	return in.solution(res.X, pairs).Fill, nil
}

// ExactResult is the exact path's outcome.
type ExactResult struct {
	Solution
	// K is the fill row's right-hand side the solve used.
	K int
	// Status is the backend's: Optimal, or LimitReached with the best
	// integral solution found.
	Status lp.Status
	// Solves is the number of MIPs solved: 1, or 2 with K(t) first.
	Solves int
	// Backend counts those of Solves the MIP backend solved, and Nodes the
	// relaxations of SolveExactFast's branch and bound.
	Backend, Nodes int
}

// SolveExact solves in exactly with s under o. k is K(t) when known (the
// fast path proved it), or −1 to have it solved first (MaxFill). At a time or
// node limit with an integral solution in hand it returns that solution,
// Status LimitReached and an error matching lp.ErrLimit.
func SolveExact(in *Instance, s lp.Solver, o lp.Options, k int) (ExactResult, error) {
	return SolveExactFrom(in, s, o, k, Solution{})
}

// SolveExactFrom is SolveExact with a known solution of in, start (say the
// fast path's), handed to the backend as its MIP start when it fills at
// least K(t): branch and bound then prunes with its objective from the
// first node. The optimum's value is the same; among tied optima the
// backend may return another one than without it.
func SolveExactFrom(in *Instance, s lp.Solver, o lp.Options, k int, start Solution) (ExactResult, error) {
	if err := in.Validate(); err != nil {
		return ExactResult{}, err
	}
	out := ExactResult{Status: lp.Optimal}
	if k < 0 {
		var err error
		out.Solves++
		if k, err = MaxFill(in, s, o); err != nil {
			return out, err
		}
	}
	out.K = k
	p, pairs := in.mip(k)
	if len(pairs) == 0 {
		out.Solution = in.solution(nil, nil)
		return out, nil
	}
	if len(start.Type) == in.Jobs() && start.Fill >= k {
		o.Start = make([]float64, len(pairs))
		for v, pr := range pairs {
			if start.Type[pr[0]] == pr[1] {
				o.Start[v] = 1
			}
		}
	}
	out.Solves++
	res, err := s.Solve(p, o)
	out.Status = res.Status
	if res.X == nil {
		return out, fmt.Errorf("fft: exact solve: %w", err)
	}
	out.Solution = in.solution(res.X, pairs)
	if err != nil {
		return out, fmt.Errorf("fft: exact solve: %w", err)
	}
	return out, nil
}
