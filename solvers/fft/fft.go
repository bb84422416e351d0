package fft

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/lp"
)

// Registered names.
const (
	Name      = "fft"
	ExactName = "fft-exact"
)

// Summaries the registry shows.
const (
	Summary      = "FFT (Mo et al., ICS 2025): per-round JCT surrogate + switching penalty − fairness compensation, work-conserving; LP relaxation + rounding"
	ExactSummary = "FFT with each round's integer program solved exactly (branch and bound over its transportation relaxation, CBC beyond 200,000 nodes)"
)

// Solve modes.
const (
	ModeFast  = "fast"
	ModeExact = "exact"
)

// PhiWork values.
const (
	PhiTotal     = "total"     // W_j in φ is the work required (as written)
	PhiRemaining = "remaining" // W_j in φ's d_j·W_j/θ term is the work left
)

// DefaultBandwidthGBps prices the switching penalty: 10 Gb/s = 1.25 GB/s,
// FFT's testbed network (Mo et al., ICS 2025, §6.1) and the simulator's
// default (sim.DefaultBandwidthGBps). Set the scenario's
// preemption.bandwidth_gb_per_second to the same value as this option, so
// that the policy's estimate and the simulated restore cost agree.
const DefaultBandwidthGBps = 1.25

// Defaults of the report's bounds.
const (
	DefaultTrajectoryPoints = 16
	DefaultSeriesPoints     = 256
)

// Options are FFT's settings (policy_options in a scenario). The round
// length is the scenario's round_seconds (the paper's is 300 s).
type Options struct {
	// Solve is "fast" (LP relaxation + rounding; default for fft) or
	// "exact" (branch and bound; default for fft-exact).
	Solve string `mapstructure:"solve"`
	// WorkUnit is the unit of W_j and θ (see UnitEpoch): "epoch" (default,
	// the paper's), "best-round", "job" or "step".
	WorkUnit string `mapstructure:"work_unit"`
	// StepsPerEpoch gives, per job type, the steps of one epoch (dataset
	// size / batch size) for work_unit "epoch", replacing the job type's
	// own (models.JobType.StepsPerEpoch). Positive.
	StepsPerEpoch map[string]float64 `mapstructure:"steps_per_epoch"`
	// PhiWork is "total" (default, as written) or "remaining".
	PhiWork string `mapstructure:"phi_work"`
	// BandwidthGBps prices the switching penalty s: a job type's StateGB /
	// BandwidthGBps seconds (default DefaultBandwidthGBps). Positive.
	BandwidthGBps float64 `mapstructure:"bandwidth_gb_per_second"`
	// RestoreSeconds overrides the transfer time of named job types, as the
	// scenario's preemption.seconds does for the simulator.
	RestoreSeconds map[string]float64 `mapstructure:"restore_seconds"`
	// MuScale multiplies the step size μ of Eq. 5 (default 1), in
	// [0, maxMuScale].
	MuScale *float64 `mapstructure:"mu_scale"`
	// AgeScale multiplies φ's first term (t − a_j)·θ[j][i]/W_j (default 1,
	// as written; 0 drops it), in [0, maxMuScale]: an ablation that shows
	// what the term does to the type each job gets.
	AgeScale *float64 `mapstructure:"age_scale"`
	// TimeLimitSeconds and NodeLimit bound each exact solve (0: none). A
	// time limit that is reached makes a run depend on the machine.
	TimeLimitSeconds float64 `mapstructure:"time_limit_seconds"`
	NodeLimit        int     `mapstructure:"node_limit"`
	// AuditEvery > 0 also solves every AuditEvery-th round exactly in fast
	// mode and records the fast path's gap in the report (Report.Audit).
	AuditEvery int `mapstructure:"audit_every"`
	// TrajectoryPoints and SeriesPoints bound the report (see Report).
	TrajectoryPoints *int `mapstructure:"trajectory_points"`
	SeriesPoints     int  `mapstructure:"series_points"`
}

