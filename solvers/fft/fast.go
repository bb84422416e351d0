package fft

import (
	"math"
	"math/bits"
	"slices"
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
// smallest c[j][b]/d_j − c[j][a]/d_j (each arc's jobs sorted by that once,
// the valid ones marked in a bit set per arc, so the cheapest is the first
// mark and a path search costs O(types³), not O(jobs)). The
// per-unit path costs come out in non-decreasing order, which gives the
// relaxation's optimum for every fill value at once (Bound).
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
	ord   *order  // the moves along each arc, cheapest first
	// cand marks, per arc a→b (a*t+b, a = t the idle node), the jobs of
	// the arc's order that are valid moves along it: bit c of the words
	// cand[off[k]:off[k+1]] is set when job ord.arcs[k][c] has GPUs on a
	// and may run on b. After them, for each type a (k = (t+1)*t + a),
	// the jobs of the arc idle→a's order (cheapest per GPU on a first)
	// that have GPUs on a.
	cand []uint64
	off  []int
	segs []segment
	// warm: the flow was solved from another's (warm.go), so segs do not
	// start from zero flow and only the whole flow's cost is known.
	warm bool
	res  *residual // cancel's graph and buffers (warm.go), nil until used
	aug  *augBufs  // augment's, nil until used
}

// augBufs are augment's slices, kept with a flow reused for another node.
type augBufs struct {
	dist  []float64
	pred  []int
	predJ []int32
	arcs  []entry
	dirty []bool
	path  []pathArc
}

// pathArc is an arc of an augmenting path: a unit of job j from a to b.
type pathArc struct{ a, b, j int }

// perGPU is c[j][i]/d_j.
func (f *flow) perGPU(j, i int) float64 {
	return f.ord.per[j*f.t+i]
}

// sync brings job j's marks on the arcs out of node a up to date: set
// where it has GPUs on a and may run on the arc's head, clear elsewhere.
func (f *flow) sync(j, a int) {
	t := f.t
	on := f.units[j*f.nodes+a] > 0
	pos := f.ord.pos[j*len(f.ord.arcs) : (j+1)*len(f.ord.arcs)]
	if a < t {
		if p := pos[t*t+a]; p >= 0 {
			f.mark((t+1)*t+a, p, on)
		}
	}
	for b := range t {
		if p := pos[a*t+b]; b != a && p >= 0 {
			f.mark(a*t+b, p, on && f.in.OK[j*t+b])
		}
	}
}

// mark sets (or clears) bit p of the marks at k (cand[off[k]:off[k+1]]).
func (f *flow) mark(k int, p int32, set bool) {
	w, bit := &f.cand[f.off[k]+int(p>>6)], uint64(1)<<(p&63)
	if set {
		*w |= bit
	} else {
		*w &^= bit
	}
}

// top is the cheapest valid move along a→b: the first job of the arc's
// order that has GPUs on a and may run on b, its first marked one.
func (f *flow) top(a, b int) (entry, bool) {
	k := a*f.t + b
	words := f.cand[f.off[k]:f.off[k+1]]
	for w, x := range words {
		if x == 0 {
			continue
		}
		j := int(f.ord.arcs[k][w<<6+bits.TrailingZeros64(x)])
		key := f.perGPU(j, b)
		if a != f.t {
			key -= f.perGPU(j, a)
		}
		return entry{key, int32(j)}, true
	}
	return entry{}, false
}

// order lists, per arc a→b (a a type or the idle node, b a type), the
// jobs that may run on b (and on a) by the cost of moving a GPU of theirs
// along it, c[j][b]/d_j (− c[j][a]/d_j), ties by job index; pos[j*A+k]
// is j's place in the list of arc k = a*t+b, −1 where absent (A = len(arcs):
// a job's places side by side, as sync reads them); per[j*t+i] is
// c[j][i]/d_j.
// It holds for any instance with the same costs and gangs and a subset of
// the flags.
type order struct {
	arcs [][]int32
	pos  []int32
	per  []float64
}

