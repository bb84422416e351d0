package gandivafair

import (
	"fmt"
	"math"
	"slices"
	"time"

	"fairbench/models"
	"fairbench/solvers"
)

// state is one run's memory: homes, passes and profiles, keyed by JobID, and
// the cluster's servers as the schedulers see them.
type state struct {
	p       *GandivaFair
	cluster *models.Cluster
	users   []models.User
	userIdx map[string]int
	types   []string // Cluster.TypeNames: rank order, newest first
	pairs   []pair   // type pairs, fastest first
	pairIdx [][]int  // [fast][slow] → index into pairs, -1 on the diagonal

	tsrv  [][]int   // per type: its servers (cluster indices)
	srv   []server  // per cluster server
	large [][]*job  // per type: large jobs homed on its central scheduler
	tvt   []float64 // per type: the central minimum pass, kept while it has no entity
	cmin  []float64 // per type: the central minimum pass at the start of this decision

	jobs   map[models.JobID]*job
	active []*job // this decision's jobs, in snapshot order
	prev   []*job // the previous decision's jobs (a spare slice between decisions)
	taken  []bool // gpus' work space: per GPU, assigned in this decision
	dirty  []bool // per user: its jobs or what is known of them changed since the last decision
	// Per user: since its speeds (speedups) were last measured, a job
	// with speeds (terms) came or went or gained some, or its job list was
	// put in a new order; measured again at its next dirty decision (see
	// measureSpeeds).
	changedS, changedR []bool
	num, den           []float64 // means' work space
	// schedule's work space (see central, takeServers, backfill, byPass)
	entities []entity
	cands    []int
	waiting  []*job
	started  []*job // the jobs planned in this decision but by keepRunning (gpus)
	base     []float64
	order    []*job
	keyed    []passKey // byPass' work space
	// The Run of the last allocation returned and the slab its GPU lists
	// were cut from, which the next decision cuts from again
	// (solvers.Policy: the caller's until then).
	run  []models.Assignment
	slab []int

	// Kept by sync as jobs arrive and finish, and by home as they are
	// homed, so that a decision need not walk the active jobs for them
	// (sums of gangs: whole numbers, exact in any order):
	byUser   [][]*job    // per user, its active jobs in snapshot order
	rows     []rows      // per user, its jobs' speeds and terms in the order of byUser
	demand   []float64   // [u] Σ gang of u's active jobs
	runnable [][]float64 // [u][k] Σ gang of u's active jobs that can run on k
	homed    [][]float64 // [u][k] Σ gang of u's active jobs homed on k
	fresh    []*job      // sync's work space: the jobs it met for the first time
	relearnt []*job      // sync's work space: jobs met again whose speeds or terms grew
	homeless []*job      // this decision's jobs without a home type, in snapshot order
	gone     []bool      // sync's work space: per user, a job of it finished
	reticket []bool      // home's work space: per user, its per-GPU tickets changed
	reorder  bool        // byUser must be rebuilt from active (a sync stopped early)

	lastR   [][]float64 // [user][pair]: last known speedup, NaN when never known
	lastS   [][]float64 // [user][type]: last known per-GPU throughput, NaN when never known
	lastD   *decision   // the last decision's shares and trades
	dec     decision    // the decision's storage, reused (see decision)
	caps    []float64   // per type: its GPUs
	weights []float64   // per user: its weight
	names   []string    // per user: its name
	holders []holder    // the market's work space
	mins    minima      // retick's work space
	movers  movers      // moveTypes' work space

	decided bool
	last    time.Duration
	qRound  int
	gen     int32
	rep     recorder
}

// pair is a fast and a slow type (indices into state.types; fast < slow).
type pair struct{ fast, slow int }

// server is one machine as the schedulers see it.
type server struct {
	typ, gpus, first int
	members          []*job  // small jobs homed here
	pass             float64 // the pseudo-job's pass in the central scheduler
	vt               float64 // the members' minimum pass when last seen
	tickets          float64 // Σ members' tickets: the pseudo-job's tickets
	wasLocal         bool    // since the last decision its local scheduler ran it
	// stale: since sumTickets last summed its tickets, its members or
	// their tickets changed (or the sum was changed by join or leave).
	stale bool

	// per decision
	load  float64 // tickets per GPU
	free  int     // GPUs not yet planned
	local bool    // claimed by its pseudo-job (local scheduler runs)
	taken bool    // taken by a large job
	empty bool    // had no small jobs at the start of this decision
}

