package fft

import (
	"math"
	"sort"
)

// The fast path: the LP relaxation solved exactly as a transportation
// problem, then rounded.
//
// Writing y[j][i] = d_j·x[j][i] (GPUs of type i given to job j) turns the
// relaxation of the round's program (x ∈ [0,1] instead of {0,1}) into
//
//	minimise Σ c[j][i]/d_j · y[j][i]
//	subject to Σ_i y[j][i] ≤ d_j,  Σ_j y[j][i] ≤ Υ_i,  Σ y ≥ K,  y ≥ 0,
//
// a transportation problem with integral supplies d_j and capacities Υ_i,
// whose optimal vertices are integral in y: whole GPUs, though a job may get
// fewer than d_j of them or GPUs of two types. With K(t) the largest fill
// (Eq. 7), the relaxation is a min-cost max-flow, which successive shortest
// paths solve exactly: each augmentation moves GPU units of jobs along the
// cheapest path "not running → type a → type b → … → a type with a free
// GPU", where an arc a→b moves one unit of the job j currently on a with the
// smallest c[j][b]/d_j − c[j][a]/d_j (one heap per ordered pair of types, so
// a path search costs O(types³), not O(jobs)). The per-unit path costs come
// out in non-decreasing order, which gives the relaxation's optimum for every
// fill value at once (Bound).
//
// Rounding: jobs the relaxation runs whole on one type keep that type; the
// others (Split: the relaxation ran them partly or on two types — the
// marginal jobs at some type's capacity) are dropped, and the GPUs left free
// are filled greedily from every job not yet placed, once cheapest per GPU
// first and once largest gang first, keeping the better result (more GPUs
// filled, then the lower objective). A second start dives: it fixes each
// split job on the type holding most of its GPUs (or forbids that type when
// the gang no longer fits there) and solves the relaxation of the rest
// again, until nothing is split (at most maxDives relaxations); the better
// completed start is kept. A local search then moves the split jobs, and the
// multi-GPU jobs left out or running on a dearer type than their cheapest,
// to each other type, evicting the jobs there that lose least by moving,
// and keeps every improvement (at most maxPasses passes). When every gang is
// 1 the relaxation is integral, nothing is split and the fast path is exact.

// FastResult is the fast path's outcome.
type FastResult struct {
	Solution
	// LPFill is the largest Σ_j d_j·x[j][i] the relaxation reaches, an
	// upper bound on K(t); Fill == LPFill proves Fill is K(t).
	LPFill int
	// Bound is the relaxation's optimum with the fill row at Solution.Fill:
	// a lower bound on the integer optimum for any K(t) ≥ Fill, so
	// Objective − Bound bounds the fast path's optimality gap.
	Bound float64
	// Split counts the jobs the relaxation did not place whole.
	Split int

	root *flow // the relaxation, for SolveExactFast
}

// entry is one candidate move of job j along an arc, keyed by its cost.
type entry struct {
	key float64
	j   int32
}

func entryLess(a, b entry) bool {
	if a.key != b.key {
		return a.key < b.key
	}
	return a.j < b.j
}

// entryHeap is a binary min-heap of entries (ties by job index).
type entryHeap []entry

