package sim

import (
	"time"

	"fairbench/models"
)

// EventKind names what happened.
type EventKind string

// The kinds of event the simulator reports.
const (
	Arrive   EventKind = "arrive"   // a job was submitted
	Start    EventKind = "start"    // a job ran for the first time
	Resume   EventKind = "resume"   // a preempted job ran again (pays the restore cost)
	Migrate  EventKind = "migrate"  // a running job moved to other GPUs (pays the restore cost)
	Vacate   EventKind = "vacate"   // a job about to migrate left its old GPUs
	Preempt  EventKind = "preempt"  // a running, unfinished job lost its GPUs
	Rate     EventKind = "rate"     // a running job's speed changed: a GPU partner came or went
	Finish   EventKind = "finish"   // a job completed its steps
	Decision EventKind = "decision" // the policy was asked for an allocation
)

// Event is one line of the optional event log. Events at the same time come
// in an order a reader can replay: every job that leaves GPUs (finish,
// preempt, vacate) is reported before any job that takes GPUs (start,
// resume, migrate).
type Event struct {
	Time    float64          `json:"t"` // seconds since the start of the run
	Kind    EventKind        `json:"event"`
	Job     models.JobID     `json:"job,omitempty"`
	Type    string           `json:"type,omitempty"`
	GPUs    []int            `json:"gpus,omitempty"`
	Round   int              `json:"round,omitempty"`
	Trigger string           `json:"trigger,omitempty"`
	Active  int              `json:"active,omitempty"`
	Cost    float64          `json:"cost_s,omitempty"`
	Rate    float64          `json:"rate,omitempty"` // steps/s from now on (start, resume, migrate, rate)
	Place   models.Placement `json:"-"`
}

func seconds(d time.Duration) float64 { return d.Seconds() }
