package sim

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"fairbench/models"
	"fairbench/solvers"
)

// never is a time no event reaches.
const never = time.Duration(math.MaxInt64)

// engine is one run in progress.
type engine struct {
	ctx    context.Context
	cfg    Config
	policy solvers.Policy
	trig   models.Trigger

	jobs   []*job // in arrival order (then ID)
	byID   map[models.JobID]*job
	dense  []*job // dense[id] when every ID is small (see jobOf), else nil
	posOf  []int  // with dense: posOf[id] is the active job's pos, −1 for others (see locate)
	next   int    // index of the next job to arrive
	active []*job // arrived and unfinished, in arrival order
	// views[i] is active[i] as policies see it. It is kept up to date
	// incrementally (running and just-changed jobs are refreshed before each
	// decision) so that a decision costs O(running), not O(active), copies.
	views   []models.JobState
	stale   []*job   // jobs whose view must be refreshed
	off     int      // job.pos − off is the job's index in active and views
	running []*job   // holding GPUs, in arrival order
	merged  []*job   // work space of mergeStarted
	events  []Event  // work space of apply
	occ     [][]*job // occ[g]: the jobs on GPU g (at most two)
	// Kept up to date as jobs take and leave GPUs (occupy, release):
	// vacant[g] is len(occ[g]) == 0, shared counts the GPUs that hold two
	// jobs, and dirty lists the jobs whose speed may have changed since the
	// last rerate (a partner came or went, or their figure changed).
	vacant []bool
	shared int
	dirty  []*job
	// keep is the mark (job.kept) of the running jobs that the last place
	// left on their GPUs as they are, 0 when it marked none (see placeFast);
	// marks counts the marks handed out, byMarks the places placeFast
	// completed. general makes place take its general path always (tests
	// compare the two).
	keep, marks int
	byMarks     int
	general     bool
	// keepAll tells the next apply that every running job stays as it is
	// (adoptChanges), so that it need not look at them; byChanges counts
	// the allocations adoptChanges put in force (tests).
	keepAll   bool
	byChanges int
	users     []string
	userIdx   map[string]int
	weights   []float64
	demand    []float64 // Σ gang of each user's active jobs
	holding   []float64 // Σ gang of each user's running jobs
	entitle   []float64 // water-filled entitlement in GPUs

	now        time.Duration
	round      int
	area       float64 // ∫ |active| dt in job·seconds
	idle       int     // consecutive idle round decisions
	rec        *recorder
	decisions  []DecisionTiming
	ndecisions int
	unplaced   int
	defaultXi  int // placements that used Config.DefaultSlowdown
	// pairTime is, per pair of jobs (lower ID first) and GPU type, the time
	// the two have run together on the same GPUs: the space-sharing round
	// mechanism's "rounds received" for a pair.
	pairTime map[[2]models.JobID]map[string]time.Duration
	rounds   rounds
	placer   placer
	rates    *models.Rates // every job's figures, for the snapshots
	check    models.Checker
	whole    bool // the allocation in force is WholeGPUs (see Holds)
	checks   int  // allocations checked so far; see job.held
	epoch    int  // apply calls so far; see job.inPlan
	// pending counts the unfinished jobs of a Measure window that stops
	// the run when they are done (Window.StopWhenDone); −1 without one.
	pending int
}

// Run simulates the jobs of cfg under policy p until every job has finished,
// or until every job of cfg.Measure has when it says StopWhenDone.
func Run(cfg Config, p solvers.Policy) (*Result, error) {
	return RunContext(context.Background(), cfg, p)
}

// RunContext is Run that stops, with ctx's error, at the first event after
// ctx is cancelled.
func RunContext(ctx context.Context, cfg Config, p solvers.Policy) (*Result, error) {
	cfg.defaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	e := newEngine(cfg, p)
	e.ctx = ctx
	if err := e.loop(); err != nil {
		return nil, fmt.Errorf("sim: policy %s: %w", p.Name(), err)
	}
	return e.result(), nil
}

