package gavel

import (
	"container/heap"
	"fmt"
	"math"
	"sort"
	"time"

	"fairbench/models"
	"fairbench/solvers"
)

// gavel-allox is the one policy of Gavel's scheduler/policies/ whose
// objective is the mean job completion time: allox.py (AlloX_Perf), Gavel's
// rendering of AlloX (Le et al., "AlloX: Compute Allocation in Hybrid
// Clusters", EuroSys 2020). FFT (Mo, Xu, Lau, ICS 2025) runs Gavel with "its
// SJF-like policy, the best Gavel policy for JCT"; allox.py is that policy:
// shortest processing time first, generalised to GPU types of different
// speed. docs/algorithms/gavel-allox.md states it with its sources.
//
// At a decision, jobs that already hold a GPU type keep it until they finish
// (non-preemptive). The waiting jobs, oldest first and at most max(α·m, n)
// of them (m waiting jobs, n free GPUs), are matched to the free GPUs by a
// minimum-cost assignment in which the job placed k-th from the end of a
// GPU's queue costs k times its processing time there,
//
//	minimise  Σ_j k_j·p[j][i_j],   p[j][i] = remaining steps_j / T[j][i]
//
// the classic reduction of R||ΣC_j (mean completion time on unrelated
// machines) to a matching (Horn, Operations Research 1973; Bruno, Coffman,
// Sethi, CACM 1974): on each GPU the jobs run shortest first. The job first
// in each GPU's queue starts now; the rest wait for the next recomputation.
// Gavel's allox.py adds each job's time since arrival to every column of its
// row, which shifts every assignment of that job by the same amount and so
// changes nothing; it is left out.
//
// Gavel recomputes an allocation only after arrivals and completions; so
// does gavel-allox, at the next round start, as Gavel's mechanism does.
// The matching may leave GPUs idle (a short job queued behind another on a
// fast type rather than run on a slow one); Gavel's round mechanism fills
// GPUs left over in a round with runnable jobs, and so does gavel-allox:
// for that round only, waiting jobs shortest first on the fastest type with
// room, without holding it.
//
// Gangs. allox.py asserts that every job has scale factor 1. fairbench's
// extension for gangs: a GPU type's free GPUs are its machines; a job of
// gang d is matched like any job (one position on one machine) but costs
// d·p (its GPU-time, so that a wide job ranks like d narrow ones) and may
// only use a type with at least d free GPUs; the jobs first in their
// machine's queue then start shortest first while their gang fits the
// type's free GPUs, and GPUs left over go to the type's other matched jobs,
// earliest position first. With every gang 1 this is allox.py exactly.

// Registered name and summary.
const (
	AlloXName    = "gavel-allox"
	AlloXSummary = "Gavel's mean-JCT policy (allox.py, AlloX): non-preemptive matching of waiting jobs to free GPUs by position × processing time, shortest first on each GPU type"
)

// DefaultAlpha is allox.py's default α: every waiting job is considered.
const DefaultAlpha = 1.0

// AlloXOptions are gavel-allox's options.
//
//	alpha: 1   consider the oldest max(α·m, n) of the m waiting jobs (n free GPUs)
type AlloXOptions struct {
	Alpha float64 `mapstructure:"alpha"`
}

// AlloX is gavel-allox. Build one per simulation run: it keeps each job's
// GPU type between decisions. It is not safe for concurrent use.
type AlloX struct {
	alpha  float64
	typeOf map[models.JobID]string // jobs holding a type, until they finish
	active map[models.JobID]bool   // the active jobs at the last decision
	last   time.Duration
	seen   bool
}

var (
	_ solvers.Policy    = (*AlloX)(nil)
	_ solvers.Triggered = (*AlloX)(nil)
)

// NewAlloX builds gavel-allox, refusing α outside (0, 1].
func NewAlloX(c solvers.Config) (solvers.Policy, error) {
	o := AlloXOptions{Alpha: DefaultAlpha}
	if err := decode(AlloXName, c, &o); err != nil {
		return nil, err
	}
	if !(o.Alpha > 0 && o.Alpha <= 1) {
		return nil, fmt.Errorf("%s: options: alpha must lie in (0, 1], got %v", AlloXName, o.Alpha)
	}
	return &AlloX{alpha: o.Alpha}, nil
}

// Name is "gavel-allox".
func (*AlloX) Name() string { return AlloXName }

// Triggers is models.AtRound: Gavel decides at round starts.
func (*AlloX) Triggers() models.Trigger { return models.AtRound }

