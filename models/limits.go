package models

import (
	"fmt"
	"math"
	"time"
)

// Limits on what fairbench accepts, so that no input can overflow a
// time.Duration, reach the LP library with a coefficient it cannot hold,
// or make a run allocate without bound. Every reader checks them at the
// edge with an error naming the file, field and limit; docs/limits.md
// lists them with the reasons.
const (
	// MaxGPUs is the most GPUs in one cluster, MaxServers the most
	// servers and MaxGPUsPerServer the most GPUs in one server.
	MaxGPUs          = 100_000
	MaxServers       = 100_000
	MaxGPUsPerServer = 1_024
	// MaxUsers is the most users (tenants) of one workload or instance.
	MaxUsers = 10_000
	// MaxJobs is the most jobs of one workload or instance.
	MaxJobs = 1_000_000

	// MinThroughput and MaxThroughput bound a positive throughput figure
	// (steps per second); 0 means "cannot run there". The catalogue's
	// figures lie between 0.22 and 699 steps/s; the bounds keep every LP
	// coefficient far inside the range COIN-OR CLP accepts (below 1e25).
	MinThroughput = 1e-6
	MaxThroughput = 1e6
	// MaxSteps is the most steps of one job.
	MaxSteps = 1e15
	// MinWeight and MaxWeight bound a user's weight, a job's priority and
	// a gang size's relative weight, so that sums and ratios stay finite.
	MinWeight = 1e-6
	MaxWeight = 1e6
	// MaxMemoryGB bounds a memory or state size in GB.
	MaxMemoryGB = 1e6

	// MaxHorizon bounds every time fairbench reads (arrivals, a job's run
	// time alone on its fastest GPU type, time run so far): one year, far
	// inside time.Duration's 292 years, so sums of times never overflow.
	MaxHorizon = 365 * 24 * time.Hour
	// MaxRounds bounds the rounds one simulated run may take, and
	// MaxSimulated its simulated time: a run that passes either stops with
	// an error instead of running (nearly) forever.
	MaxRounds    = 1_000_000
	MaxSimulated = 10 * MaxHorizon
	// MaxRound bounds a round's length, MaxRestore a checkpoint-restore
	// cost.
	MaxRound   = 24 * time.Hour
	MaxRestore = 24 * time.Hour
)

// MaxHorizonSeconds is MaxHorizon in seconds.
var MaxHorizonSeconds = MaxHorizon.Seconds()

// CheckThroughput checks a figure: 0, or between MinThroughput and
// MaxThroughput.
func CheckThroughput(field string, v float64) error {
	if err := nonNegative(field, v); err != nil {
		return err
	}
	if v != 0 && (v < MinThroughput || v > MaxThroughput) {
		return fmt.Errorf("%s: %v steps/s is outside [%g, %g], the range fairbench accepts (0 means cannot run)", field, v, MinThroughput, MaxThroughput)
	}
	return nil
}

// CheckWeight checks a weight: finite, between MinWeight and MaxWeight.
func CheckWeight(field string, v float64) error {
	if err := positive(field, v); err != nil {
		return err
	}
	if v < MinWeight || v > MaxWeight {
		return fmt.Errorf("%s: %v is outside [%g, %g], the range fairbench accepts", field, v, MinWeight, MaxWeight)
	}
	return nil
}

// CheckSeconds checks a time in seconds: finite, ≥ 0 and at most limit.
func CheckSeconds(field string, v float64, limit time.Duration) error {
	if err := nonNegative(field, v); err != nil {
		return err
	}
	if v > limit.Seconds() {
		return fmt.Errorf("%s: %v s is more than %v s (%s), the limit fairbench accepts", field, v, limit.Seconds(), Describe(limit))
	}
	return nil
}

// CheckMemory checks a size in GB: finite, ≥ 0 and at most MaxMemoryGB.
func CheckMemory(field string, v float64) error {
	if err := nonNegative(field, v); err != nil {
		return err
	}
	if v > MaxMemoryGB {
		return fmt.Errorf("%s: %v GB is more than %g GB, the limit fairbench accepts", field, v, float64(MaxMemoryGB))
	}
	return nil
}

// Seconds converts seconds to a Duration rounded to the nanosecond. It
// saturates instead of overflowing: NaN gives 0, a value at or beyond
// ±292 years gives ±math.MaxInt64 nanoseconds. Readers check their
// values against MaxHorizon first; Seconds only keeps the conversion
// defined.
func Seconds(s float64) time.Duration {
	ns := math.Round(s * float64(time.Second))
	switch {
	case math.IsNaN(ns):
		return 0
	case ns >= math.MaxInt64:
		return math.MaxInt64
	case ns <= math.MinInt64:
		return math.MinInt64
	}
	return time.Duration(ns)
}

// Describe writes a limit the way docs/limits.md does ("10 years", "1 day").
func Describe(d time.Duration) string {
	day := 24 * time.Hour
	switch {
	case d >= 365*day && d%(365*day) == 0:
		if d == 365*day {
			return "1 year"
		}
		return fmt.Sprintf("%d years", d/(365*day))
	case d >= day && d%day == 0:
		if d == day {
			return "1 day"
		}
		return fmt.Sprintf("%d days", d/day)
	}
	return d.String()
}
