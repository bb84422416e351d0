package fft

import (
	"math"
	"math/bits"
	"slices"
)

// A node's relaxation from its parent's flow.
//
// A child of the search differs from its parent by a few jobs: the branch
// fixes one on a type (its gang off that type's capacity) or keeps it out,
// and reduced-cost fixing drops options and fixes the jobs left one. So
// the parent's optimal flow, with the units on dropped options taken back
// to "not running" and the excess of a type over its capacity taken off
// its dearest jobs, is a flow of the child that is nearly optimal. It is
// made of least cost for its value by cancelling negative cycles in the
// residual graph, whose nodes are "not running", the types and the sink
// (a type's free GPUs): moving a GPU of job j from a to b costs
// c[j][b]/d_j − c[j][a]/d_j (the cheapest such j per pair of types, as in
// the successive shortest paths), starting one of j's idle GPUs on b costs
// c[j][b]/d_j, stopping one on a costs −c[j][a]/d_j (the dearest job on
// a), a type with free GPUs reaches the sink and the sink every type with
// GPUs in use, at no cost. With no negative cycle left the flow is of
// least cost for its value (the optimality condition of min-cost flow),
// and the successive shortest paths take it to the maximum flow, of least
// cost: the child's relaxation, as solving it from zero flow would give,
// up to which optimal vertex (the optimum is the same).

// maxCancels bounds the cycles one warm start cancels before it gives up
// and the relaxation is solved from zero flow.
const maxCancels = 1000

// warmed is the relaxation of child, an instance with f's jobs, costs and
// gangs whose capacities and flags are at most f's instance's, solved from
// f's flow (see above). f is left as it was.
func (f *flow) warmed(child *Instance) *flow { return f.warmedIn(child, nil) }

// warmedIn is warmed with the new flow built in spare's slices, a flow of
// an instance of as many jobs that is no longer needed (nil: new ones).
func (f *flow) warmedIn(child *Instance, spare *flow) *flow {
	t := f.t
	c := spare
	if c == nil {
		c = &flow{}
	}
	*c = flow{in: child, t: t, nodes: f.nodes, units: append(c.units[:0], f.units...), load: append(c.load[:0], f.load...),
		ord: f.ord, cand: append(c.cand[:0], f.cand...), off: f.off, segs: c.segs[:0], warm: true, res: c.res, aug: c.aug}
	idle := t
	for j := range child.Gang {
		if slices.Equal(child.OK[j*t:(j+1)*t], f.in.OK[j*t:(j+1)*t]) {
			continue
		}
		row := c.units[j*c.nodes : (j+1)*c.nodes]
		was, now := f.in.OK[j*t:(j+1)*t], child.OK[j*t:(j+1)*t]
		started := false
		for a := range t {
			if row[a] > 0 && !now[a] {
				row[idle] += row[a]
				c.load[a] -= int(row[a])
				row[a] = 0
				c.sync(j, a) // its marks out of a cleared
				started = true
			}
		}
		// Out of the nodes where j has no GPUs its marks are clear, as
		// they were: only those where it has some change with the flags,
		// on the arcs to the types whose flag changed (all of idle's when
		// it got GPUs back).
		for a := range c.nodes {
			switch {
			case row[a] == 0:
			case a == idle && started:
				c.sync(j, a)
			default:
				c.resync(j, a, was, now)
			}
		}
	}
	for a := range t {
		for c.load[a] > child.Cap[a] {
			j, _ := c.dearest(a)
			x := min(int(c.units[j*c.nodes+a]), c.load[a]-child.Cap[a])
			c.units[j*c.nodes+a] -= int32(x)
			c.units[j*c.nodes+idle] += int32(x)
			c.load[a] -= x
			c.sync(j, a)
			c.sync(j, idle)
		}
	}
	if !c.cancel() {
		return relax(child, f.ord)
	}
	c.augment()
	return c
}