// job is one active job's scheduling record.
type job struct {
	// The fields every decision reads or writes of every active job come
	// first, in 128 bytes (two cache lines; 296 in all, allocated as 320,
	// a multiple of 64, so that a job is aligned to them): a decision walks
	// its jobs several times.
	id        models.JobID
	user      int
	gang      int
	typ       int   // home type, -1 before the first decision that sees it
	srv       int   // home server for a small job, -1 for a large one or none
	lastTyp   int   // see last
	seen      int32 // state.gen of the last decision that saw it
	pos       int32 // position in this decision's snapshot
	kept      bool  // plan is its GPUs of the last decision (keepRunning)
	lastKnown bool  // known[lastTyp] is true (false when lastTyp changes; learnt sets it), so that sync need not look
	shown     bool  // this decision's snapshot shows it running
	upos      int32 // position in its user's job list (state.byUser, state.rows)
	pass      float64
	tickets   float64
	// last and lastTyp are the GPUs (ascending) and type the job was given
	// at the previous decision (nil: it did not run). The policy keeps them
	// itself rather than reading JobState.LastGPUs, which it trusts only for
	// jobs it has not placed yet (a fresh state): the simulator places named
	// GPUs exactly, and its view of a job it preempted may lag.
	last []int
	plan []use // where it runs after this decision

	// The third cache line, which type moves read (movers.of, mover.aim):
	// can, and the aim cache: for home type aimFor−1 (0: none; known
	// changing empties it), whether the job may move from there and its
	// targets, every type it can run on but that one, whatever the shares.
	can        []int // the types where tput > 0, ascending
	aimFor     int
	aimMovable bool
	aims       []target

	lead  float64   // pass − its old home's minimum, while being re-homed
	tput  []float64 // true throughput per type, 0 where it cannot run
	known []bool    // per type: the scheduler knows tput there

	// Kept from known and tput (learn), so that a decision does not test
	// every type and pair of every job: speeds holds tput[k]/gang for each
	// known type with tput > 0, terms gang·tput[fast]/tput[slow] for each
	// pair known on both types with both positive (state.measureSpeeds and
	// state.speedups; both in ascending order).
	speeds []term
	terms  []term
}

// running reports whether j holds GPUs just before this decision.
func (j *job) running() bool { return len(j.last) > 0 }

// term is a job's figure for one type or pair index.
type term struct {
	i int
	v float64
}

// learn recomputes j's speeds and terms from known and tput.
func (j *job) learn(pairs []pair) {
	j.speeds, j.terms = j.speeds[:0], j.terms[:0]
	g := float64(j.gang)
	for k, ok := range j.known {
		if ok && j.tput[k] > 0 {
			j.speeds = append(j.speeds, term{k, j.tput[k] / g})
		}
	}
	for pi, pr := range pairs {
		if j.known[pr.fast] && j.known[pr.slow] && j.tput[pr.fast] > 0 && j.tput[pr.slow] > 0 {
			j.terms = append(j.terms, term{pi, g * j.tput[pr.fast] / j.tput[pr.slow]})
		}
	}
}

// use is a job's GPUs on one server.
type use struct{ srv, n int }

