// Package tiresias is Tiresias' discretised two-dimensional least-attained-
// service scheduler (Discretized 2D-LAS; Gu et al., "Tiresias: A GPU Cluster
// Manager for Distributed Deep Learning", NSDI 2019), the "dlas-gpu" schedule of the
// authors' simulator (dlas_sim_jobs(gputime=True) in SymbioticLab/Tiresias
// simulator/run_sim.py, commit b0ef844).
//
// A job's attained service is its GPU time, gang × time run
// (models.JobState.Attained): the two dimensions are space (GPUs) and time.
// Jobs live in K priority queues Q0 … Q(K−1) split by K−1 thresholds; a job
// enters Q0 on arrival and moves down to Qk once its service since its last
// promotion reaches thresholds[k−1]. Queues are served in order, a lower
// index first. Within a queue the order is the simulator's list order: jobs in
// the order they entered the queue, except that after each decision the jobs
// then running move ahead of the waiting ones (the "sort based on the job
// start time" step), so jobs of one queue do not preempt each other. Every
// decision walks that order and starts each job whose gang fits in the GPUs
// left (a job that does not fit is skipped, not blocking later ones); a
// running job that is not reached is preempted.
//
// Starvation guard (the simulator's solve_starvation; the paper's STARVELIMIT
// = PROMOTEKNOB × execution time): a waiting job outside Q0 whose waiting time since its last
// promotion — counted only once it has run since that promotion — reaches
// PromoteKnob × its run time since that promotion goes back to the end of
// Q0, and both counters restart from zero.
//
// Differences from the authors' simulator, chosen for fairbench:
//   - Decisions happen at fairbench's round starts, arrivals and completions
//     (Triggers). The authors' simulator also decides at the exact instant a
//     job crosses a threshold or reaches its starvation limit; here such a
//     demotion or promotion takes effect at the next decision (at most one
//     round later), and a job that crossed several thresholds since the last
//     decision drops straight to its level.
//   - The cluster is heterogeneous: Tiresias is heterogeneity-agnostic and
//     looks only at free room, so a job starts on the fastest type that has
//     room for its gang, and a running job that stays in keeps its type when
//     that type still has room (solvers.StayOrFastest).
//
// Two variants and two options reproduce how the seed papers ran Tiresias
// (docs/algorithms/tiresias.md):
//
//   - tiresias-pertype is Tiresias as FFT (Mo, Xu, Lau, ICS 2025) adapted it
//     to a heterogeneous cluster: per-GPU-type queues, a type drawn at
//     random for each job, no migration across types. A job's type is drawn
//     uniformly among the types that can run its gang, once, from a seed the
//     run's random source gives (a hash of the seed and the job's ID, so the
//     draw does not depend on the order of decisions); the job only ever runs
//     there. The queues are the same 2D-LAS queues, served per type: walking
//     the global order and packing each job on its own type is the same as
//     serving each type's queue in priority order.
//   - service: time counts attained service as time run rather than GPU
//     time (the authors' Tiresias_jobs in SJF-BSBF's prototype,
//     github.com/Lai-JX/Scheduler, scheduler_impl/schedulers.py, called
//     with gputime=False), and rounds_only: true decides at round starts
//     only, as that prototype does every schedule_interval seconds.
//
// The policy keeps per-job state between decisions (queue, the service and
// time counters since the last promotion, the within-queue order), because a
// promotion resets the service that decides the queue and the order depends
// on when a job entered its queue: neither can be read from one snapshot.
// State is keyed by JobID and dropped when a job leaves the snapshot; a job
// seen for the first time is placed from the snapshot alone (queue from
// Attained, waiting time from FirstRun and Executed), so a single decision on
// an instance file works too. An instance serves one run (solvers.Policy: a
// snapshot earlier than the last decision is an error); it is not safe for
// concurrent use.
package tiresias

import (
	"fmt"
	"math"
	"slices"
	"time"

	"fairbench/models"
	"fairbench/solvers"
)

// Registered names.
const (
	Name        = "tiresias"
	PerTypeName = "tiresias-pertype"
)

// Summaries the registry shows.
const (
	Summary        = "Tiresias discretised 2D-LAS: GPU-time priority queues, FIFO within a queue, preemptive, starvation promotion"
	PerTypeSummary = "Tiresias as FFT adapted it: per-GPU-type queues, a random type per job, no migration across types"
)

// Service kinds (Options.Service).
const (
	ServiceGPUTime = "gpu-time" // gang × time run (the paper's two dimensions)
	ServiceTime    = "time"     // time run
)

