// Package sjf holds the two shortest-job baselines:
//
//   - sjf, non-preemptive shortest job first: waiting jobs start in order of
//     their total duration estimate, running jobs are never preempted. It is
//     the SJF baseline of SJF-BSBF (Luo et al., IWQoS 2024), that is SJF-BSBF
//     without GPU sharing.
//   - srtf, preemptive shortest remaining time first (SRPT): at every decision
//     all active jobs are ranked by remaining time and packed greedily, so a
//     shorter arrival preempts a longer running job. It is the "shortest"
//     schedule of the Tiresias simulator (shortest_first_sim_jobs in
//     SymbioticLab/Tiresias simulator/run_sim.py), the clairvoyant baseline
//     of Tiresias (Gu et al., NSDI 2019, §6).
//
// docs/algorithms/sjf.md states both. Both know each job's work (Job.Steps)
// and rank it by time at its best
// throughput on the cluster (s.BestThroughput): they are clairvoyant and
// heterogeneity-aware in their estimate, and start a job on the fastest type
// that has room for its gang.
package sjf

import (
	"fmt"
	"math"
	"sort"

	"fairbench/models"
	"fairbench/solvers"
)

// Name is sjf's registered name.
const Name = "sjf"

// Summary is the one-line description the registry shows.
const Summary = "non-preemptive shortest job first (Steps / best throughput), skipping jobs that do not fit"

// SJF is the non-preemptive policy. Between decisions it keeps only the
// active jobs in order of their duration estimate (a figure of the job and
// the cluster, computed once per job); an instance serves one run.
type SJF struct {
	roundsOnly bool
	order      order
	pack       solvers.Packer // packs into the last Run returned
}

// Options are sjf's settings.
type Options struct {
	// RoundsOnly decides at round starts only (as SJF-BSBF's prototype
	// does every schedule_interval seconds); by default at arrivals and
	// completions.
	RoundsOnly bool `mapstructure:"rounds_only"`
}

var (
	_ solvers.Policy    = (*SJF)(nil)
	_ solvers.Triggered = (*SJF)(nil)
)

// New builds sjf (option rounds_only).
func New(c solvers.Config) (solvers.Policy, error) {
	var o Options
	if err := c.Decode(&o); err != nil {
		return nil, fmt.Errorf("sjf: options: %w", err)
	}
	return &SJF{roundsOnly: o.RoundsOnly}, nil
}

// Name is "sjf".
func (*SJF) Name() string { return Name }

// Triggers: arrivals and completions (the only moments the waiting set or
// the free GPUs change; sjf is non-preemptive, so round starts change
// nothing), or round starts only with rounds_only.
func (p *SJF) Triggers() models.Trigger {
	if p.roundsOnly {
		return models.AtRound
	}
	return models.AtArrival | models.AtCompletion
}

// Allocate re-lists every running job on its current type, then starts
// waiting jobs in ascending order of Duration (ties by arrival, then ID) on
// the fastest type with room for the gang. A job that does not fit is skipped
// and the next one in the order is tried: there is no reservation, so a large
// job can wait while smaller ones keep starting (fairbench's choice; the
// papers do not say).
func (q *SJF) Allocate(s *models.Snapshot) (models.Allocation, error) {
	p := &q.pack
	p.Reset(s)
	for i := range s.Jobs {
		if j := &s.Jobs[i]; j.Running() {
			p.Stay(j)
		}
	}
	q.order.key = Duration
	q.order.update(s)
	p.PlaceSeqBy(q.order.waiting(s), p.Fastest, false)
	return models.Allocation{Run: p.Finish()}, nil
}

// Duration is j's total duration estimate in seconds: Steps divided by its
// best throughput on the cluster; +Inf when no type can run it.
func Duration(s *models.Snapshot, j *models.JobState) float64 {
	return seconds(j.Steps, s, j)
}

// RemainingTime is j's remaining time estimate in seconds: Remaining()
// divided by its best throughput on the cluster; +Inf when no type can run it.
func RemainingTime(s *models.Snapshot, j *models.JobState) float64 {
	return seconds(j.Remaining(), s, j)
}

func seconds(steps float64, s *models.Snapshot, j *models.JobState) float64 {
	_, t := s.BestThroughput(&j.Job)
	if t <= 0 {
		return math.Inf(1)
	}
	return steps / t
}

// sortBy orders jobs by ascending key, ties by arrival and then ID.
func sortBy(jobs []*models.JobState, key func(*models.JobState) float64) {
	keys := make(map[models.JobID]float64, len(jobs))
	for _, j := range jobs {
		keys[j.ID] = key(j)
	}
	sort.SliceStable(jobs, func(a, b int) bool {
		ja, jb := jobs[a], jobs[b]
		if ka, kb := keys[ja.ID], keys[jb.ID]; ka != kb {
			return ka < kb
		}
		if ja.Arrival != jb.Arrival {
			return ja.Arrival < jb.Arrival
		}
		return ja.ID < jb.ID
	})
}