// FFT is the policy. It keeps each job's compensation ρ_j between rounds,
// so an instance serves one run (solvers.Policy): a snapshot earlier than
// the last one is an error. It is not safe for concurrent use.
type FFT struct {
	name    string
	opt     Options
	mu      float64
	age     float64
	traj    int
	solver  lp.Solver
	restore func(models.JobType) time.Duration // the simulator's restore cost, if known

	jobs    map[models.JobID]*jobState
	tput    map[tputKey]*tputs
	cluster *models.Cluster
	matrix  *models.Matrix
	gen     int
	lastNow time.Duration
	lastN   int
	started bool

	rep    Report
	series series
	done   []JobReport
}

var (
	_ solvers.Policy   = (*FFT)(nil)
	_ solvers.Reporter = (*FFT)(nil)
)

// New builds fft (fast solve unless options say otherwise).
func New(c solvers.Config) (solvers.Policy, error) { return build(Name, ModeFast, c) }

// NewExact builds fft-exact (exact solve unless options say otherwise).
func NewExact(c solvers.Config) (solvers.Policy, error) { return build(ExactName, ModeExact, c) }

func build(name, solve string, c solvers.Config) (*FFT, error) {
	o := Options{Solve: solve}
	if err := c.Decode(&o); err != nil {
		return nil, fmt.Errorf("%s: options: %w", name, err)
	}
	p, err := NewWith(name, o)
	if err != nil {
		return nil, err
	}
	p.restore = c.Restore
	return p, nil
}

// NewWith builds the policy from options, filling defaults and refusing
// bad values.
func NewWith(name string, o Options) (*FFT, error) {
	o.fillDefaults()
	p := &FFT{name: name, mu: 1, age: 1, traj: DefaultTrajectoryPoints, solver: lp.Default()}
	if o.MuScale != nil {
		p.mu = *o.MuScale
	}
	if o.AgeScale != nil {
		p.age = *o.AgeScale
	}
	if o.TrajectoryPoints != nil {
		p.traj = *o.TrajectoryPoints
	}
	if err := o.check(p.mu, p.age, p.traj); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	p.opt = o
	p.begin()
	return p, nil
}

// fillDefaults sets the options left out to their defaults.
func (o *Options) fillDefaults() {
	if o.Solve == "" {
		o.Solve = ModeFast
	}
	if o.WorkUnit == "" {
		o.WorkUnit = UnitEpoch
	}
	if o.PhiWork == "" {
		o.PhiWork = PhiTotal
	}
	if o.BandwidthGBps == 0 {
		o.BandwidthGBps = DefaultBandwidthGBps
	}
	if o.SeriesPoints == 0 {
		o.SeriesPoints = DefaultSeriesPoints
	}
}

// maxMuScale bounds mu_scale: far beyond any useful scale, and larger ones
// overflow ρ·θ to ±Inf.
const maxMuScale = 1e6

// check refuses a bad option (defaults filled in), naming it; mu and traj
// are mu_scale, age_scale and trajectory_points with their defaults.
func (o *Options) check(mu, age float64, traj int) error {
	bad := func(field string, v any, want string) error {
		return fmt.Errorf("%s: must be %s, got %v", field, want, v)
	}
	switch {
	case o.Solve != ModeFast && o.Solve != ModeExact:
		return bad("solve", o.Solve, `"fast" or "exact"`)
	case o.WorkUnit != UnitBestRound && o.WorkUnit != UnitJob && o.WorkUnit != UnitStep && o.WorkUnit != UnitEpoch:
		return bad("work_unit", o.WorkUnit, `"best-round", "job", "step" or "epoch"`)
	case o.PhiWork != PhiTotal && o.PhiWork != PhiRemaining:
		return bad("phi_work", o.PhiWork, `"total" or "remaining"`)
	case !(o.BandwidthGBps > 0) || math.IsInf(o.BandwidthGBps, 0):
		return bad("bandwidth_gb_per_second", o.BandwidthGBps, "a positive finite number")
	case !(mu >= 0 && mu <= maxMuScale):
		return bad("mu_scale", mu, "a number in [0, 1e6]")
	case !(age >= 0 && age <= maxMuScale):
		return bad("age_scale", age, "a number in [0, 1e6]")
	case !(o.TimeLimitSeconds >= 0) || math.IsInf(o.TimeLimitSeconds, 0):
		return bad("time_limit_seconds", o.TimeLimitSeconds, "a finite number ≥ 0")
	case o.NodeLimit < 0:
		return bad("node_limit", o.NodeLimit, "≥ 0")
	case o.AuditEvery < 0:
		return bad("audit_every", o.AuditEvery, "≥ 0")
	case traj < 0:
		return bad("trajectory_points", traj, "≥ 0")
	case o.SeriesPoints < 1:
		return bad("series_points", o.SeriesPoints, "≥ 1")
	}
	for _, t := range slices.Sorted(maps.Keys(o.StepsPerEpoch)) {
		if v := o.StepsPerEpoch[t]; !(v > 0) || math.IsInf(v, 0) {
			return bad("steps_per_epoch["+t+"]", v, "a positive finite number")
		}
	}
	for _, t := range slices.Sorted(maps.Keys(o.RestoreSeconds)) {
		if v := o.RestoreSeconds[t]; !(v >= 0) || math.IsInf(v, 0) {
			return bad("restore_seconds["+t+"]", v, "a finite number ≥ 0")
		}
	}
	return nil
}

