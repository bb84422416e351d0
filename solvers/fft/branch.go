package fft

import (
	"fmt"
	"math"
	"slices"
	"time"

	"fairbench/solvers/lp"
)

// Branch and bound over the transportation relaxation.
//
// The round's program with the fill row at the relaxation's largest fill
// (K(t) = LPFill, the usual case: the fast path reached it) has a
// relaxation that lpRelaxation solves exactly, and so has every subproblem
// that fixes jobs on types or keeps them out: fixing job j on type i takes
// its gang off i's capacity and j out of the instance, and keeping it out
// (or off one type) clears its OK flags. A subproblem's largest fill is at
// most K(t) minus the fixed gangs (any of its flows plus the fixed jobs is
// a flow of the whole relaxation), so it must reach exactly that, and its
// relaxation's optimum is then its min-cost max-flow: the node's bound. The
// search branches on a job the relaxation split (the largest gang), one
// child per type its gang fits on plus one that keeps it out, depth first,
// the type holding most of its GPUs first; it prunes a node whose bound is
// not below the incumbent by more than optimalTol (relative), the tolerance
// by which the fast path is declared optimal. Before branching it fixes by
// reduced costs at the node's own prices (refix): options that cannot lead
// below the incumbent by more than that are dropped and never become
// children. The optimum is the same as CBC's within that tolerance; among
// tied optima the incumbent (the fast path's solution) is kept.

// maxBranchNodes bounds the relaxations one search solves (its searches
// below cutoffs included); a search that reaches it hands the MIP to the
// backend (SolveExactFast). A node costs tens of microseconds; CBC's plain
// branch and bound, which bounds with the same relaxation, took minutes on
// the hardest full-cluster rounds the search proves in ~110,000 nodes.
const maxBranchNodes = 200000

// searchEnd is how a search ended.
type searchEnd int

const (
	searchProved searchEnd = iota // the incumbent is optimal
	searchBudget                  // maxBranchNodes reached
	searchLimit                   // the caller's node or time limit reached
)

// bbNode is a subproblem: jobs fixed on types (or kept out), the capacity
// they leave, the flags of the jobs still free.
type bbNode struct {
	sub   *Instance
	fixed []int // type per job, −1 free or out
	cost  float64
	fill  int
	f     *flow // the relaxation, when already solved
	from  *flow // else the parent's, to solve it from (warm.go)
}

// branchSearch is one search's state.
type branchSearch struct {
	in       *Instance
	root     *flow // in's relaxation
	k        int
	best     Solution
	nodes    int
	tol      float64   // a better solution beats the incumbent by more
	budget   int       // maxBranchNodes (a test's smaller one)
	limit    int       // the caller's node limit (0: none)
	deadline time.Time // the caller's time limit (zero: none)
	end      searchEnd
	bufs     *searchBufs
	depth    int // the nodes being visited
}

// searchBufs are the slices of a search, handed on to the next search of
// the same round (one at a time): the relaxations no longer needed (spare),
// those of the nodes being visited by depth (level), and options' (fix is
// its reduced costs; its keep and out are a level's).
type searchBufs struct {
	pool   []*flow
	levels []*level
	fix    fixBufs
}

// level holds the slices one node being visited builds, reused by the
// next node visited at its depth once its subtree is searched: its options
// (refix), the capacities and fixed types when refix fixes jobs, its
// rounding, and those of the child being visited.
type level struct {
	keep, out    []bool
	fixed, cap   []int
	typ, split   []int
	ok           []bool
	cfixed, ccap []int
}

// enter is the level of a node visited now, below those being visited.
func (s *branchSearch) enter() *level {
	b := s.bufs
	if s.depth == len(b.levels) {
		b.levels = append(b.levels, &level{})
	}
	s.depth++
	return b.levels[s.depth-1]
}

// branchAndBound solves in with the fill row at k = root.fill() (root being
// in's relaxation) exactly, to within tol, starting from the incumbent inc
// (a solution filling k; its Type may be nil when only its objective is
// known), under o's node and time limits. It returns the best solution
// found, how the search ended, and the relaxations it solved. It works in
// bufs (nil: new ones).
func branchAndBound(in *Instance, root *flow, inc Solution, o lp.Options, budget int, tol float64, bufs *searchBufs) (Solution, searchEnd, int) {
	if bufs == nil {
		bufs = &searchBufs{}
	}
	s := &branchSearch{in: in, root: root, k: root.fill(), best: inc, tol: tol, budget: budget, limit: o.NodeLimit, bufs: bufs}
	if o.TimeLimit > 0 {
		s.deadline = time.Now().Add(o.TimeLimit)
	}
	fixed := make([]int, in.Jobs())
	for j := range fixed {
		fixed[j] = -1
	}
	s.visit(bbNode{sub: in, fixed: fixed, f: root})
	return s.best, s.end, s.nodes
}