func newEngine(cfg Config, p solvers.Policy) *engine {
	e := &engine{cfg: cfg, policy: p, trig: solvers.TriggersOf(p), userIdx: map[string]int{},
		pairTime: map[[2]models.JobID]map[string]time.Duration{},
		rounds:   newRounds(cfg.Cluster, solvers.RoundsOf(p), cfg.Round)}
	for _, u := range cfg.Users {
		e.userIdx[u.Name] = len(e.users)
		e.users = append(e.users, u.Name)
		e.weights = append(e.weights, u.Weight)
	}
	n := len(e.users)
	e.demand, e.holding, e.entitle = make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range cfg.Jobs {
		jt, ok := cfg.JobTypes[cfg.Jobs[i].Type]
		if !ok {
			jt = models.JobType{Name: cfg.Jobs[i].Type}
		}
		j := &job{
			spec: cfg.Jobs[i], jt: jt, restore: cfg.Costs.Restore(jt),
			firstRun: -1,
		}
		for _, g := range e.rounds.types {
			j.runnable = append(j.runnable, cfg.Throughput(&j.spec, g) > 0)
		}
		e.jobs = append(e.jobs, j)
	}
	sort.SliceStable(e.jobs, func(a, b int) bool {
		if e.jobs[a].spec.Arrival != e.jobs[b].spec.Arrival {
			return e.jobs[a].spec.Arrival < e.jobs[b].spec.Arrival
		}
		return e.jobs[a].spec.ID < e.jobs[b].spec.ID
	})
	e.byID = make(map[models.JobID]*job, len(e.jobs))
	dense := true // IDs in [0, 2n]: a slice finds them
	for i, j := range e.jobs {
		j.seq = i
		e.byID[j.spec.ID] = j
		dense = dense && j.spec.ID >= 0 && j.spec.ID <= models.JobID(2*len(e.jobs))
	}
	if dense {
		e.dense = make([]*job, 2*len(e.jobs)+1)
		e.posOf = make([]int, len(e.dense))
		for i := range e.posOf {
			e.posOf[i] = -1
		}
		for _, j := range e.jobs {
			e.dense[j.spec.ID] = j
		}
	}
	e.rates = models.NewRates(cfg.Environment)
	for _, j := range e.jobs {
		j.user = e.userIdx[j.spec.User]
		e.rates.Add(&j.spec)
	}
	e.check.Locate, e.check.Held = e.locate, e
	e.occ = make([][]*job, cfg.Cluster.TotalGPUs())
	e.vacant = make([]bool, len(e.occ))
	for g := range e.vacant {
		e.vacant[g] = true
	}
	e.placer = placer{c: cfg.Cluster}
	e.rec = newRecorder(e.users, cfg.Cluster.TotalGPUs(), cfg.Round, cfg.MaxSeriesPoints)
	e.pending = -1
	if w := cfg.Measure; w != nil && w.StopWhenDone {
		e.pending = 0
		for _, j := range e.jobs {
			if w.Contains(j.spec.ID) {
				e.pending++
			}
		}
	}
	return e
}

// jobOf is the job with the given ID, nil when there is none.
func (e *engine) jobOf(id models.JobID) *job {
	if e.dense != nil {
		if id < 0 || id >= models.JobID(len(e.dense)) {
			return nil
		}
		return e.dense[id]
	}
	return e.byID[id]
}

// locate is the index in active (and the snapshot's Jobs) of the active job
// with the given ID, −1 when there is none.
func (e *engine) locate(id models.JobID) int {
	if e.posOf != nil {
		if id < 0 || id >= models.JobID(len(e.posOf)) || e.posOf[id] < 0 {
			return -1
		}
		return e.posOf[id] - e.off
	}
	if j := e.jobOf(id); j != nil && j.arrived && !j.finished {
		return j.pos - e.off
	}
	return -1
}