// Name is "fft" or "fft-exact".
func (p *FFT) Name() string { return p.name }

// Options returns the options in force, defaults filled in.
func (p *FFT) Options() Options { return p.opt }

// begin sets up the empty state of the policy's run (New calls it once).
func (p *FFT) begin() {
	p.jobs = map[models.JobID]*jobState{}
	p.tput = map[tputKey]*tputs{}
	p.cluster, p.matrix = nil, nil
	p.gen, p.lastN, p.started = 0, 0, false
	p.rep = Report{Solve: p.opt.Solve, WorkUnit: p.opt.WorkUnit, PhiWork: p.opt.PhiWork,
		BandwidthGBps: p.opt.BandwidthGBps, MuScale: p.mu}
	if p.opt.AuditEvery > 0 {
		p.rep.Audit = &Audit{}
	}
	p.series = series{limit: p.opt.SeriesPoints}
	p.done = nil
}

// Rho reports job id's compensation ρ_j after the last decision.
func (p *FFT) Rho(id models.JobID) (float64, bool) {
	st, ok := p.jobs[id]
	if !ok {
		return 0, false
	}
	return st.rho, true
}

// FairFinish reports job id's τ_j (in rounds) after the last decision.
func (p *FFT) FairFinish(id models.JobID) (float64, bool) {
	st, ok := p.jobs[id]
	if !ok {
		return 0, false
	}
	return st.tau, true
}