// Allocate keeps every job that holds a type on it and, when the active jobs
// changed or idle GPUs could take a waiting job, matches the waiting jobs
// to the free GPUs.
func (a *AlloX) Allocate(s *models.Snapshot) (models.Allocation, error) {
	if a.seen && s.Now < a.last {
		a.typeOf, a.active = nil, nil // a new run
	}
	if a.typeOf == nil {
		a.typeOf, a.active = map[models.JobID]string{}, map[models.JobID]bool{}
	}
	a.last, a.seen = s.Now, true
	present := make(map[models.JobID]bool, len(s.Jobs))
	changed := len(s.Jobs) != len(a.active)
	for i := range s.Jobs {
		id := s.Jobs[i].ID
		present[id] = true
		changed = changed || !a.active[id]
	}
	for id := range a.typeOf {
		if !present[id] {
			delete(a.typeOf, id)
		}
	}
	a.active = present

	free := map[string]int{}
	for _, g := range s.Cluster.TypeNames() {
		free[g] = s.Cluster.Capacity(g)
	}
	var waiting []*models.JobState
	for i := range s.Jobs {
		j := &s.Jobs[i]
		if g, ok := a.typeOf[j.ID]; ok {
			free[g] -= j.Gang
		} else {
			waiting = append(waiting, j)
		}
	}
	if changed {
		for id, g := range a.match(s, waiting, free) {
			a.typeOf[id] = g
		}
	}
	// The held jobs, then the leftover GPUs of this round.
	p := solvers.NewPacker(s)
	held := func(_ *models.Snapshot, j *models.JobState, _ map[string]int) (string, bool) {
		g, ok := a.typeOf[j.ID]
		return g, ok
	}
	var rest []*models.JobState
	for i := range s.Jobs {
		j := &s.Jobs[i]
		if _, ok := a.typeOf[j.ID]; ok {
			p.Place(j, held)
		} else {
			rest = append(rest, j)
		}
	}
	sort.SliceStable(rest, func(x, y int) bool { return bestTime(s, rest[x]) < bestTime(s, rest[y]) })
	p.PlaceAll(rest, solvers.Fastest, false)
	return models.Allocation{Run: p.Assignments()}, nil
}

// bestTime is j's remaining processing time on its fastest type (+Inf
// where none can run it).
func bestTime(s *models.Snapshot, j *models.JobState) float64 {
	if _, t := s.BestThroughput(&j.Job); t > 0 {
		return j.Remaining() / t
	}
	return math.Inf(1)
}

// match assigns waiting jobs to free GPUs (see the file comment) and returns
// the jobs that start now with their type.
func (a *AlloX) match(s *models.Snapshot, waiting []*models.JobState, free map[string]int) map[models.JobID]string {
	n := 0
	var types []string
	for _, g := range s.Cluster.TypeNames() {
		if free[g] > 0 {
			n += free[g]
			types = append(types, g)
		}
	}
	if n == 0 || len(waiting) == 0 {
		return nil
	}
	// The oldest max(α·m, n) waiting jobs (allox.py sorts by time since
	// arrival, longest first).
	jobs := append([]*models.JobState(nil), waiting...)
	sort.SliceStable(jobs, func(x, y int) bool {
		if jobs[x].Arrival != jobs[y].Arrival {
			return jobs[x].Arrival < jobs[y].Arrival
		}
		return jobs[x].ID < jobs[y].ID
	})
	jobs = jobs[:min(len(jobs), max(int(a.alpha*float64(len(jobs))), n))]

	m := len(jobs)
	cost := make([][]float64, m) // d·p[j][t], +Inf where type t cannot take j
	for k, j := range jobs {
		cost[k] = make([]float64, len(types))
		for t, g := range types {
			cost[k][t] = math.Inf(1)
			if tp := s.Throughput(&j.Job, g); tp > 0 && j.Gang <= free[g] {
				cost[k][t] = float64(j.Gang) * j.Remaining() / tp
			}
		}
	}
	machines := make([]int, len(types))
	for t, g := range types {
		machines[t] = free[g]
	}
	level := positionMatch(cost, machines)

	// Per type: the jobs first in their machine's queue start, shortest
	// first while their gang fits; then the other matched jobs, earliest
	// position first.
	out := map[models.JobID]string{}
	for t, g := range types {
		var on []int
		count := map[int]int{} // jobs per level
		for k := range jobs {
			if level[k].typ == t {
				on = append(on, k)
				count[level[k].pos]++
			}
		}
		// A level-k job is first on its machine when fewer machines reach
		// level k+1 than level k: (count[k] − count[k+1]) of the level's
		// jobs, the shortest ones.
		sort.SliceStable(on, func(x, y int) bool {
			lx, ly := level[on[x]], level[on[y]]
			if lx.pos != ly.pos {
				return lx.pos > ly.pos
			}
			return cost[on[x]][t] < cost[on[y]][t]
		})
		var first, rest []int
		seenAt := map[int]int{}
		for _, k := range on {
			p := level[k].pos
			// Jobs at a level are sorted shortest first; the last
			// count[p+1] of them continue below a level-(p+1) job.
			if seenAt[p] < count[p]-count[p+1] {
				first = append(first, k)
			} else {
				rest = append(rest, k)
			}
			seenAt[p]++
		}
		sort.SliceStable(first, func(x, y int) bool { return cost[first[x]][t] < cost[first[y]][t] })
		left := free[g]
		for _, k := range append(first, rest...) {
			if jobs[k].Gang <= left {
				out[jobs[k].ID] = g
				left -= jobs[k].Gang
			}
		}
	}
	return out
}

// slot is a matched job's machine type and position from the end of its
// machine's queue (1 = last to run).
type slot struct{ typ, pos int }