func newState(s *models.Snapshot, p *GandivaFair) *state {
	c := s.Cluster
	st := &state{p: p, cluster: c, users: append([]models.User(nil), s.Users...), userIdx: map[string]int{},
		types: c.TypeNames(), jobs: map[models.JobID]*job{}}
	for i, u := range s.Users {
		st.userIdx[u.Name] = i
		st.weights = append(st.weights, u.Weight)
		st.names = append(st.names, u.Name)
	}
	for _, g := range st.types {
		st.caps = append(st.caps, float64(c.Capacity(g)))
	}
	nT := len(st.types)
	ti := map[string]int{}
	for k, g := range st.types {
		ti[g] = k
	}
	st.pairIdx = make([][]int, nT)
	for h := range nT {
		st.pairIdx[h] = make([]int, nT)
		for l := range nT {
			st.pairIdx[h][l] = -1
		}
	}
	for h := range nT {
		for l := h + 1; l < nT; l++ {
			st.pairIdx[h][l] = len(st.pairs)
			st.pairs = append(st.pairs, pair{h, l})
		}
	}
	st.tsrv = make([][]int, nT)
	st.large = make([][]*job, nT)
	st.tvt = make([]float64, nT)
	st.srv = make([]server, len(c.Servers))
	for i, sv := range c.Servers {
		k := ti[sv.Type]
		st.srv[i] = server{typ: k, gpus: sv.GPUs, first: c.FirstGPU(i), stale: true}
		st.tsrv[k] = append(st.tsrv[k], i)
	}
	st.lastR = make([][]float64, len(s.Users))
	st.lastS = make([][]float64, len(s.Users))
	for u := range st.lastR {
		st.lastR[u] = make([]float64, len(st.pairs))
		for i := range st.lastR[u] {
			st.lastR[u][i] = math.NaN()
		}
		st.lastS[u] = make([]float64, nT)
		for k := range st.lastS[u] {
			st.lastS[u][k] = math.NaN()
		}
	}
	st.byUser = make([][]*job, len(s.Users))
	st.rows = make([]rows, len(s.Users))
	st.dirty = make([]bool, len(s.Users))
	st.changedS, st.changedR = make([]bool, len(s.Users)), make([]bool, len(s.Users))
	st.gone = make([]bool, len(s.Users))
	st.demand = make([]float64, len(s.Users))
	st.runnable = matrix(len(s.Users), nT)
	st.homed = matrix(len(s.Users), nT)
	st.rep.init(len(s.Users), nT)
	return st
}

// continues checks that s continues the run st was built for (an instance
// serves one run, solvers.Policy): the same cluster and users, and time not
// going back.
func (st *state) continues(s *models.Snapshot) error {
	if st.decided && s.Now < st.last {
		return solvers.TimeWentBack(st.p.name, s.Now, st.last)
	}
	if s.Cluster != st.cluster || !slices.Equal(s.Users, st.users) {
		return fmt.Errorf("%s: snapshot of another cluster or other users than its run's: a policy instance serves one run (build a new one per run)", st.p.name)
	}
	return nil
}

// quantumLength is the quantum as a duration.
func (st *state) quantumLength(s *models.Snapshot) time.Duration {
	r := s.RoundLength
	if r <= 0 {
		r = fallbackRound
	}
	return time.Duration(st.p.quantum) * r
}

// sync brings the state up to s: it charges the passes of what ran since the
// last decision, learns profiles, meets new jobs and forgets finished ones.
func (st *state) sync(s *models.Snapshot, oracle bool) error {
	st.gen++
	frac := st.sinceLast(s)
	st.chargeServers(frac)
	// The previous decision's jobs, in its snapshot order, are met again in
	// this snapshot's order: a job found where the last one found ended
	// needs no lookup. ordered stays true while the jobs met again come in
	// the previous order and before every new one (the simulator's snapshots
	// do: jobs in arrival order), so that the users' job lists need only
	// lose the finished jobs and gain the new ones.
	st.prev, st.active = st.active, st.prev[:0]
	fresh := st.fresh[:0]
	st.clearSchedulerLists()
	next, lastPos, ordered := 0, -1, !st.reorder
	for i := range s.Jobs {
		j := &s.Jobs[i]
		var js *job
		if next < len(st.prev) && st.prev[next].id == j.ID {
			js = st.prev[next]
		} else {
			js = st.jobs[j.ID]
		}
		isNew := js == nil
		if isNew {
			var err error
			if js, err = st.meet(s, j, oracle); err != nil {
				st.fresh = fresh[:0]
				return err
			}
			fresh = append(fresh, js)
		} else {
			if js.seen == st.gen-1 {
				next = int(js.pos) + 1
			}
			if len(fresh) > 0 || js.seen != st.gen-1 || int(js.pos) <= lastPos {
				ordered = false
			}
			lastPos = int(js.pos)
		}
		st.learnFrom(js, j, isNew, oracle)
		st.enlist(js, j, frac)
	}
	st.forgetFinished()
	if ordered {
		st.patchUserLists(fresh)
	} else {
		st.rebuildUserLists()
	}
	clear(st.gone)
	clear(fresh)
	clear(st.relearnt)
	st.fresh, st.relearnt, st.reorder = fresh[:0], st.relearnt[:0], false
	return nil
}

