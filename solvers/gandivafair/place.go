package gandivafair

import (
	"math"
	"slices"
)

// minPerGPU keeps tickets positive: a job of a user without share on its
// home type gets this many tickets per GPU, so it runs only on GPUs nobody
// else wants.
const minPerGPU = 1e-6

// home gives new jobs a type and a server, moves jobs between types at a
// quantum start, and sets every job's tickets (package comment, steps 3–4).
func (st *state) home(d *decision, quantum bool) {
	nT := len(st.types)
	d.homed = st.homed // kept up to date below as jobs are homed and move
	st.cmin = st.cmin[:0]
	for k := range nT {
		m, ok := st.centralMin(k)
		if !ok {
			m = st.tvt[k]
		}
		st.cmin = append(st.cmin, m)
	}
	for i := range st.srv {
		st.srv[i].empty = len(st.srv[i].members) == 0
	}
	var unplaced []*job
	for _, j := range st.homeless {
		k := st.chooseType(j, d)
		if k < 0 {
			continue // no type of this cluster can run it
		}
		j.typ, j.srv, j.lead = k, -1, 0
		d.homed[j.user][k] += float64(j.gang)
		unplaced = append(unplaced, j)
	}
	if quantum {
		unplaced = st.moveTypes(d, unplaced)
	}
	// A job's tickets follow from its user's per-GPU tickets on its type:
	// only the users whose per-GPU tickets changed, and the jobs homed or
	// moved now, need new ones (the others' would be what they have). The
	// order does not matter: a retick leaves every minimum pass as it was.
	if len(st.reticket) != len(d.perGPU) {
		st.reticket = make([]bool, len(d.perGPU))
	}
	for u := range d.perGPU {
		st.reticket[u] = false
		for k := range d.perGPU[u] {
			v := 0.0
			if d.homed[u][k] > 0 {
				v = min(1, d.share[u][k]/d.homed[u][k])
			}
			if v != d.perGPU[u][k] {
				d.perGPU[u][k], st.reticket[u] = v, true
			}
		}
	}
	st.mins.reset(len(st.srv), nT)
	for u, js := range st.byUser {
		if !st.reticket[u] {
			continue
		}
		for _, j := range js {
			if j.typ >= 0 {
				st.retick(j, max(minPerGPU, d.perGPU[u][j.typ])*float64(j.gang))
			}
		}
	}
	for _, j := range unplaced {
		st.retick(j, max(minPerGPU, d.perGPU[j.user][j.typ])*float64(j.gang))
	}
	st.sumTickets()
	// Place in snapshot order (arrival order): small jobs on the least
	// loaded server that holds their gang, large jobs centrally.
	slices.SortStableFunc(unplaced, func(a, b *job) int { return int(a.pos - b.pos) })
	for _, j := range unplaced {
		k := j.typ
		if j.gang > st.cluster.MaxServerGPUs(st.types[k]) {
			j.pass = st.cmin[k] + j.lead
			st.large[k] = append(st.large[k], j)
			continue
		}
		best := -1
		for _, i := range st.tsrv[k] {
			sv := &st.srv[i]
			if sv.gpus >= j.gang && (best < 0 || sv.load < st.srv[best].load-eps) {
				best = i
			}
		}
		st.join(j, best)
	}
}