// DefaultThresholds are the queue thresholds in GPU-seconds: the authors'
// simulator uses num_queue = 3 with queue_limit = [3250, 7200, 18000]
// (SymbioticLab/Tiresias simulator/jobs.py, _TFJobs.__init__), of which the
// first num_queue − 1 = 2 split the queues.
var DefaultThresholds = []float64{3250, 7200}

// DefaultPromoteKnob is the starvation knob. The authors' simulator leaves
// it off for plain "dlas-gpu" and offers dlas-gpu-{0.5,1,2,4,8,10,100,1000}
// (run_sim.py, main); 8 is the value Voda's implementation of Tiresias
// (heyfey/vodascheduler pkg/algorithm, TiresiasPromoteKnob) gives as the
// paper's setting. Set promote_knob: 0 to turn promotion off.
const DefaultPromoteKnob = 8.0

// Options are tiresias' settings.
type Options struct {
	// Thresholds (GPU-seconds, strictly increasing, positive) split the
	// queues: K = len(Thresholds) + 1 queues. Default DefaultThresholds. An
	// empty list gives a single queue, which makes the policy non-preemptive
	// first-come first-served with backfilling (the simulator's "fjf").
	Thresholds []float64 `mapstructure:"thresholds"`
	// PromoteKnob (≥ 0) sets the starvation limit: a waiting job is promoted
	// to Q0 when it has waited PromoteKnob × its run time since its last
	// promotion. 0 turns promotion off. Default DefaultPromoteKnob.
	PromoteKnob *float64 `mapstructure:"promote_knob"`
	// Service is what the thresholds count: "gpu-time" (default) or "time".
	Service string `mapstructure:"service"`
	// RoundsOnly decides at round starts only (default: also at arrivals
	// and completions).
	RoundsOnly bool `mapstructure:"rounds_only"`
}

// Tiresias is the policy. See the package comment.
type Tiresias struct {
	name       string
	thresholds []time.Duration
	knob       float64
	byTime     bool // service is time run, not GPU time
	roundsOnly bool
	perType    bool   // tiresias-pertype
	seed       uint64 // of the per-type draws
	typeOf     map[models.JobID]string

	jobs   map[models.JobID]*entry
	queues [][]*entry
	last   time.Duration // Now of the previous decision
	seen   bool          // a decision has been made
	gen    int           // decisions made; entry.seen holds the last that saw a job

	// prev holds the last decision's entries in its snapshot's order, where
	// the next snapshot is expected to meet them again (entry.pos).
	prev []*entry
	// Work space kept between decisions: this decision's entries in its
	// snapshot's order (the next prev), the new jobs and the moved ones
	// (each in snapshot order), the waiting part of a queue.
	ents  []*entry
	fresh []*entry
	moves []*entry
	wait  []*entry
	// pack packs into the Run of the last allocation returned
	// (solvers.Policy: the caller's until the next decision).
	pack solvers.Packer
}

// entry is one job's queue state.
type entry struct {
	id    models.JobID
	queue int
	// Attained and Executed at the last promotion (0 before any): service
	// since then decides demotion, run time since then the starvation limit.
	baseAttained time.Duration
	baseExecuted time.Duration
	// waited is the time spent waiting since the last promotion, counted only
	// while the job has run since that promotion (the simulator's
	// last_pending_time).
	waited time.Duration
	// seen is the decision (Tiresias.gen) that last saw the job, pos its
	// index in that decision's snapshot, and running whether it ran just
	// before that decision.
	seen    int
	pos     int
	running bool
	// to is the queue the job joins the end of at this decision, −1 when
	// it stays where it is.
	to int
}

var (
	_ solvers.Policy    = (*Tiresias)(nil)
	_ solvers.Triggered = (*Tiresias)(nil)
)

// New builds tiresias from its options, refusing thresholds that are not
// positive, finite and strictly increasing, a negative or non-finite knob,
// and an unknown service.
func New(c solvers.Config) (solvers.Policy, error) { return build(Name, c) }

// NewPerType builds tiresias-pertype (the same options).
func NewPerType(c solvers.Config) (solvers.Policy, error) { return build(PerTypeName, c) }

