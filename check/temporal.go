package check

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"fairbench/models"
	"fairbench/sim"
	"fairbench/solvers/lp"
)

// TemporalProperty is checked on simulations over growing horizons
// H₀, 2H₀, 4H₀, 8H₀ rounds (TemporalConfig.BaseRounds = H₀).
type TemporalProperty interface {
	Property
	// Workload generates the property's seeded workload.
	Workload(seed uint64) *Workload
	// Measure simulates the subject on w and measures the property's
	// quantity at each horizon. A simulation that fails for a reason that
	// is not the property's (the policy erring or crashing) is an error.
	Measure(subj *Subject, w *Workload) (*Measure, error)
	// Check reports whether a measurement keeps the property.
	Check(m *Measure) (ok bool, reason string)
}

// Workload is a job set for the over-time properties: Static (every job at
// time 0, large enough to outlast the longest horizon) or Dynamic (Poisson
// arrivals over the longest horizon; horizon H keeps the jobs that arrive
// before H rounds). Its instance is what a counterexample file holds.
type Workload struct {
	Kind     string           `json:"kind"`
	Instance *models.Instance `json:"instance"`
}

// Workload kinds.
const (
	Static  = "static"
	Dynamic = "dynamic"
)

// Measure is an over-time measurement: the property's quantity at each
// horizon, and the growth exponent α fitted to it.
type Measure struct {
	Horizons []int     `json:"horizons_rounds"`
	Values   []float64 `json:"values"`
	Unit     string    `json:"unit"`
	// Exponent is the least-squares slope of ln max(value, 1) on ln H:
	// values below one unit count as one, so a quantity that stays within a
	// unit has α = 0.
	Exponent float64 `json:"exponent"`
	Detail   string  `json:"detail,omitempty"`
	// Stalled says a simulation stopped with jobs that could never run;
	// the horizons it left unmeasured have the value −1.
	Stalled bool `json:"stalled,omitempty"`
}

func (m *Measure) String() string {
	var parts []string
	for i, h := range m.Horizons {
		if !m.Stalled || m.Values[i] >= 0 {
			parts = append(parts, fmt.Sprintf("H=%d: %.3g", h, m.Values[i]))
		}
	}
	s := fmt.Sprintf("%s (%s), α = %.2f", strings.Join(parts, ", "), m.Unit, m.Exponent)
	if m.Detail != "" {
		s += "; " + m.Detail
	}
	return s
}

// horizons are the rounds H₀·{1, 2, 4, 8}.
func (c *Config) horizons() []int {
	h := c.Temporal.BaseRounds
	return []int{h, 2 * h, 4 * h, 8 * h}
}