// retick gives j its new tickets t. As stride scheduling does when a
// client's tickets change (Waldspurger and Weihl, "Stride Scheduling:
// Deterministic Proportional-Share Resource Management", MIT TM-528, 1995,
// §4: dynamic ticket modifications), the pass j has left over its
// scheduler's minimum is scaled by old/new tickets: it was charged at the old
// stride 1/old and is due at the new one. Without it, a job that ran a few
// minutes with the minimum tickets (its user's share of the type traded
// away) carries a lead of about 10^5 quanta to its next home and starves
// there for hours whatever its user's share. A job being re-homed carries
// its lead instead of a pass; the lead is scaled the same way.
//
// Rescaling leaves every scheduler's minimum as it was (the job at the
// minimum keeps its pass, m + 0·f; one above it stays at or above it, m +
// a non-negative amount), so the minima are found once per decision
// (st.mins, reset before the first retick) rather than once per job.
func (st *state) retick(j *job, t float64) {
	old := j.tickets
	j.tickets = t
	if old == t {
		return
	}
	if j.srv >= 0 {
		st.srv[j.srv].stale = true
	}
	if old <= 0 {
		return
	}
	f := old / t
	switch {
	case j.srv >= 0:
		m := st.mins.local(st, j.srv)
		j.pass = m + (j.pass-m)*f
	case j.placedLarge(st):
		if m, ok := st.mins.central(st, j.typ); ok {
			j.pass = m + (j.pass-m)*f
		}
	default:
		j.lead *= f
	}
}

// minima remembers the schedulers' minimum passes found during one round
// of reticks (see retick), each found at its first use.
type minima struct {
	srv, typ     []float64
	srvOK, typOK []bool // found
	typHas       []bool // the type has a central entity
}

// reset forgets every minimum.
func (m *minima) reset(servers, types int) {
	if len(m.srv) != servers || len(m.typ) != types {
		*m = minima{srv: make([]float64, servers), srvOK: make([]bool, servers),
			typ: make([]float64, types), typOK: make([]bool, types), typHas: make([]bool, types)}
		return
	}
	clear(m.srvOK)
	clear(m.typOK)
}

// local is minPass of server i's members.
func (m *minima) local(st *state, i int) float64 {
	if !m.srvOK[i] {
		m.srv[i], m.srvOK[i] = minPass(st.srv[i].members), true
	}
	return m.srv[i]
}

// central is st.centralMin(k).
func (m *minima) central(st *state, k int) (float64, bool) {
	if !m.typOK[k] {
		m.typ[k], m.typHas[k] = st.centralMin(k)
		m.typOK[k] = true
	}
	return m.typ[k], m.typHas[k]
}

// rejoin starts the pseudo-job of a server that had no small jobs at the
// start of this decision and has some now at the central minimum pass, so
// that its idle time earns it nothing.
func (st *state) rejoin() {
	for i := range st.srv {
		if sv := &st.srv[i]; sv.empty && len(sv.members) > 0 {
			sv.pass = max(sv.pass, st.cmin[sv.typ])
		}
	}
}

// join homes small job j on server i at the server's minimum pass plus the
// lead j carries.
func (st *state) join(j *job, i int) {
	sv := &st.srv[i]
	j.pass = st.homeMin(i) + j.lead
	j.srv, j.lead = i, 0
	sv.members, sv.stale = append(sv.members, j), true
	sv.tickets += j.tickets
	sv.load = sv.tickets / float64(sv.gpus)
}

// leave takes j out of its home, recording its lead over the home's minimum
// pass.
func (st *state) leave(j *job) {
	if j.srv >= 0 {
		sv := &st.srv[j.srv]
		j.lead = max(0, j.pass-minPass(sv.members))
		sv.members, sv.stale = slices.DeleteFunc(sv.members, func(x *job) bool { return x == j }), true
		sv.tickets -= j.tickets
		sv.load = sv.tickets / float64(sv.gpus)
		j.srv = -1
		return
	}
	if j.typ >= 0 {
		if m, ok := st.centralMin(j.typ); ok {
			j.lead = max(0, j.pass-m)
		}
		st.large[j.typ] = slices.DeleteFunc(st.large[j.typ], func(x *job) bool { return x == j })
	}
}