func build(name string, c solvers.Config) (*Tiresias, error) {
	var o Options
	if err := c.Decode(&o); err != nil {
		return nil, fmt.Errorf("%s: options: %w", name, err)
	}
	if o.Thresholds == nil {
		o.Thresholds = append([]float64(nil), DefaultThresholds...)
	}
	knob := DefaultPromoteKnob
	if o.PromoteKnob != nil {
		knob = *o.PromoteKnob
	}
	t, err := NewWith(o.Thresholds, knob)
	if err != nil {
		return nil, err
	}
	t.name = name
	switch o.Service {
	case "", ServiceGPUTime:
	case ServiceTime:
		t.byTime = true
	default:
		return nil, fmt.Errorf("%s: service: must be %q or %q, got %q", name, ServiceGPUTime, ServiceTime, o.Service)
	}
	t.roundsOnly = o.RoundsOnly
	if name == PerTypeName {
		t.perType = true
		// The run's random source seeds the draws; without one (a single
		// decision from the checker) a fixed seed keeps them reproducible.
		t.seed = 0x7469726573696173
		if c.Rand != nil {
			t.seed = c.Rand.Uint64()
		}
	}
	return t, nil
}

// maxThreshold keeps thresholds within time.Duration (about 292 years).
const maxThreshold = 1e9

// NewWith builds tiresias from thresholds in GPU-seconds and a promote knob,
// validating both.
func NewWith(thresholds []float64, promoteKnob float64) (*Tiresias, error) {
	t := &Tiresias{name: Name, knob: promoteKnob}
	for i, th := range thresholds {
		if math.IsNaN(th) || math.IsInf(th, 0) || th <= 0 || th > maxThreshold {
			return nil, fmt.Errorf("tiresias: thresholds[%d]: must be a positive number of GPU-seconds up to %g, got %v", i, float64(maxThreshold), th)
		}
		if i > 0 && th <= thresholds[i-1] {
			return nil, fmt.Errorf("tiresias: thresholds[%d]: must exceed thresholds[%d] = %v, got %v", i, i-1, thresholds[i-1], th)
		}
		t.thresholds = append(t.thresholds, time.Duration(th*float64(time.Second)))
	}
	if math.IsNaN(promoteKnob) || math.IsInf(promoteKnob, 0) || promoteKnob < 0 {
		return nil, fmt.Errorf("tiresias: promote_knob: must be a finite number ≥ 0, got %v", promoteKnob)
	}
	return t, nil
}

// Name is "tiresias" or "tiresias-pertype".
func (t *Tiresias) Name() string { return t.name }

// Triggers: round starts, arrivals and completions, like the authors'
// simulator, which reschedules at every arrival and completion; round
// starts only with rounds_only.
func (t *Tiresias) Triggers() models.Trigger {
	if t.roundsOnly {
		return models.AtRound
	}
	return models.AtRound | models.AtArrival | models.AtCompletion
}

// service is j's attained service as the thresholds count it, and what it
// was at j's last promotion.
func (t *Tiresias) service(j *models.JobState, e *entry) time.Duration {
	if t.byTime {
		return j.Executed - e.baseExecuted
	}
	return j.Attained - e.baseAttained
}

// Queues is the number of priority queues, len(thresholds) + 1.
func (t *Tiresias) Queues() int { return len(t.thresholds) + 1 }

// Queue reports the queue job id was in at the last decision.
func (t *Tiresias) Queue(id models.JobID) (int, bool) {
	e, ok := t.jobs[id]
	if !ok {
		return 0, false
	}
	return e.queue, true
}

// level is the queue a service since the last promotion belongs to: the
// number of thresholds it has reached.
func (t *Tiresias) level(service time.Duration) int {
	q := 0
	for q < len(t.thresholds) && service >= t.thresholds[q] {
		q++
	}
	return q
}

