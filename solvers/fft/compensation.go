package fft

import "math"

// Work units. The paper counts work in epochs: W_j epochs required, θ[j][i]
// epochs per round (docs/algorithms/fft.md). The unit matters: φ and s do
// not depend on it (θ/W and W/θ are ratios), but ρ_j·θ[j][i] scales with the
// square of the unit, because Eq. 5 adds a work rate to ρ. The options:
const (
	// UnitEpoch (default): the paper's unit, one pass over the job's
	// training set: the steps_per_epoch option for the job type, else the
	// catalogue's models.JobType.StepsPerEpoch (training-set size / batch
	// size). A job type with neither (A3C has no training set) falls back
	// to UnitBestRound; Report.UnitFallbacks counts such jobs.
	UnitEpoch = "epoch"
	// UnitBestRound: one unit is the work job j does in one round on its
	// fastest type, so θ[j][i] = T[j][i]/T[j][best] ∈ (0, 1] and W_j is the
	// job's length in rounds at full speed. A job that has received nothing
	// since arrival then reaches ρ_j·θ ≈ d_j·W_j/θ (its own φ term) after
	// waiting about √(2d_j) times its fair duration τ_j − a_j.
	UnitBestRound = "best-round"
	// UnitJob: one unit is the whole job (W_j = 1, θ = the fraction of the
	// job one round does). ρ·θ is then tiny for long jobs.
	UnitJob = "job"
	// UnitStep: one unit is one training step (W_j = Steps, θ = steps per
	// round). ρ·θ then dwarfs φ from the first rounds.
	UnitStep = "step"
)

// nextRho is the fairness compensation update, FFT Eq. 5:
//
//	ρ_j(t+1) = max{0, ρ_j(t) + μ_j(t)·(W_j/(τ_j − a_j) − Σ_i θ[j][i]·x[j][i])}
//	μ_j(t)   = (t − a_j)/(τ_j − a_j)
//
// t, a and tau in rounds; w in work units; ran = Σ_i θ[j][i]·x[j][i], the
// work the round's decision gave the job, per round. W_j/(τ_j − a_j) is the
// job's pace under the max-min-fair split (its work spread evenly over its
// fair duration). dt is the number of rounds the decision was in force (1
// in the simulator, whose FFT decisions are one round apart) and scale
// multiplies μ (1: the paper's step size).
func nextRho(rho, t, a, tau, w, ran, dt, scale float64) float64 {
	span := tau - a
	if span <= 0 || dt <= 0 {
		return rho
	}
	mu := scale * math.Max(0, t-a) / span
	return math.Max(0, rho+mu*(w/span-ran)*dt)
}

// jobState is what FFT keeps about one active job between rounds.
type jobState struct {
	unit float64 // steps per work unit
	w    float64 // W_j, work units
	a    float64 // a_j, rounds
	tau  float64 // τ_j, rounds (absolute)
	rho  float64 // ρ_j(t)
	seen int     // the decision (FFT.gen) that last saw the job

	// The last decision, for Eq. 5 at the next.
	prevT, prevTau, prevRan float64
	decided                 bool

	rep jobRecord
}

// fairFinish is τ_j: the finish time of j, arrived at a with w units of
// work, on a dedicated 1/n of every GPU type without preemption — its
// arrival plus its work at the equal-share rate (models.EqualShareThroughput
// with f = 1/|A(t)|; the same isolated rate the simulator's finish-time
// fairness uses). rate is that rate in work units per round.
func fairFinish(a, w, rate float64) float64 {
	if rate <= 0 {
		return math.Inf(1)
	}
	return a + w/rate
}
