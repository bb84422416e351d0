// Package sim is fairbench's deterministic cluster simulator. It replays job
// arrivals against a policy, in rounds and at events, places gangs on servers,
// charges preemption and migration costs, finishes jobs mid-round, and
// computes every metric of the run. Each kind of allocation (models.Kind) is
// realised by a pure function tested on its own: whole GPUs and co-located
// gangs by PlaceGangs (gangs.go), placed once and kept until the next
// decision; time shares round by round by ShareRound, Gavel's round
// mechanism PlanRound (round.go), whose picks PlaceGangs then places. A
// policy that keeps its allocation across rounds says when to ask again
// (solvers.RoundRules; mechanism.go).
//
// The simulator is a pure function of its Config and the policy: it never
// reads the wall clock (solver time is measured only through an injected
// Clock), does no I/O (events go to an optional callback), and iterates maps
// only in sorted order, so the same inputs give the same Result.
package sim

import (
	"errors"
	"fmt"
	"math"
	"time"

	"fairbench/models"
)

// DefaultRound is Gavel's round length (Narayanan et al., OSDI 2020, §6).
const DefaultRound = 360 * time.Second

// DefaultBandwidthGBps prices checkpoint transfers when no per-type cost is
// given: 10 Gb/s = 1.25 GB/s, the network of FFT's testbed (Mo et al., ICS
// 2025, §6.1).
const DefaultBandwidthGBps = 1.25

// Config is everything a run needs besides the policy.
type Config struct {
	// Environment is the cluster, the throughput matrix and the job types.
	models.Environment
	Users []models.User
	Jobs  []models.Job

	// Round is the scheduling round length (default DefaultRound).
	Round time.Duration
	// Costs prices preemption and migration.
	Costs Costs
	// UnfairThreshold is the finish-time-fairness ρ above which a job counts
	// as unfairly treated (default 1, Themis; Shockwave uses 1.05).
	UnfairThreshold float64
	// MaxSeriesPoints bounds the length of the time series in the result
	// (default 500): rounds are averaged in buckets of 2^k rounds, k the
	// least that fits, accumulated as the run goes (memory limit × users).
	MaxSeriesPoints int
	// DefaultSlowdown is the interference factor ξ = isolated / co-located
	// throughput applied to a job sharing a GPU with a job for which the
	// matrix has no pair figure (default 2: sharing then gains nothing over
	// taking turns, so a policy is never rewarded for an unmeasured pair).
	// Summary.DefaultSlowdowns counts the placements that used it.
	DefaultSlowdown float64
	// MaxIdleRounds stops a run whose policy leaves every GPU idle for this
	// many consecutive rounds while jobs wait and no arrival is due
	// (default 1000): such a run would never end.
	MaxIdleRounds int
	// Measure, when set, restricts the job metrics of the Summary and of
	// each UserResult (JCT, ρ, unfair fraction, starvation) to the jobs
	// whose IDs lie in the window, as Gavel measures a steady state (jobs
	// 4,000–5,000 of a longer trace; Narayanan et al., OSDI 2020, §7.1).
	// Every job is listed in Result.Jobs; makespan, utilisation, shares and
	// counters cover the simulated span: the whole run, or, with
	// Window.StopWhenDone, the run up to the moment the window's last job
	// finished.
	Measure *Window

	// Clock, when set, is read around each policy call to measure solver
	// time; leave it nil for byte-identical results.
	Clock func() time.Duration
	// OnEvent, when set, receives every event as it happens.
	OnEvent func(Event)
}

// Window is a half-open range of job IDs, [From, To).
type Window struct {
	From models.JobID `json:"from_job"`
	To   models.JobID `json:"to_job"`
	// StopWhenDone ends the run at the first moment every job of the
	// window has finished, as Gavel's simulator stops once its measured
	// jobs are done. The simulator is causal, so the window's results are
	// those of the full run; jobs still waiting or running then are listed
	// as unfinished (JobResult.Unfinished).
	StopWhenDone bool `json:"stop_when_done,omitempty"`
}

// Contains reports whether job id lies in w.
func (w Window) Contains(id models.JobID) bool { return id >= w.From && id < w.To }

