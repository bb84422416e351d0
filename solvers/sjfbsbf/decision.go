package sjfbsbf

import (
	"cmp"
	"math"
	"slices"

	"fairbench/models"
	"fairbench/solvers/sjf"
)

// decision is the state of one Allocate call: who holds which GPU, the
// running jobs a pending job may share with, and caches of per-kind figures
// (slowdowns, accumulation settings) so that a decision costs a few map
// lookups per pending job and kind of running job, not per pair of jobs.
type decision struct {
	p   *Policy
	s   *models.Snapshot
	c   *models.Cluster
	run []models.Assignment

	occ      []int8           // jobs on each GPU: 0, 1 or 2
	idle     []int            // idle GPUs per server
	servers  map[string][]int // the servers of each GPU type, in index order
	idleType map[string]int   // idle GPUs per type
	loneType map[string]int   // GPUs per type held by a lone running job (a candidate partner)
	loneGang map[gangKey]int  // lone running jobs per type and gang

	classes map[classKey]*class
	byType  map[string][]*class // the classes on each type, in key order
	kinds   map[kindKey][]*aClass
	aIDs    int
	models  map[string][]models.JobType // job types by model, for accumulation; built on first use

	// failed memoises "no room": a pending kind (aClass id) found no room in
	// a phase (index) while its GPU type was at this version (version counts
	// the jobs started on each type in this decision). Pending jobs come in
	// SJF order, so a later job of the same kind has at least the same E_a;
	// the pairwise test's passing set only shrinks as E_a grows (threshold
	// is proportional to E_a), and the idle phases do not look at E_a: it
	// finds no room either until something starts on that type. Failures
	// that involve an irregular class (see threshold), or that come from a
	// missing throughput figure at the GPUs chosen, are not memoised.
	failed    map[[2]int]int
	version   map[string]int
	noRoom    bool
	irregular bool

	// The phases (see start), and scratch space reused across pending jobs.
	plain, oneServerFirst []func(*models.JobState, *aClass) *plan
	streamBuf             []stream
	streamPtrs            []*stream
	slots                 [][]slot // per server, for shareOne
}

// gangKey is a GPU type and a gang size.
type gangKey struct {
	gpu  string
	gang int
}

// cand is a running job that holds its GPUs alone: a possible partner.
type cand struct {
	j     *models.JobState
	idx   int     // position in the snapshot (arrival order): ties
	gpus  []int   // sorted
	e     float64 // exclusive remaining time E_b, seconds
	dead  bool    // now shares (or was taken in this decision)
	class *class
}

// classKey groups running jobs that look the same to a pending job: same
// type, gang, placement, accumulation setting and memory on one GPU type.
// Everything the pairwise test needs except E_b depends only on the class.
type classKey struct {
	gpu   string
	job   string
	gang  int
	place models.Placement
	accum int
	mem   float64
}

type class struct {
	key     classKey
	sig     int32   // the kind, for the pair-figure cache
	rate    float64 // steps/s alone at this placement and setting
	members []*cand // sjf-bsbf: by E_b, then arrival; sjf-ffs: by first GPU
	head    int     // members[:head] are all dead
	pairs   []*pairInfo
}

// kindKey is a pending job as the pairwise test sees it, before a GPU type
// is chosen.
type kindKey struct {
	job  string
	gang int
	mem  float64
}

// aClass is a pending kind on one GPU type.
type aClass struct {
	id    int
	sig   int32 // the kind, for the pair-figure cache
	kind  kindKey
	gpu   string
	place models.Placement // nominal: consolidated when the gang fits a server
	rate1 float64          // steps/s alone, whole batch (models.Environment.Throughput)
	job   *models.Job      // a representative, for the models helpers
	acc   []accumSetting   // built on first use
	accOK bool
}

// accumSetting is one gradient-accumulation setting k > 1 of a pending
// kind: its throughput (models.Environment.AccumThroughput at the nominal placement) and
// per-GPU memory (models.Environment.AccumMemory).
type accumSetting struct {
	k    int
	rate float64
	mem  float64
}

// pairInfo is what the pairwise test needs of a pending kind beside a class
// of running jobs.
type pairInfo struct {
	ok       bool    // they may share: not forbidden, and some setting fits in memory
	xia, xib float64 // slowdowns of a beside b and of b beside a
	k        int     // a's accumulation steps while sharing (1: none)
	rate     float64 // a's throughput alone with k
}