// Holds is models.Holdings' Holds for the checker: the allocation in force
// is a whole-GPU one (adopt), which the checker passed, so every running
// job runs on GPUs of a type and with a setting that allocation gave it
// (named, or picked by place among its type's GPUs, or kept since), and,
// while no GPU holds two jobs, alone.
func (e *engine) Holds(a *models.Assignment) (int, bool) {
	if !e.whole || e.shared != 0 {
		return 0, false
	}
	j := e.jobOf(a.Job)
	if j == nil || !j.running() || j.typ != a.Type || j.accum != a.Accum || !equalGPUs(a.GPUs, j.gpus) {
		return 0, false
	}
	j.held = int32(e.checks) // placeFast keeps it without comparing again
	return j.pos - e.off, true
}

// Holder is models.Holdings' Holder: the index in active of the job on GPU
// g, −1 for none.
func (e *engine) Holder(g int) int {
	if g < 0 || g >= len(e.occ) || len(e.occ[g]) == 0 {
		return -1
	}
	return e.occ[g][0].pos - e.off
}

// setPos sets j's pos (−1: not active).
func (e *engine) setPos(j *job, pos int) {
	j.pos = pos
	if e.posOf != nil {
		e.posOf[j.spec.ID] = pos
	}
}

// loop advances from event to event: arrivals, completions and round starts.
// It ends when every job has finished, or at the completion that leaves no
// job of a stopping Measure window unfinished (before the arrivals and the
// decision of that moment: nothing after it can change the window's jobs).
func (e *engine) loop() error {
	nextRound := time.Duration(0)
	for e.next < len(e.jobs) || len(e.active) > 0 {
		t := min(nextRound, e.nextArrival(), e.nextCompletion())
		if err := e.bounded(t); err != nil {
			return err
		}
		e.advance(t)
		done := e.complete()
		if done && e.pending == 0 {
			for _, j := range e.running {
				j.settle(e.now) // progress up to the stop, for the unfinished jobs' results
			}
			break
		}
		arrived := e.arrive()
		var why models.Trigger
		if t == nextRound {
			why |= models.AtRound
			e.round = int(t / e.cfg.Round)
			nextRound += e.cfg.Round
		}
		if arrived {
			why |= models.AtArrival
		}
		if done {
			why |= models.AtCompletion
		}
		if why&e.trig == 0 {
			continue
		}
		if err := e.decide(why & e.trig); err != nil {
			return err
		}
		if err := e.checkProgress(why); err != nil {
			return err
		}
	}
	e.rec.close(e.now)
	return nil
}

// bounded stops a cancelled run, and one about to pass models.MaxSimulated
// or models.MaxRounds (a job that would take centuries at the rate its
// policy gives it).
func (e *engine) bounded(t time.Duration) error {
	if e.ctx != nil {
		if err := context.Cause(e.ctx); err != nil {
			return err
		}
	}
	if t > models.MaxSimulated || int64(t/e.cfg.Round) > models.MaxRounds {
		return fmt.Errorf("stopped at t=%gs, round %d: a run may simulate at most %s and %d rounds (docs/limits.md); %d jobs still active",
			seconds(e.now), e.round, models.Describe(models.MaxSimulated), models.MaxRounds, len(e.active))
	}
	return nil
}

func (e *engine) nextArrival() time.Duration {
	if e.next < len(e.jobs) {
		return e.jobs[e.next].spec.Arrival
	}
	return never
}

func (e *engine) nextCompletion() time.Duration {
	t := never
	for _, j := range e.running {
		t = min(t, j.finishAt)
	}
	return t
}

// advance moves the clock to t, integrating the time-weighted metrics.
func (e *engine) advance(t time.Duration) {
	if t > e.now {
		e.area += float64(len(e.active)) * (t - e.now).Seconds()
		e.rec.span(e.now, t, e.holding, e.entitle)
		e.countPairs(t - e.now)
		e.accrue(e.now, t)
		e.now = t
	}
}