// sinceLast is the fraction of a quantum gone by since the last decision (0
// before the first one and when time stood still); the recorder advances by
// that time.
func (st *state) sinceLast(s *models.Snapshot) float64 {
	if !st.decided || s.Now <= st.last {
		return 0
	}
	frac := float64(s.Now-st.last) / float64(st.quantumLength(s))
	st.rep.advance(s.Now - st.last)
	return frac
}

// chargeServers charges each local server that held tickets its pass for
// frac of a quantum of all its GPUs.
func (st *state) chargeServers(frac float64) {
	if frac > 0 {
		for i := range st.srv {
			if sv := &st.srv[i]; sv.wasLocal && sv.tickets > 0 {
				sv.pass += float64(sv.gpus) * frac / sv.tickets
			}
		}
	}
}

// clearSchedulerLists empties the servers' member lists, the large jobs'
// lists and the homeless list, keeping their storage, for sync to refill in
// snapshot order.
func (st *state) clearSchedulerLists() {
	for i := range st.srv {
		st.srv[i].members = st.srv[i].members[:0]
	}
	for k := range st.large {
		st.large[k] = st.large[k][:0]
	}
	st.homeless = st.homeless[:0]
}

// meet builds the state of job j, met for the first time, and registers it.
// An unknown user is an error; the jobs not yet met are then kept
// (keepUnmet).
func (st *state) meet(s *models.Snapshot, j *models.JobState, oracle bool) (*job, error) {
	u, ok := st.userIdx[j.User]
	if !ok {
		st.keepUnmet()
		return nil, fmt.Errorf("%s: job %d: unknown user %q", st.p.name, j.ID, j.User)
	}
	js := &job{id: j.ID, user: u, gang: j.Gang, typ: -1, srv: -1,
		tput: make([]float64, len(st.types)), known: make([]bool, len(st.types))}
	for k, g := range st.types {
		js.tput[k] = s.Throughput(&j.Job, g)
		js.known[k] = oracle
		if js.tput[k] > 0 {
			js.can = append(js.can, k)
		}
	}
	st.jobs[j.ID] = js
	st.count(js, 1)
	if !st.decided && j.Running() {
		js.last, js.lastTyp = slices.Sorted(slices.Values(j.LastGPUs)), slices.Index(st.types, j.LastType)
		if js.lastTyp < 0 {
			js.last = nil
		}
	}
	return js, nil
}

// learnFrom updates js's speeds and speedup terms when it is new or (without
// the oracle) learnt a type from j, marking its user's measures to redo.
func (st *state) learnFrom(js *job, j *models.JobState, isNew, oracle bool) {
	learnt := isNew
	if !oracle {
		learnt = st.learnt(js, j, isNew) || learnt
	}
	if !learnt {
		return
	}
	// known only grows, so the lists only grow: a list that kept its length
	// is the same list.
	ns, nr := len(js.speeds), len(js.terms)
	js.learn(st.pairs)
	st.dirty[js.user] = true
	st.changed(js.user, len(js.speeds) != ns, len(js.terms) != nr)
	if !isNew && (len(js.speeds) != ns || len(js.terms) != nr) {
		st.relearnt = append(st.relearnt, js)
	}
}

// enlist marks js met in this sync at the next active position, charges its
// pass for frac of a quantum if it ran, and files it in its scheduler's list:
// the homeless list, its server's members or its type's large jobs.
func (st *state) enlist(js *job, j *models.JobState, frac float64) {
	js.seen, js.pos, js.plan, js.kept, js.shown = st.gen, int32(len(st.active)), js.plan[:0], false, j.Running()
	if frac > 0 && js.running() && js.tickets > 0 {
		js.pass += float64(js.gang) * frac / js.tickets
	}
	st.active = append(st.active, js)
	switch {
	case js.typ < 0:
		st.homeless = append(st.homeless, js)
	case js.srv >= 0:
		st.srv[js.srv].members = append(st.srv[js.srv].members, js)
	default:
		st.large[js.typ] = append(st.large[js.typ], js)
	}
}