func newDecision(p *Policy, s *models.Snapshot) *decision {
	c := s.Cluster
	n := c.TotalGPUs()
	d := &decision{p: p, s: s, c: c,
		occ: make([]int8, n), idle: make([]int, len(c.Servers)),
		servers: map[string][]int{}, idleType: map[string]int{}, loneType: map[string]int{}, loneGang: map[gangKey]int{},
		classes: map[classKey]*class{}, byType: map[string][]*class{}, kinds: map[kindKey][]*aClass{},
		failed: map[[2]int]int{}, version: map[string]int{},
	}
	d.plain = []func(*models.JobState, *aClass) *plan{d.idleAny, d.shareAny}
	d.oneServerFirst = []func(*models.JobState, *aClass) *plan{d.idleOne, d.shareOne, d.idleAny, d.shareAny}
	for i, sv := range c.Servers {
		d.servers[sv.Type] = append(d.servers[sv.Type], i)
		d.idle[i] = sv.GPUs
		d.idleType[sv.Type] += sv.GPUs
	}
	// Running jobs keep their GPUs and setting (non-preemptive).
	for i := range s.Jobs {
		j := &s.Jobs[i]
		if !j.Running() {
			continue
		}
		d.run = append(d.run, models.Assignment{Job: j.ID, Type: j.LastType, GPUs: j.LastGPUs, Accum: j.LastAccum})
		for _, g := range j.LastGPUs {
			d.take(g)
		}
	}
	// Those alone on their GPUs are candidate partners.
	for i := range s.Jobs {
		j := &s.Jobs[i]
		if !j.Running() || !d.alone(j.LastGPUs) {
			continue
		}
		d.addCand(j, i, j.LastType, slices.Sorted(slices.Values(j.LastGPUs)), j.LastAccum, false)
	}
	for _, cls := range d.classes {
		d.byType[cls.key.gpu] = append(d.byType[cls.key.gpu], cls)
		d.sortMembers(cls)
	}
	for _, list := range d.byType {
		slices.SortFunc(list, func(a, b *class) int { return compareKeys(a.key, b.key) })
	}
	return d
}

// take marks GPU g as holding one more job.
func (d *decision) take(g int) {
	if d.occ[g] == 0 {
		srv := d.c.ServerOf(g)
		d.idle[srv]--
		d.idleType[d.c.Servers[srv].Type]--
	}
	d.occ[g]++
}

func (d *decision) alone(gpus []int) bool {
	for _, g := range gpus {
		if d.occ[g] != 1 {
			return false
		}
	}
	return len(gpus) > 0
}

func compareKeys(a, b classKey) int {
	return cmp.Or(cmp.Compare(a.gpu, b.gpu), cmp.Compare(a.job, b.job), cmp.Compare(a.gang, b.gang),
		cmp.Compare(a.place, b.place), cmp.Compare(a.accum, b.accum), cmp.Compare(a.mem, b.mem))
}

// addCand records j, alone on gpus of type typ with accum-step accumulation,
// as a candidate partner. With sorted, the class's order is kept (a job
// started in this decision); otherwise the caller sorts once at the end.
func (d *decision) addCand(j *models.JobState, idx int, typ string, gpus []int, accum int, sorted bool) {
	k := max(accum, 1)
	place := d.placement(gpus)
	key := classKey{gpu: typ, job: j.Type, gang: j.Gang, place: place, accum: k,
		mem: d.s.AccumMemory(&j.Job, k)}
	cls := d.classes[key]
	if cls == nil {
		rate, _ := d.s.AccumThroughput(&j.Job, typ, place, k)
		cls = &class{key: key, rate: rate,
			sig: d.p.sigID(d.s.Matrix, sig{job: j.Type, gpu: typ, gang: j.Gang, place: place})}
		d.classes[key] = cls
		if sorted {
			list := append(d.byType[typ], cls)
			slices.SortFunc(list, func(a, b *class) int { return compareKeys(a.key, b.key) })
			d.byType[typ] = list
		}
	}
	if cls.rate <= 0 {
		return // cannot tell its remaining time: never a partner
	}
	c := &cand{j: j, idx: idx, gpus: gpus, e: j.Remaining() / cls.rate, class: cls}
	d.loneType[typ] += len(gpus)
	d.loneGang[gangKey{typ, j.Gang}]++
	if !sorted {
		cls.members = append(cls.members, c)
		return
	}
	i, _ := slices.BinarySearchFunc(cls.members, c, d.memberOrder)
	cls.members = slices.Insert(cls.members, i, c)
	cls.head = min(cls.head, i) // members[:head] must all be dead
}

