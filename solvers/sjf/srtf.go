package sjf

import (
	"fmt"

	"fairbench/models"
	"fairbench/solvers"
)

// SRTFName is srtf's registered name.
const SRTFName = "srtf"

// SRTFSummary is the one-line description the registry shows.
const SRTFSummary = "preemptive shortest remaining time first (Remaining / best throughput)"

// SRTF is the preemptive policy. It keeps no state between decisions.
type SRTF struct{}

var (
	_ solvers.Policy    = (*SRTF)(nil)
	_ solvers.Triggered = (*SRTF)(nil)
)

// NewSRTF builds srtf; it takes no options.
func NewSRTF(c solvers.Config) (solvers.Policy, error) {
	var o struct{}
	if err := c.Decode(&o); err != nil {
		return nil, fmt.Errorf("srtf: options: %w", err)
	}
	return &SRTF{}, nil
}

// Name is "srtf".
func (*SRTF) Name() string { return SRTFName }

// Triggers: arrivals and completions, so a short arrival preempts at once
// and freed GPUs are refilled at once. Between events a running job's
// remaining time only falls, so the order cannot change and round starts are
// skipped.
func (*SRTF) Triggers() models.Trigger {
	return models.AtArrival | models.AtCompletion
}

// Allocate ranks every active job by RemainingTime (ties by arrival, then ID)
// and packs them greedily, skipping a job whose gang does not fit. A running
// job that stays in keeps its type when that type still has room
// (solvers.StayOrFastest); a job left out is preempted.
func (*SRTF) Allocate(s *models.Snapshot) (models.Allocation, error) {
	order := make([]*models.JobState, len(s.Jobs))
	for i := range s.Jobs {
		order[i] = &s.Jobs[i]
	}
	sortBy(order, func(j *models.JobState) float64 { return RemainingTime(s, j) })
	return models.Allocation{Run: solvers.Pack(s, order, solvers.StayOrFastest, false)}, nil
}
