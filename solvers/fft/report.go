package fft

import (
	"math"
	"sort"

	"fairbench/models"
)

// Report is what FFT records over a run (solvers.Reporter; the simulator
// stores it as the run's policy_report). Everything in it is deterministic:
// solver wall time is measured by the simulator (--timing), not here. Its
// size is bounded: the per-round series is averaged in buckets of whole
// rounds (at most 2·SeriesPoints points) and each job's ρ trajectory is
// sampled at most 2·TrajectoryPoints times.
type Report struct {
	Solve         string  `json:"solve"`
	WorkUnit      string  `json:"work_unit"`
	PhiWork       string  `json:"phi_work"`
	BandwidthGBps float64 `json:"bandwidth_gb_per_s"`
	MuScale       float64 `json:"mu_scale"`
	// UnitFallbacks counts the jobs whose type has no epoch size under
	// work_unit epoch and so count work in rounds on their fastest type
	// (UnitBestRound).
	UnitFallbacks int `json:"unit_fallbacks"`
	// Rounds counts the decisions with at least one active job.
	Rounds int `json:"rounds"`
	// LPs counts the exact path's MIP solves (K(t) and the round's
	// program), the audit's included; the fast path solves none.
	LPs int `json:"lp_solves"`
	// BackendSolves counts those of them the MIP backend (CBC) solved:
	// K(t), and rounds the branch and bound over the relaxation gave up on;
	// BranchNodes the relaxations that branch and bound solved
	// (SolveExactFast). Both are left out of the JSON when 0.
	BackendSolves int `json:"mip_backend_solves,omitempty"`
	BranchNodes   int `json:"branch_nodes,omitempty"`
	// SplitJobs sums, over rounds, the jobs the LP relaxation did not place
	// whole (the fast path rounds them); ShortRounds counts the rounds whose
	// chosen x fills fewer GPUs than the relaxation (K(t) may still be met:
	// the relaxation's fill is only an upper bound).
	SplitJobs   int `json:"split_jobs"`
	ShortRounds int `json:"short_rounds"`
	// MaxBoundGap is the largest (objective − LP bound)/mass over rounds,
	// where mass is Σ|c[j][i]| over the chosen x: a certified bound on the
	// fast path's relative optimality gap.
	MaxBoundGap float64 `json:"max_bound_gap"`
	// ExactLimited counts exact solves stopped by a limit (their best
	// integral x was used when no worse than the fast path's); ExactFailed
	// those with no integral x, where the fast path's x was used.
	ExactLimited int `json:"exact_limited"`
	ExactFailed  int `json:"exact_failed"`
	// Placement: kept jobs moved to free a server for a gang, spread jobs
	// consolidated, gangs spread over servers, gangs left out for want of a
	// server and a spread figure.
	Evictions      int `json:"evictions"`
	Consolidations int `json:"consolidations"`
	Spread         int `json:"spread"`
	Dropped        int `json:"dropped"`
	// Audit compares the fast path with the exact solve on every
	// AuditEvery-th round (Options.AuditEvery).
	Audit  *Audit       `json:"audit,omitempty"`
	Series []RoundPoint `json:"series"`
	Jobs   []JobReport  `json:"jobs"`
}

// Audit is the fast path's measured gap to the exact optimum.
type Audit struct {
	Rounds int `json:"rounds"`
	// Equal counts rounds where the two objectives agree (relative 1e-9).
	Equal int `json:"equal"`
	// ShortFill counts rounds where the fast path filled fewer GPUs than
	// the exact K(t); their gap is not counted below.
	ShortFill int `json:"short_fill"`
	// Limited counts exact solves stopped by a limit (not counted below).
	Limited int `json:"limited"`
	// MeanGap and MaxGap are (fast − exact)/mass, mass = Σ|c[j][i]| over
	// the exact x.
	MeanGap float64 `json:"mean_gap"`
	MaxGap  float64 `json:"max_gap"`
	sum     float64
	n       int
}

// RoundPoint averages a bucket of consecutive rounds.
type RoundPoint struct {
	Round  int `json:"round"`  // the bucket's first round
	Rounds int `json:"rounds"` // rounds in the bucket
	// Means over the bucket.
	Active    float64 `json:"active"`
	Objective float64 `json:"objective"`
	Bound     float64 `json:"lp_bound"`
	LPFill    float64 `json:"lp_fill"`
	Fill      float64 `json:"fill"`
	RhoMean   float64 `json:"rho_mean"`
	// RhoMax is the largest ρ_j in the bucket.
	RhoMax float64 `json:"rho_max"`
}