// sumTickets recomputes the tickets and load of every stale server from
// its members (the others' sums would be what they are: the same tickets
// added in the same order). A server's pseudo-job whose tickets change has
// its pass over the central minimum scaled by old/new tickets, as a job's
// is (retick). That leaves the central minimum where it was (see retick),
// so it is st.mins' as the reticks before found it.
func (st *state) sumTickets() {
	for i := range st.srv {
		sv := &st.srv[i]
		if !sv.stale {
			continue
		}
		sv.stale = false
		old := sv.tickets
		sv.tickets = 0
		for _, j := range sv.members {
			sv.tickets += j.tickets
		}
		sv.load = sv.tickets / float64(sv.gpus)
		if old > 0 && sv.tickets > 0 && old != sv.tickets && len(sv.members) > 0 {
			if m, ok := st.mins.central(st, sv.typ); ok && sv.pass > m {
				sv.pass = m + (sv.pass-m)*old/sv.tickets
			}
		}
	}
}

// chooseType is the paper's Algorithm 2 for a new job: the type, among those
// that can run it, where its user's per-GPU tickets share/(D + gang) would be
// highest (D = Σ gang of the user's jobs homed there); among types within
// a relative 1e-9 of the highest, the one where the user's measured
// per-GPU speed is highest (docs/algorithms/gandiva-fair.md), then the
// higher-ranked type. With measured profiling, a job starts on the
// highest-ranked type it can run on where neither it nor its user has been
// measured (profiling is per user: its jobs are similar, the paper's
// premise), so that a user whose speed is known is not measured again on a
// type where it may hold no share.
func (st *state) chooseType(j *job, d *decision) int {
	best := -1
	var bv, bs float64
	for k := range st.types {
		if j.tput[k] <= 0 {
			continue
		}
		if !st.p.oracle && best < 0 && !st.knows(j, k) {
			return k // profile the job where its user has not been measured
		}
		v := d.share[j.user][k] / (d.homed[j.user][k] + float64(j.gang))
		sp := st.lastS[j.user][k] // NaN (unknown) never wins a tie
		switch {
		case best < 0 || v > bv*(1+speedupTolerance)+eps:
			best, bv, bs = k, v, sp
		case v >= bv*(1-speedupTolerance)-eps && sp > bs:
			best, bs = k, sp
		}
	}
	return best
}

// moveTypes moves each user's jobs between types at a quantum start: a job
// moves from type a to type b when the user's per-GPU tickets on b after the
// move, share_b/(D_b + gang), still exceed those on a before it,
// share_a/D_a. The reverse move then fails the same test, so jobs never move
// back and forth. A running job, which pays the restore cost to move, must
// pass a stronger test: share_b/(D_b + gang) ≥ share_a/(D_a − gang), the
// target still at least as well off as the source after the move. With
// measured profiling a job moves only once it has run on its home type, so
// that a new job is measured on the type it starts on. Among the moves that
// pass, the policy prefers a waiting job over a running one (moving it costs
// nothing), then one that completes a profile (the job is measured on a but
// not on b), then the job that runs relatively fastest on b (T_b/T_a, known
// figures only, else 1), then the larger gain in per-GPU tickets, then the
// earlier job and the higher-ranked type. It returns unplaced with the moved
// jobs added. (Speeds enter where a job is first homed, chooseType; moving
// by speed as well made the buyer of the measured-profiling test of
// TestSimTradingRaisesThroughput lose 12% against no trading.)
func (st *state) moveTypes(d *decision, unplaced []*job) []*job {
	oracle := st.p.oracle
	nT := len(st.types)
	from := make([]bool, nT)
	for u, js := range d.userJobs {
		share, homed := d.share[u], d.homed[u]
		for n := range js {
			if !st.mayMove(share, homed, from) {
				break
			}
			if n == 0 {
				st.movers.of(js, share, homed, oracle)
			}
			best, to, bk := st.movers.pick(from)
			if best < 0 {
				break
			}
			j := st.movers.ms[best].j
			if j.srv >= 0 || j.placedLarge(st) {
				st.leave(j)
			}
			if !slices.Contains(unplaced, j) {
				unplaced = append(unplaced, j)
			}
			st.movers.move(best, to, share, homed)
			j.typ, j.srv = to, -1
			st.rep.typeMoves++
			if !bk.waiting {
				st.rep.typeMigrations++
			}
		}
	}
	return unplaced
}