// memberOrder orders a class's members: by E_b for sjf-bsbf (the pairwise
// test passes above a threshold and t_con grows with E_b), by first GPU for
// sjf-ffs (first fit); ties by arrival.
func (d *decision) memberOrder(a, b *cand) int {
	if d.p.benefit {
		return cmp.Or(cmp.Compare(a.e, b.e), cmp.Compare(a.idx, b.idx))
	}
	return cmp.Or(cmp.Compare(a.gpus[0], b.gpus[0]), cmp.Compare(a.idx, b.idx))
}

func (d *decision) sortMembers(cls *class) { slices.SortFunc(cls.members, d.memberOrder) }

// kill marks c as sharing from now on.
func (d *decision) kill(c *cand) {
	if c.dead {
		return
	}
	c.dead = true
	d.loneType[c.class.key.gpu] -= len(c.gpus)
	d.loneGang[gangKey{c.class.key.gpu, c.j.Gang}]--
	cls := c.class
	for cls.head < len(cls.members) && cls.members[cls.head].dead {
		cls.head++
	}
}

// placement is Consolidated when gpus lie on one server.
func (d *decision) placement(gpus []int) models.Placement {
	for _, g := range gpus[1:] {
		if d.c.ServerOf(g) != d.c.ServerOf(gpus[0]) {
			return models.Spread
		}
	}
	return models.Consolidated
}

// pendingOrder lists the waiting jobs (indices into s.Jobs) in SJF order:
// ascending remaining time at the best throughput (sjf.RemainingTime), ties
// by arrival, then ID. Jobs no GPU type can run are left out.
func (d *decision) pendingOrder() []int {
	type item struct {
		i       int
		key     float64
		arrival int64
		id      models.JobID
	}
	var items []item
	for i := range d.s.Jobs {
		j := &d.s.Jobs[i]
		if j.Running() {
			continue
		}
		if t := sjf.RemainingTime(d.s, j); !math.IsInf(t, 1) {
			items = append(items, item{i, t, int64(j.Arrival), j.ID})
		}
	}
	slices.SortFunc(items, func(a, b item) int {
		return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.arrival, b.arrival), cmp.Compare(a.id, b.id))
	})
	out := make([]int, len(items))
	for k, it := range items {
		out[k] = it.i
	}
	return out
}

// kindsOf lists j's kind on every GPU type that can run it, fastest first
// (ties in the cluster's type order).
func (d *decision) kindsOf(j *models.JobState) []*aClass {
	kk := kindKey{job: j.Type, gang: j.Gang, mem: d.s.MemoryNeed(&j.Job)}
	if list, ok := d.kinds[kk]; ok {
		return list
	}
	var list []*aClass
	for _, g := range d.c.TypeNames() {
		r := d.s.Throughput(&j.Job, g)
		if r <= 0 {
			continue
		}
		place := models.Consolidated
		if j.Gang > d.c.MaxServerGPUs(g) {
			place = models.Spread
		}
		list = append(list, &aClass{id: d.aIDs, kind: kk, gpu: g, place: place, rate1: r, job: &j.Job,
			sig: d.p.sigID(d.s.Matrix, sig{job: j.Type, gpu: g, gang: j.Gang, place: place})})
		d.aIDs++
	}
	slices.SortStableFunc(list, func(a, b *aClass) int { return cmp.Compare(b.rate1, a.rate1) })
	d.kinds[kk] = list
	return list
}

// accum lists a's accumulation settings k > 1 on its type, ascending k: one
// per job type of the same model measured at the sub-batch BatchSize/k
// (models.Environment.AccumThroughput never extrapolates).
func (d *decision) accum(a *aClass) []accumSetting {
	if a.accOK {
		return a.acc
	}
	a.accOK = true
	jt, ok := d.s.JobTypes[a.job.Type]
	if !ok || jt.Model == "" || jt.BatchSize <= 1 {
		return nil
	}
	if d.models == nil {
		d.models = map[string][]models.JobType{}
		for _, t := range d.s.JobTypes {
			d.models[t.Model] = append(d.models[t.Model], t)
		}
	}
	var ks []int
	for _, o := range d.models[jt.Model] {
		if o.BatchSize > 0 && o.BatchSize < jt.BatchSize && jt.BatchSize%o.BatchSize == 0 {
			ks = append(ks, jt.BatchSize/o.BatchSize)
		}
	}
	slices.Sort(ks)
	ks = slices.Compact(ks)
	for _, k := range ks {
		if r, ok := d.s.AccumThroughput(a.job, a.gpu, a.place, k); ok {
			a.acc = append(a.acc, accumSetting{k: k, rate: r, mem: d.s.AccumMemory(a.job, k)})
		}
	}
	return a.acc
}