// forgetFinished forgets the jobs of the last decision not met again (the
// map holds exactly the last decision's jobs and the new ones), marking
// their users' lists and measures to redo.
func (st *state) forgetFinished() {
	for _, js := range st.prev {
		if js.seen != st.gen {
			if js.srv >= 0 {
				st.srv[js.srv].stale = true
			}
			delete(st.jobs, js.id)
			st.dirty[js.user], st.gone[js.user] = true, true
			st.changed(js.user, len(js.speeds) > 0, len(js.terms) > 0)
			st.count(js, -1)
		}
	}
	clear(st.prev)
}

// patchUserLists brings the users' job lists and rows up to date when the
// jobs came in the previous order: the users who lost jobs drop them, the
// fresh jobs join, and the relearnt jobs' rows are rewritten.
func (st *state) patchUserLists(fresh []*job) {
	for u, g := range st.gone {
		if g {
			st.drop(u)
		}
	}
	for _, js := range fresh {
		st.add(js)
	}
	for _, js := range st.relearnt {
		st.rows[js.user].set(int(js.upos), js, len(st.types), len(st.pairs))
	}
}

// rebuildUserLists rebuilds every user's job list and rows from the active
// jobs, when they may have come in another order; every server's members
// go stale.
func (st *state) rebuildUserLists() {
	for i := range st.srv { // members may have come in another order
		st.srv[i].stale = true
	}
	for u := range st.byUser {
		st.byUser[u] = st.byUser[u][:0]
		st.rows[u].truncate(0, len(st.types), len(st.pairs))
		st.changed(u, true, true)
	}
	for _, js := range st.active {
		st.add(js)
	}
}

// add appends js to its user's job list and rows.
func (st *state) add(js *job) {
	u := js.user
	js.upos = int32(len(st.byUser[u]))
	st.byUser[u] = append(st.byUser[u], js)
	st.rows[u].add(js, len(st.types), len(st.pairs))
}

// drop takes the jobs this decision did not meet out of user u's job list
// and rows, keeping the others in order.
func (st *state) drop(u int) {
	js, r := st.byUser[u], &st.rows[u]
	nT, nP := len(st.types), len(st.pairs)
	w := 0
	for p, j := range js {
		if j.seen != st.gen {
			continue
		}
		if w != p {
			js[w] = j
			r.move(w, p, nT, nP)
		}
		j.upos = int32(w)
		w++
	}
	clear(js[w:])
	st.byUser[u] = js[:w]
	r.truncate(w, nT, nP)
}

// rows holds one user's jobs' speeds and speedup terms side by side, a row
// per job in the order of its job list, so that measuring the user
// (measureSpeeds, speedups) reads one array instead of every job's lists:
// sp[p·nT + k] is job p's speeds entry for type k, tm[p·nP + i] its terms
// entry for pair i, both absent where the job has none, and g[p] its gang.
type rows struct {
	sp, tm, g []float64
}

// absent marks a row's entry that the job's list lacks (speeds and terms
// are never negative).
const absent = -1

func (r *rows) add(j *job, nT, nP int) {
	r.sp = slices.Grow(r.sp, nT)[:len(r.sp)+nT]
	r.tm = slices.Grow(r.tm, nP)[:len(r.tm)+nP]
	r.g = append(r.g, 0)
	r.set(len(r.g)-1, j, nT, nP)
}

// set writes row p from j's lists.
func (r *rows) set(p int, j *job, nT, nP int) {
	sp, tm := r.sp[p*nT:(p+1)*nT], r.tm[p*nP:(p+1)*nP]
	for k := range sp {
		sp[k] = absent
	}
	for _, t := range j.speeds {
		sp[t.i] = t.v
	}
	for i := range tm {
		tm[i] = absent
	}
	for _, t := range j.terms {
		tm[t.i] = t.v
	}
	r.g[p] = float64(j.gang)
}

// move copies row from to row to.
func (r *rows) move(to, from, nT, nP int) {
	copy(r.sp[to*nT:(to+1)*nT], r.sp[from*nT:(from+1)*nT])
	copy(r.tm[to*nP:(to+1)*nP], r.tm[from*nP:(from+1)*nP])
	r.g[to] = r.g[from]
}

