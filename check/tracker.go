package check

import (
	"errors"
	"sort"
	"time"

	"fairbench/models"
	"fairbench/sim"
	"fairbench/solvers"
)

// tracker integrates a simulation's event log into what the checker
// measures: per job, the time spent on each GPU type and the steps done, and
// their values at checkpoint times. Between events a job runs at the rate of
// its last start, resume, migrate or rate event. The checker's workloads
// have no restore costs (their job types carry no training state), so a job
// makes progress from the moment it is placed.
type tracker struct {
	jobs   map[models.JobID]*track
	ids    []models.JobID // sorted
	points []float64      // checkpoint times (s), increasing
	next   int            // first checkpoint not yet recorded
	// At[k][id] is the job's state at points[k].
	At  []map[models.JobID]trackState
	now float64
}

type track struct {
	gang     int
	running  bool
	typ      string
	rate     float64
	since    float64
	state    trackState
	firstRun float64
}

// trackState is what a job has accumulated.
type trackState struct {
	Done     float64            // steps
	Time     map[string]float64 // seconds run on each type
	FirstRun float64            // seconds; -1 before the first run
}

func newTracker(jobs []models.Job, points []float64) *tracker {
	t := &tracker{jobs: map[models.JobID]*track{}, points: points}
	for _, j := range jobs {
		t.jobs[j.ID] = &track{gang: j.Gang, firstRun: -1, state: trackState{Time: map[string]float64{}, FirstRun: -1}}
		t.ids = append(t.ids, j.ID)
	}
	sort.Slice(t.ids, func(a, b int) bool { return t.ids[a] < t.ids[b] })
	return t
}

// on handles one event.
func (t *tracker) on(ev sim.Event) {
	t.advance(ev.Time)
	j := t.jobs[ev.Job]
	switch ev.Kind {
	case sim.Start, sim.Resume, sim.Migrate:
		j.settle(ev.Time)
		j.running, j.typ, j.rate, j.since = true, ev.Type, ev.Rate, ev.Time
		if j.state.FirstRun < 0 {
			j.state.FirstRun = ev.Time
		}
	case sim.Rate:
		if j.running {
			j.settle(ev.Time)
			j.rate = ev.Rate
		}
	case sim.Preempt, sim.Vacate, sim.Finish:
		j.settle(ev.Time)
		j.running = false
	}
}

// settle adds the work since the last settlement.
func (j *track) settle(at float64) {
	if j.running && at > j.since {
		dt := at - j.since
		j.state.Done += j.rate * dt
		j.state.Time[j.typ] += dt
	}
	j.since = at
}

// advance records every checkpoint up to time at.
func (t *tracker) advance(at float64) {
	for t.next < len(t.points) && t.points[t.next] <= at {
		p := t.points[t.next]
		snap := make(map[models.JobID]trackState, len(t.jobs))
		for _, id := range t.ids {
			j := t.jobs[id]
			j.settle(p)
			st := trackState{Done: j.state.Done, FirstRun: j.state.FirstRun, Time: make(map[string]float64, len(j.state.Time))}
			for k, v := range j.state.Time {
				st.Time[k] = v
			}
			snap[id] = st
		}
		t.At = append(t.At, snap)
		t.next++
	}
	t.now = at
}

// errHorizon stops a simulation once the checker has what it needs.
var errHorizon = errors.New("check: horizon reached")

// stopAt wraps a policy so that its first decision at or after until fails
// with errHorizon, which ends the simulation there (sim has no horizon of
// its own). Policies that decide only at events may run on past until; the
// tracker's checkpoints are unaffected.
type stopAt struct {
	solvers.Policy
	until time.Duration
}

func (p *stopAt) Allocate(s *models.Snapshot) (models.Allocation, error) {
	if s.Now >= p.until {
		return models.Allocation{}, errHorizon
	}
	return p.Policy.Allocate(s)
}

func (p *stopAt) Triggers() models.Trigger { return solvers.TriggersOf(p.Policy) }

// simulate runs cfg under p, recording checkpoints, and stops at the last
// one. It returns the tracker and the simulation's result (nil when stopped
// at the horizon).
func simulate(cfg sim.Config, p solvers.Policy, points []float64) (*tracker, *sim.Result, error) {
	t := newTracker(cfg.Jobs, points)
	cfg.OnEvent = t.on
	until := time.Duration(points[len(points)-1] * float64(time.Second))
	res, err := sim.Run(cfg, &stopAt{Policy: p, until: until})
	if err != nil && !errors.Is(err, errHorizon) {
		return nil, nil, err
	}
	t.advance(points[len(points)-1])
	return t, res, nil
}