// pick is the move moveTypes makes next among the movers (see moveTypes):
// the mover's index, its target type and the move's key, or −1 when none
// passes. from is mayMove's. The waiting movers come first (movers.of), so
// that once one of them has a move the running ones need no look: the scan
// in snapshot order would keep the first waiting job's move over any
// running job's before it, and compare the waiting ones after it in the
// same order.
func (t *movers) pick(from []bool) (best, to int, bk moveKey) {
	best = -1
	for i := range t.ms {
		if i == t.waiting && best >= 0 {
			break // a waiting job's move beats every running job's (moveKey.better)
		}
		m := &t.ms[i]
		if m.typ < 0 || !from[m.typ] || !t.gains.some(m.gi, m.running, m.typ) {
			continue
		}
		if !m.aimed {
			m.aim(t.share, t.oracle)
		}
		if !m.movable || (best >= 0 && !m.mayBeat(bk)) {
			continue
		}
		for _, c := range m.targets {
			gain, ok := t.gains.gain(m.gi, m.running, m.typ, c.b)
			if !ok {
				continue
			}
			k := moveKey{profile: c.profile, waiting: !m.running, ratio: c.ratio, gain: gain}
			if best < 0 || k.better(bk) {
				best, to, bk = i, c.b, k
			}
		}
	}
	return best, to, bk
}

// move moves mover i to type b: homed (the user's GPUs homed per type),
// the gain table and the mover's targets follow.
func (t *movers) move(i, b int, share, homed []float64) {
	m := &t.ms[i]
	a := m.typ
	homed[a] -= m.gang
	homed[b] += m.gang
	t.gains.update(a, share, homed)
	t.gains.update(b, share, homed)
	t.gains.tops()
	m.typ, m.aimed = b, false
}

// mover is what moveTypes reads of one job, laid out side by side for the
// user's jobs (moveTypes walks them once per move: a walk over the jobs'
// own records, each a few scattered allocations, cost more than the rest).
type mover struct {
	j       *job
	typ     int     // the job's home type, as moves change it
	gang    float64 // its gang
	gi      int     // its gang's index in movers.gangs
	running bool
	// movable: it has a home type and, with profiling, is known there (a
	// job is measured where it is before it moves).
	movable bool
	targets []target // the types it may move to from typ, in j.can's order
	aimed   bool     // movable and targets are set for typ (aim, when pick first needs them)
	// top[p] is the largest ratio of its targets whose profile flag is
	// p == 1 (−∞ when none; NaN if one is), for mayBeat.
	top [2]float64
}

// mayBeat reports whether a move of m might be better than a move with key
// bk (moveKey.better): false only where every target of m fails that test
// whatever its gain, by its waiting and profile flags or by a ratio more
// than eps below bk's.
func (m *mover) mayBeat(bk moveKey) bool {
	switch {
	case m.running == bk.waiting: // only a waiting job can beat a waiting one's move
		return !m.running
	case !bk.profile && m.top[1] != math.Inf(-1):
		return true // a target completing a profile beats bk
	}
	p := 0
	if bk.profile {
		p = 1
	}
	// better's own ratio test: where the largest ratio fails it, so does
	// every smaller one (IEEE subtraction is monotone).
	return !(math.Abs(m.top[p]-bk.ratio) > eps && m.top[p] < bk.ratio)
}

// target is a type b a mover may move to from its home type a, with what
// ranks the move besides its gain (see moveTypes): whether it completes a
// profile (known on a, not on b; measured profiling) and T_b/T_a where both
// are known, else 1. Types whose user's share is nil are left out, as is a.
type target struct {
	b       int
	profile bool
	ratio   float64
}