// truncate keeps the first n rows.
func (r *rows) truncate(n, nT, nP int) {
	r.sp, r.tm, r.g = r.sp[:n*nT], r.tm[:n*nP], r.g[:n]
}

// changed notes that user u's speeds (s) or speedups (r) must be measured
// again at its next dirty decision.
func (st *state) changed(u int, s, r bool) {
	st.changedS[u] = st.changedS[u] || s
	st.changedR[u] = st.changedR[u] || r
}

// learnt marks the types on which the scheduler now knows js's throughput
// (JobState.Received > 0, measured profiling) and reports whether there was
// one. Received grows only while a job runs, and only on the type it runs
// on: a job the policy placed (js.last, on js.lastTyp) or the snapshot has
// running (on j.LastType) can have been measured only there since the last
// decision, which looked at every type it had run on before. A new job is
// looked at on every type.
func (st *state) learnt(js *job, j *models.JobState, isNew bool) bool {
	learn := func(k int) bool {
		if k < 0 {
			return false
		}
		if js.known[k] {
			js.lastKnown = js.lastKnown || k == js.lastTyp
			return false
		}
		if j.Received.On(st.types[k]) <= 0 {
			return false
		}
		js.known[k] = true
		js.aimFor = 0
		js.lastKnown = js.lastKnown || k == js.lastTyp
		return true
	}
	if isNew {
		any := false
		for k := range st.types {
			any = learn(k) || any
		}
		return any
	}
	any := false
	if js.running() && !js.lastKnown {
		any = learn(js.lastTyp)
	}
	if j.Running() && (!js.running() || j.LastType != st.types[js.lastTyp]) {
		any = learn(slices.Index(st.types, j.LastType)) || any
	}
	return any
}

// count adds (sign 1) or takes away (sign −1) js's gang from its user's
// totals: demand, runnable and, once homed, homed.
func (st *state) count(js *job, sign float64) {
	g := sign * float64(js.gang)
	st.demand[js.user] += g
	for _, k := range js.can {
		st.runnable[js.user][k] += g
	}
	if js.typ >= 0 {
		st.homed[js.user][js.typ] += g
	}
}

// keepUnmet adds to the active list the last decision's jobs this sync has
// not met, when it stops early, so that the next sync still finds every job
// the state holds among its previous jobs.
func (st *state) keepUnmet() {
	st.reorder = true
	for _, js := range st.prev {
		if js.seen != st.gen {
			st.active = append(st.active, js)
		}
	}
	clear(st.prev)
}

// finish closes a decision: it remembers when it was made, the schedulers'
// minimum passes, and what the report needs; it keeps no reference to s.
func (st *state) finish(s *models.Snapshot, d *decision, quantum bool) {
	st.decided, st.last = true, s.Now
	if quantum {
		st.qRound = s.Round
	}
	for i := range st.srv {
		sv := &st.srv[i]
		if len(sv.members) > 0 {
			sv.vt = minPass(sv.members)
		}
	}
	for k := range st.types {
		if m, ok := st.centralMin(k); ok {
			st.tvt[k] = m
		}
	}
	st.rep.record(st, s, d, quantum)
	d.userJobs = nil // keep no job pointers beyond the decision
	st.lastD = d
}

func minPass(js []*job) float64 {
	m := math.Inf(1)
	for _, j := range js {
		m = min(m, j.pass)
	}
	return m
}

// homeMin is the current minimum pass of the local scheduler of server i.
func (st *state) homeMin(i int) float64 {
	if len(st.srv[i].members) == 0 {
		return st.srv[i].vt
	}
	return minPass(st.srv[i].members)
}

// centralMin is the minimum pass among type k's central entities: its large
// jobs and the pseudo-jobs of its servers holding small jobs.
func (st *state) centralMin(k int) (float64, bool) {
	m, ok := math.Inf(1), false
	for _, j := range st.large[k] {
		m, ok = min(m, j.pass), true
	}
	for _, i := range st.tsrv[k] {
		if len(st.srv[i].members) > 0 {
			m, ok = min(m, st.srv[i].pass), true
		}
	}
	return m, ok
}
