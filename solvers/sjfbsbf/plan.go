package sjfbsbf

import (
	"cmp"
	"slices"
	"sort"

	"fairbench/models"
)

// memoise turns decision.failed on; tests turn it off to check that it
// changes nothing.
var memoise = true

// plan is where a pending job would start.
type plan struct {
	a        *aClass
	gpus     []int   // sorted
	partners []*cand // running jobs whose GPUs it shares
	k        int     // accumulation steps (1: none)
}

// start tries to place pending job j (s.Jobs[idx]); it waits when no phase
// finds room. The phases, each tried on every GPU type that can run j,
// fastest first:
//
//	sjf-bsbf, sjf-ffs:  idleAny (one server when one holds the gang, else
//	                    spread), then shareAny;
//	*-consolidated:     idleOne, shareOne, idleAny, shareAny (for one GPU
//	                    the same as the plain list).
func (d *decision) start(j *models.JobState, idx int) {
	kinds := d.kindsOf(j)
	phases := d.plain
	if d.p.consolidate && j.Gang > 1 {
		// (For one GPU the two lists are the same: any GPU is one server.)
		phases = d.oneServerFirst
	}
	for pi, phase := range phases {
		for _, a := range kinds {
			key := [2]int{a.id, pi}
			if v, ok := d.failed[key]; ok && v == d.version[a.gpu] && memoise {
				continue // see failed
			}
			d.noRoom = false
			if pl := phase(j, a); pl != nil {
				d.apply(j, idx, pl)
				return
			}
			if d.noRoom {
				d.failed[key] = d.version[a.gpu]
			}
		}
	}
}

// idleOne takes idle GPUs on one server: the fullest server (fewest idle
// GPUs) that holds the gang, ties to the lowest index, as the simulator's
// own placement does.
func (d *decision) idleOne(j *models.JobState, a *aClass) *plan {
	if d.idleType[a.gpu] < j.Gang {
		d.noRoom = true
		return nil
	}
	best := -1
	for _, srv := range d.servers[a.gpu] {
		if n := d.idle[srv]; n >= j.Gang && (best < 0 || n < d.idle[best]) {
			best = srv
		}
	}
	if best < 0 {
		d.noRoom = true
		return nil
	}
	return d.runnable(j, &plan{a: a, gpus: d.idleGPUs(best, j.Gang, nil), k: 1})
}

// idleAny is idleOne, or when no server holds the gang, idle GPUs spread over
// the servers with the most idle GPUs first (the simulator's rule).
func (d *decision) idleAny(j *models.JobState, a *aClass) *plan {
	if pl := d.idleOne(j, a); pl != nil || d.idleType[a.gpu] < j.Gang {
		return pl
	}
	d.noRoom = false // the type has the GPUs: only the placement can fail
	gpus := d.allIdle(a.gpu, j.Gang)
	return d.runnable(j, &plan{a: a, gpus: gpus, k: 1})
}

// allIdle lists up to n idle GPUs of type typ, servers with the most idle
// GPUs first (ties by index), sorted.
func (d *decision) allIdle(typ string, n int) []int {
	srvs := slices.Clone(d.servers[typ])
	sort.SliceStable(srvs, func(x, y int) bool { return d.idle[srvs[x]] > d.idle[srvs[y]] })
	var gpus []int
	for _, srv := range srvs {
		if len(gpus) == n || d.idle[srv] == 0 {
			break
		}
		gpus = d.idleGPUs(srv, n-len(gpus), gpus)
	}
	slices.Sort(gpus)
	return gpus
}

// idleGPUs appends up to n idle GPUs of server srv to out, in index order.
func (d *decision) idleGPUs(srv, n int, out []int) []int {
	first := d.c.FirstGPU(srv)
	for g := first; g < first+d.c.Servers[srv].GPUs && n > 0; g++ {
		if d.occ[g] == 0 {
			out = append(out, g)
			n--
		}
	}
	return out
}

// runnable checks that the job has a measured throughput at the placement
// its GPUs give (a spread gang needs a spread figure) with its setting.
func (d *decision) runnable(j *models.JobState, pl *plan) *plan {
	r, ok := d.s.AccumThroughput(&j.Job, pl.a.gpu, d.placement(pl.gpus), pl.k)
	if !ok || r <= 0 {
		return nil
	}
	return pl
}

// slot is one GPU of an offer, for the one-server search.
type slot struct {
	o   offer
	gpu int
}

// offer is one running job a pending job may share with, ranked by key:
// t_con for sjf-bsbf (lowest first: the best sharing benefit), the first GPU
// for sjf-ffs (first fit); ties by arrival.
type offer struct {
	c   *cand
	key float64
	k   int
}

