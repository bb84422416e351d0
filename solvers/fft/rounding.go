package fft

import (
	"math"
	"sort"
)

// Rounding search. The rounder holds the current solution and evaluates
// trials as changes to it: a few moves (a job to a type, or out), then a
// greedy completion of the GPUs left free. A trial costs O(types × the
// candidates it reads), not O(jobs); only an improvement copies the
// solution.

const (
	// maxPasses bounds the local search's passes.
	maxPasses = 3
	// maxLeftGangs bounds the multi-GPU jobs left out, and those running
	// on a dearer type than their cheapest, that each pass tries to place
	// besides the split ones.
	maxLeftGangs = 16
)

type repairOrder int

const (
	byCost repairOrder = iota // cheapest per GPU first
	byGang                    // largest gang first, then cheapest per GPU
)

// lazyList is a sorted prefix and a heap of the rest: completions read a
// few entries (the rounding leaves few GPUs free), so the list is sorted
// only as far as they read.
type lazyList struct {
	sorted []int32
	rest   []int32
	less   func(a, b int32) bool
}

func (l *lazyList) down(i int) {
	h := l.rest
	n := len(h)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if c+1 < n && l.less(h[c+1], h[c]) {
			c++
		}
		if !l.less(h[c], h[i]) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// at returns the k-th job in order, drawing from the heap as needed.
func (l *lazyList) at(k int) (int, bool) {
	for len(l.sorted) <= k {
		if len(l.rest) == 0 {
			return 0, false
		}
		l.sorted = append(l.sorted, l.rest[0])
		n := len(l.rest) - 1
		l.rest[0] = l.rest[n]
		l.rest = l.rest[:n]
		l.down(0)
	}
	return int(l.sorted[k]), true
}

type rounder struct {
	in *Instance
	// lists[i][g]: the jobs of gang gangs[g] that the LP rounding left out
	// and that may run on type i, cheapest per GPU first. Jobs it placed
	// and a later improvement evicts are in extra instead.
	gangs []int // distinct gang sizes, largest first
	lists [][]lazyList
	extra []int

	cur     Solution
	free    []int   // cur's free GPUs per type
	members [][]int // cur's jobs per type, by regret (see search) once sorted
	sorted  []bool  // members[i] is sorted
	inPool  []bool  // the job is in lists

	// The trial: overrides of cur.Type for the jobs in changed.
	stamp   []int32
	over    []int
	gen     int32
	changed []int
	evicted []int // jobs the trial's moves took out: completion candidates
	tfree   []int
	pos     [][]int
}

func newRounder(in *Instance, typ []int) *rounder {
	t, n := in.Types, in.Jobs()
	r := &rounder{in: in, tfree: make([]int, t), stamp: make([]int32, n),
		over: make([]int, n), inPool: make([]bool, n)}
	gi := map[int]int{}
	for _, d := range in.Gang {
		if _, ok := gi[d]; !ok {
			gi[d] = 0
			r.gangs = append(r.gangs, d)
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(r.gangs)))
	for g, d := range r.gangs {
		gi[d] = g
	}
	r.lists = make([][]lazyList, t)
	r.pos = make([][]int, t)
	for i := range t {
		r.lists[i] = make([]lazyList, len(r.gangs))
		r.pos[i] = make([]int, len(r.gangs))
		for j := range n {
			if typ[j] < 0 && in.OK[j*t+i] && in.Gang[j] <= in.Cap[i] {
				l := &r.lists[i][gi[in.Gang[j]]]
				l.rest = append(l.rest, int32(j))
				r.inPool[j] = true
			}
		}
		for g := range r.gangs {
			l := &r.lists[i][g]
			i := i
			l.less = func(a, b int32) bool { return r.less(byCost, i, int(a), i, int(b)) }
			for k := len(l.rest)/2 - 1; k >= 0; k-- {
				l.down(k)
			}
		}
	}
	s := Solution{Type: typ}
	in.evaluate(&s)
	r.setCur(s)
	return r
}

// less orders the candidates (job a on type ia) and (job b on type ib).
func (r *rounder) less(o repairOrder, ia, a, ib, b int) bool {
	in := r.in
	if o == byGang && in.Gang[a] != in.Gang[b] {
		return in.Gang[a] > in.Gang[b]
	}
	ca := in.Cost[a*in.Types+ia] / float64(in.Gang[a])
	cb := in.Cost[b*in.Types+ib] / float64(in.Gang[b])
	if ca != cb {
		return ca < cb
	}
	if a != b {
		return a < b
	}
	return ia < ib
}

// setCur makes s the current solution.
func (r *rounder) setCur(s Solution) {
	in := r.in
	r.cur = s
	r.free = append(r.free[:0], in.Cap...)
	r.members = make([][]int, in.Types)
	r.sorted = make([]bool, in.Types)
	r.extra = r.extra[:0]
	for j, i := range s.Type {
		if i >= 0 {
			r.free[i] -= in.Gang[j]
			r.members[i] = append(r.members[i], j)
		} else if !r.inPool[j] {
			r.extra = append(r.extra, j)
		}
	}
}

func (r *rounder) typeOf(j int) int {
	if r.stamp[j] == r.gen {
		return r.over[j]
	}
	return r.cur.Type[j]
}

func (r *rounder) set(j, i int) {
	if r.stamp[j] != r.gen {
		r.stamp[j] = r.gen
		r.changed = append(r.changed, j)
	}
	r.over[j] = i
}

// trial applies moves (job, type or −1) to cur, completes the result
// greedily in order o and returns its objective and fill; the changes stay
// in the overrides until the next trial.
func (r *rounder) trial(moves [][2]int, o repairOrder) (float64, int) {
	in := r.in
	t := in.Types
	r.gen++
	r.changed, r.evicted = r.changed[:0], r.evicted[:0]
	obj, fill := r.cur.Objective, r.cur.Fill
	free := r.tfree
	copy(free, r.free)
	for _, m := range moves {
		j, i := m[0], m[1]
		if k := r.typeOf(j); k >= 0 {
			obj -= in.Cost[j*t+k]
			fill -= in.Gang[j]
			free[k] += in.Gang[j]
		}
		if i >= 0 {
			obj += in.Cost[j*t+i]
			fill += in.Gang[j]
			free[i] -= in.Gang[j]
		} else if !r.inPool[j] {
			r.evicted = append(r.evicted, j)
		}
		r.set(j, i)
	}
	cands := append(r.evicted, r.extra...)
	for _, p := range r.pos {
		clear(p)
	}
	for {
		// The next candidate of each type and gang: a job out of the
		// solution whose gang fits (free GPUs only shrink, so a job
		// skipped once stays out); the best of them in order o.
		bi, bj := -1, -1
		for i := range t {
			if free[i] == 0 {
				continue
			}
			for g, d := range r.gangs {
				if d > free[i] {
					continue
				}
				l, pos := &r.lists[i][g], &r.pos[i][g]
				for {
					j, ok := l.at(*pos)
					if !ok {
						break
					}
					if r.typeOf(j) < 0 {
						if bi < 0 || r.less(o, i, j, bi, bj) {
							bi, bj = i, j
						}
						break
					}
					*pos++
				}
			}
			for _, j := range cands {
				if r.typeOf(j) < 0 && in.Gang[j] <= free[i] && in.OK[j*t+i] && (bi < 0 || r.less(o, i, j, bi, bj)) {
					bi, bj = i, j
				}
			}
		}
		if bi < 0 {
			return obj, fill
		}
		r.set(bj, bi)
		free[bi] -= in.Gang[bj]
		obj += in.Cost[bj*t+bi]
		fill += in.Gang[bj]
	}
}

// try runs the moves completed in each greedy order and makes the best
// result current when it beats cur; it reports whether it did.
func (r *rounder) try(moves [][2]int) bool {
	var best Solution
	found := false
	for _, o := range []repairOrder{byCost, byGang} {
		obj, fill := r.trial(moves, o)
		c := Solution{Objective: obj, Fill: fill}
		if better(c, r.cur) && (!found || better(c, best)) {
			c.Type = append([]int(nil), r.cur.Type...)
			for _, j := range r.changed {
				c.Type[j] = r.over[j]
			}
			best, found = c, true
		}
	}
	if found {
		r.setCur(best)
	}
	return found
}

// search completes the LP rounding greedily, then tries to move each job of
// split — and up to maxLeftGangs multi-GPU jobs left out — to each other
// type it may run on, making room by evicting the jobs there that lose the
// least by moving (see regret), and keeps every change that improves the
// solution.
func (r *rounder) search(split []int) {
	in := r.in
	t := in.Types
	r.try(nil)
	var moves [][2]int
	var regs []jobRegret
	for range maxPasses {
		cands := append(append([]int(nil), split...), r.leftGangs(split)...)
		sort.SliceStable(cands, func(a, b int) bool { return in.Gang[cands[a]] > in.Gang[cands[b]] })
		improved := false
		for _, s := range cands {
			for i := range t {
				if !in.OK[s*t+i] || in.Gang[s] > in.Cap[i] || r.cur.Type[s] == i {
					continue
				}
				if !r.sorted[i] {
					m := r.members[i]
					regs = regs[:0]
					for _, j := range m {
						regs = append(regs, jobRegret{j, r.regret(j, i)})
					}
					sort.SliceStable(regs, func(a, b int) bool {
						if regs[a].reg != regs[b].reg {
							return regs[a].reg < regs[b].reg
						}
						return regs[a].j < regs[b].j
					})
					for x, e := range regs {
						m[x] = e.j
					}
					r.sorted[i] = true
				}
				moves = append(moves[:0], [2]int{s, i}) // from another type, if it runs
				free := r.free[i]
				for _, j := range r.members[i] {
					if free >= in.Gang[s] {
						break
					}
					moves = append(moves, [2]int{j, -1})
					free += in.Gang[j]
				}
				if r.try(moves) {
					improved = true
				}
			}
		}
		if !improved {
			return
		}
	}
}

// jobRegret is a job with its regret on the type it runs on.
type jobRegret struct {
	j   int
	reg float64
}

// regret is what job j, running on type i, loses per GPU by moving to the
// cheapest other type it may run on (+Inf when there is none).
func (r *rounder) regret(j, i int) float64 {
	in := r.in
	t := in.Types
	best := math.Inf(1)
	for k := range t {
		if k != i && in.OK[j*t+k] && in.Gang[j] <= in.Cap[k] {
			best = math.Min(best, in.Cost[j*t+k]-in.Cost[j*t+i])
		}
	}
	return best / float64(in.Gang[j])
}

// leftGangs lists up to maxLeftGangs multi-GPU jobs the current solution
// leaves out, largest gang first, then cheapest per GPU on their best type,
// and up to maxLeftGangs it runs on a type dearer than their cheapest, the
// largest saving per GPU first; none in skip.
func (r *rounder) leftGangs(skip []int) []int {
	in := r.in
	t := in.Types
	skipped := map[int]bool{}
	for _, j := range skip {
		skipped[j] = true
	}
	type cand struct {
		j int
		c float64
	}
	var left, moved []cand
	for j, i := range r.cur.Type {
		if in.Gang[j] == 1 || skipped[j] {
			continue
		}
		c := math.Inf(1)
		for k := range t {
			if in.OK[j*t+k] && in.Gang[j] <= in.Cap[k] {
				c = math.Min(c, in.Cost[j*t+k]/float64(in.Gang[j]))
			}
		}
		switch {
		case math.IsInf(c, 1):
		case i < 0:
			left = append(left, cand{j, c})
		case in.Cost[j*t+i]/float64(in.Gang[j]) > c:
			moved = append(moved, cand{j, c - in.Cost[j*t+i]/float64(in.Gang[j])})
		}
	}
	var out []int
	for _, cs := range [][]cand{left, moved} {
		sort.Slice(cs, func(a, b int) bool {
			if in.Gang[cs[a].j] != in.Gang[cs[b].j] {
				return in.Gang[cs[a].j] > in.Gang[cs[b].j]
			}
			if cs[a].c != cs[b].c {
				return cs[a].c < cs[b].c
			}
			return cs[a].j < cs[b].j
		})
		for _, c := range cs[:min(len(cs), maxLeftGangs)] {
			out = append(out, c.j)
		}
	}
	return out
}