// countPairs adds dt to the together-time of every pair of jobs that share
// exactly the same GPUs.
func (e *engine) countPairs(dt time.Duration) {
	if e.shared == 0 {
		return // no GPU holds two jobs
	}
	for _, j := range e.running {
		occ := e.occ[j.gpus[0]]
		if len(occ) != 2 {
			continue
		}
		o := occ[0]
		if o == j {
			o = occ[1]
		}
		if j.spec.ID > o.spec.ID || !slices.Equal(j.gpus, o.gpus) {
			continue
		}
		k := pairKey(j.spec.ID, o.spec.ID)
		if e.pairTime[k] == nil {
			e.pairTime[k] = map[string]time.Duration{}
		}
		e.pairTime[k][j.typ] += dt
	}
}

// complete finishes every running job whose completion time is now.
func (e *engine) complete() bool {
	any := false
	first, last := len(e.active), -1 // the finished jobs' span in active
	for _, j := range e.running {
		if j.finishAt != e.now {
			continue
		}
		first, last = min(first, j.pos-e.off), max(last, j.pos-e.off)
		j.settle(e.now)
		j.done = j.spec.Steps
		j.finished, j.finish, j.areaFinish = true, e.now, e.area
		if e.posOf != nil {
			e.posOf[j.spec.ID] = -1
		}
		if e.pending > 0 && e.cfg.Measure.Contains(j.spec.ID) {
			e.pending--
		}
		e.release(j)
		e.emit(Event{Kind: Finish, Job: j.spec.ID})
		any = true
	}
	if !any {
		return false
	}
	e.rounds.changed = true
	e.rerate(0)
	e.running = slices.DeleteFunc(e.running, func(j *job) bool { return j.finished })
	for k := range e.pairTime {
		if e.byID[k[0]].finished || e.byID[k[1]].finished {
			delete(e.pairTime, k)
		}
	}
	e.rounds.order = slices.DeleteFunc(e.rounds.order, func(k [2]models.JobID) bool {
		if e.byID[k[0]].finished || e.byID[k[1]].finished {
			delete(e.rounds.pairs, k)
			return true
		}
		return false
	})
	e.dropFinished(first, last)
	e.stale = slices.DeleteFunc(e.stale, func(j *job) bool { return j.finished })
	e.refreshEntitlement()
	return true
}

// dropFinished removes the finished jobs, which lie between active[first]
// and active[last], from active and views, keeping the order of the others.
// It moves the shorter side: the jobs after first towards the front, or the
// jobs before last towards the back (then active starts later in its
// array). A run that finishes its oldest jobs first moves few views.
func (e *engine) dropFinished(first, last int) {
	n := len(e.active)
	move := func(k, i int) {
		if k != i {
			j := e.active[i]
			e.setPos(j, e.off+k)
			e.active[k], e.views[k] = j, e.views[i]
		}
	}
	if n-first <= last+1 {
		k := first
		for i := first; i < n; i++ {
			if !e.active[i].finished {
				move(k, i)
				k++
			}
		}
		clear(e.active[k:])
		clear(e.views[k:])
		e.active, e.views = e.active[:k], e.views[:k]
		return
	}
	k := last
	for i := last; i >= 0; i-- {
		if !e.active[i].finished {
			move(k, i)
			k--
		}
	}
	clear(e.active[:k+1])
	clear(e.views[:k+1])
	e.active, e.views = e.active[k+1:], e.views[k+1:]
	e.off += k + 1
}

// arrive admits every job whose arrival time is now.
func (e *engine) arrive() bool {
	any := false
	for e.next < len(e.jobs) && e.jobs[e.next].spec.Arrival == e.now {
		j := e.jobs[e.next]
		j.arrived, j.settled, j.areaArrive = true, e.now, e.area
		j.clock = make([]float64, len(e.rounds.types))
		for g := range j.clock {
			j.clock[g] = e.rounds.credit
		}
		j.deficit = make([]float64, len(e.rounds.types))
		e.setPos(j, e.off+len(e.active))
		v := j.view()
		e.rates.Attach(&v)
		e.active = append(e.active, j)
		e.views = append(e.views, v)
		e.demand[j.user] += float64(j.spec.Gang)
		e.emit(Event{Kind: Arrive, Job: j.spec.ID})
		e.next++
		any = true
	}
	if any {
		e.rounds.changed = true
		e.refreshEntitlement()
	}
	return any
}