// resync is sync(j, a) where j's marks out of a were up to date for its
// flags was and only the flags changed, to now: only the marks on the arcs
// to the types whose flag changed are set again.
func (f *flow) resync(j, a int, was, now []bool) {
	t := f.t
	on := f.units[j*f.nodes+a] > 0
	pos := f.ord.pos[j*len(f.ord.arcs) : (j+1)*len(f.ord.arcs)]
	for b := range t {
		if p := pos[a*t+b]; b != a && was[b] != now[b] && p >= 0 {
			f.mark(a*t+b, p, on && now[b])
		}
	}
}

// dearest is the job on type a with the largest c[j][a]/d_j (the last
// marked job of a's order), false when a runs none.
func (f *flow) dearest(a int) (int, bool) {
	t := f.t
	k := (t+1)*t + a
	words := f.cand[f.off[k]:f.off[k+1]]
	for w := len(words) - 1; w >= 0; w-- {
		if x := words[w]; x != 0 {
			return int(f.ord.arcs[t*t+a][w<<6+63-bits.LeadingZeros64(x)]), true
		}
	}
	return -1, false
}

// residual is the residual graph of cancel over n = types + 2 nodes
// ("not running" = types, the sink = types + 1): cost[a*n+b] of the
// cheapest arc a→b (+Inf where none) and the job it moves, and per node a
// the heads of its finite arcs in increasing order, adj[a*n:a*n+deg[a]],
// with their costs in adjCost. It also holds the buffers of the search for
// a cycle, kept with a flow reused for another node (warmedIn).
type residual struct {
	n       int
	cost    []float64
	job     []int32
	adj     []int32
	adjCost []float64
	deg     []int
	dist    []float64
	pred    []int
	onCycle []bool
	dirty   []bool
	touched []int // the nodes the last push moved jobs at
}

// newResidual is an empty residual graph over n nodes.
func newResidual(n int) *residual {
	return &residual{n: n, cost: make([]float64, n*n), job: make([]int32, n*n), adj: make([]int32, n*n),
		adjCost: make([]float64, n*n), deg: make([]int, n), dist: make([]float64, n), pred: make([]int, n),
		onCycle: make([]bool, n), dirty: make([]bool, n)}
}

// cancel cancels negative cycles of the residual graph (see above) until
// none is left; false after maxCancels, or when no cycle can be traced.
// A push changes only the arcs out of the nodes it moves jobs at and the
// sink's arcs into them, so only those are built again.
func (f *flow) cancel() bool {
	n := f.t + 2
	if f.res == nil || f.res.n != n {
		f.res = newResidual(n)
	}
	g := f.res
	f.arcs(g)
	for i := range maxCancels {
		if i > 0 {
			for _, a := range g.touched {
				f.arcsOut(g, a)
			}
			f.sinkArcs(g)
		}
		last, ok := g.negativeCycle()
		if !ok {
			return false
		}
		if last < 0 {
			return true
		}
		if !f.push(g, last) {
			return true // rounding noise
		}
	}
	return false
}

// arcs fills g with f's residual arcs (see above).
func (f *flow) arcs(g *residual) {
	for a := range f.t + 1 {
		f.arcsOut(g, a)
	}
	f.sinkArcs(g)
}

// arcsOut fills the arcs of g out of node a, a type or the idle node.
func (f *flow) arcsOut(g *residual, a int) {
	t, idle, n := f.t, f.t, g.n
	sink := t + 1
	row := g.cost[a*n : (a+1)*n]
	for b := range row {
		row[b] = math.Inf(1)
	}
	for b := range t {
		if a == b {
			continue
		}
		if e, ok := f.top(a, b); ok {
			row[b], g.job[a*n+b] = e.key, e.j
		}
	}
	if a < t {
		if j, ok := f.dearest(a); ok {
			row[idle], g.job[a*n+idle] = -f.perGPU(j, a), int32(j)
		}
		if f.load[a] < f.in.Cap[a] {
			row[sink] = 0
		}
	}
	g.list(a)
}

// sinkArcs fills the arcs of g out of the sink: to every type running a job.
func (f *flow) sinkArcs(g *residual) {
	t, n := f.t, g.n
	sink := t + 1
	row := g.cost[sink*n : (sink+1)*n]
	for b := range row {
		row[b] = math.Inf(1)
	}
	for a := range t {
		if _, ok := f.dearest(a); ok {
			row[a] = 0
		}
	}
	g.list(sink)
}

