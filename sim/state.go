package sim

import (
	"math"
	"slices"
	"time"

	"fairbench/models"
)

// job is the simulator's private record of one job. Progress is settled
// lazily: done and the time counters are exact at settled and advance at rate
// while the job holds GPUs and is not restoring.
type job struct {
	seq  int // position in arrival order
	pos  int // engine.off + its index in engine.active (and views) while active
	spec models.Job

	// The fields read for every running job at every decision (settle,
	// refresh, Holds, placeFast, apply) come first, together: a job's
	// record spans ten cache lines, and these take four with spec.

	done     float64
	settled  time.Duration // time up to which done and the counters are exact
	rate     float64       // steps per second now: base, slowed by any GPU partner
	pausedTo time.Duration // restore in progress until then
	typ      string        // current GPU type, "" when not running
	gpus     []int         // current GPUs, nil when not running
	accum    int           // gradient-accumulation steps (0: none)
	// kept is the mark (engine.keep) of the placement that left the job on
	// its GPUs as they are; held, the check (engine.checks) whose Holds
	// vouched for its assignment; inPlan, see below (32 bits: a run makes
	// fewer than 2³¹ decisions).
	kept         int
	held, inPlan int32
	attained     time.Duration // GPU time of progress (gang × executed)
	executed     time.Duration // wall time of progress
	firstRun     time.Duration // -1 until the first start
	received     models.Received
	recvAt       int           // the index in received of the type it runs on, −1 until found after a placement
	lost         time.Duration // wall time spent restoring

	// Marks of engine.apply (epochs, 0 for none): inPlan (above), the apply
	// whose placements changed this job (at slot), and wasRunning, the apply
	// that found it running.
	slot, wasRunning int
	place            models.Placement
	base             float64       // steps per second at the current placement, alone
	finishAt         time.Duration // completion time at the current rate
	dirty            bool          // on engine.dirty
	user             int           // index into engine.users
	iso              []float64     // base per type (engine.rounds.typeIdx) and placement, without accumulation; nil until placed
	jt               models.JobType
	restore          time.Duration // checkpoint-restore cost

	// The round mechanism's view (see rounds), per GPU type newest first:
	// whether the job can run there, its share in the allocation in force
	// (empty when that allocation does not know it), its time there since
	// that allocation plus the half-round credit, and its deficit.
	runnable []bool
	share    []float64
	clock    []float64
	deficit  []float64
	inAlloc  bool

	arrived     bool
	finished    bool
	finish      time.Duration
	areaArrive  float64 // ∫ active-jobs dt at arrival (job·seconds)
	areaFinish  float64 // the same at completion
	preemptions int
	migrations  int
	resumes     int
}

func (j *job) running() bool { return len(j.gpus) > 0 }

func (j *job) remaining() float64 { return math.Max(0, j.spec.Steps-j.done) }

// settle brings the job's progress up to now.
func (j *job) settle(now time.Duration) {
	if now <= j.settled {
		return
	}
	if j.running() {
		from := j.settled
		if j.pausedTo > from {
			p := min(j.pausedTo, now)
			j.lost += p - from
			from = p
		}
		if run := now - from; run > 0 {
			// min(Steps, done + rate·run): both positive and finite, so
			// math.Min's care for NaNs and signed zeros is not needed.
			if j.done += j.rate * run.Seconds(); j.done > j.spec.Steps {
				j.done = j.spec.Steps
			}
			j.executed += run
			j.attained = addSat(j.attained, mulSat(run, j.spec.Gang))
			j.receive(run)
		}
	}
	j.settled = now
}

// receive adds run to the time received on the job's current type.
// Between placements that is the entry it added to last: found without a
// search (a placement sets recvAt to −1).
func (j *job) receive(run time.Duration) {
	k := j.recvAt
	if k < 0 {
		k = slices.IndexFunc(j.received, func(t models.TypeTime) bool { return t.Type == j.typ })
		if k < 0 {
			k = len(j.received)
			j.received = append(j.received, models.TypeTime{Type: j.typ})
		}
		j.recvAt = k
	}
	j.received[k].Time += run
}

// schedule recomputes the completion time after a placement change at now.
func (j *job) schedule(now time.Duration) {
	start := max(now, j.pausedTo)
	j.finishAt = addSat(start, ceilSeconds(j.remaining()/j.rate))
}

// ceilSeconds converts seconds to a Duration, rounding up to the nanosecond
// so that a job never finishes before its work is done. A time beyond
// time.Duration's range (a tiny rate) saturates to never instead of
// wrapping around to a negative time.
func ceilSeconds(s float64) time.Duration {
	ns := math.Ceil(s * float64(time.Second))
	if !(ns < math.MaxInt64) { // also NaN
		return never
	}
	return time.Duration(max(ns, 0))
}

// addSat is a + b for b ≥ 0, saturating at never.
func addSat(a, b time.Duration) time.Duration {
	if a > never-b {
		return never
	}
	return a + b
}

// mulSat is d × k for d, k ≥ 0, saturating at never.
func mulSat(d time.Duration, k int) time.Duration {
	if k > 0 && d > never/time.Duration(k) {
		return never
	}
	return d * time.Duration(k)
}

// view is the job as a policy sees it.
func (j *job) view() models.JobState {
	return models.JobState{
		Job:       j.spec,
		Done:      j.done,
		Attained:  j.attained,
		Executed:  j.executed,
		FirstRun:  j.firstRun,
		LastType:  j.typ,
		LastGPUs:  j.gpus,
		LastAccum: j.accum,
		Received:  j.received,
	}
}

// refresh brings v, the view of j when it was last built or refreshed, up to
// date: the fields that change while a job runs or when it is placed (the
// job stays the same; Received's entries change in place, and it grows when
// the job runs on a new type).
func (j *job) refresh(v *models.JobState) {
	v.Done, v.Attained, v.Executed, v.FirstRun = j.done, j.attained, j.executed, j.firstRun
	v.LastType, v.LastGPUs, v.LastAccum, v.Received = j.typ, j.gpus, j.accum, j.received
}