func (o offer) less(p offer) bool {
	if o.key != p.key {
		return o.key < p.key
	}
	return o.c.idx < p.c.idx
}

// stream walks the members of one class that pass the test, best first.
type stream struct {
	d       *decision
	cls     *class
	info    *pairInfo
	i       int
	eaK     float64 // E_a(k): a's exclusive time with its sharing setting
	ea1     float64 // E_a(1)
	regular bool    // the passing members are a suffix in E_b: no test per member
	cur     offer
	ok      bool
}

// streams opens one stream per class of running jobs on a's type that a may
// share with.
func (d *decision) streams(j *models.JobState, a *aClass) []*stream {
	out := d.streamPtrs[:0]
	d.streamBuf = d.streamBuf[:0]
	d.irregular = false
	rem := j.Remaining()
	for _, cls := range d.byType[a.gpu] {
		if cls.head == len(cls.members) || (d.p.sameGang && cls.key.gang != j.Gang) {
			continue
		}
		info := d.pair(a, cls)
		if !info.ok {
			continue
		}
		d.streamBuf = append(d.streamBuf, stream{d: d, cls: cls, info: info, i: cls.head, regular: true})
		st := &d.streamBuf[len(d.streamBuf)-1]
		if d.p.benefit {
			st.eaK, st.ea1 = rem/info.rate, rem/a.rate1
			var r float64
			r, st.regular = threshold(st.eaK, st.ea1, info.xia, info.xib)
			d.irregular = d.irregular || !st.regular
			if st.regular {
				// The first member with E_b > r; those before it fail.
				st.i = cls.head + sort.Search(len(cls.members)-cls.head, func(n int) bool {
					return cls.members[cls.head+n].e > r
				})
			}
		}
		if !st.advance() {
			d.streamBuf = d.streamBuf[:len(d.streamBuf)-1]
		}
	}
	for i := range d.streamBuf {
		out = append(out, &d.streamBuf[i])
	}
	d.streamPtrs = out
	return out
}

// advance moves to the next live member that passes; false at the end.
func (st *stream) advance() bool {
	for ; st.i < len(st.cls.members); st.i++ {
		c := st.cls.members[st.i]
		if c.dead {
			continue
		}
		if !st.d.p.benefit {
			st.cur, st.ok = offer{c: c, key: float64(c.gpus[0]), k: st.info.k}, true
			st.i++
			return true
		}
		// The closed-form threshold only skips the members that fail; every
		// offer is still checked with the test itself (at the exact
		// boundary t_con = t_seq rounding could go either way).
		tcon, _, pass := Share(st.eaK, st.ea1, c.e, st.info.xia, st.info.xib)
		if pass {
			st.cur, st.ok = offer{c: c, key: tcon, k: st.info.k}, true
			st.i++
			return true
		}
	}
	st.ok = false
	return false
}

// shareAny shares anywhere on a's type. Pairing gangs: shareGang. Pairing
// gpus: every idle GPU of the type, then the GPUs of running jobs that pass
// the test (sjf-ffs: that fit), best benefit first (sjf-ffs: lowest GPU
// first), until the gang is met. Only when the type lacks idle GPUs for the
// whole gang (the idle phases come first).
func (d *decision) shareAny(j *models.JobState, a *aClass) *plan {
	if d.p.sameGang {
		return d.shareGang(j, a, false)
	}
	idle := d.idleType[a.gpu]
	if idle >= j.Gang || idle+d.loneType[a.gpu] < j.Gang {
		d.noRoom = true
		return nil
	}
	need := j.Gang - idle
	ss := d.streams(j, a)
	pl := &plan{a: a, k: 1}
	var gpus []int
	for need > 0 {
		best := -1
		for n, st := range ss {
			if st.ok && (best < 0 || st.cur.less(ss[best].cur)) {
				best = n
			}
		}
		if best < 0 {
			d.noRoom = !d.irregular
			return nil
		}
		o := ss[best].cur
		ss[best].advance()
		take := min(need, len(o.c.gpus))
		gpus = append(gpus, o.c.gpus[:take]...)
		need -= take
		pl.partners = append(pl.partners, o.c)
		pl.k = max(pl.k, o.k)
	}
	if idle > 0 {
		gpus = append(gpus, d.allIdle(a.gpu, idle)...)
	}
	slices.Sort(gpus)
	pl.gpus = gpus
	return d.runnable(j, pl)
}