// spare is a flow no longer needed, to build a node's relaxation in (nil
// when there is none).
func (s *branchSearch) spare() *flow {
	b := s.bufs
	n := len(b.pool)
	if n == 0 {
		return nil
	}
	f := b.pool[n-1]
	b.pool = b.pool[:n-1]
	return f
}

// release hands back f, a node's relaxation whose subtree is searched.
func (s *branchSearch) release(f *flow) { s.bufs.pool = append(s.bufs.pool, f) }

// pruned reports whether a bound cannot beat the incumbent.
func (s *branchSearch) pruned(bound float64) bool {
	return bound >= s.best.Objective-s.tol
}

// stop reports whether a limit ends the search before another node,
// recording which.
func (s *branchSearch) stop() bool {
	switch {
	case s.limit > 0 && s.nodes >= s.limit:
		s.end = searchLimit
	case s.nodes >= s.budget:
		s.end = searchBudget
	case !s.deadline.IsZero() && time.Now().After(s.deadline):
		s.end = searchLimit
	default:
		return false
	}
	return true
}

// visit searches the subtree of nd; false when a limit ended the search.
func (s *branchSearch) visit(nd bbNode) bool {
	if s.stop() {
		return false
	}
	s.nodes++
	lv := s.enter()
	defer func() { s.depth-- }()
	f := nd.f
	switch {
	case f != nil:
	case nd.from != nil:
		f = nd.from.warmedIn(nd.sub, s.spare())
		defer s.release(f) // its subtree is searched when visit returns
	default:
		f = relax(nd.sub, s.root.ord)
	}
	need := s.k - nd.fill
	if f.fill() < need {
		return true // cannot fill K(t)
	}
	if s.pruned(nd.cost + f.optimum()) {
		return true
	}
	lv.typ = grow(lv.typ, s.in.Jobs())
	typ, split := f.roundIn(lv.typ, lv.split)
	lv.split = split
	if len(split) == 0 {
		for j, i := range nd.fixed {
			if i >= 0 {
				typ[j] = i
			}
		}
		sol := Solution{Type: typ}
		s.in.evaluate(&sol)
		if sol.Fill >= s.k && sol.Objective < s.best.Objective {
			sol.Type = slices.Clone(typ)
			s.best = sol
		}
		return true
	}
	nd, out, ok := s.refix(nd, f, need, lv)
	if !ok {
		return true
	}
	j := -1
	for _, c := range split {
		if s.free(nd, c) && (j < 0 || s.in.Gang[c] > s.in.Gang[j]) {
			j = c
		}
	}
	if j < 0 {
		// Rounding noise fixed every split job: solve what is left anew.
		nd.f, nd.from = nil, f
		return s.visit(nd)
	}
	for _, i := range s.childTypes(nd, f, j, out[j]) {
		if !s.visit(s.child(nd, f, j, i, lv)) {
			return false
		}
	}
	return true
}

// free reports whether job j still has a type to run on in nd.
func (s *branchSearch) free(nd bbNode, j int) bool {
	t := s.in.Types
	return slices.Contains(nd.sub.OK[j*t:(j+1)*t], true)
}