// aim sets m.movable and m.targets for its home type and the user's shares.
func (m *mover) aim(share []float64, oracle bool) {
	j, a := m.j, m.typ
	m.aimed = true
	m.targets = m.targets[:0]
	m.top = [2]float64{math.Inf(-1), math.Inf(-1)}
	if a < 0 {
		m.movable = false
		return
	}
	if j.aimFor != a+1 {
		j.aimAt(a, oracle)
	}
	m.movable = j.aimMovable
	for _, c := range j.aims {
		if share[c.b] <= eps {
			continue
		}
		p := 0
		if c.profile {
			p = 1
		}
		m.top[p] = max(m.top[p], c.ratio)
		m.targets = append(m.targets, c)
	}
}

// aimAt fills j's aim cache for home type a: whether j may move from a,
// and every type of j.can but a as a target, whatever the shares.
func (j *job) aimAt(a int, oracle bool) {
	j.aimFor, j.aimMovable = a+1, oracle || j.known[a]
	j.aims = j.aims[:0]
	for _, b := range j.can {
		if b == a {
			continue
		}
		c := target{b: b, profile: !oracle && j.known[a] && !j.known[b], ratio: 1}
		if j.known[a] && j.known[b] {
			c.ratio = j.tput[b] / j.tput[a]
		}
		j.aims = append(j.aims, c)
	}
}

// movers is moveTypes' work space: one user's movers, their targets, their
// distinct gangs and the user's gain table.
type movers struct {
	ms      []mover // the waiting jobs' movers, then the running ones', each in snapshot order
	waiting int     // how many of ms are waiting jobs'
	targets []target
	gangs   []float64
	gains   gainTable
	share   []float64 // the user's shares
	oracle  bool
}

// of lays out the movers of js (waiting jobs first) and fills the gain table for the user's
// shares and homed GPUs, valid until the next call. A mover's targets are
// found when pick first looks at it.
func (t *movers) of(js []*job, share, homed []float64, oracle bool) {
	t.ms, t.gangs, t.share, t.oracle = t.ms[:0], t.gangs[:0], share, oracle
	n := 0
	for _, j := range js {
		n += len(j.can)
	}
	t.targets = slices.Grow(t.targets[:0], n)[:n]
	n = 0
	for _, running := range [2]bool{false, true} {
		if running {
			t.waiting = len(t.ms)
		}
		for _, j := range js {
			if j.running() != running {
				continue
			}
			g := float64(j.gang)
			gi := slices.Index(t.gangs, g)
			if gi < 0 {
				gi = len(t.gangs)
				t.gangs = append(t.gangs, g)
			}
			// Each mover's targets fit in len(j.can) entries, whatever its type.
			t.ms = append(t.ms, mover{j: j, typ: j.typ, gang: g, gi: gi, running: running, targets: t.targets[n : n : n+len(j.can)]})
			n += len(j.can)
		}
	}
	t.gains.reset(t.gangs, share, homed)
}

// gainTable holds the terms of moveGain for one user's shares and homed
// GPUs, per type and per gang of its jobs, so that a move's test reads them
// instead of computing them for every candidate (moveGain in the tests is
// the test written out): pa[a] = share_a/D_a, its
// threshold, pb[b][g] = share_b/(D_b + g) and over[a][g] = share_a/(D_a − g)
// (where D_a > g). A move changes D on two types only, whose figures are
// then computed again (update); the same expressions give the same values.
type gainTable struct {
	gangs    []float64
	pa, thr  []float64 // [a]
	pb, over []float64 // [k·len(gangs) + gi]
	overOK   []bool    // [a·len(gangs) + gi]: D_a > g
	// top[gi] is the largest pb[·][gi] (NaN if one is): a job of gang
	// gangs[gi] on type a has no move that passes when top[gi] ≤ thr[a].
	top          []float64
	share, homed []float64
}