// positionMatch solves the position-indexed assignment exactly: job j placed
// at position k (from the end) of a machine of type t costs k·cost[j][t];
// type t has machines[t] identical machines; every job is placed where some
// cost is finite. It is a minimum-cost flow (source → job → (type,
// position) → sink, the (type, position) node holding machines[t] jobs),
// solved by successive shortest paths with Dijkstra on reduced costs. A
// job with no finite cost gets slot{-1, 0}.
func positionMatch(cost [][]float64, machines []int) []slot {
	m, nt := len(cost), len(machines)
	levels := make([]int, nt) // positions per type: enough for every job
	for t := range machines {
		levels[t] = (m + machines[t] - 1) / machines[t]
	}
	g := newFlowGraph()
	src, sink := g.node(), g.node()
	jobNode := make([]int, m)
	for j := range cost {
		jobNode[j] = g.node()
		g.edge(src, jobNode[j], 1, 0)
	}
	type pos struct{ t, k int }
	var posOf []pos
	first := make([]int, nt) // node of (t, 1)
	for t := range machines {
		for k := 1; k <= levels[t]; k++ {
			v := g.node()
			if k == 1 {
				first[t] = v
			}
			posOf = append(posOf, pos{t, k})
			g.edge(v, sink, machines[t], 0)
		}
	}
	base := 2 + m // the first position node: after source, sink and jobs
	for j := range cost {
		for t := range machines {
			if math.IsInf(cost[j][t], 1) {
				continue
			}
			for k := 1; k <= levels[t]; k++ {
				g.edge(jobNode[j], first[t]+k-1, 1, float64(k)*cost[j][t])
			}
		}
	}
	g.minCostFlow(src, sink, m)
	out := make([]slot, m)
	for j := range cost {
		out[j] = slot{-1, 0}
		for _, e := range g.adj[jobNode[j]] {
			ed := &g.edges[e]
			if ed.to >= base && ed.cap == 0 && ed.orig > 0 {
				p := posOf[ed.to-base]
				out[j] = slot{p.t, p.k}
			}
		}
	}
	return out
}

// flowGraph is a residual graph for minimum-cost flow with unit and small
// integer capacities.
type flowGraph struct {
	adj   [][]int
	edges []flowEdge
}

type flowEdge struct {
	to, cap, orig int
	cost          float64
}

func newFlowGraph() *flowGraph { return &flowGraph{} }

func (g *flowGraph) node() int {
	g.adj = append(g.adj, nil)
	return len(g.adj) - 1
}

// edge adds u→v with capacity c and cost w, and its residual v→u.
func (g *flowGraph) edge(u, v, c int, w float64) {
	g.adj[u] = append(g.adj[u], len(g.edges))
	g.edges = append(g.edges, flowEdge{to: v, cap: c, orig: c, cost: w})
	g.adj[v] = append(g.adj[v], len(g.edges))
	g.edges = append(g.edges, flowEdge{to: u, cap: 0, orig: 0, cost: -w})
}

// minCostFlow pushes up to want units from s to t along successive
// shortest paths (Dijkstra with potentials; every original cost is ≥ 0).
func (g *flowGraph) minCostFlow(s, t, want int) {
	n := len(g.adj)
	pot := make([]float64, n)
	dist := make([]float64, n)
	via := make([]int, n)
	for flow := 0; flow < want; flow++ {
		for i := range dist {
			dist[i], via[i] = math.Inf(1), -1
		}
		dist[s] = 0
		q := &flowQueue{{s, 0}}
		for q.Len() > 0 {
			it := heap.Pop(q).(flowItem)
			if it.d > dist[it.v] {
				continue
			}
			for _, e := range g.adj[it.v] {
				ed := &g.edges[e]
				if ed.cap == 0 {
					continue
				}
				// Reduced costs are ≥ 0 up to rounding; clamp it.
				d := it.d + math.Max(0, ed.cost+pot[it.v]-pot[ed.to])
				if d < dist[ed.to] {
					dist[ed.to], via[ed.to] = d, e
					heap.Push(q, flowItem{ed.to, d})
				}
			}
		}
		if math.IsInf(dist[t], 1) {
			return // no more jobs can be placed
		}
		for v := range pot {
			if !math.IsInf(dist[v], 1) {
				pot[v] += dist[v]
			}
		}
		for v := t; v != s; {
			e := via[v]
			g.edges[e].cap--
			g.edges[e^1].cap++
			v = g.edges[e^1].to
		}
	}
}

type flowItem struct {
	v int
	d float64
}

// flowQueue is a min-heap of (node, distance), ties by node for
// determinism.
type flowQueue []flowItem

func (q flowQueue) Len() int { return len(q) }
func (q flowQueue) Less(i, j int) bool {
	if q[i].d != q[j].d {
		return q[i].d < q[j].d
	}
	return q[i].v < q[j].v
}
func (q flowQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *flowQueue) Push(x any)   { *q = append(*q, x.(flowItem)) }
func (q *flowQueue) Pop() any {
	old := *q
	it := old[len(old)-1]
	*q = old[:len(old)-1]
	return it
}