// release frees j's GPUs.
func (e *engine) release(j *job) {
	for _, g := range j.gpus {
		e.count(g, -1)
		e.occ[g] = slices.DeleteFunc(e.occ[g], func(o *job) bool { return o == j })
		e.count(g, 1)
	}
	if j.finished {
		e.demand[j.user] -= float64(j.spec.Gang)
	}
	j.gpus, j.typ, j.rate, j.base, j.accum = nil, "", 0, 0, 0
}

// occupy puts j, whose placement is set, on its GPUs.
func (e *engine) occupy(j *job) {
	for _, g := range j.gpus {
		for _, o := range e.occ[g] {
			e.countDefault(j, o)
		}
		e.count(g, -1)
		e.occ[g] = append(e.occ[g], j)
		e.count(g, 1)
	}
}

// count adds (sign 1) or takes back (sign −1) what the jobs on GPU g count
// towards the users' holdings (a shared GPU half for each of its two jobs)
// and the GPUs shared, marks them dirty, and sets vacant[g]. The holdings
// are sums of ones and halves: exact in any order, so the same sums as
// adding up every GPU's share afresh.
func (e *engine) count(g int, sign float64) {
	occ := e.occ[g]
	for _, o := range occ {
		e.holding[o.user] += sign / float64(len(occ))
		e.markDirty(o)
	}
	if len(occ) == 2 {
		e.shared += int(sign)
	}
	e.vacant[g] = len(occ) == 0
}

// markDirty puts j on the jobs rerate looks at.
func (e *engine) markDirty(j *job) {
	if !j.dirty {
		j.dirty = true
		e.dirty = append(e.dirty, j)
	}
}

// rerate recomputes the speed of the running jobs marked dirty from their
// GPU partners (every other job's partners and figure are as they were, and
// so is its speed). A job whose speed changes is settled at the old speed
// first; the jobs placed by the apply of epoch placed (0: none), whose start
// events report their speed, get no rate event. It takes the jobs in
// arrival order, as the running list has them.
func (e *engine) rerate(placed int) {
	slices.SortFunc(e.dirty, func(a, b *job) int { return a.seq - b.seq })
	for _, j := range e.dirty {
		j.dirty = false
		if !j.running() {
			continue
		}
		r := e.speed(j)
		if r == j.rate {
			continue
		}
		j.settle(e.now)
		j.rate = r
		j.schedule(e.now)
		if placed == 0 || j.inPlan != int32(placed) {
			e.emit(Event{Kind: Rate, Job: j.spec.ID, Rate: r})
		}
	}
	clear(e.dirty)
	e.dirty = e.dirty[:0]
}

// speed is j's steps per second now: its throughput alone at its placement,
// divided by the largest interference factor ξ = isolated / co-located among
// its GPUs' partners (a gang runs at the pace of its slowest worker).
func (e *engine) speed(j *job) float64 {
	xi := 1.0
	for _, g := range j.gpus {
		for _, o := range e.occ[g] {
			if o != j {
				xi = math.Max(xi, e.slowdown(j, o))
			}
		}
	}
	return j.base / xi
}

// slowdown is ξ for j beside o, from the matrix's pair figures, else
// Config.DefaultSlowdown.
func (e *engine) slowdown(j, o *job) float64 {
	k := models.PairKey{Key: models.Key{Job: j.spec.Type, GPU: j.typ, Gang: j.spec.Gang, Placement: j.place}, Other: o.spec.Type}
	if p, ok := e.cfg.Matrix.Pair(k); ok && p[0] > 0 {
		iso := e.cfg.Matrix.Throughput(k.Key)
		return math.Max(1, iso/p[0])
	}
	return e.cfg.DefaultSlowdown
}

