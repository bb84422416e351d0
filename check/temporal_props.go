package check

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"fairbench/models"
	"fairbench/sim"
	"fairbench/solvers/lp"
)

// growthVerdict judges a measure against "grows at most like H^limit",
// told apart from linear growth (Growth.Verdict).
func growthVerdict(m *Measure, limit float64) (bool, bool, string) {
	if m.Infeasible != "" {
		return false, true, "infeasible allocation: " + m.Infeasible
	}
	ok, sure := m.Growth.Verdict(limit)
	if ok {
		return true, sure, ""
	}
	return false, sure, fmt.Sprintf("grows like H^%.2f, closer to H than to H^%g: %s", m.Growth.Alpha, limit, m)
}

// measureError sorts a simulation's failure: an infeasible allocation is
// recorded in m (a violation); anything else is an error.
func measureError(m *Measure, err error) error {
	var v *models.Violation
	if errors.As(err, &v) {
		m.Infeasible = err.Error()
		return nil
	}
	return err
}

// growthFormula is the shared end of the growth properties' formulas.
func (c *Config) growthFormula() string {
	return fmt.Sprintf("v(H) = a + c·H^α fitted to the values at H = %v rounds (extended to %d when unsure); "+
		"holds when α ≤ %g (the midpoint between H^%g and H) or v rises by less than one unit; %.0f%% profile CI reported",
		c.horizons(), c.maxHorizon(), (c.Tol.Exponent+1)/2, c.Tol.Exponent, 100*Confidence)
}

type ltfProp struct{ cfg *Config }

func (ltfProp) Name() string { return LongTermFairness }
func (p ltfProp) String() string {
	return "lag(H) = max_j max_{t≤H} (p_j·t − done_j(t)) / (p_j·round), p_j = E_j(1/n) (max-min-fair pace, FFT's " +
		"constraint), on a static workload; " + p.cfg.growthFormula()
}
func (p ltfProp) Workload(seed uint64) *Workload {
	return p.cfg.staticWorkload(seed, p.cfg.maxHorizon())
}
func (p ltfProp) Measure(subj *Subject, w *Workload, hs []int) (*Measure, error) {
	m := &Measure{Horizons: hs, Unit: "rounds behind the fair pace"}
	tr, sc, err := staticRun(p.cfg, subj, w, hs)
	if err != nil {
		return m, measureError(m, err)
	}
	pace := fairPace(sc)
	round := sc.Round.Seconds()
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
	m.fit(1)
	if worstJob != 0 {
		last := tr.At[len(tr.At)-1][worstJob]
		m.Detail = fmt.Sprintf("worst job %d: done %.4g steps in %d rounds against a fair pace of %.4g steps/s",
			worstJob, last.Done, m.Horizons[len(m.Horizons)-1], pace[worstJob])
	}
	return m, nil
}
func (p ltfProp) Check(m *Measure) (bool, bool, string) { return growthVerdict(m, p.cfg.Tol.Exponent) }

type regretProp struct{ cfg *Config }

func (regretProp) Name() string { return Regret }
func (p regretProp) String() string {
	return "R(H) = H·f* − Σ_{t<H} f(x_t) (in fair-pace job-rounds), f(x) = Σ_j T_j(x)/p_j, f* = max f(x) over fixed " +
		"time-sharing allocations x with T_j(x) ≥ p_j (an LP), on a static workload; " + p.cfg.growthFormula()
}
func (p regretProp) Workload(seed uint64) *Workload {
	return p.cfg.staticWorkload(seed, p.cfg.maxHorizon())
}
func (p regretProp) Measure(subj *Subject, w *Workload, hs []int) (*Measure, error) {
	m := &Measure{Horizons: hs, Unit: "fair-pace job-rounds"}
	tr, sc, err := staticRun(p.cfg, subj, w, hs)
	if err != nil {
		return m, measureError(m, err)
	}
	pace := fairPace(sc)
	best, err := bestFixed(sc, pace)
	if err != nil {
		return nil, fmt.Errorf("regret comparator LP: %w", err)
	}
	round := sc.Round.Seconds()
	m.Detail = fmt.Sprintf("best fixed allocation: f* = %.4g fair paces per round", best)
	for _, h := range m.Horizons {
		got := 0.0
		for _, id := range tr.ids {
			got += tr.At[h-1][id].Done / pace[id] / round
		}
		m.Values = append(m.Values, best*float64(h)-got)
	}
	m.fit(1)
	return m, nil
}
func (p regretProp) Check(m *Measure) (bool, bool, string) {
	return growthVerdict(m, p.cfg.Tol.Exponent)
}

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
	return fmt.Sprintf("S(H) = max_j (first run_j − arrival_j)/round over the jobs of a dynamic workload that arrive before H "+
		"(Poisson, %g jobs/round, offered load above capacity; under load-below-capacity at %g of it), run to completion; "+
		"FFT Theorem 4.2: every job runs within a constant time of its arrival; ",
		p.cfg.Temporal.ArrivalsPerRound, p.cfg.Temporal.Underload) + p.cfg.growthFormula()
}
func (p starveProp) Workload(seed uint64) *Workload {
	return p.cfg.dynamicWorkload(seed, p.cfg.maxHorizon(), p.cfg.Temporal.ArrivalsPerRound)
}
func (p starveProp) Measure(subj *Subject, w *Workload, hs []int) (*Measure, error) {
	m := &Measure{Horizons: hs, Unit: "rounds of waiting"}
	round := specRound
	if w.Instance.RoundSeconds > 0 {
		round = w.Instance.RoundSeconds
	}
	for _, h := range m.Horizons {
		worst, detail, err := p.wait(subj, w, float64(h)*round, round)
		if err != nil {
			if strings.Contains(err.Error(), "stalled") {
				m.Detail, m.Stalled = fmt.Sprintf("at H=%d: %v", h, err), true
				break
			}
			if err := measureError(m, err); err != nil {
				return nil, err
			}
			break
		}
		m.Values = append(m.Values, worst)
		if detail != "" {
			m.Detail = fmt.Sprintf("longest wait at H=%d: %s", h, detail)
		}
	}
	for len(m.Values) < len(m.Horizons) {
		m.Values = append(m.Values, -1)
	}
	m.fit(1)
	if w.Load > 0 {
		m.Detail = strings.TrimPrefix(fmt.Sprintf("%s; offered load %.2f of capacity", m.Detail, w.Load), "; ")
	}
	return m, nil
}