// exponent fits ln max(v, 1) = α ln H + c.
func exponent(hs []int, vs []float64) float64 {
	var sx, sy, sxx, sxy float64
	n := float64(len(hs))
	for i := range hs {
		x, y := math.Log(float64(hs[i])), math.Log(math.Max(vs[i], 1))
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	d := n*sxx - sx*sx
	if d == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / d
}

// decay fits ln max(v, 0.001) = α ln H + c: for quantities that should
// shrink (a deviation decaying like 1/H has α = −1).
func decay(hs []int, vs []float64) float64 {
	ws := make([]float64, len(vs))
	for i, v := range vs {
		ws[i] = 1000 * math.Max(v, 0.001)
	}
	return exponent(hs, ws)
}

// workloadRand is the random stream of one workload.
func workloadRand(seed uint64, purpose string) *rand.Rand {
	h := uint64(14695981039346656037)
	for _, c := range purpose {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return rand.New(rand.NewPCG(seed, h))
}

// speeds draws a job's speeds on V100, P100 and K80: K80 1 or 2 steps/s,
// each newer generation 1 to 3 times faster, in halves.
func speeds(r *rand.Rand) map[string]float64 {
	k80 := float64(1 + r.IntN(2))
	p100 := math.Round(2*k80*(1+2*r.Float64())) / 2
	v100 := math.Round(2*p100*(1+2*r.Float64())) / 2
	return map[string]float64{"V100": v100, "P100": p100, "K80": k80}
}

// staticWorkload: 3 types of 2–4 GPUs, 3 users of weight 1 with 2 jobs
// each (so job-level and user-level entitlements coincide), gang 1 or (one
// in four) 2, heterogeneous speeds; steps enough for 1.5 longest horizons
// at the best speed.
func (c *Config) staticWorkload(seed uint64, maxRounds int) *Workload {
	r := workloadRand(seed, "static")
	in := &models.Instance{GPUTypes: specTypes[:3]}
	for _, t := range []string{"V100", "P100", "K80"} {
		in.Servers = append(in.Servers, models.ServerGroup{Type: t, Count: 1, GPUs: 2 + r.IntN(3)})
	}
	id := models.JobID(1)
	for u := 1; u <= 3; u++ {
		name := fmt.Sprintf("u%d", u)
		in.Users = append(in.Users, models.User{Name: name, Weight: 1})
		for k := 0; k < 2; k++ {
			gang := 1
			if r.IntN(4) == 0 {
				gang = 2
			}
			tp := speeds(r)
			in.Jobs = append(in.Jobs, models.InstanceJob{ID: id, User: name, Gang: gang, Priority: 0.5,
				Steps: tp["V100"] * float64(maxRounds) * 360 * 1.5, Throughputs: tp})
			id++
		}
	}
	return &Workload{Kind: Static, Instance: in}
}

// ticketWorkload: users of weights 1, 2 and 3 with 3 jobs each on 3 types
// of 2 GPUs, every job with the same speeds (so trading between users
// changes nothing and GPU time is the currency of their tickets), demand
// (9 GPUs) above capacity (6).
func (c *Config) ticketWorkload(seed uint64, maxRounds int) *Workload {
	r := workloadRand(seed, "tickets")
	tp := speeds(r)
	in := &models.Instance{GPUTypes: specTypes[:3]}
	for _, t := range []string{"V100", "P100", "K80"} {
		in.Servers = append(in.Servers, models.ServerGroup{Type: t, Count: 1, GPUs: 2})
	}
	id := models.JobID(1)
	for u := 1; u <= 3; u++ {
		name := fmt.Sprintf("u%d", u)
		in.Users = append(in.Users, models.User{Name: name, Weight: float64(u)})
		for k := 0; k < 3; k++ {
			in.Jobs = append(in.Jobs, models.InstanceJob{ID: id, User: name, Gang: 1, Priority: float64(u) / 3,
				Steps: tp["V100"] * float64(maxRounds) * 360 * 1.5, Throughputs: tp})
			id++
		}
	}
	return &Workload{Kind: Static, Instance: in}
}

// dynamicWorkload: 3 types of 2–3 GPUs, 3 users of weight 1 (jobs by
// round robin), Poisson arrivals at ArrivalsPerRound over maxRounds
// rounds, gang 1 or (three in ten) 2, 1 to 6 rounds of work at the best
// speed.
func (c *Config) dynamicWorkload(seed uint64, maxRounds int) *Workload {
	r := workloadRand(seed, "dynamic")
	in := &models.Instance{GPUTypes: specTypes[:3]}
	for _, t := range []string{"V100", "P100", "K80"} {
		in.Servers = append(in.Servers, models.ServerGroup{Type: t, Count: 1, GPUs: 2 + r.IntN(2)})
	}
	for u := 1; u <= 3; u++ {
		in.Users = append(in.Users, models.User{Name: fmt.Sprintf("u%d", u), Weight: 1})
	}
	t := 0.0
	for id := models.JobID(1); ; id++ {
		t += r.ExpFloat64() / c.Temporal.ArrivalsPerRound * 360
		if t >= float64(maxRounds)*360 {
			break
		}
		gang := 1
		if r.IntN(10) < 3 {
			gang = 2
		}
		tp := speeds(r)
		in.Jobs = append(in.Jobs, models.InstanceJob{ID: id, User: in.Users[int(id-1)%3].Name, Gang: gang,
			Arrival: math.Round(t), Steps: tp["V100"] * float64(1+r.IntN(6)) * 360, Throughputs: tp})
	}
	return &Workload{Kind: Dynamic, Instance: in}
}

// simConfig builds a simulation of w's jobs, those arriving before
// `before` seconds (all when before ≤ 0).
func (w *Workload) simConfig(cfg *Config, before float64) (sim.Config, *models.Snapshot, error) {
	snap, err := w.Instance.Snapshot(specTypes)
	if err != nil {
		return sim.Config{}, nil, fmt.Errorf("workload: %w", err)
	}
	var jobs []models.Job
	for i := range snap.Jobs {
		if before <= 0 || snap.Jobs[i].Arrival.Seconds() < before {
			jobs = append(jobs, snap.Jobs[i].Job)
		}
	}
	return sim.Config{Cluster: snap.Cluster, Users: snap.Users, Jobs: jobs, Matrix: snap.Matrix,
		JobTypes: snap.JobTypes, Round: snap.RoundLength, DefaultSlowdown: cfg.Slowdown}, snap, nil
}

// staticRun simulates a static workload up to the longest horizon with a
// checkpoint at every round.
func staticRun(cfg *Config, subj *Subject, w *Workload) (*tracker, sim.Config, error) {
	sc, _, err := w.simConfig(cfg, 0)
	if err != nil {
		return nil, sc, err
	}
	hs := cfg.horizons()
	round := sc.Round.Seconds()
	points := make([]float64, hs[len(hs)-1])
	for k := range points {
		points[k] = float64(k+1) * round
	}
	p, err := subj.New()
	if err != nil {
		return nil, sc, err
	}
	tr, _, err := simulate(sc, p, points)
	return tr, sc, err
}

// fairPace is p_j = E_j(1/n), the job's throughput on 1/n of every type
// with n the number of jobs: the max-min-fair pace of FFT's long-term
// fairness constraint (Mo et al., ICS 2025, §4.2: τ_j is the finish time
// on a dedicated 1/|A(t)| share of every GPU type).
func fairPace(sc sim.Config) map[models.JobID]float64 {
	out := map[models.JobID]float64{}
	n := float64(len(sc.Jobs))
	for i := range sc.Jobs {
		out[sc.Jobs[i].ID] = models.EqualShareThroughput(sc.Cluster, sc.Matrix, sc.JobTypes, &sc.Jobs[i], 1/n)
	}
	return out
}

type ltfProp struct{ cfg *Config }

func (ltfProp) Name() string { return LongTermFairness }
func (p ltfProp) String() string {
	return fmt.Sprintf("lag(H) = max_j max_{t≤H} (p_j·t − done_j(t)) / (p_j·round), p_j = E_j(1/n) (max-min-fair pace, FFT's "+
		"constraint), on a static workload; lag(H) ∝ H^α over H = %v rounds with α ≤ %g", p.cfg.horizons(), p.cfg.Tol.Exponent)
}
func (p ltfProp) Workload(seed uint64) *Workload {
	hs := p.cfg.horizons()
	return p.cfg.staticWorkload(seed, hs[len(hs)-1])
}
func (p ltfProp) Measure(subj *Subject, w *Workload) (*Measure, error) {
	tr, sc, err := staticRun(p.cfg, subj, w)
	if err != nil {
		return nil, err
	}
	pace := fairPace(sc)
	round := sc.Round.Seconds()
	m := &Measure{Horizons: p.cfg.horizons(), Unit: "rounds behind the fair pace"}
	worst, worstJob := 0.0, models.JobID(0)
	k := 0
	for _, h := range m.Horizons {
		for ; k < h; k++ {
			t := float64(k+1) * round
			for _, id := range tr.ids {
				if lag := (pace[id]*t - tr.At[k][id].Done) / (pace[id] * round); lag > worst {
					worst, worstJob = lag, id
				}
			}
		}
		m.Values = append(m.Values, worst)
	}
	m.Exponent = exponent(m.Horizons, m.Values)
	if worstJob != 0 {
		last := tr.At[len(tr.At)-1][worstJob]
		m.Detail = fmt.Sprintf("worst job %d: done %.4g steps in %d rounds against a fair pace of %.4g steps/s",
			worstJob, last.Done, m.Horizons[len(m.Horizons)-1], pace[worstJob])
	}
	return m, nil
}
func (p ltfProp) Check(m *Measure) (bool, string) { return growth(m, p.cfg.Tol.Exponent) }

// growth accepts a measure whose exponent is at most limit.
func growth(m *Measure, limit float64) (bool, string) {
	if m.Exponent <= limit {
		return true, ""
	}
	return false, fmt.Sprintf("grows like H^%.2f > H^%g: %s", m.Exponent, limit, m)
}

type regretProp struct{ cfg *Config }

func (regretProp) Name() string { return Regret }
func (p regretProp) String() string {
	return fmt.Sprintf("R(H) = H·f* − Σ_{t<H} f(x_t) (in fair-pace job-rounds), f(x) = Σ_j T_j(x)/p_j, f* = max f(x) over fixed "+
		"time-sharing allocations x with T_j(x) ≥ p_j (an LP), on a static workload; R(H) ∝ H^α over H = %v rounds with α ≤ %g "+
		"(sub-linear)", p.cfg.horizons(), p.cfg.Tol.Exponent)
}
func (p regretProp) Workload(seed uint64) *Workload {
	hs := p.cfg.horizons()
	return p.cfg.staticWorkload(seed, hs[len(hs)-1])
}
func (p regretProp) Measure(subj *Subject, w *Workload) (*Measure, error) {
	tr, sc, err := staticRun(p.cfg, subj, w)
	if err != nil {
		return nil, err
	}
	pace := fairPace(sc)
	best, err := bestFixed(sc, pace)
	if err != nil {
		return nil, fmt.Errorf("regret comparator LP: %w", err)
	}
	round := sc.Round.Seconds()
	m := &Measure{Horizons: p.cfg.horizons(), Unit: "fair-pace job-rounds",
		Detail: fmt.Sprintf("best fixed allocation: f* = %.4g fair paces per round", best)}
	for _, h := range m.Horizons {
		got := 0.0
		for _, id := range tr.ids {
			got += tr.At[h-1][id].Done / pace[id] / round
		}
		m.Values = append(m.Values, best*float64(h)-got)
	}
	m.Exponent = exponent(m.Horizons, m.Values)
	return m, nil
}
func (p regretProp) Check(m *Measure) (bool, string) { return growth(m, p.cfg.Tol.Exponent) }

// bestFixed is f* = max Σ_j Σ_g T[j][g]·x[j][g]/p_j over x ≥ 0 with
// Σ_g x[j][g] ≤ 1, Σ_j d_j·x[j][g] ≤ N_g and Σ_g T[j][g]·x[j][g] ≥ p_j.
func bestFixed(sc sim.Config, pace map[models.JobID]float64) (float64, error) {
	inf := math.Inf(1)
	types := sc.Cluster.TypeNames()
	prob := &lp.Problem{Sense: lp.Maximize}
	capRows := make([]lp.Row, len(types))
	for g, t := range types {
		capRows[g] = lp.Row{Name: "cap " + t, Lower: -inf, Upper: float64(sc.Cluster.Capacity(t))}
	}
	for i := range sc.Jobs {
		j := &sc.Jobs[i]
		time := lp.Row{Name: fmt.Sprintf("time %d", j.ID), Lower: -inf, Upper: 1}
		floor := lp.Row{Name: fmt.Sprintf("pace %d", j.ID), Lower: pace[j.ID] * (1 - 1e-9), Upper: inf}
		for g, t := range types {
			tp := models.ThroughputOn(sc.Cluster, sc.Matrix, sc.JobTypes, j, t)
			if tp <= 0 {
				continue
			}
			v := len(prob.Vars)
			prob.Vars = append(prob.Vars, lp.Var{Name: fmt.Sprintf("x[%d][%s]", j.ID, t), Upper: inf, Obj: tp / pace[j.ID]})
			time.Coefs = append(time.Coefs, lp.Term{Var: v, Coef: 1})
			floor.Coefs = append(floor.Coefs, lp.Term{Var: v, Coef: tp})
			capRows[g].Coefs = append(capRows[g].Coefs, lp.Term{Var: v, Coef: float64(j.Gang)})
		}
		prob.Rows = append(prob.Rows, time, floor)
	}
	prob.Rows = append(prob.Rows, capRows...)
	res, err := lp.Default().Solve(prob, lp.Options{})
	if err != nil {
		return 0, err
	}
	return res.Objective, nil
}

type starveProp struct{ cfg *Config }

func (starveProp) Name() string { return StarvationBound }
func (p starveProp) String() string {
	return fmt.Sprintf("S(H) = max_j (first run_j − arrival_j)/round over the jobs of a dynamic overloaded workload that arrive "+
		"before H (Poisson, %g jobs/round), run to completion; S(H) ∝ H^α over H = %v rounds with α ≤ %g (FFT Theorem 4.2: "+
		"every job runs within a constant time of its arrival)", p.cfg.Temporal.ArrivalsPerRound, p.cfg.horizons(), p.cfg.Tol.Exponent)
}
func (p starveProp) Workload(seed uint64) *Workload {
	hs := p.cfg.horizons()
	return p.cfg.dynamicWorkload(seed, hs[len(hs)-1])
}
func (p starveProp) Measure(subj *Subject, w *Workload) (*Measure, error) {
	m := &Measure{Horizons: p.cfg.horizons(), Unit: "rounds of waiting"}
	round := 360.0
	if w.Instance.RoundSeconds > 0 {
		round = w.Instance.RoundSeconds
	}
	for _, h := range m.Horizons {
		before := 0.0
		if w.Kind == Dynamic {
			before = float64(h) * round
		}
		sc, _, err := w.simConfig(p.cfg, before)
		if err != nil {
			return nil, err
		}
		if len(sc.Jobs) == 0 {
			m.Values = append(m.Values, 0)
			continue
		}
		pol, err := subj.New()
		if err != nil {
			return nil, err
		}
		res, err := sim.Run(sc, pol)
		if err != nil {
			if strings.Contains(err.Error(), "stalled") {
				m.Detail = fmt.Sprintf("at H=%d: %v", h, err)
				m.Stalled = true
				break
			}
			return nil, err
		}
		worst, who := 0.0, models.JobID(0)
		for _, jr := range res.Jobs {
			if s := jr.Starvation / round; s > worst {
				worst, who = s, jr.ID
			}
		}
		m.Values = append(m.Values, worst)
		if who != 0 {
			m.Detail = fmt.Sprintf("longest wait at H=%d: job %d, %.3g rounds (%d jobs)", h, who, worst, len(sc.Jobs))
		}
	}
	n := len(m.Values)
	for len(m.Values) < len(m.Horizons) {
		m.Values = append(m.Values, -1)
	}
	if n > 1 {
		m.Exponent = exponent(m.Horizons[:n], m.Values[:n])
	}
	return m, nil
}
func (p starveProp) Check(m *Measure) (bool, string) {
	if m.Stalled {
		return false, "a job never ran: " + m.Detail
	}
	return growth(m, p.cfg.Tol.Exponent)
}

type shareProp struct{ cfg *Config }

func (shareProp) Name() string { return ShareConvergence }
func (p shareProp) String() string {
	return fmt.Sprintf("D(H) = max_u |GPU·s_u(H) / entitled_u(H) − 1|, entitled = the weighted water-filling of the GPUs over "+
		"the users' demands (Σ gang), on a static workload of ticket holders with weights 1, 2, 3 and identical speeds; "+
		"D(%d rounds) ≤ %g, or D(H) ∝ H^α decaying with α ≤ −0.5 over H = %v", p.cfg.horizons()[3], p.cfg.Tol.Share, p.cfg.horizons())
}
func (p shareProp) Workload(seed uint64) *Workload {
	hs := p.cfg.horizons()
	return p.cfg.ticketWorkload(seed, hs[len(hs)-1])
}
func (p shareProp) Measure(subj *Subject, w *Workload) (*Measure, error) {
	tr, sc, err := staticRun(p.cfg, subj, w)
	if err != nil {
		return nil, err
	}
	users := map[string]int{}
	weights := make([]float64, len(sc.Users))
	demand := make([]float64, len(sc.Users))
	for u, us := range sc.Users {
		users[us.Name] = u
		weights[u] = us.Weight
	}
	gang := map[models.JobID]float64{}
	for _, j := range sc.Jobs {
		demand[users[j.User]] += float64(j.Gang)
		gang[j.ID] = float64(j.Gang)
	}
	entitled := models.WaterFill(float64(sc.Cluster.TotalGPUs()), weights, demand)
	round := sc.Round.Seconds()
	m := &Measure{Horizons: p.cfg.horizons(), Unit: "relative deviation"}
	for _, h := range m.Horizons {
		held := make([]float64, len(sc.Users))
		for _, j := range sc.Jobs {
			for _, s := range tr.At[h-1][j.ID].Time {
				held[users[j.User]] += s * gang[j.ID]
			}
		}
		worst, detail := 0.0, ""
		for u := range held {
			ent := entitled[u] * float64(h) * round
			if ent <= 0 {
				continue
			}
			if dev := math.Abs(held[u]/ent - 1); dev > worst {
				worst = dev
				detail = fmt.Sprintf("user %s held %.4g GPU·s against %.4g entitled at H=%d", sc.Users[u].Name, held[u], ent, h)
			}
		}
		m.Values = append(m.Values, worst)
		m.Detail = detail
	}
	m.Exponent = decay(m.Horizons, m.Values)
	return m, nil
}
func (p shareProp) Check(m *Measure) (bool, string) {
	last := m.Values[len(m.Values)-1]
	if last <= p.cfg.Tol.Share || m.Exponent <= -0.5 {
		return true, ""
	}
	return false, fmt.Sprintf("deviation %.3g > %g at the longest horizon and not decaying (α = %.2f > −0.5): %s",
		last, p.cfg.Tol.Share, m.Exponent, m)
}

// workloadOf reads a counterexample instance back as a workload: static
// when every job arrives at 0.
func workloadOf(in *models.Instance) *Workload {
	kind := Static
	for _, j := range in.Jobs {
		if j.Arrival > 0 {
			kind = Dynamic
		}
	}
	return &Workload{Kind: kind, Instance: in}
}