// refreshEntitlement recomputes each user's entitled GPUs: a weighted
// water-filling of the whole cluster over the users' demands.
func (e *engine) refreshEntitlement() {
	copy(e.entitle, models.WaterFill(float64(len(e.occ)), e.weights, e.demand))
}

// snapshot is the policy's view of now. Its Jobs slice is the engine's own
// (policies must not modify a snapshot or keep it beyond the call).
func (e *engine) snapshot(why models.Trigger) *models.Snapshot {
	for _, j := range e.running {
		j.settle(e.now)
		j.refresh(&e.views[j.pos-e.off])
	}
	for _, j := range e.stale {
		j.refresh(&e.views[j.pos-e.off])
	}
	e.stale = e.stale[:0]
	s := &models.Snapshot{
		Now: e.now, Round: e.round, RoundLength: e.cfg.Round, Trigger: why,
		Environment: e.cfg.Environment, Users: e.cfg.Users, Jobs: e.views,
	}
	if e.rates.Current() {
		s.Rates = e.rates
	}
	return s
}

// decide asks the policy for an allocation, checks it and applies it; or,
// when the policy's re-solve cadence says the allocation in force stays
// (rounds.due), realises that one again.
func (e *engine) decide(why models.Trigger) error {
	if !e.due() {
		if !e.rounds.fractional {
			return nil // the placements in force stay
		}
		return e.realiseRound()
	}
	snap := e.snapshot(why)
	var start time.Duration
	if e.cfg.Clock != nil {
		start = e.cfg.Clock()
	}
	var alloc models.Allocation
	var keep bool
	var err error
	if inc, ok := e.policy.(solvers.Incremental); ok {
		alloc, keep, err = inc.AllocateChanges(snap)
	} else {
		alloc, err = e.policy.Allocate(snap)
	}
	e.ndecisions++
	if e.cfg.Clock != nil {
		e.decisions = append(e.decisions, DecisionTiming{
			Time: seconds(e.now), Round: e.round, Trigger: why.String(),
			Active: len(e.active), Seconds: (e.cfg.Clock() - start).Seconds(),
		})
	}
	e.emit(Event{Kind: Decision, Round: e.round, Trigger: why.String(), Active: len(e.active)})
	if err != nil {
		return fmt.Errorf("round %d (t=%gs): %w", e.round, seconds(e.now), err)
	}
	e.checks++
	if keep {
		if e.changesFast(snap, alloc) {
			e.adoptChanges(alloc)
			return nil
		}
		alloc = solvers.Changes(snap, alloc)
	}
	if err := e.check.Feasible(snap, alloc); err != nil {
		return fmt.Errorf("round %d (t=%gs): infeasible allocation: %w", e.round, seconds(e.now), err)
	}
	return e.adopt(alloc)
}

// realiseRound places one round of the time shares in force.
func (e *engine) realiseRound() error {
	run, pairs := shareRound(e.roundInput(), &e.rounds.work)
	placed, err := e.place(run, pairs)
	if err != nil {
		return e.roundErr(err)
	}
	e.apply(placed)
	return nil
}

// checkProgress stops a run that can no longer make progress.
func (e *engine) checkProgress(why models.Trigger) error {
	if len(e.running) > 0 || len(e.active) == 0 || e.next < len(e.jobs) {
		e.idle = 0
		return nil
	}
	if e.trig&models.AtRound == 0 {
		return fmt.Errorf("stalled at t=%gs: %d jobs wait, none runs, and no event is due", seconds(e.now), len(e.active))
	}
	if why&models.AtRound != 0 {
		e.idle++
	}
	if e.idle >= e.cfg.MaxIdleRounds {
		return fmt.Errorf("stalled: %d jobs waited %d rounds with every GPU idle", len(e.active), e.idle)
	}
	return nil
}

func (e *engine) emit(ev Event) {
	if e.cfg.OnEvent != nil {
		ev.Time = seconds(e.now)
		e.cfg.OnEvent(ev)
	}
}
