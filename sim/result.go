package sim

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"

	"fairbench/models"
	"fairbench/solvers"
)

// Result is everything a run measured. Times are in seconds.
type Result struct {
	Policy  string       `json:"policy"`
	Summary Summary      `json:"summary"`
	Users   []UserResult `json:"users"`
	Jobs    []JobResult  `json:"jobs"`
	Series  Series       `json:"series"`
	// PolicyReport is what the policy recorded, if it is a solvers.Reporter.
	PolicyReport any              `json:"policy_report,omitempty"`
	Decisions    []DecisionTiming `json:"decisions,omitempty"`
}

// Summary holds the run's headline metrics (README.md, "Metrics").
type Summary struct {
	// Jobs counts the jobs the job metrics are over: every job, or those
	// of Window.
	Jobs int `json:"jobs"`
	// Window is Config.Measure, the job IDs measured (nil: all).
	Window     *Window `json:"window,omitempty"`
	MeanJCT    float64 `json:"mean_jct_s"`
	MedianJCT  float64 `json:"median_jct_s"`
	P99JCT     float64 `json:"p99_jct_s"`
	Makespan   float64 `json:"makespan_s"`
	MeanRho    float64 `json:"mean_rho"`
	MaxRho     float64 `json:"max_rho"`
	Unfair     float64 `json:"unfair_fraction"`
	MeanStarve float64 `json:"mean_starvation_s"`
	MaxStarve  float64 `json:"max_starvation_s"`
	// JainUsers is Jain's index over users of GPU time held / GPU time
	// entitled (1 = every user got the same fraction of its entitlement).
	JainUsers   float64 `json:"jain_users"`
	Utilisation float64 `json:"utilisation"`
	Preemptions int     `json:"preemptions"`
	Migrations  int     `json:"migrations"`
	Resumes     int     `json:"resumes"`
	// LostGPUSeconds is GPU time held while restoring checkpoints.
	LostGPUSeconds float64 `json:"lost_gpu_s"`
	// Unplaced counts placements dropped because the gang had to be spread
	// and no spread throughput was measured.
	Unplaced int `json:"unplaced"`
	// DefaultSlowdowns counts, per GPU shared, the partners placed together
	// without a pair figure in the matrix, which ran at
	// Config.DefaultSlowdown (a pair of 4-GPU jobs sharing counts 4).
	DefaultSlowdowns int `json:"default_slowdowns,omitempty"`
	Rounds           int `json:"rounds"`
	Decisions        int `json:"decisions"`
	// SolverSeconds is the total policy time (0 unless a Clock was given).
	SolverSeconds float64 `json:"solver_s"`
	// Unfinished counts the jobs a run stopped with its measured window
	// done (Window.StopWhenDone) left unfinished; none of them is in the
	// window.
	Unfinished int `json:"unfinished,omitempty"`
}

// UserResult is one user's outcome.
type UserResult struct {
	Name   string  `json:"name"`
	Weight float64 `json:"weight"`
	Jobs   int     `json:"jobs"`
	// GPUSeconds held and entitled over the run, and their ratio.
	GPUSeconds      float64 `json:"gpu_s"`
	EntitledSeconds float64 `json:"entitled_gpu_s"`
	ShareRatio      float64 `json:"share_ratio"`
	MeanJCT         float64 `json:"mean_jct_s"`
	MeanRho         float64 `json:"mean_rho"`
}

// JobResult is one job's outcome. A job that a run stopped early left
// unfinished (Unfinished) has no Finish, JCT, IsolatedJCT, Rho or
// Contention (all 0); its Executed, Lost and counters are those up to the
// stop, and FirstRun and Starvation are 0 when it never ran (Executed and
// Lost 0: the stop comes before the decisions of its moment, so a job that
// started ran for a while).
type JobResult struct {
	ID       models.JobID `json:"id"`
	User     string       `json:"user"`
	Type     string       `json:"type"`
	Gang     int          `json:"gang"`
	Steps    float64      `json:"steps"`
	Arrival  float64      `json:"arrival_s"`
	FirstRun float64      `json:"first_run_s"`
	Finish   float64      `json:"finish_s"`
	JCT      float64      `json:"jct_s"`
	// Starvation is the wait from arrival to first run.
	Starvation float64 `json:"starvation_s"`
	// IsolatedJCT is the job's completion time alone on 1/n of every GPU
	// type, n the time-averaged number of active jobs over its lifetime
	// (Themis' T_independent, Mahajan et al., NSDI 2020), and Rho = JCT /
	// IsolatedJCT its finish-time fairness.
	IsolatedJCT float64 `json:"isolated_jct_s"`
	Rho         float64 `json:"rho"`
	Contention  float64 `json:"contention"`
	Executed    float64 `json:"executed_s"`
	Lost        float64 `json:"restore_s"`
	Preemptions int     `json:"preemptions"`
	Migrations  int     `json:"migrations"`
	Resumes     int     `json:"resumes"`
	Unfinished  bool    `json:"unfinished,omitempty"`
}

// DecisionTiming is one policy call's measured solver time. Timings are
// wall-clock measurements, so they differ from run to run; everything else in
// a Result is a pure function of the inputs.
type DecisionTiming struct {
	Time    float64 `json:"t_s"`
	Round   int     `json:"round"`
	Trigger string  `json:"trigger"`
	Active  int     `json:"active"`
	Seconds float64 `json:"solver_s"`
}