// newOrder is in's order.
func newOrder(in *Instance) *order {
	t, n := in.Types, in.Jobs()
	na := (t + 1) * t
	ord := &order{arcs: make([][]int32, na), pos: make([]int32, n*na), per: make([]float64, len(in.Cost))}
	for x := range ord.pos {
		ord.pos[x] = -1
	}
	for j, d := range in.Gang {
		for i := range t {
			ord.per[j*t+i] = in.Cost[j*t+i] / float64(d)
		}
	}
	var moves []entry
	var rs radix
	for a := range t + 1 {
		for b := range t {
			if a == b {
				continue
			}
			moves = moves[:0]
			for j := range in.Gang {
				if !in.OK[j*t+b] || (a < t && !in.OK[j*t+a]) {
					continue
				}
				key := ord.per[j*t+b]
				if a < t {
					key -= ord.per[j*t+a]
				}
				moves = append(moves, entry{key, int32(j)})
			}
			jobs := sortMoves(moves, &rs)
			for c, j := range jobs {
				ord.pos[int(j)*na+a*t+b] = int32(c)
			}
			ord.arcs[a*t+b] = jobs
		}
	}
	return ord
}

// relaxTol is the relative improvement below which Bellman–Ford does not
// relax an arc, so rounding noise cannot create a negative cycle.
const relaxTol = 1e-12

// lpRelaxation runs successive shortest paths to the maximum flow.
func lpRelaxation(in *Instance) *flow { return relax(in, newOrder(in)) }

// restrict is the order of the instance of in's jobs listed in jobs
// (increasing), renumbered 0, 1, … in that order, with the same costs and
// gangs and flags among in's: o's lists without the other jobs, which keeps
// them sorted, ties by (the new) job index included.
func (o *order) restrict(jobs []int, n int) *order {
	idx := make([]int32, n)
	for j := range idx {
		idx[j] = -1
	}
	for k, j := range jobs {
		idx[j] = int32(k)
	}
	na := len(o.arcs)
	r := &order{arcs: make([][]int32, na), pos: make([]int32, len(jobs)*na)}
	for x := range r.pos {
		r.pos[x] = -1
	}
	t := 0
	if n > 0 {
		t = len(o.per) / n
	}
	r.per = make([]float64, 0, len(jobs)*t)
	for _, j := range jobs {
		r.per = append(r.per, o.per[j*t:(j+1)*t]...)
	}
	// The lists in one array, each with room for at most as many jobs as
	// it had or as there are.
	room := 0
	for _, list := range o.arcs {
		room += min(len(list), len(jobs))
	}
	all := make([]int32, 0, room)
	for k, list := range o.arcs {
		if list == nil {
			continue // a→a
		}
		from := len(all)
		for _, j := range list {
			if idx[j] >= 0 {
				all = append(all, idx[j])
			}
		}
		if len(all) == from {
			continue // none kept: nil, as a list with none appended
		}
		kept := all[from:len(all):len(all)]
		for c, j := range kept {
			r.pos[int(j)*na+k] = int32(c)
		}
		r.arcs[k] = kept
	}
	return r
}

// relax is lpRelaxation with the order of an instance of the same costs
// and gangs whose flags include in's.
func relax(in *Instance, ord *order) *flow {
	t, n := in.Types, in.Jobs()
	f := &flow{in: in, t: t, nodes: t + 1, units: make([]int32, n*(t+1)), load: make([]int, t),
		ord: ord, off: make([]int, (t+2)*t+1)}
	for k := range (t + 2) * t {
		list := t*t + k%t // the marks of the jobs on a type: idle→a's order
		if k < (t+1)*t {
			list = k
		}
		f.off[k+1] = f.off[k] + (len(ord.arcs[list])+63)>>6
	}
	f.cand = make([]uint64, f.off[(t+2)*t])
	idle := t
	for j, d := range in.Gang {
		f.units[j*f.nodes+idle] = int32(d)
		f.sync(j, idle) // no job on a type yet
	}
	f.augment()
	return f
}