// reset fills the table for these gangs, shares and homed GPUs.
func (t *gainTable) reset(gangs, share, homed []float64) {
	nT, nG := len(share), len(gangs)
	t.gangs = gangs
	t.pa, t.thr = grow(t.pa, nT), grow(t.thr, nT)
	t.pb, t.over = grow(t.pb, nT*nG), grow(t.over, nT*nG)
	if cap(t.overOK) < nT*nG {
		t.overOK = make([]bool, nT*nG)
	}
	t.overOK = t.overOK[:nT*nG]
	for k := range nT {
		t.update(k, share, homed)
	}
	t.tops()
}

// tops sets top from pb.
func (t *gainTable) tops() {
	nG := len(t.gangs)
	t.top = grow(t.top, nG)
	for gi := range t.top {
		t.top[gi] = math.Inf(-1)
		for k := gi; k < len(t.pb); k += nG {
			t.top[gi] = max(t.top[gi], t.pb[k])
		}
	}
}

func grow(x []float64, n int) []float64 { return slices.Grow(x[:0], n)[:n] }

// update computes type k's figures again from share and homed.
func (t *gainTable) update(k int, share, homed []float64) {
	nG := len(t.gangs)
	t.pa[k] = share[k] / homed[k]
	t.thr[k] = t.pa[k]*(1+speedupTolerance) + eps
	for gi, g := range t.gangs {
		t.pb[k*nG+gi] = share[k] / (homed[k] + g)
		t.overOK[k*nG+gi] = homed[k] > g
		if homed[k] > g {
			t.over[k*nG+gi] = share[k]/(homed[k]-g) - eps
		}
	}
}

// some reports whether a move of a job of gang gangs[gi] (running or not)
// from type a might pass: gain's tests with top[gi], the largest pb of any
// type, in place of pb (false only where every type fails them).
func (t *gainTable) some(gi int, running bool, a int) bool {
	nG := len(t.gangs)
	top := t.top[gi]
	if top <= t.thr[a] {
		return false
	}
	return !(running && t.overOK[a*nG+gi] && top < t.over[a*nG+gi])
}

// gain is what moving a job of gang t.gangs[gi] (running or not) from type
// a to b gains its user in per-GPU tickets (see moveTypes) and whether the
// move passes.
func (t *gainTable) gain(gi int, running bool, a, b int) (float64, bool) {
	nG := len(t.gangs)
	pb := t.pb[b*nG+gi]
	if pb <= t.thr[a] {
		return 0, false
	}
	if running && t.overOK[a*nG+gi] && pb < t.over[a*nG+gi] {
		return 0, false // a running job moves only if the move does not overshoot
	}
	return pb - t.pa[a], true
}

// mayMove sets from[a] when a job of the user with these shares and homed
// GPUs could leave type a by moveGain's first test, and reports whether any
// could: a job of gang g ≥ 1 on type a (so homed[a] > 0) has
// share[b]/(homed[b]+g) ≤ share[b]/(homed[b]+1) (IEEE addition and division
// are monotone), so where no b passes with g = 1 no job of a moves, and
// moveTypes need not look at those jobs.
func (st *state) mayMove(share, homed []float64, from []bool) bool {
	some := false
	for a := range homed {
		from[a] = false
		if homed[a] <= 0 {
			continue
		}
		pa := share[a] / homed[a]
		for b := range share {
			if b != a && share[b] > eps && share[b]/(homed[b]+1) > pa*(1+speedupTolerance)+eps {
				from[a], some = true, true
				break
			}
		}
	}
	return some
}

// knows reports whether the scheduler has measured j, or another job of its
// user, on type k (a user's jobs are similar: the paper's premise).
func (st *state) knows(j *job, k int) bool { return j.known[k] || !math.IsNaN(st.lastS[j.user][k]) }

// placedLarge reports whether j sits in its type's central list.
func (j *job) placedLarge(st *state) bool {
	return j.srv < 0 && j.typ >= 0 && slices.Contains(st.large[j.typ], j)
}

// moveKey ranks candidate type moves (see moveTypes).
type moveKey struct {
	profile, waiting bool
	ratio, gain      float64
}

