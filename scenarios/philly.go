package scenarios

import (
	"math"
	"math/rand/v2"
	"time"

	"fairbench/models"
)

// The synthetic Philly-like workload of Gavel (Narayanan et al.,
// "Heterogeneity-Aware Cluster Scheduling Policies for Deep Learning
// Workloads", OSDI 2020, §7; artifact scheduler/utils.py: _generate_duration,
// _generate_scale_factor, generate_job), modelled on Microsoft's Philly
// cluster trace (Jeon et al., USENIX ATC 2019). For each job i = 0..n−1:
//
//   - Arrival (stream "arrivals"): with λ = arrival_rate_per_hour > 0,
//     a_i = a_(i−1) + X_i, a_(−1) = 0, X_i ~ Exp(mean 3600/λ s) (a Poisson
//     process); with λ = 0 every a_i = 0.
//   - Gang (stream "gangs"): drawn from workload.gangs, by default 1, 2, 4, 8
//     GPUs with probabilities 0.7, 0.1, 0.15, 0.05.
//   - Job type (stream "job_types"): uniform over the allowed job types that
//     can run at that gang on some GPU type of the cluster. Gavel draws the
//     type uniformly and redraws while it cannot run at the gang (only its
//     multi-GPU-capable types are drawn for gangs above 1); drawing once
//     from the runnable subset has exactly the distribution of that
//     rejection loop and consumes one draw per job.
//   - Duration (stream "durations"): one draw U decides short (U < 0.8) or
//     long; a second draw x gives 60·10^x seconds with x ~ U(1.5, 3) when
//     short (about 32 minutes to 16.7 hours) and x ~ U(3, 4) when long
//     (16.7 hours to 6.9 days).
//   - Steps = max(1, round(duration × T)) where T is the job's isolated
//     throughput on the reference GPU type (see WorkloadSpec.ReferenceGPU),
//     so the duration is the job's run time alone on that type.
//
// Arrivals are kept to the millisecond.
const (
	PhillyShortProbability = 0.8 // P(short job)
	PhillyShortMinExp      = 1.5 // short: 60·10^U(1.5, 3) s
	PhillyShortMaxExp      = 3.0
	PhillyLongMinExp       = 3.0 // long: 60·10^U(3, 4) s
	PhillyLongMaxExp       = 4.0
)

// phillyDuration draws one duration in seconds.
func phillyDuration(r *rand.Rand) float64 {
	lo, hi := PhillyShortMinExp, PhillyShortMaxExp
	if uniform(r) >= PhillyShortProbability {
		lo, hi = PhillyLongMinExp, PhillyLongMaxExp
	}
	return 60 * math.Pow(10, uniformIn(r, lo, hi))
}

// pickGang draws a gang size from gs by its normalised weights.
func pickGang(r *rand.Rand, gs []GangWeight) int {
	total := 0.0
	for _, g := range gs {
		total += g.Weight
	}
	u := uniform(r) * total
	acc := 0.0
	for _, g := range gs {
		acc += g.Weight
		if u < acc {
			return g.Size
		}
	}
	return gs[len(gs)-1].Size // u ≥ total only by rounding
}

// philly generates a validated philly workload's jobs, in arrival order with
// IDs 0..n−1 and no users yet. A job arriving after models.MaxHorizon (a
// tiny arrival rate), or running longer than it alone (a reference GPU
// type far faster than the cluster's), is an error naming the key.
func (s *Spec) philly(e *env, seed int64) ([]models.Job, *fieldError) {
	w := s.Workload
	arr, dur := Stream(seed, StreamArrivals), Stream(seed, StreamDurations)
	gng, typ := Stream(seed, StreamGangs), Stream(seed, StreamJobTypes)
	jobs := make([]models.Job, w.Jobs)
	t := 0.0
	for i := range jobs {
		if w.ArrivalRatePerHour > 0 {
			t += exponential(arr, 3600/w.ArrivalRatePerHour)
		}
		if t > models.MaxHorizonSeconds {
			return nil, errf("workload.arrival_rate_per_hour", "at %v jobs per hour job %d arrives at %.4g s, after %s (%g s), the limit",
				w.ArrivalRatePerHour, i, t, models.Describe(models.MaxHorizon), models.MaxHorizonSeconds)
		}
		gang := pickGang(gng, w.Gangs)
		types := e.byGang[gang]
		j := models.Job{ID: models.JobID(i), Type: types[intn(typ, len(types))], Gang: gang, Arrival: seconds(t)}
		j.Steps = stepsFor(phillyDuration(dur), e.reference(w.ReferenceGPU, &j))
		if why := e.tooLong(&j); why != "" {
			return nil, errf("workload.reference_gpu", "job %d: %s", i, why)
		}
		jobs[i] = j
	}
	return jobs, nil
}

// stepsFor converts a duration at throughput tput into whole steps (≥ 1).
func stepsFor(duration, tput float64) float64 { return math.Max(1, math.Round(duration*tput)) }

// seconds converts seconds to a Duration, rounded to the millisecond.
func seconds(s float64) time.Duration {
	return time.Duration(math.Round(s*1000)) * time.Millisecond
}