// augment runs successive shortest paths from f's flow, which must be of
// least cost for its value, to the maximum flow.
func (f *flow) augment() {
	in, t, idle := f.in, f.t, f.t
	if f.aug == nil {
		f.aug = &augBufs{}
	}
	ab := f.aug
	ab.dist, ab.pred, ab.predJ = grow(ab.dist, f.nodes), grow(ab.pred, f.nodes), grow(ab.predJ, f.nodes)
	ab.arcs, ab.dirty = grow(ab.arcs, f.nodes*t), grow(ab.dirty, f.nodes)
	dist, pred, predJ := ab.dist, ab.pred, ab.predJ
	// arcs[a*t+b] is the cheapest move along a→b (key +Inf where none);
	// an augmentation changes only the arcs out of the nodes on its path.
	arcs := ab.arcs
	for a := range f.nodes {
		f.cheapest(a, arcs[a*t:(a+1)*t])
	}
	path := ab.path[:0]
	defer func() { ab.path = path }()
	// dirty[a]: dist[a] changed since a's arcs were last relaxed (relaxing
	// them again could change nothing: dist only falls).
	dirty := ab.dirty
	for {
		for a := range dist {
			dist[a], dirty[a] = math.Inf(1), false
		}
		dist[idle], dirty[idle] = 0, true
		for range f.nodes {
			changed := false
			for a := range f.nodes {
				if !dirty[a] {
					continue
				}
				dirty[a] = false
				for b, e := range arcs[a*t : (a+1)*t] {
					if math.IsInf(e.key, 1) {
						continue
					}
					if nd := dist[a] + e.key; nd < dist[b]-relaxTol*(1+math.Abs(nd)) {
						dist[b], pred[b], predJ[b], dirty[b] = nd, a, e.j, true
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
			return
		}
		path = path[:0]
		for cur, steps := best, 0; cur != idle; steps++ {
			if steps > f.nodes {
				return // a cycle from rounding noise: stop at this flow
			}
			path = append(path, pathArc{pred[cur], cur, int(predJ[cur])})
			cur = pred[cur]
		}
		delta := in.Cap[best] - f.load[best]
		for _, p := range path {
			delta = min(delta, int(f.units[p.j*f.nodes+p.a]))
		}
		for _, p := range path {
			f.units[p.j*f.nodes+p.a] -= int32(delta)
			f.units[p.j*f.nodes+p.b] += int32(delta)
		}
		f.load[best] += delta
		f.segs = append(f.segs, segment{delta, dist[best]})
		for _, p := range path {
			f.sync(p.j, p.a)
			f.sync(p.j, p.b)
		}
		for _, p := range path {
			f.cheapest(p.a, arcs[p.a*t:(p.a+1)*t])
			f.cheapest(p.b, arcs[p.b*t:(p.b+1)*t])
		}
	}
}

// cheapest fills row[b] with the cheapest valid move along a→b for every
// type b, key +Inf where there is none (b = a included).
func (f *flow) cheapest(a int, row []entry) {
	for b := range row {
		row[b] = entry{key: math.Inf(1)}
		if b == a {
			continue
		}
		if e, ok := f.top(a, b); ok {
			row[b] = e
		}
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
	return f.roundIn(make([]int, f.in.Jobs()), nil)
}

// roundIn is round with typ in typ (of f's jobs' length) and split
// appended to split[:0].
func (f *flow) roundIn(typ, split []int) ([]int, []int) {
	split = split[:0]
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
		// A new instance each time: f's stays as it was for warmed.
		sub = &Instance{Types: t, Cap: slices.Clone(sub.Cap), Gang: in.Gang, Cost: in.Cost, OK: slices.Clone(sub.OK)}
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
		f = f.warmed(sub)
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