// better reports whether k is preferred to o; equal keys keep the earlier
// candidate (lower job position, then lower type index).
func (k moveKey) better(o moveKey) bool {
	if k.waiting != o.waiting {
		return k.waiting
	}
	if k.profile != o.profile {
		return k.profile
	}
	if math.Abs(k.ratio-o.ratio) > eps {
		return k.ratio > o.ratio
	}
	return k.gain > o.gain+eps
}

// balance is the load balancer (package comment, step 5): per type, while
// the most and least loaded servers differ by more than threshold tickets per
// GPU and the most loaded one is contended (its small jobs need more GPUs
// than it has: below that every job there runs anyway, and moving one would
// only cost a migration), move the job from the first to the second that
// narrows their gap, preferring a job already running on the second
// (borrowed GPUs: no cost), then a waiting job, then a running one (at most
// maxMig per type), then the move leaving the smaller gap, then the earlier
// job.
func (st *state) balance(threshold float64, maxMig int) {
	st.adopt(threshold)
	for _, servers := range st.tsrv {
		if len(servers) < 2 {
			continue
		}
		migrated, limit := 0, 1
		for _, i := range servers {
			limit += len(st.srv[i].members)
		}
		for range limit {
			hi, lo := servers[0], servers[0]
			for _, i := range servers {
				if st.srv[i].load > st.srv[hi].load+eps {
					hi = i
				}
				if st.srv[i].load < st.srv[lo].load-eps {
					lo = i
				}
			}
			H, L := &st.srv[hi], &st.srv[lo]
			gap := H.load - L.load
			if gap <= threshold+eps || !H.contended() {
				break
			}
			var best *job
			bestCost, bestGap := 3, math.Inf(1)
			for _, j := range H.members {
				if j.gang > L.gpus {
					continue
				}
				a, b := H.load-j.tickets/float64(H.gpus), L.load+j.tickets/float64(L.gpus)
				g := math.Abs(a - b)
				if g >= gap-eps {
					continue
				}
				cost := 1
				if j.running() {
					cost = 2
					if st.runsOn(j, lo) {
						cost = 0
					} else if migrated >= maxMig {
						continue
					}
				}
				if cost < bestCost || (cost == bestCost && g < bestGap-eps) {
					best, bestCost, bestGap = j, cost, g
				}
			}
			if best == nil {
				break
			}
			st.leave(best)
			st.join(best, lo)
			st.rep.balanceMoves++
			if bestCost == 2 {
				migrated++
				st.rep.balanceMigrations++
			}
		}
	}
}

// adopt re-homes a small job running on another server of its type than its
// home (borrowed GPUs) to that server unless that would leave the server
// more loaded than the job's home is now, plus threshold: it keeps its GPUs
// rather than move back, and the balancer sees the load where it runs (a
// free move; jobs in snapshot order).
func (st *state) adopt(threshold float64) {
	for _, j := range st.active {
		if j.srv < 0 || !j.running() || j.lastTyp != j.typ {
			continue
		}
		to := st.cluster.ServerOf(j.last[0])
		if to == j.srv || !st.runsOn(j, to) || j.gang > st.srv[to].gpus {
			continue
		}
		if st.srv[to].load+j.tickets/float64(st.srv[to].gpus) > st.srv[j.srv].load+threshold+eps {
			continue
		}
		st.leave(j)
		st.join(j, to)
		st.rep.balanceMoves++
	}
}

// contended reports whether the server's small jobs need more GPUs than it
// has, so that some of them wait.
func (sv *server) contended() bool {
	n := 0
	for _, j := range sv.members {
		n += j.gang
	}
	return n > sv.gpus
}

// runsOn reports whether j currently holds GPUs of server i only.
func (st *state) runsOn(j *job, i int) bool {
	if !j.running() || j.lastTyp != st.srv[i].typ {
		return false
	}
	for _, g := range j.last {
		if g < st.srv[i].first || g >= st.srv[i].first+st.srv[i].gpus {
			return false
		}
	}
	return true
}