// shareOne shares on one server. Pairing gangs: shareGang with a partner
// whose gang is on one server. Pairing gpus: a server whose idle GPUs and
// GPUs of passing running jobs hold the whole gang, the one that needs the
// fewest shared GPUs, then whose worst shared GPU is best (lowest t_con, or
// lowest index for sjf-ffs), then the lowest index; on it, idle GPUs first,
// then shared ones best first.
func (d *decision) shareOne(j *models.JobState, a *aClass) *plan {
	if d.p.sameGang {
		return d.shareGang(j, a, true)
	}
	if j.Gang > d.c.MaxServerGPUs(a.gpu) || d.idleType[a.gpu]+d.loneType[a.gpu] < j.Gang {
		d.noRoom = true
		return nil
	}
	if d.slots == nil {
		d.slots = make([][]slot, len(d.c.Servers))
	}
	bySrv := d.slots
	for _, srv := range d.servers[a.gpu] {
		bySrv[srv] = bySrv[srv][:0]
	}
	for _, st := range d.streams(j, a) {
		for ; st.ok; st.advance() {
			for _, g := range st.cur.c.gpus {
				srv := d.c.ServerOf(g)
				bySrv[srv] = append(bySrv[srv], slot{st.cur, g})
			}
		}
	}
	best, bestNeed, bestWorst := -1, 0, offer{}
	for _, srv := range d.servers[a.gpu] {
		need := j.Gang - d.idle[srv]
		slots := bySrv[srv]
		if need <= 0 || len(slots) < need {
			continue // idle-only servers are the idle phases' business
		}
		slices.SortFunc(slots, func(x, y slot) int {
			if x.o.less(y.o) {
				return -1
			}
			if y.o.less(x.o) {
				return 1
			}
			return cmp.Compare(x.gpu, y.gpu)
		})
		worst := slots[need-1].o
		if best < 0 || need < bestNeed || (need == bestNeed && worst.less(bestWorst)) {
			best, bestNeed, bestWorst = srv, need, worst
		}
	}
	if best < 0 {
		d.noRoom = !d.irregular
		return nil
	}
	pl := &plan{a: a, k: 1, gpus: d.idleGPUs(best, d.idle[best], nil)}
	// bySrv[best] is sorted (the loop above sorted every candidate server).
	seen := map[*cand]bool{}
	for _, sl := range bySrv[best][:bestNeed] {
		pl.gpus = append(pl.gpus, sl.gpu)
		if !seen[sl.o.c] {
			seen[sl.o.c] = true
			pl.partners = append(pl.partners, sl.o.c)
			pl.k = max(pl.k, sl.o.k)
		}
	}
	slices.Sort(pl.gpus)
	return d.runnable(j, pl)
}

// apply starts j as planned: its partners now share, and a job that started
// alone becomes a candidate partner for the jobs after it.
func (d *decision) apply(j *models.JobState, idx int, pl *plan) {
	as := models.Assignment{Job: j.ID, Type: pl.a.gpu, GPUs: pl.gpus}
	if pl.k > 1 {
		as.Accum = pl.k
		d.p.rep.Accumulated++
	}
	d.run = append(d.run, as)
	d.version[pl.a.gpu]++
	for _, g := range pl.gpus {
		d.take(g)
	}
	for _, c := range pl.partners {
		d.kill(c)
	}
	d.p.rep.Started++
	if len(pl.partners) > 0 {
		d.p.rep.Shared++
		return
	}
	d.addCand(j, idx, pl.a.gpu, pl.gpus, pl.k, true)
}

// shareGang is pairing gangs: j shares the whole GPU set of one running job
// of its own gang (the best offer; with oneServer, only one whose gang is on
// one server), and no idle GPU. Without oneServer only when the type lacks
// idle GPUs for the whole gang; with it, also when the idle GPUs are spread
// (the consolidated variants prefer sharing on one server to spreading).
func (d *decision) shareGang(j *models.JobState, a *aClass, oneServer bool) *plan {
	if (!oneServer && d.idleType[a.gpu] >= j.Gang) || d.loneGang[gangKey{a.gpu, j.Gang}] == 0 {
		d.noRoom = true
		return nil
	}
	var best *stream
	for _, st := range d.streams(j, a) {
		if st.cls.key.gang != j.Gang || (oneServer && st.cls.key.place != models.Consolidated) {
			continue
		}
		if best == nil || st.cur.less(best.cur) {
			best = st
		}
	}
	if best == nil {
		d.noRoom = !d.irregular
		return nil
	}
	o := best.cur
	return d.runnable(j, &plan{a: a, k: o.k, gpus: slices.Clone(o.c.gpus), partners: []*cand{o.c}})
}
