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
// The policy keeps per-job state between decisions (queue, the service and
// time counters since the last promotion, the within-queue order), because a
// promotion resets the service that decides the queue and the order depends
// on when a job entered its queue: neither can be read from one snapshot.
// State is keyed by JobID and dropped when a job leaves the snapshot; a job
// seen for the first time is placed from the snapshot alone (queue from
// Attained, waiting time from FirstRun and Executed), so a single decision on
// an instance file works too. Build one Tiresias per simulation run; it is not
// safe for concurrent use.
package tiresias

import (
	"fmt"
	"math"
	"time"

	"fairbench/models"
	"fairbench/solvers"
)

// Name is the policy's registered name.
const Name = "tiresias"

// Summary is the one-line description the registry shows.
const Summary = "Tiresias discretised 2D-LAS: GPU-time priority queues, FIFO within a queue, preemptive, starvation promotion"

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
}

// Tiresias is the policy. See the package comment.
type Tiresias struct {
	thresholds []time.Duration
	knob       float64

	jobs   map[models.JobID]*entry
	queues [][]models.JobID
	last   time.Duration // Now of the previous decision
	seen   bool          // a decision has been made
	gen    int           // decisions made; entry.seen holds the last that saw a job
}

// entry is one job's queue state.
type entry struct {
	queue int
	// Attained and Executed at the last promotion (0 before any): service
	// since then decides demotion, run time since then the starvation limit.
	baseAttained time.Duration
	baseExecuted time.Duration
	// waited is the time spent waiting since the last promotion, counted only
	// while the job has run since that promotion (the simulator's
	// last_pending_time).
	waited time.Duration
	// cur is the job in the snapshot being decided on (nil between
	// decisions); seen is the decision (Tiresias.gen) that last saw it.
	cur  *models.JobState
	seen int
}

var (
	_ solvers.Policy    = (*Tiresias)(nil)
	_ solvers.Triggered = (*Tiresias)(nil)
)

// New builds tiresias from its options, refusing thresholds that are not
// positive, finite and strictly increasing, and a negative or non-finite knob.
func New(c solvers.Config) (solvers.Policy, error) {
	var o Options
	if err := c.Decode(&o); err != nil {
		return nil, fmt.Errorf("tiresias: options: %w", err)
	}
	if o.Thresholds == nil {
		o.Thresholds = append([]float64(nil), DefaultThresholds...)
	}
	knob := DefaultPromoteKnob
	if o.PromoteKnob != nil {
		knob = *o.PromoteKnob
	}
	return NewWith(o.Thresholds, knob)
}

// maxThreshold keeps thresholds within time.Duration (about 292 years).
const maxThreshold = 1e9

// NewWith builds tiresias from thresholds in GPU-seconds and a promote knob,
// validating both.
func NewWith(thresholds []float64, promoteKnob float64) (*Tiresias, error) {
	t := &Tiresias{knob: promoteKnob}
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

// Name is "tiresias".
func (*Tiresias) Name() string { return Name }

// Triggers: round starts, arrivals and completions, like the authors'
// simulator, which reschedules at every arrival and completion.
func (*Tiresias) Triggers() models.Trigger {
	return models.AtRound | models.AtArrival | models.AtCompletion
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
		t.jobs, t.queues, t.seen = nil, nil, false // a new run: forget the old one
	}
	if t.jobs == nil {
		t.jobs = map[models.JobID]*entry{}
		t.queues = make([][]models.JobID, t.Queues())
	}
	var dt time.Duration
	if t.seen {
		dt = s.Now - t.last
	}

	t.gen++

	// Find this snapshot's jobs among the tracked ones.
	ents := make([]*entry, len(s.Jobs))
	for i := range s.Jobs {
		j := &s.Jobs[i]
		if e, ok := t.jobs[j.ID]; ok {
			e.cur, e.seen = j, t.gen
			ents[i] = e
		}
	}

	// Drop finished jobs; within each queue move the running jobs ahead of
	// the waiting ones, keeping their order (the simulator does this right
	// after each decision; the jobs running now are the ones it chose).
	for q, ids := range t.queues {
		var run, wait []models.JobID
		for _, id := range ids {
			e := t.jobs[id]
			switch {
			case e.seen != t.gen:
				delete(t.jobs, id)
			case e.cur.Running():
				run = append(run, id)
			default:
				wait = append(wait, id)
			}
		}
		t.queues[q] = append(run, wait...)
	}

	// New jobs join the end of their queue, in arrival order (a fresh
	// arrival has no service, so Q0).
	for i := range s.Jobs {
		if ents[i] != nil {
			continue
		}
		j := &s.Jobs[i]
		e := &entry{queue: t.level(j.Attained), cur: j, seen: t.gen}
		if j.Started() {
			e.waited = max(0, s.Now-j.FirstRun-j.Executed)
		}
		t.jobs[j.ID] = e
		t.queues[e.queue] = append(t.queues[e.queue], j.ID)
	}

	// Demote by service since the last promotion; count waiting time and
	// promote starved jobs.
	for i, e := range ents {
		if e == nil {
			continue
		}
		j := &s.Jobs[i]
		if lvl := t.level(j.Attained - e.baseAttained); lvl > e.queue {
			t.move(j.ID, e, lvl)
		}
		if j.Running() {
			continue
		}
		ran := j.Executed - e.baseExecuted
		if ran <= 0 {
			continue
		}
		e.waited += dt
		if t.knob > 0 && e.queue > 0 && e.waited >= time.Duration(t.knob*float64(ran)) {
			e.baseAttained, e.baseExecuted, e.waited = j.Attained, j.Executed, 0
			t.move(j.ID, e, 0)
		}
	}

	order := make([]*models.JobState, 0, len(s.Jobs))
	for _, ids := range t.queues {
		for _, id := range ids {
			e := t.jobs[id]
			order = append(order, e.cur)
			e.cur = nil // keep no reference to s after the call
		}
	}
	t.last, t.seen = s.Now, true
	return models.Allocation{Run: solvers.Pack(s, order, solvers.StayOrFastest, false)}, nil
}

// move takes job id out of its queue and appends it to queue q.
func (t *Tiresias) move(id models.JobID, e *entry, q int) {
	ids := t.queues[e.queue]
	for k, x := range ids {
		if x == id {
			t.queues[e.queue] = append(ids[:k:k], ids[k+1:]...)
			break
		}
	}
	e.queue = q
	t.queues[q] = append(t.queues[q], id)
}
