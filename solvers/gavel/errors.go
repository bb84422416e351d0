package gavel

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"fairbench/models"
)

// ErrUnrunnable is matched (errors.Is) by an *UnrunnableError.
var ErrUnrunnable = errors.New("gavel: a job cannot run on any GPU type of the cluster")

// UnrunnableError reports an active job that no GPU type of the cluster can
// run at its gang: the LPs could only give it x = 0 everywhere, which is
// never a fair allocation, so the policy refuses the snapshot. Reasons says,
// for each GPU type of the cluster (newest first), why the job cannot run
// there; a missing throughput figure is named by its full matrix key (job
// type, GPU type, gang, placement).
//
// A figure missing on some types only is not an error: the job simply gets
// x = 0 on those types.
type UnrunnableError struct {
	Policy  string
	Job     models.JobID
	JobType string
	Gang    int
	Reasons []TypeReason
}

// TypeReason is why one GPU type cannot run a job.
type TypeReason struct {
	GPU     string
	Missing bool   // the matrix has no figure for the job's key on this type
	Reason  string // the numbers
}

func (e *UnrunnableError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: job %d of type %q at gang %d cannot run on any GPU type of the cluster:", e.Policy, e.Job, e.JobType, e.Gang)
	for i, r := range e.Reasons {
		if i > 0 {
			b.WriteString(";")
		}
		fmt.Fprintf(&b, " %s: %s", r.GPU, r.Reason)
	}
	return b.String()
}

// Is makes errors.Is(err, ErrUnrunnable) hold.
func (e *UnrunnableError) Is(target error) bool { return target == ErrUnrunnable }

// unrunnable explains why no type of s's cluster runs j.
func unrunnable(policy string, s *models.Snapshot, j *models.JobState) *UnrunnableError {
	e := &UnrunnableError{Policy: policy, Job: j.ID, JobType: j.Type, Gang: j.Gang}
	for _, g := range s.Cluster.TypeNames() {
		t, _ := s.Cluster.Type(g)
		r := TypeReason{GPU: g}
		key := models.Key{Job: j.Type, GPU: g, Gang: j.Gang, Placement: placementOn(s.Cluster, g, j.Gang)}
		f, ok := s.Matrix.Lookup(key)
		switch need := s.MemoryNeed(&j.Job); {
		case s.Cluster.Capacity(g) < j.Gang:
			r.Reason = fmt.Sprintf("gang %d > %d GPUs of this type", j.Gang, s.Cluster.Capacity(g))
		case need > t.MemoryGB:
			r.Reason = fmt.Sprintf("needs %g GB per worker, a %s has %g GB", need, g, t.MemoryGB)
		case !ok:
			r.Missing = true
			r.Reason = fmt.Sprintf("the throughput matrix has no figure for %v", key)
		default:
			r.Reason = fmt.Sprintf("measured throughput %g for %v", f.Value, key)
		}
		e.Reasons = append(e.Reasons, r)
	}
	return e
}

// placementOn is the placement a gang gets on type g: consolidated when it
// fits in one server, else spread (as models.Environment.Throughput decides).
func placementOn(c *models.Cluster, g string, gang int) models.Placement {
	if gang > c.MaxServerGPUs(g) {
		return models.Spread
	}
	return models.Consolidated
}

// LimitError reports that a policy ran out of its solver time limit before
// it had an optimal allocation. No allocation is returned with it. It
// unwraps to the solver's error, which matches lp.ErrLimit.
type LimitError struct {
	Policy string
	Limit  time.Duration
	Solves int   // LP solves started, the one that hit the limit included
	Err    error // matches lp.ErrLimit
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%s: solver time limit %v reached in LP solve %d: %v", e.Policy, e.Limit, e.Solves, e.Err)
}

func (e *LimitError) Unwrap() error { return e.Err }