// refix is reduced-cost fixing (fixing.go) at nd, with the prices of its
// relaxation f (fill row at need) and the incumbent as it stands: nd
// without the options that cannot lead to a better solution, the jobs left
// one option fixed on it, and whether each job may still stay out. False
// when nothing below nd beats the incumbent. Without prices (rounding
// noise) nd is returned as it is.
func (s *branchSearch) refix(nd bbNode, f *flow, need int, lv *level) (bbNode, []bool, bool) {
	t := s.in.Types
	pr, ok := f.prices()
	if !ok {
		out := make([]bool, s.in.Jobs())
		for j := range out {
			out[j] = true
		}
		return nd, out, true
	}
	b := &s.bufs.fix
	b.keep, b.out = lv.keep, lv.out
	keep, out, ok := nd.sub.options(pr, need, s.best.Objective-nd.cost, s.tol, b)
	lv.keep, lv.out = b.keep, b.out
	if !ok {
		return nd, nil, false
	}
	sub := &Instance{Types: t, Cap: nd.sub.Cap, Gang: s.in.Gang, Cost: s.in.Cost, OK: keep}
	c := bbNode{sub: sub, fixed: nd.fixed, cost: nd.cost, fill: nd.fill}
	cloned := false
	for j, d := range s.in.Gang {
		i := only(keep, out, j, t)
		if i < 0 {
			continue
		}
		if !cloned {
			lv.fixed = append(lv.fixed[:0], nd.fixed...)
			lv.cap = append(lv.cap[:0], nd.sub.Cap...)
			c.fixed, sub.Cap, cloned = lv.fixed, lv.cap, true
		}
		c.fixed[j] = i
		c.cost += s.in.Cost[j*t+i]
		c.fill += d
		keep[j*t+i] = false
		if sub.Cap[i] -= d; sub.Cap[i] < 0 {
			return nd, nil, false
		}
	}
	return c, out, true
}

// childTypes lists the branches on job j: each type whose remaining
// capacity holds its gang, the one holding most of its GPUs first, then
// −1 (j kept out) when stay (fixing left staying out an option).
func (s *branchSearch) childTypes(nd bbNode, f *flow, j int, stay bool) []int {
	t := s.in.Types
	var out []int
	most, at := 0, -1
	for i := range t {
		if u := int(f.units[j*f.nodes+i]); u > most {
			most, at = u, i
		}
	}
	if at >= 0 && nd.sub.OK[j*t+at] && nd.sub.Cap[at] >= s.in.Gang[j] {
		out = append(out, at)
	}
	for i := range t {
		if i != at && nd.sub.OK[j*t+i] && nd.sub.Cap[i] >= s.in.Gang[j] {
			out = append(out, i)
		}
	}
	if stay {
		out = append(out, -1)
	}
	return out
}

// child is nd with job j fixed on type i, or kept out (i = −1), to be
// solved from nd's relaxation f, in the slices of lv (nd's level).
func (s *branchSearch) child(nd bbNode, f *flow, j, i int, lv *level) bbNode {
	t := s.in.Types
	lv.ok = append(lv.ok[:0], nd.sub.OK...)
	sub := &Instance{Types: t, Cap: nd.sub.Cap, Gang: s.in.Gang, Cost: s.in.Cost, OK: lv.ok}
	for k := range t {
		sub.OK[j*t+k] = false
	}
	c := bbNode{sub: sub, fixed: nd.fixed, cost: nd.cost, fill: nd.fill, from: f}
	// A job kept out shares the parent's capacities and fixed types.
	if i >= 0 {
		lv.ccap = append(lv.ccap[:0], nd.sub.Cap...)
		sub.Cap = lv.ccap
		sub.Cap[i] -= s.in.Gang[j]
		lv.cfixed = append(lv.cfixed[:0], nd.fixed...)
		c.fixed = lv.cfixed
		c.fixed[j] = i
		c.cost += s.in.Cost[j*t+i]
		c.fill += s.in.Gang[j]
	}
	return c
}

// SolveExactFast solves in exactly given fast = SolveFast(in) and k, K(t)
// when known or −1 (see SolveExact). When k is the relaxation's largest
// fill and fast's solution reaches it, the branch and bound above solves it
// (ExactResult.Nodes counts its relaxations), under o's node and time
// limits; otherwise, or when the search runs past maxBranchNodes, the MIP
// backend s does, from fast's solution (SolveExactFrom; ExactResult.Backend
// counts its MIPs).
func SolveExactFast(in *Instance, s lp.Solver, o lp.Options, k int, fast FastResult) (ExactResult, error) {
	return solveExactWithin(in, s, o, k, fast, maxBranchNodes)
}