// Allocate updates the queues to s.Now and packs the jobs queue by queue.
func (t *Tiresias) Allocate(s *models.Snapshot) (models.Allocation, error) {
	if t.seen && s.Now < t.last {
		return models.Allocation{}, solvers.TimeWentBack(t.Name(), s.Now, t.last)
	}
	if t.jobs == nil {
		t.jobs = map[models.JobID]*entry{}
		t.queues = make([][]*entry, t.Queues())
		t.typeOf = map[models.JobID]string{}
	}
	var dt time.Duration
	if t.seen {
		dt = s.Now - t.last
	}

	t.gen++

	// Find this snapshot's jobs among the tracked ones: the last decision's
	// jobs come again in its order (the simulator's snapshots keep jobs in
	// arrival order), so a job found where the last one found ended needs
	// no lookup. On the way, decide which jobs join the end of a queue:
	// new jobs (a fresh arrival has no service, so Q0), then, in snapshot
	// order, jobs demoted by their service since the last promotion and
	// starved waiting jobs promoted to Q0 (a waiting job's waiting time
	// grows by the time since the last decision).
	ents := slices.Grow(t.ents[:0], len(s.Jobs))[:len(s.Jobs)]
	fresh, moves := t.fresh[:0], t.moves[:0]
	next := 0
	for i := range s.Jobs {
		j := &s.Jobs[i]
		var e *entry
		if next < len(t.prev) && t.prev[next].id == j.ID {
			e = t.prev[next]
		} else {
			e = t.jobs[j.ID]
		}
		if e == nil {
			e = &entry{id: j.ID, seen: t.gen, pos: i, running: j.Running()}
			e.to = t.level(t.service(j, e))
			if j.Started() {
				e.waited = max(0, s.Now-j.FirstRun-j.Executed)
			}
			t.jobs[j.ID] = e
			ents[i] = e
			fresh = append(fresh, e)
			continue
		}
		next = e.pos + 1
		e.seen, e.pos, e.running, e.to = t.gen, i, j.Running(), -1
		ents[i] = e
		if t.demoteOrPromote(j, e, dt) {
			moves = append(moves, e)
		}
	}

	// Drop finished jobs; within each queue move the running jobs ahead of
	// the waiting ones, keeping their order (the simulator does this right
	// after each decision; the jobs running now are the ones it chose), and
	// take out the jobs that join the end of another (or the same) queue.
	wait := t.wait
	for q, es := range t.queues {
		run := es[:0] // the running ones, in place; then the waiting ones
		wait = wait[:0]
		for _, e := range es {
			switch {
			case e.seen != t.gen:
				delete(t.jobs, e.id)
				delete(t.typeOf, e.id)
			case e.to >= 0:
			case e.running:
				run = append(run, e)
			default:
				wait = append(wait, e)
			}
		}
		t.queues[q] = append(run, wait...)
		clear(es[len(t.queues[q]):])
	}
	clear(wait[:cap(wait)])
	t.wait = wait[:0]
	for _, es := range [][]*entry{fresh, moves} {
		for _, e := range es {
			e.queue, e.to = e.to, -1
			t.queues[e.queue] = append(t.queues[e.queue], e)
		}
		clear(es)
	}
	t.fresh, t.moves = fresh[:0], moves[:0]

	t.last, t.seen = s.Now, true
	p := &t.pack
	p.Reset(s)
	place := p.Stay
	if t.perType {
		place = func(j *models.JobState) bool { return p.Place(j, t.ownType) }
	}
	order := func(yield func(*models.JobState) bool) {
		for _, es := range t.queues {
			for _, e := range es {
				if !yield(&s.Jobs[e.pos]) {
					return
				}
			}
		}
	}
	p.PlaceSeqBy(order, place, false)
	// This decision's entries are the next one's prev; the old prev, emptied
	// whole (ents is read up to len(s.Jobs)), is the next work space.
	clear(t.prev[:cap(t.prev)])
	t.prev, t.ents = ents, t.prev[:0]
	return models.Allocation{Run: p.Finish()}, nil
}

// demoteOrPromote sets e.to, and reports true, when job j moves: down to
// the queue its service since the last promotion reaches, or, waiting,
// starved (its waiting time, grown by dt, at the starvation limit), back to
// Q0 with its counters restarted.
func (t *Tiresias) demoteOrPromote(j *models.JobState, e *entry, dt time.Duration) bool {
	q := e.queue
	if lvl := t.level(t.service(j, e)); lvl > q {
		q, e.to = lvl, lvl
	}
	if !e.running {
		if ran := j.Executed - e.baseExecuted; ran > 0 {
			e.waited += dt
			if t.knob > 0 && q > 0 && e.waited >= time.Duration(t.knob*float64(ran)) {
				e.baseAttained, e.baseExecuted, e.waited = j.Attained, j.Executed, 0
				e.to = 0
			}
		}
	}
	return e.to >= 0
}

// ownType is tiresias-pertype's chooser: the job's drawn type when it has
// room for the gang.
func (t *Tiresias) ownType(s *models.Snapshot, j *models.JobState, free map[string]int) (string, bool) {
	g, ok := t.typeOf[j.ID]
	if !ok {
		var can []string
		for _, n := range s.Cluster.TypeNames() {
			if s.Throughput(&j.Job, n) > 0 {
				can = append(can, n)
			}
		}
		if len(can) == 0 {
			return "", false
		}
		g = can[mix(t.seed, uint64(j.ID))%uint64(len(can))]
		t.typeOf[j.ID] = g
	}
	return g, free[g] >= j.Gang
}

// mix is SplitMix64's finaliser over seed and x: a uniform draw per job.
func mix(seed, x uint64) uint64 {
	z := seed + (x+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