// wait simulates the jobs of w arriving before `before` seconds to
// completion and returns the longest wait in rounds.
func (p starveProp) wait(subj *Subject, w *Workload, before, round float64) (float64, string, error) {
	if w.Kind != Dynamic {
		before = 0
	}
	sc, _, err := w.simConfig(p.cfg, before)
	if err != nil || len(sc.Jobs) == 0 {
		return 0, "", err
	}
	pol, err := subj.New()
	if err != nil {
		return 0, "", err
	}
	res, err := sim.Run(sc, pol)
	if err != nil {
		return 0, "", err
	}
	worst, who := 0.0, models.JobID(0)
	for _, jr := range res.Jobs {
		if s := jr.Starvation / round; s > worst {
			worst, who = s, jr.ID
		}
	}
	if who == 0 {
		return 0, "", nil
	}
	return worst, fmt.Sprintf("job %d, %.3g rounds (%d jobs)", who, worst, len(sc.Jobs)), nil
}
func (p starveProp) Check(m *Measure) (bool, bool, string) {
	if m.Stalled {
		return false, true, "a job never ran: " + m.Detail
	}
	return growthVerdict(m, p.cfg.Tol.Exponent)
}

type shareProp struct{ cfg *Config }

func (shareProp) Name() string { return ShareConvergence }
func (p shareProp) String() string {
	return fmt.Sprintf("D(H) = max_u |GPU·s_u(H) / entitled_u(H) − 1|, entitled = the weighted water-filling of the GPUs over "+
		"the users' demands (Σ gang), on a static workload of ticket holders with weights 1, 2, 3 and identical speeds; "+
		"D(H_max) ≤ %g, or D decaying: the log-log slope of the (positive) values ≤ −0.5, over H = %v",
		p.cfg.Tol.Share, p.cfg.horizons())
}
func (p shareProp) Workload(seed uint64) *Workload {
	return p.cfg.ticketWorkload(seed, p.cfg.maxHorizon())
}
func (p shareProp) Measure(subj *Subject, w *Workload, hs []int) (*Measure, error) {
	m := &Measure{Horizons: hs, Unit: "relative deviation", decay: true}
	tr, sc, err := staticRun(p.cfg, subj, w, hs)
	if err != nil {
		return m, measureError(m, err)
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
	m.Exponent = logSlope(m.Horizons, m.Values)
	m.Growth = Growth{Alpha: m.Exponent, Lo: m.Exponent, Hi: m.Exponent}
	return m, nil
}
func (p shareProp) Check(m *Measure) (bool, bool, string) {
	if m.Infeasible != "" {
		return false, true, "infeasible allocation: " + m.Infeasible
	}
	last := m.Values[len(m.Values)-1]
	if last <= p.cfg.Tol.Share || m.Exponent <= -0.5 {
		return true, true, ""
	}
	return false, true, fmt.Sprintf("deviation %.3g > %g at the longest horizon and not decaying (slope %.2f > −0.5): %s",
		last, p.cfg.Tol.Share, m.Exponent, m)
}

// logSlope is the least-squares slope of ln v on ln H over the positive
// values (a deviation decaying like 1/H has −1; a deviation of exactly 0
// has no logarithm and is left out).
func logSlope(hs []int, vs []float64) float64 {
	var sx, sy, sxx, sxy, n float64
	for i := range hs {
		if vs[i] <= 0 {
			continue
		}
		x, y := math.Log(float64(hs[i])), math.Log(vs[i])
		sx, sy, sxx, sxy, n = sx+x, sy+y, sxx+x*x, sxy+x*y, n+1
	}
	d := n*sxx - sx*sx
	if d == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / d
}