// solveExactWithin is SolveExactFast with a search budget of budget nodes.
func solveExactWithin(in *Instance, s lp.Solver, o lp.Options, k int, fast FastResult, budget int) (ExactResult, error) {
	if err := in.Validate(); err != nil {
		return ExactResult{}, err
	}
	if fast.root == nil || k < 0 || k != fast.LPFill || fast.Fill < k || len(fast.Type) != in.Jobs() {
		out, err := SolveExactFrom(in, s, o, k, fast.Solution)
		out.Backend = out.Solves
		return out, err
	}
	began := time.Now()
	sr := search(in, fast, o, budget)
	// Objective summed job by job, as the backend's answer is (the
	// rounding's incumbent was summed move by move).
	sol := Solution{Type: slices.Clone(sr.best.Type)}
	in.evaluate(&sol)
	out := ExactResult{Solution: sol, K: k, Status: lp.Optimal, Solves: 1, Nodes: sr.nodes}
	switch sr.end {
	case searchLimit:
		out.Status = lp.LimitReached
		return out, fmt.Errorf("fft: exact solve: branch and bound: %w", lp.ErrLimit)
	case searchBudget:
		if o.TimeLimit > 0 {
			// The limit bounds the whole solve, the search included.
			if o.TimeLimit -= time.Since(began); o.TimeLimit <= 0 {
				out.Status = lp.LimitReached
				return out, fmt.Errorf("fft: exact solve: branch and bound: %w", lp.ErrLimit)
			}
		}
		if sr.red == nil {
			ex, err := SolveExactFrom(in, s, o, k, sol)
			ex.Nodes, ex.Backend = sr.nodes, ex.Solves
			return ex, err
		}
		return backendReduced(in, s, o, sol, sr)
	}
	return out, nil
}

// backendReduced hands the MIP that reduced-cost fixing left (sr.red: the
// free jobs, the fixed ones as constants) to the backend s, from the
// search's best solution sol when that is one of its solutions, and keeps
// sol unless the backend's answer beats it by more than the search's
// tolerance (the fixing dropped only what cannot).
func backendReduced(in *Instance, s lp.Solver, o lp.Options, sol Solution, sr searched) (ExactResult, error) {
	r := sr.red
	start := Solution{Type: make([]int, r.sub.Jobs())}
	free := make([]bool, in.Jobs())
	for k, j := range r.jobs {
		start.Type[k], free[j] = sol.Type[j], true
	}
	r.sub.evaluate(&start)
	for j, i := range r.fixed {
		if !free[j] && sol.Type[j] != i {
			start = Solution{} // sol is not a solution of the reduced MIP
			break
		}
	}
	if start.Type != nil && r.sub.Check(start) != nil {
		start = Solution{}
	}
	ex, err := SolveExactFrom(r.sub, s, o, sr.need, start)
	ex.K, ex.Nodes, ex.Backend = sr.k, sr.nodes, ex.Solves
	if ex.Status == lp.Infeasible {
		// Nothing that fixing kept fills K(t): sol is optimal.
		ex.Solution, ex.Status = sol, lp.Optimal
		return ex, nil
	}
	if ex.Type == nil {
		return ex, err
	}
	got := Solution{Type: slices.Clone(r.fixed)}
	for k, j := range r.jobs {
		got.Type[j] = ex.Type[k]
	}
	in.evaluate(&got)
	ex.Solution = sol
	if got.Objective < sol.Objective-sr.tol {
		ex.Solution = got
	}
	return ex, err
}

// searched is a search's outcome: the best solution, how the search ended,
// the relaxations it solved, and the instance fixing left (red, with its
// fill row at need; nil when the search ran on the whole of in).
type searched struct {
	best  Solution
	end   searchEnd
	nodes int
	red   *reduced
	k     int
	need  int
	tol   float64
	cut   float64     // the last search's cutoff (see below)
	bufs  *searchBufs // its searches' slices
}

// Cutoffs below the incumbent. The relaxation's bound is close to the
// optimum where the fast path's solution is far from it (the rounds of a
// full cluster), and reduced-cost fixing keeps an option only when it may
// lead below the incumbent: so the search first asks for a solution below
// a cutoff u = bound + δ, fixing against u instead of the incumbent (fewer
// jobs left free, every node pruned against u), with δ growing by
// cutoffGrowth from cutoffFirst·|objective| until a search finds one (the
// optimum: nothing it dropped could beat it by more than the tolerance) or
// the cutoff reaches the incumbent (the search from the incumbent, as
// without cutoffs). A search below u that finds nothing has proved that no
// solution beats u by more than the tolerance.
const (
	cutoffFirst  = 1e-4
	cutoffGrowth = 4
	cutoffJobs   = 32 // fewer free jobs against the incumbent: no cutoffs
)