// list lists the finite arcs out of a in adj and adjCost.
func (g *residual) list(a int) {
	n := g.n
	d := 0
	for b, v := range g.cost[a*n : (a+1)*n] {
		if !math.IsInf(v, 1) {
			g.adj[a*n+d], g.adjCost[a*n+d] = int32(b), v
			d++
		}
	}
	g.deg[a] = d
}

// negativeCycle is Bellman–Ford from every node at once: a change in the
// n-th pass means a negative cycle, and walking back n steps from the
// node changed lands on it. It returns that node, −1 when there is no
// negative cycle, and false when the walk back breaks off (rounding noise).
// g.pred holds the predecessors.
func (g *residual) negativeCycle() (int, bool) {
	n := g.n
	dist, pred, dirty := g.dist, g.pred, g.dirty
	for a := range dist {
		dist[a], pred[a], dirty[a] = 0, -1, true
	}
	last := -1
	for range n {
		last = -1
		for a := range n {
			if !dirty[a] {
				// dist[a] is as when its arcs were last relaxed: none
				// can lower a distance (they only fall).
				continue
			}
			dirty[a] = false
			da := dist[a] // no arc a→a
			heads := g.adj[a*n : a*n+g.deg[a]]
			costs := g.adjCost[a*n : a*n+len(heads)]
			for x, b := range heads {
				// nd ≥ dist[b] fails the test whatever the tolerance.
				if nd, db := da+costs[x], dist[b]; nd < db && nd < db-relaxTol*(1+math.Abs(nd)) {
					dist[b], pred[b], last, dirty[b] = nd, a, int(b), true
				}
			}
		}
		if last < 0 {
			return -1, true
		}
	}
	for range n {
		if last = pred[last]; last < 0 {
			return 0, false
		}
	}
	return last, true
}

// push sends as many units as it can round the cycle through last (walked
// backwards by g.pred), listing its nodes but the sink in g.touched; false
// when the cycle is not negative beyond rounding noise or carries nothing.
func (f *flow) push(g *residual, last int) bool {
	t, n, sink := f.t, g.n, f.t+1
	pred, onCycle := g.pred, g.onCycle
	clear(onCycle)
	g.touched = g.touched[:0]
	total, delta := 0.0, math.MaxInt
	for b := last; !onCycle[b]; b = pred[b] {
		onCycle[b] = true
		a := pred[b]
		total += g.cost[a*n+b]
		switch {
		case b == sink:
			delta = min(delta, f.in.Cap[a]-f.load[a])
		case a == sink:
			delta = min(delta, f.load[b])
		default:
			delta = min(delta, int(f.units[int(g.job[a*n+b])*f.nodes+a]))
		}
	}
	if total >= -relaxTol*(1+math.Abs(total)) || delta <= 0 {
		return false
	}
	for b := last; onCycle[b]; b = pred[b] {
		onCycle[b] = false
		a := pred[b]
		if b != sink {
			g.touched = append(g.touched, b)
		}
		if a == sink || b == sink {
			continue
		}
		j := int(g.job[a*n+b])
		f.units[j*f.nodes+a] -= int32(delta)
		f.units[j*f.nodes+b] += int32(delta)
		if a < t {
			f.load[a] -= delta
		}
		if b < t {
			f.load[b] += delta
		}
		f.sync(j, a)
		f.sync(j, b)
	}
	return true
}

// optimum is the relaxation's optimum with the fill row at its maximum
// flow: bound(fill()) for a flow solved from zero, the cost of the whole
// flow for a warm one.
func (f *flow) optimum() float64 {
	if !f.warm {
		return f.bound(f.fill())
	}
	c := 0.0
	for j := range f.in.Gang {
		for a := range f.t {
			if u := f.units[j*f.nodes+a]; u > 0 {
				c += float64(u) * f.perGPU(j, a)
			}
		}
	}
	return c
}