// JobReport is one job's compensation history.
type JobReport struct {
	ID           models.JobID `json:"id"`
	ArrivalRound float64      `json:"arrival_round"`
	// FairRounds is τ_j − a_j at the job's last decision (0 for a job no
	// type can run).
	FairRounds   float64 `json:"fair_rounds"`
	Work         float64 `json:"work"`
	RhoMax       float64 `json:"rho_max"`
	RhoFinal     float64 `json:"rho_final"`
	RoundsRun    int     `json:"rounds_run"`
	RoundsWaited int     `json:"rounds_waited"`
	// Rho samples ρ_j at its decisions as [round, ρ] pairs: every
	// stride-th decision, the stride doubling whenever the samples fill up.
	Rho [][2]float64 `json:"rho,omitempty"`
}

// jobRecord accumulates a JobReport.
type jobRecord struct {
	JobReport
	stride, count int
}

func (r *jobRecord) sample(round, rho float64, limit int) {
	r.RhoMax = math.Max(r.RhoMax, rho)
	r.RhoFinal = rho
	if limit <= 0 {
		return
	}
	if r.stride == 0 {
		r.stride = 1
	}
	if r.count%r.stride == 0 {
		r.Rho = append(r.Rho, [2]float64{round, rho})
		if len(r.Rho) >= 2*limit {
			k := 0
			for i := 0; i < len(r.Rho); i += 2 {
				r.Rho[k] = r.Rho[i]
				k++
			}
			r.Rho = r.Rho[:k]
			r.stride *= 2
		}
	}
	r.count++
}

// series accumulates RoundPoints in buckets that double in length whenever
// 2·limit points are full.
type series struct {
	points []RoundPoint
	cur    RoundPoint
	size   int // rounds per bucket
	limit  int
}

func (s *series) add(p RoundPoint) {
	if s.size == 0 {
		s.size = 1
	}
	if s.cur.Rounds == 0 {
		s.cur = p
	} else {
		s.cur = merge(s.cur, p)
	}
	if s.cur.Rounds < s.size {
		return
	}
	s.points = append(s.points, s.cur)
	s.cur = RoundPoint{}
	if len(s.points) >= 2*s.limit {
		k := 0
		for i := 0; i+1 < len(s.points); i += 2 {
			s.points[k] = merge(s.points[i], s.points[i+1])
			k++
		}
		s.points = s.points[:k]
		s.size *= 2
	}
}

func (s *series) all() []RoundPoint {
	out := append([]RoundPoint(nil), s.points...)
	if s.cur.Rounds > 0 {
		out = append(out, s.cur)
	}
	return out
}

// merge averages two buckets, weighted by their rounds.
func merge(a, b RoundPoint) RoundPoint {
	wa, wb := float64(a.Rounds), float64(b.Rounds)
	avg := func(x, y float64) float64 { return (x*wa + y*wb) / (wa + wb) }
	return RoundPoint{
		Round: min(a.Round, b.Round), Rounds: a.Rounds + b.Rounds,
		Active: avg(a.Active, b.Active), Objective: avg(a.Objective, b.Objective),
		Bound: avg(a.Bound, b.Bound), LPFill: avg(a.LPFill, b.LPFill), Fill: avg(a.Fill, b.Fill),
		RhoMean: avg(a.RhoMean, b.RhoMean), RhoMax: math.Max(a.RhoMax, b.RhoMax),
	}
}

// Report returns the run's record (solvers.Reporter).
func (p *FFT) Report() any {
	r := p.rep
	r.Series = p.series.all()
	r.Jobs = append([]JobReport(nil), p.done...)
	ids := make([]models.JobID, 0, len(p.jobs))
	for id := range p.jobs {
		ids = append(ids, id)
	}
	for _, id := range ids {
		r.Jobs = append(r.Jobs, p.jobs[id].rep.JobReport)
	}
	sort.Slice(r.Jobs, func(a, b int) bool { return r.Jobs[a].ID < r.Jobs[b].ID })
	if r.Audit != nil {
		a := *r.Audit
		if a.n > 0 {
			a.MeanGap = a.sum / float64(a.n)
		}
		r.Audit = &a
	}
	return &r
}