func (h entryHeap) down(i int) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && entryLess(h[r], h[l]) {
			m = r
		}
		if !entryLess(h[m], h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

func (h *entryHeap) push(e entry) {
	*h = append(*h, e)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !entryLess(s[i], s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *entryHeap) pop() {
	s := *h
	n := len(s) - 1
	s[0] = s[n]
	*h = s[:n]
	(*h).down(0)
}

func (h entryHeap) heapify() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// segment is one augmentation: units GPUs at cost per GPU.
type segment struct {
	units int
	cost  float64
}

// flow is the successive-shortest-path state. Node Types is "not running".
type flow struct {
	in    *Instance
	t     int     // types
	nodes int     // types + 1
	units []int32 // units[j*nodes+a]: GPUs of job j at node a
	load  []int   // GPUs in use per type
	heaps []entryHeap
	segs  []segment
}

// perGPU is c[j][i]/d_j.
func (f *flow) perGPU(j, i int) float64 {
	return f.in.Cost[j*f.t+i] / float64(f.in.Gang[j])
}

// heap is the arc a→b's heap (a may be the idle node; b is a type).
func (f *flow) heap(a, b int) *entryHeap { return &f.heaps[a*f.t+b] }

// arrive records that job j now has GPUs on type a: it becomes a candidate
// for the arcs a→b.
func (f *flow) arrive(j, a int) {
	base := f.perGPU(j, a)
	for b := range f.t {
		if b != a && f.in.OK[j*f.t+b] {
			f.heap(a, b).push(entry{f.perGPU(j, b) - base, int32(j)})
		}
	}
}

// top is the cheapest valid move along a→b (lazy deletion of jobs that
// have left a).
func (f *flow) top(a, b int) (entry, bool) {
	h := f.heap(a, b)
	for len(*h) > 0 {
		e := (*h)[0]
		if f.units[int(e.j)*f.nodes+a] > 0 {
			return e, true
		}
		h.pop()
	}
	return entry{}, false
}

// relaxTol is the relative improvement below which Bellman–Ford does not
// relax an arc, so rounding noise cannot create a negative cycle.
const relaxTol = 1e-12

// lpRelaxation runs successive shortest paths to the maximum flow.
func lpRelaxation(in *Instance) *flow {
	t, n := in.Types, in.Jobs()
	f := &flow{in: in, t: t, nodes: t + 1, units: make([]int32, n*(t+1)), load: make([]int, t),
		heaps: make([]entryHeap, (t+1)*t)}
	idle := t
	for j, d := range in.Gang {
		f.units[j*f.nodes+idle] = int32(d)
	}
	for b := range t {
		h := make(entryHeap, 0, n)
		for j := range n {
			if in.OK[j*t+b] {
				h = append(h, entry{f.perGPU(j, b), int32(j)})
			}
		}
		h.heapify()
		*f.heap(idle, b) = h
	}
	dist := make([]float64, f.nodes)
	pred := make([]int, f.nodes)
	predJ := make([]int32, f.nodes)
	type arc struct{ a, b, j int }
	var path []arc
	for {
		for a := range dist {
			dist[a] = math.Inf(1)
		}
		dist[idle] = 0
		for range f.nodes {
			changed := false
			for a := range f.nodes {
				if math.IsInf(dist[a], 1) {
					continue
				}
				for b := range t {
					if b == a {
						continue
					}
					e, ok := f.top(a, b)
					if !ok {
						continue
					}
					if nd := dist[a] + e.key; nd < dist[b]-relaxTol*(1+math.Abs(nd)) {
						dist[b], pred[b], predJ[b] = nd, a, e.j
						changed = true
					}
				}
			}
			if !changed {
				break
			}
		}
		best := -1
		for b := range t {
			if f.load[b] < in.Cap[b] && !math.IsInf(dist[b], 1) && (best < 0 || dist[b] < dist[best]) {
				best = b
			}
		}
		if best < 0 {
			return f
		}
		path = path[:0]
		for cur, steps := best, 0; cur != idle; steps++ {
			if steps > f.nodes {
				return f // a cycle from rounding noise: stop at this flow
			}
			path = append(path, arc{pred[cur], cur, int(predJ[cur])})
			cur = pred[cur]
		}
		delta := in.Cap[best] - f.load[best]
		for _, p := range path {
			delta = min(delta, int(f.units[p.j*f.nodes+p.a]))
		}
		for _, p := range path {
			f.units[p.j*f.nodes+p.a] -= int32(delta)
			was := f.units[p.j*f.nodes+p.b]
			f.units[p.j*f.nodes+p.b] += int32(delta)
			if was == 0 {
				f.arrive(p.j, p.b)
			}
		}
		f.load[best] += delta
		f.segs = append(f.segs, segment{delta, dist[best]})
	}
}

// fill is the relaxation's total flow.
func (f *flow) fill() int {
	s := 0
	for _, l := range f.load {
		s += l
	}
	return s
}

// bound is the relaxation's optimum with the fill row Σ y ≥ k: the path
// costs are non-decreasing, so it is the cost of the first max(k, v0) units,
// v0 being the units of negative cost.
func (f *flow) bound(k int) float64 {
	v0 := 0
	for _, s := range f.segs {
		if s.cost >= 0 {
			break
		}
		v0 += s.units
	}
	left := max(k, v0)
	c := 0.0
	for _, s := range f.segs {
		if left <= 0 {
			break
		}
		u := min(left, s.units)
		c += float64(u) * s.cost
		left -= u
	}
	return c
}

// SolveFast is the fast path: the exact LP relaxation, rounded (see above).
func SolveFast(in *Instance) FastResult {
	f := lpRelaxation(in)
	res := FastResult{LPFill: f.fill(), root: f}
	typ, split := f.round()
	res.Split = len(split)
	r := newRounder(in, typ)
	if len(split) > 0 {
		// Dive: fix the split jobs and solve the relaxation again, until it
		// is integral; keep whichever start completes better.
		if dtyp, ok := dive(in, f); ok {
			d := newRounder(in, dtyp)
			d.try(nil)
			r.try(nil)
			if better(d.cur, r.cur) {
				r = d
			}
		}
	}
	r.search(split)
	res.Solution = r.cur
	res.Bound = f.bound(res.Fill)
	return res
}

// round splits the relaxation's jobs into those it runs whole on one type
// (typ[j] is that type, else −1) and those it runs partly (split).
func (f *flow) round() (typ, split []int) {
	typ = make([]int, f.in.Jobs())
	for j, d := range f.in.Gang {
		typ[j] = -1
		part := false
		for i := range f.t {
			switch u := int(f.units[j*f.nodes+i]); {
			case u == d:
				typ[j] = i
			case u > 0:
				part = true
			}
		}
		if part {
			split = append(split, j)
		}
	}
	return typ, split
}

// maxDives bounds the relaxations dive solves.
const maxDives = 4

// dive fixes each split job of the relaxation f on the type holding most of
// its GPUs when the whole gang still fits there (else forbids that type to
// it), solves the relaxation of what is left again, and repeats until no
// job is split. It returns the integral x (the fixed jobs and the last
// relaxation's whole ones), or false after maxDives relaxations.
func dive(in *Instance, f *flow) ([]int, bool) {
	t, n := in.Types, in.Jobs()
	sub := &Instance{Types: t, Cap: append([]int(nil), in.Cap...), Gang: in.Gang, Cost: in.Cost,
		OK: append([]bool(nil), in.OK...)}
	fixed := make([]int, n)
	for j := range fixed {
		fixed[j] = -1
	}
	for range maxDives {
		typ, split := f.round()
		if len(split) == 0 {
			for j, i := range fixed {
				if i >= 0 {
					typ[j] = i
				}
			}
			return typ, true
		}
		sort.SliceStable(split, func(a, b int) bool { return in.Gang[split[a]] > in.Gang[split[b]] })
		for _, s := range split {
			most, at := 0, -1
			for i := range t {
				if u := int(f.units[s*f.nodes+i]); u > most {
					most, at = u, i
				}
			}
			if sub.Cap[at] >= in.Gang[s] {
				fixed[s] = at
				sub.Cap[at] -= in.Gang[s]
				for i := range t {
					sub.OK[s*t+i] = false
				}
			} else {
				sub.OK[s*t+at] = false
			}
		}
		f = lpRelaxation(sub)
	}
	return nil, false
}

// better reports whether a beats b: more GPUs filled, then a lower objective.
func better(a, b Solution) bool {
	if a.Fill != b.Fill {
		return a.Fill > b.Fill
	}
	return a.Objective < b.Objective-1e-12*(1+math.Abs(b.Objective))
}
