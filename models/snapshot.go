package models

import (
	"math"
	"sort"
	"time"
)

// Trigger says why a policy is being asked for an allocation.
type Trigger int

const (
	// AtRound: the start of a scheduling round.
	AtRound Trigger = 1 << iota
	// AtArrival: one or more jobs arrived.
	AtArrival
	// AtCompletion: one or more jobs finished and freed their GPUs.
	AtCompletion
)

func (t Trigger) String() string {
	switch t {
	case AtRound:
		return "round"
	case AtArrival:
		return "arrival"
	case AtCompletion:
		return "completion"
	}
	return "mixed"
}

// JobState is a job as the scheduler sees it at one instant.
type JobState struct {
	Job
	// Done is the number of steps completed.
	Done float64 `json:"done"`
	// Attained is the GPU time received so far (gang × time run), the service
	// measure of least-attained-service policies.
	Attained time.Duration `json:"attained"`
	// Executed is the wall time the job has been running.
	Executed time.Duration `json:"executed"`
	// FirstRun is when the job first ran; negative when it has not run yet.
	FirstRun time.Duration `json:"first_run"`
	// LastType and LastGPUs describe where the job ran under the allocation
	// in force just before this decision; empty when it was not running.
	LastType string `json:"last_type,omitempty"`
	LastGPUs []int  `json:"last_gpus,omitempty"`
	// LastAccum is the gradient-accumulation steps it ran with (0: none).
	LastAccum int `json:"last_accum,omitempty"`
	// Received is, per GPU type, the time the job has run there (Gavel's
	// rounds received, in time units).
	Received Received `json:"received,omitempty"`

	rates *rateRow // its figures, when a Rates attached them
}

// Received is the time a job has run on each GPU type: one entry per type
// it has run on, in the order it first ran there. It is a short list rather
// than a map so that the simulator adds a running job's time at every
// decision without hashing the type's name.
type Received []TypeTime

// TypeTime is the time run on one GPU type.
type TypeTime struct {
	Type string        `json:"type"`
	Time time.Duration `json:"time"`
}

// On is the time run on type gpu (0 when none).
func (r Received) On(gpu string) time.Duration {
	for _, t := range r {
		if t.Type == gpu {
			return t.Time
		}
	}
	return 0
}

// Add adds d to the time on type gpu, in place when r has an entry for it,
// and returns r (with an entry appended for a new type).
func (r Received) Add(gpu string, d time.Duration) Received {
	for i := range r {
		if r[i].Type == gpu {
			r[i].Time += d
			return r
		}
	}
	return append(r, TypeTime{Type: gpu, Time: d})
}

// Remaining is the number of steps still to do.
func (j *JobState) Remaining() float64 { return math.Max(0, j.Steps-j.Done) }

// Running reports whether the job held GPUs just before this decision.
func (j *JobState) Running() bool { return len(j.LastGPUs) > 0 }

// Started reports whether the job has ever run.
func (j *JobState) Started() bool { return j.FirstRun >= 0 }

// Snapshot is the immutable view a policy decides on. Policies must not modify
// it or keep references to it beyond the call.
type Snapshot struct {
	Now         time.Duration
	Round       int
	RoundLength time.Duration
	Trigger     Trigger
	// Environment is the cluster, the throughput matrix and the job types.
	Environment
	Users []User
	// Jobs are the active jobs (arrived and unfinished), ordered by arrival
	// time and then ID.
	Jobs []JobState
	// Rates, when set, memoises the environment's figures for Throughput,
	// BestThroughput, RowOf and ThroughputOf (the simulator sets it, and
	// attaches each job's row; nil computes each figure). Its rows follow
	// Cluster.TypeNames()'s order, which a policy must not change.
	Rates *Rates `json:"-"`

	index  map[JobID]int // built on first use by Job
	sorted bool          // Jobs are sorted by ID
}

// Job returns the active job with the given ID. Jobs sorted by ID (as the
// simulator's are, when IDs follow arrival order) are found by binary search;
// otherwise an index is built on first use.
func (s *Snapshot) Job(id JobID) (*JobState, bool) {
	i, ok := s.jobIndex(id)
	if !ok {
		return nil, false
	}
	return &s.Jobs[i], true
}

// jobIndex is the position in Jobs of the active job with the given ID.
func (s *Snapshot) jobIndex(id JobID) (int, bool) {
	if s.index == nil {
		s.index = map[JobID]int{}
		s.sorted = true
		for i := 1; i < len(s.Jobs) && s.sorted; i++ {
			s.sorted = s.Jobs[i-1].ID < s.Jobs[i].ID
		}
		if !s.sorted {
			for i := range s.Jobs {
				s.index[s.Jobs[i].ID] = i
			}
		}
	}
	if s.sorted {
		i := sort.Search(len(s.Jobs), func(i int) bool { return s.Jobs[i].ID >= id })
		if i == len(s.Jobs) || s.Jobs[i].ID != id {
			return 0, false
		}
		return i, true
	}
	i, ok := s.index[id]
	return i, ok
}

// User returns the user with the given name.
func (s *Snapshot) User(name string) (User, bool) {
	for _, u := range s.Users {
		if u.Name == name {
			return u, true
		}
	}
	return User{}, false
}