// Allocate makes one round's decision: it updates every job's ρ_j by Eq. 5
// with the previous round's x, re-estimates τ_j when jobs arrived or
// finished, builds and solves the round's program (exactly or fast), and
// places the chosen gangs on GPUs.
func (p *FFT) Allocate(s *models.Snapshot) (models.Allocation, error) {
	if s.RoundLength <= 0 {
		return models.Allocation{}, fmt.Errorf("%s: round length must be positive, got %v", p.name, s.RoundLength)
	}
	if p.started && s.Now < p.lastNow {
		return models.Allocation{}, solvers.TimeWentBack(p.name, s.Now, p.lastNow)
	}
	if s.Cluster != p.cluster || s.Matrix != p.matrix {
		p.tput = map[tputKey]*tputs{} // throughputs are cached per cluster and matrix
		p.cluster, p.matrix = s.Cluster, s.Matrix
	}
	round := s.RoundLength.Seconds()
	t := float64(s.Now) / float64(s.RoundLength)
	p.gen++

	states := make([]*jobState, len(s.Jobs))
	changed := len(s.Jobs) != p.lastN
	for k := range s.Jobs {
		j := &s.Jobs[k]
		st, ok := p.jobs[j.ID]
		if !ok {
			tp := p.tputsOf(s, &j.Job)
			st = &jobState{}
			u, fellBack := p.unitOf(s, &j.Job, tp, round)
			if fellBack {
				p.rep.UnitFallbacks++
			}
			st.unit = u
			st.w = j.Steps / st.unit
			st.a = float64(j.Arrival) / float64(s.RoundLength)
			st.rep.ID, st.rep.ArrivalRound, st.rep.Work = j.ID, st.a, st.w
			p.jobs[j.ID] = st
			changed = true
		} else if st.decided {
			// Eq. 5 over the round just ended.
			st.rho = nextRho(st.rho, st.prevT, st.a, st.prevTau, st.w, st.prevRan, t-st.prevT, p.mu)
		}
		st.seen = p.gen
		states[k] = st
	}
	if len(p.jobs) != len(s.Jobs) {
		p.retire()
		changed = true
	}
	if changed {
		// τ_j is re-estimated whenever a job arrives or completes.
		n := len(s.Jobs)
		for k := range s.Jobs {
			st := states[k]
			rate := p.fairRate(s, &s.Jobs[k].Job, p.tputsOf(s, &s.Jobs[k].Job), n) * round / st.unit
			st.tau = fairFinish(st.a, st.w, rate)
		}
	}
	p.lastN = len(s.Jobs)

	in, theta := p.instance(s, states, t, round)
	sol, err := p.solve(in, s.Round)
	if err != nil {
		return models.Allocation{}, err
	}
	run, ran := p.place(s, sol.Type, round)

	// Remember x for the next round's Eq. 5 and record.
	nt := in.Types
	var rhoSum, rhoMax float64
	for k, st := range states {
		st.prevT, st.prevTau, st.prevRan, st.decided = t, st.tau, 0, true
		if ran[k] {
			st.prevRan = theta[k*nt+sol.Type[k]]
			st.rep.RoundsRun++
		} else {
			st.rep.RoundsWaited++
		}
		if st.rep.FairRounds = st.tau - st.a; math.IsInf(st.rep.FairRounds, 0) {
			st.rep.FairRounds = 0 // runs nowhere (JSON has no infinity)
		}
		st.rep.sample(t, st.rho, p.traj)
		rhoSum += st.rho
		rhoMax = math.Max(rhoMax, st.rho)
	}
	if len(s.Jobs) > 0 {
		p.rep.Rounds++
		p.series.add(RoundPoint{Round: s.Round, Rounds: 1, Active: float64(len(s.Jobs)),
			Objective: sol.Objective, Bound: sol.Bound, LPFill: float64(sol.LPFill), Fill: float64(sol.Fill),
			RhoMean: rhoSum / float64(len(s.Jobs)), RhoMax: rhoMax})
	}
	p.lastNow, p.started = s.Now, true
	return models.Allocation{Run: run}, nil
}

// retire drops the jobs that left (finished), keeping their reports.
func (p *FFT) retire() {
	for id, st := range p.jobs {
		if st.seen != p.gen {
			p.done = append(p.done, st.rep.JobReport)
			delete(p.jobs, id)
		}
	}
}

// solved is one round's chosen x with what the fast path learnt.
type solved struct {
	Solution
	LPFill int
	Bound  float64
}

// solve runs the configured path, and the audit.
func (p *FFT) solve(in *Instance, round int) (solved, error) {
	fast := SolveFast(in)
	out := solved{fast.Solution, fast.LPFill, fast.Bound}
	p.rep.SplitJobs += fast.Split
	if fast.Fill < fast.LPFill {
		p.rep.ShortRounds++
	}
	if m := mass(in, fast.Solution); m > 0 {
		p.rep.MaxBoundGap = math.Max(p.rep.MaxBoundGap, (fast.Objective-fast.Bound)/m)
	}
	audit := p.opt.AuditEvery > 0 && round%p.opt.AuditEvery == 0
	if p.opt.Solve != ModeExact && !audit {
		return out, nil
	}
	k := -1
	if fast.Fill == fast.LPFill {
		k = fast.Fill // the relaxation's fill is reached: it is K(t)
		if fast.Objective <= fast.Bound+optimalTol*(1+math.Abs(fast.Bound)) {
			// The relaxation's bound is reached too: x is optimal, no MIP
			// needed (the relaxation is integral whenever nothing is split).
			if audit {
				p.record(in, fast, ExactResult{Solution: fast.Solution, K: k, Status: lp.Optimal}, false)
			}
			return out, nil
		}
	}
	// Where the MIP backend solves (K(t), or a search past its budget), a
	// plain branch and bound (no cuts, no heuristics: the best solution
	// found is the MIP start) is the quicker search on these small MIPs.
	o := lp.Options{TimeLimit: time.Duration(p.opt.TimeLimitSeconds * float64(time.Second)), NodeLimit: p.opt.NodeLimit, Plain: true}
	ex, err := SolveExactFast(in, p.solver, o, k, fast)
	p.rep.LPs += ex.Solves
	p.rep.BackendSolves += ex.Backend
	p.rep.BranchNodes += ex.Nodes
	limited := errors.Is(err, lp.ErrLimit)
	if err != nil && !limited {
		if p.opt.Solve == ModeExact {
			p.rep.ExactFailed++
		}
		return out, nil
	}
	if audit {
		p.record(in, fast, ex, limited)
	}
	if p.opt.Solve == ModeExact {
		if limited {
			p.rep.ExactLimited++
		}
		if ex.Type != nil && (!limited || !better(fast.Solution, ex.Solution)) {
			out.Solution = ex.Solution
		}
	}
	return out, nil
}