// Costs prices the checkpoint-restore a job pays when it resumes after a
// preemption or moves to other GPUs: its GPUs are held but make no progress
// for that long. A job's first start is free.
type Costs struct {
	// PerType overrides the cost for the named job types.
	PerType map[string]time.Duration
	// BandwidthGBps derives the cost of other types from their training
	// state: StateGB / BandwidthGBps (default DefaultBandwidthGBps).
	BandwidthGBps float64
}

// Restore is the checkpoint-restore time of job type t.
func (c Costs) Restore(t models.JobType) time.Duration {
	if d, ok := c.PerType[t.Name]; ok {
		return d
	}
	bw := c.BandwidthGBps
	if bw <= 0 {
		bw = DefaultBandwidthGBps
	}
	ns := t.StateGB / bw * float64(time.Second)
	if !(ns < float64(models.MaxRestore)) { // also NaN
		return models.MaxRestore
	}
	return time.Duration(ns)
}

func (c *Config) defaults() {
	if c.Round == 0 {
		c.Round = DefaultRound
	}
	if c.UnfairThreshold == 0 {
		c.UnfairThreshold = 1
	}
	if c.MaxSeriesPoints == 0 {
		c.MaxSeriesPoints = 500
	}
	if c.DefaultSlowdown == 0 {
		c.DefaultSlowdown = 2
	}
	if c.MaxIdleRounds == 0 {
		c.MaxIdleRounds = 1000
	}
	if c.JobTypes == nil {
		c.JobTypes = map[string]models.JobType{}
	}
}

// validate refuses a configuration the simulator cannot run to completion,
// naming the first offending job.
func (c *Config) validate() error {
	if c.Cluster == nil || c.Matrix == nil {
		return errors.New("sim: config needs a cluster and a throughput matrix")
	}
	if err := c.Cluster.Validate(); err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	if c.DefaultSlowdown < 1 || math.IsNaN(c.DefaultSlowdown) || math.IsInf(c.DefaultSlowdown, 0) {
		return fmt.Errorf("sim: default slowdown must be a finite number ≥ 1, got %v", c.DefaultSlowdown)
	}
	if c.Round < 0 || c.Round > models.MaxRound {
		return fmt.Errorf("sim: round length must be positive and at most %v, got %v", models.MaxRound, c.Round)
	}
	for t, d := range c.Costs.PerType {
		if d < 0 || d > models.MaxRestore {
			return fmt.Errorf("sim: restore cost of %q must be between 0 and %v, got %v", t, models.MaxRestore, d)
		}
	}
	if bw := c.Costs.BandwidthGBps; math.IsNaN(bw) || math.IsInf(bw, 0) {
		return fmt.Errorf("sim: checkpoint bandwidth must be a finite number, got %v", bw)
	}
	users := map[string]bool{}
	for i, u := range c.Users {
		if err := u.Validate(); err != nil {
			return fmt.Errorf("sim: users[%d]: %w", i, err)
		}
		if users[u.Name] {
			return fmt.Errorf("sim: users[%d]: duplicate user %q", i, u.Name)
		}
		users[u.Name] = true
	}
	ids := map[models.JobID]bool{}
	measured := 0
	for i := range c.Jobs {
		if c.Measure != nil && c.Measure.Contains(c.Jobs[i].ID) {
			measured++
		}
		j := &c.Jobs[i]
		if err := j.Validate(); err != nil {
			return fmt.Errorf("sim: %w", err)
		}
		if ids[j.ID] {
			return fmt.Errorf("sim: job %d: duplicate id", j.ID)
		}
		ids[j.ID] = true
		if !users[j.User] {
			return fmt.Errorf("sim: job %d: unknown user %q", j.ID, j.User)
		}
		runnable := false
		for _, g := range c.Cluster.TypeNames() {
			if c.Throughput(j, g) > 0 {
				runnable = true
				break
			}
		}
		if !runnable {
			return fmt.Errorf("sim: job %d (%s, gang %d): no GPU type of the cluster can run it "+
				"(no measured throughput, too little memory, or too few GPUs)", j.ID, j.Type, j.Gang)
		}
	}
	if w := c.Measure; w != nil && (w.From < 0 || w.To <= w.From || measured == 0) {
		return fmt.Errorf("sim: measured window of job IDs [%d, %d) holds none of the %d jobs", w.From, w.To, len(c.Jobs))
	}
	return nil
}