func (e *engine) result() *Result {
	c := e.cfg
	r := &Result{Policy: e.policy.Name(), Decisions: e.decisions}
	perUser := map[string][]*JobResult{}
	var jcts, rhos, starves []float64
	var lost float64
	s := &r.Summary
	for _, j := range e.jobs {
		jr := e.jobResult(j)
		r.Jobs = append(r.Jobs, jr)
		lost += jr.Lost * float64(j.spec.Gang)
		s.Preemptions += j.preemptions
		s.Migrations += j.migrations
		s.Resumes += j.resumes
		if jr.Unfinished {
			s.Unfinished++
			continue
		}
		s.Makespan = math.Max(s.Makespan, jr.Finish)
		if c.Measure != nil && !c.Measure.Contains(jr.ID) {
			continue
		}
		jcts, rhos, starves = append(jcts, jr.JCT), append(rhos, jr.Rho), append(starves, jr.Starvation)
		if jr.Rho > c.UnfairThreshold*(1+rhoTolerance) {
			s.Unfair++
		}
	}
	slices.SortFunc(r.Jobs, func(a, b JobResult) int { return int(a.ID - b.ID) })
	for i := range r.Jobs {
		if !r.Jobs[i].Unfinished && (c.Measure == nil || c.Measure.Contains(r.Jobs[i].ID)) {
			perUser[r.Jobs[i].User] = append(perUser[r.Jobs[i].User], &r.Jobs[i])
		}
	}
	s.Jobs, s.Window = len(jcts), c.Measure
	if s.Jobs > 0 {
		s.MeanJCT, s.MedianJCT, s.P99JCT = stat.Mean(jcts, nil), quantile(0.5, jcts), quantile(0.99, jcts)
		s.MeanRho, s.MaxRho = stat.Mean(rhos, nil), slices.Max(rhos)
		s.Unfair /= float64(s.Jobs)
		s.MeanStarve, s.MaxStarve = stat.Mean(starves, nil), slices.Max(starves)
	}
	s.LostGPUSeconds = lost
	s.Unplaced = e.unplaced
	s.DefaultSlowdowns = e.defaultXi
	s.Rounds = int(e.now/c.Round) + 1
	s.Decisions = e.ndecisions
	var busy float64
	var shares []float64
	for u, name := range e.users {
		ur := UserResult{Name: name, Weight: e.weights[u], GPUSeconds: e.rec.totalHeld[u], EntitledSeconds: e.rec.totalEntitled[u]}
		busy += ur.GPUSeconds
		if ur.EntitledSeconds > 0 {
			ur.ShareRatio = ur.GPUSeconds / ur.EntitledSeconds
			shares = append(shares, ur.ShareRatio)
		}
		var uj, ur2 []float64
		for _, jr := range perUser[name] {
			uj, ur2 = append(uj, jr.JCT), append(ur2, jr.Rho)
		}
		ur.Jobs = len(uj)
		if ur.Jobs > 0 {
			ur.MeanJCT, ur.MeanRho = stat.Mean(uj, nil), stat.Mean(ur2, nil)
		}
		r.Users = append(r.Users, ur)
	}
	s.JainUsers = models.Jain(shares)
	if e.now > 0 {
		s.Utilisation = busy / (float64(c.Cluster.TotalGPUs()) * e.now.Seconds())
	}
	r.Series = e.rec.series()
	if rep, ok := e.policy.(solvers.Reporter); ok {
		r.PolicyReport = rep.Report()
	}
	return r
}

// jobResult is j's outcome; for a job the run stopped before it finished,
// what it did up to the stop.
func (e *engine) jobResult(j *job) JobResult {
	jr := JobResult{
		ID: j.spec.ID, User: j.spec.User, Type: j.spec.Type, Gang: j.spec.Gang, Steps: j.spec.Steps,
		Arrival: j.spec.Arrival.Seconds(), Executed: j.executed.Seconds(), Lost: j.lost.Seconds(),
		Preemptions: j.preemptions, Migrations: j.migrations, Resumes: j.resumes,
	}
	if j.finished || j.firstRun >= 0 {
		jr.FirstRun, jr.Starvation = j.firstRun.Seconds(), (j.firstRun - j.spec.Arrival).Seconds()
	}
	if !j.finished {
		jr.Unfinished = true
		return jr
	}
	jr.Finish, jr.JCT = j.finish.Seconds(), (j.finish - j.spec.Arrival).Seconds()
	jr.Contention = math.Max(1, (j.areaFinish-j.areaArrive)/jr.JCT)
	jr.IsolatedJCT = j.spec.Steps / e.cfg.EqualShareThroughput(&j.spec, 1/jr.Contention)
	jr.Rho = jr.JCT / jr.IsolatedJCT
	return jr
}

// rhoTolerance keeps a job that ran alone at full speed (ρ = 1 up to the
// nanosecond rounding of its completion time) from counting as unfair.
const rhoTolerance = 1e-9

// quantile is the p-quantile of xs by linear interpolation between order
// statistics (numpy's default); xs is not modified.
func quantile(p float64, xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 1 {
		return s[0]
	}
	h := p * float64(len(s)-1)
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (h-lo)*(s[i+1]-s[i])
}