// optimalTol is the relative slack within which the fast path's objective
// counts as reaching the LP bound (and so as optimal).
const optimalTol = 1e-9

// mass is Σ|c[j][i]| over the jobs s runs.
func mass(in *Instance, s Solution) float64 {
	m := 0.0
	for j, i := range s.Type {
		if i >= 0 {
			m += math.Abs(in.Cost[j*in.Types+i])
		}
	}
	return m
}

// record adds one audited round.
func (p *FFT) record(in *Instance, fast FastResult, ex ExactResult, limited bool) {
	a := p.rep.Audit
	a.Rounds++
	switch {
	case limited:
		a.Limited++
	case fast.Fill < ex.Fill:
		a.ShortFill++
	default:
		g := 0.0
		if m := mass(in, ex.Solution); m > 0 {
			g = math.Max(0, (fast.Objective-ex.Objective)/m)
		}
		if math.Abs(fast.Objective-ex.Objective) <= 1e-9*(1+math.Abs(ex.Objective)) {
			a.Equal++
			g = 0
		}
		a.sum += g
		a.n++
		a.MaxGap = math.Max(a.MaxGap, g)
	}
}

// place names the GPUs of the chosen x (see place.go) and returns the
// assignments in snapshot order, and which jobs run.
func (p *FFT) place(s *models.Snapshot, typ []int, round float64) ([]models.Assignment, []bool) {
	types := s.Cluster.TypeNames()
	byType := make([][]*item, len(types))
	for k, i := range typ {
		if i < 0 {
			continue
		}
		j := &s.Jobs[k]
		tp := p.tputsOf(s, &j.Job)
		byType[i] = append(byType[i], &item{k: k, job: j, gang: j.Gang,
			stay: j.Running() && j.LastType == types[i],
			cost: float64(j.Gang) * p.restoreSeconds(s, &j.Job),
			cons: tp.cons[i], spread: tp.spread[i]})
	}
	free := make([]bool, s.Cluster.TotalGPUs())
	for g := range free {
		free[g] = true
	}
	servers := map[string][]int{}
	for k, sv := range s.Cluster.Servers {
		servers[sv.Type] = append(servers[sv.Type], k)
	}
	var st placeStats
	gpus := make([][]int, len(s.Jobs))
	for i, g := range types {
		tp := &typePlacer{c: s.Cluster, servers: servers[g], free: free, round: round, st: &st}
		for _, it := range tp.place(byType[i]) {
			gpus[it.k] = it.gpus
		}
	}
	p.rep.Evictions += st.evictions
	p.rep.Consolidations += st.consolidations
	p.rep.Spread += st.spread
	p.rep.Dropped += st.dropped
	var run []models.Assignment
	ran := make([]bool, len(s.Jobs))
	for k, i := range typ {
		if i >= 0 && len(gpus[k]) > 0 {
			run = append(run, models.Assignment{Job: s.Jobs[k].ID, Type: types[i], GPUs: gpus[k]})
			ran[k] = true
		}
	}
	return run, ran
}