// pair is what the test needs of pending kind a beside running class b.
func (d *decision) pair(a *aClass, b *class) *pairInfo {
	if a.id < len(b.pairs) && b.pairs[a.id] != nil {
		return b.pairs[a.id]
	}
	if a.id >= len(b.pairs) {
		b.pairs = append(b.pairs, make([]*pairInfo, a.id+1-len(b.pairs))...)
	}
	info := &pairInfo{}
	b.pairs[a.id] = info
	f := d.p.figures(d.s.Matrix, a.sig, b.sig)
	if f.forbidden {
		return info
	}
	info.xia, info.xib = f.xia, f.xib
	t, _ := d.c.Type(a.gpu)
	fits := func(mem float64) bool { return mem+b.key.mem <= t.MemoryGB } // as models.Feasible
	if fits(d.s.AccumMemory(a.job, 1)) {
		info.ok, info.k, info.rate = true, 1, a.rate1
		return info
	}
	// Memory blocks the pair: pick a's accumulation steps. sjf-bsbf takes
	// the fitting setting with the highest throughput (the lowest E_a(k)),
	// which minimises t_con for every E_b (t_con grows with E_a in both
	// branches); sjf-ffs the first that fits (the smallest k).
	for _, st := range d.accum(a) {
		if !fits(st.mem) {
			continue
		}
		if !info.ok || (d.p.benefit && st.rate > info.rate) {
			info.ok, info.k, info.rate = true, st.k, st.rate
		}
		if !d.p.benefit {
			break
		}
	}
	return info
}

// figs caches, for one policy over a run, what the throughput matrix says
// of two kinds of jobs sharing a GPU, so that a decision looks each pair of
// kinds up once (the matrix is the same at every decision of a run; a
// snapshot with another matrix resets the cache).
type figs struct {
	m     *models.Matrix
	ids   map[sig]int32
	sigs  []sig
	pairs map[[2]int32]pairFigures
}

// sig is a job kind where it runs: what the matrix's pair figures are keyed by.
type sig struct {
	job   string
	gpu   string
	gang  int
	place models.Placement
}

// pairFigures: whether the pair is forbidden, and the slowdowns of the
// first beside the second and of the second beside the first.
type pairFigures struct {
	forbidden bool
	xia, xib  float64
}

// sigID interns a kind.
func (p *Policy) sigID(m *models.Matrix, x sig) int32 {
	if p.cache == nil || p.cache.m != m {
		p.cache = &figs{m: m, ids: map[sig]int32{}, pairs: map[[2]int32]pairFigures{}}
	}
	id, ok := p.cache.ids[x]
	if !ok {
		id = int32(len(p.cache.sigs))
		p.cache.ids[x] = id
		p.cache.sigs = append(p.cache.sigs, x)
	}
	return id
}

// figures is what m says of kind a beside kind b (both interned by sigID
// with the same m).
func (p *Policy) figures(m *models.Matrix, a, b int32) pairFigures {
	k := [2]int32{a, b}
	if f, ok := p.cache.pairs[k]; ok {
		return f
	}
	x, y := p.cache.sigs[a], p.cache.sigs[b]
	f := pairFigures{
		forbidden: zeroPair(m, x.job, x.gang, y.job, x.gpu) || zeroPair(m, y.job, y.gang, x.job, x.gpu),
		xia:       p.slowdown(m, x, y.job),
		xib:       p.slowdown(m, y, x.job),
	}
	p.cache.pairs[k] = f
	return f
}

// slowdown is ξ of kind self beside a job of type other, as the simulator
// computes it: isolated / co-located throughput from the matrix's pair
// figures (at least 1), else the default.
func (p *Policy) slowdown(m *models.Matrix, self sig, other string) float64 {
	k := models.PairKey{Key: models.Key{Job: self.job, GPU: self.gpu, Gang: self.gang, Placement: self.place}, Other: other}
	if v, ok := m.Pair(k); ok && v[0] > 0 {
		return math.Max(1, m.Throughput(k.Key)/v[0])
	}
	return p.xi
}

// zeroPair reports a measured co-located throughput of 0 of self beside
// other, which models.Feasible refuses (it looks the pair up at the
// consolidated placement, as here).
func zeroPair(m *models.Matrix, self string, gang int, other, gpu string) bool {
	v, ok := m.Pair(models.PairKey{Key: models.Key{Job: self, GPU: gpu, Gang: gang}, Other: other})
	return ok && v[0] <= 0
}