// search is the branch and bound from fast's solution, on the jobs that
// reduced-cost fixing (fixing.go) leaves a choice when the relaxation's
// prices can be read, else on all of them; below cutoffs first (see above)
// where fixing against fast's solution leaves more than cutoffJobs free.
func search(in *Instance, fast FastResult, o lp.Options, budget int) searched {
	return searchCutting(in, fast, o, budget, cutoffJobs)
}

// searchCutting is search with cutoffs where more than minFree jobs are
// left free.
func searchCutting(in *Instance, fast FastResult, o lp.Options, budget, minFree int) searched {
	tol := optimalTol * (1 + math.Abs(fast.Objective))
	sr := searched{best: fast.Solution, k: fast.LPFill, tol: tol}
	pr, ok := fast.root.prices()
	if !ok {
		sr.best, sr.end, sr.nodes = branchAndBound(in, fast.root, fast.Solution, o, budget, tol, nil)
		return sr
	}
	lb, _ := in.lagrange(pr, fast.LPFill)
	d := cutoffFirst * (1 + math.Abs(fast.Objective))
	sr.bufs = &searchBufs{}
	if r, better := in.fix(pr, fast.LPFill, fast.Objective, tol, &sr.bufs.fix); !better || len(r.jobs) <= minFree {
		d = math.Inf(1) // fixing against the incumbent bites: no cutoffs
	}
	began := time.Now()
	for ; ; d *= cutoffGrowth {
		u := lb + d
		if u >= fast.Objective-tol {
			u = fast.Objective
		}
		left, ok := remaining(o, sr.nodes, began)
		switch {
		case !ok:
			sr.end = searchLimit
			return sr
		case sr.nodes >= budget:
			sr.end = searchBudget
		default:
			if sr.below(in, fast, pr, u, left, budget-sr.nodes) {
				return sr // on the whole of in
			}
		}
		if sr.end != searchProved || sr.best.Objective < u || u == fast.Objective {
			break
		}
	}
	if sr.end == searchBudget {
		// Fix against the best solution found: the backend gets less.
		r, better := in.fix(pr, fast.LPFill, sr.best.Objective, tol, &sr.bufs.fix)
		if !better {
			sr.end = searchProved
			return sr
		}
		sr.need, sr.red = fast.LPFill-r.fill, &r
	}
	return sr
}

// remaining is o with its node and time limits less the nodes and the time
// since began already spent, false when one of them is.
func remaining(o lp.Options, nodes int, began time.Time) (lp.Options, bool) {
	if o.NodeLimit > 0 {
		if o.NodeLimit -= nodes; o.NodeLimit <= 0 {
			return o, false
		}
	}
	if o.TimeLimit > 0 {
		if o.TimeLimit -= time.Since(began); o.TimeLimit <= 0 {
			return o, false
		}
	}
	return o, true
}

// below searches for the best solution of in below the cutoff u (fast's
// objective, or less) within budget nodes, on the jobs that fixing against
// u leaves free; sr.best is set to what it finds (left as it is when
// nothing), sr.end to how it ended, and its relaxations are added to
// sr.nodes. It reports whether it searched the whole of in from fast's
// solution instead (the free jobs reach past what K(t) leaves them:
// rounding noise), which ends the search.
func (sr *searched) below(in *Instance, fast FastResult, pr prices, u float64, o lp.Options, budget int) bool {
	sr.end, sr.cut = searchProved, u
	r, better := in.fix(pr, fast.LPFill, u, sr.tol, &sr.bufs.fix)
	if !better {
		return false // nothing beats u
	}
	need := fast.LPFill - r.fill
	root := relax(r.sub, fast.root.ord.restrict(r.jobs, in.Jobs()))
	switch {
	case root.fill() < need:
		sr.nodes++ // the fixed jobs leave K(t) unreachable
		return false
	case root.fill() > need: // impossible: the fixed jobs and a flow of the rest are a flow
		var n int
		sr.best, sr.end, n = branchAndBound(in, fast.root, fast.Solution, o, budget, sr.tol, sr.bufs)
		sr.nodes, sr.red = sr.nodes+n, nil
		return true
	}
	best, end, n := branchAndBound(r.sub, root, Solution{Objective: u - r.cost, Fill: need}, o, budget, sr.tol, sr.bufs)
	sr.end, sr.nodes = end, sr.nodes+n
	if best.Type == nil {
		return false
	}
	sr.best = Solution{Type: slices.Clone(r.fixed)}
	for k, j := range r.jobs {
		sr.best.Type[j] = best.Type[k]
	}
	in.evaluate(&sr.best)
	return false
}
