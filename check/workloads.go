package check

import (
	"fmt"
	"math"
	"math/rand/v2"

	"fairbench/models"
	"fairbench/sim"
)

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
				Steps: tp["V100"] * float64(maxRounds) * specRound * 1.5, Throughputs: tp})
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
				Steps: tp["V100"] * float64(maxRounds) * specRound * 1.5, Throughputs: cloneFigures(tp)})
			id++
		}
	}
	return &Workload{Kind: Static, Instance: in}
}

func cloneFigures(m map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// dynamicJob is one job of a dynamic workload before it gets its arrival.
type dynamicJob struct {
	gang   int
	rounds float64 // work, in rounds at the best speed
	tp     map[string]float64
}

// dynamicWorkload: 3 types of 2–3 GPUs, 3 users of weight 1 (jobs by
// round robin), gang 1 or (three in ten) 2, 1 to 6 rounds of work at the
// best speed, Poisson arrivals over maxRounds rounds at rate λ jobs per
// round. The offered load is
//
//	ρ = λ · E[d_j · w_j] / C,  C = Σ_g N_g · E[T_j(g) / max_h T_j(h)],
//
// the GPU-rounds of best-speed work arriving per round over the best-speed
// GPU-rounds the cluster serves per round (each type counted at the jobs'
// mean speed there relative to their best), both expectations taken over
// the workload's first 256 jobs. ρ > 1 overloads the cluster for good; ρ <
// 1 is a load it can serve. The job figures and the arrival gaps come from
// separate streams, so workloads of one seed at two loads hold the same
// jobs, arriving at scaled times.
func (c *Config) dynamicWorkload(seed uint64, maxRounds int, rate float64) *Workload {
	r := workloadRand(seed, "dynamic")
	gaps := workloadRand(seed, "dynamic arrivals")
	in := &models.Instance{GPUTypes: specTypes[:3]}
	for _, t := range []string{"V100", "P100", "K80"} {
		in.Servers = append(in.Servers, models.ServerGroup{Type: t, Count: 1, GPUs: 2 + r.IntN(2)})
	}
	for u := 1; u <= 3; u++ {
		in.Users = append(in.Users, models.User{Name: fmt.Sprintf("u%d", u), Weight: 1})
	}
	var jobs []dynamicJob
	next := func(k int) dynamicJob {
		for len(jobs) <= k {
			gang := 1
			if r.IntN(10) < 3 {
				gang = 2
			}
			jobs = append(jobs, dynamicJob{gang: gang, tp: speeds(r), rounds: float64(1 + r.IntN(6))})
		}
		return jobs[k]
	}
	for k := 0; k < 256; k++ {
		next(k)
	}
	demand, capacity := loadOf(in, jobs[:256])
	t := 0.0
	for k := 0; ; k++ {
		t += gaps.ExpFloat64() / rate * specRound
		if t >= float64(maxRounds)*specRound {
			break
		}
		j := next(k)
		id := models.JobID(k + 1)
		in.Jobs = append(in.Jobs, models.InstanceJob{ID: id, User: in.Users[k%3].Name, Gang: j.gang,
			Arrival: math.Round(t), Steps: j.tp["V100"] * j.rounds * specRound, Throughputs: cloneFigures(j.tp)})
	}
	w := &Workload{Kind: Dynamic, Instance: in, Load: rate * demand / capacity}
	w.redraw = func(load float64) *Workload {
		return c.dynamicWorkload(seed, maxRounds, load*capacity/demand)
	}
	return w
}

// loadOf is E[d_j·w_j] (GPU-rounds of best-speed work per job) and the
// cluster's best-speed GPU-rounds per round, C = Σ_g N_g·E[T_j(g)/max T_j].
func loadOf(in *models.Instance, jobs []dynamicJob) (demand, capacity float64) {
	ratio := map[string]float64{}
	for _, j := range jobs {
		best := 0.0
		for _, v := range j.tp {
			best = math.Max(best, v)
		}
		for t, v := range j.tp {
			ratio[t] += v / best / float64(len(jobs))
		}
		demand += float64(j.gang) * j.rounds / float64(len(jobs))
	}
	for _, sg := range in.Servers {
		capacity += float64(sg.Count*sg.GPUs) * ratio[sg.Type]
	}
	return demand, capacity
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

// staticRun simulates a static workload up to the longest of horizons
// with a checkpoint at every round.
func staticRun(cfg *Config, subj *Subject, w *Workload, horizons []int) (*tracker, sim.Config, error) {
	sc, _, err := w.simConfig(cfg, 0)
	if err != nil {
		return nil, sc, err
	}
	round := sc.Round.Seconds()
	points := make([]float64, horizons[len(horizons)-1])
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
