package sjfbsbf_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"fairbench/models"
	"fairbench/scenarios"
	"fairbench/sim"
	"fairbench/solvers"
	"fairbench/solvers/sjfbsbf"
)

// checked wraps a policy and checks every decision it makes: models.Feasible,
// at most two jobs on any GPU, every job named on explicit GPUs, and every
// running job re-listed on the same GPUs with the same accumulation setting
// (non-preemptive).
type checked struct {
	solvers.Policy
	t         testing.TB
	decisions int
	shared    int // decisions with at least one GPU shared
}

func (c *checked) Triggers() models.Trigger { return solvers.TriggersOf(c.Policy) }
func (c *checked) Report() any              { return c.Policy.(solvers.Reporter).Report() }

func (c *checked) Allocate(s *models.Snapshot) (models.Allocation, error) {
	a, err := c.Policy.Allocate(s)
	if err != nil {
		return a, err
	}
	c.decisions++
	if err := models.Feasible(s, a); err != nil {
		c.t.Fatalf("%s at %v: %v", c.Name(), s.Now, err)
	}
	per := make([]int, s.Cluster.TotalGPUs())
	listed := map[models.JobID]models.Assignment{}
	for _, as := range a.Run {
		j, _ := s.Job(as.Job)
		if len(as.GPUs) != j.Gang {
			c.t.Fatalf("%s at %v: job %d on %v, gang %d", c.Name(), s.Now, as.Job, as.GPUs, j.Gang)
		}
		for _, g := range as.GPUs {
			per[g]++
		}
		listed[as.Job] = as
	}
	if slices.Max(per) > models.MaxJobsPerGPU {
		c.t.Fatalf("%s at %v: %d jobs on one GPU", c.Name(), s.Now, slices.Max(per))
	}
	if slices.Max(per) == 2 {
		c.shared++
	}
	for i := range s.Jobs {
		j := &s.Jobs[i]
		if !j.Running() {
			continue
		}
		as, ok := listed[j.ID]
		if !ok || !slices.Equal(as.GPUs, j.LastGPUs) || as.Type != j.LastType || as.Accum != j.LastAccum {
			c.t.Fatalf("%s at %v: running job %d (%s %v k=%d) re-listed as %+v (listed %v)",
				c.Name(), s.Now, j.ID, j.LastType, j.LastGPUs, j.LastAccum, as, ok)
		}
	}
	return a, nil
}

// randomConfig draws a small cluster (V100 and K80 servers of 4 or 8 GPUs)
// and 120 jobs of the fixture's types, gangs 1/2/4/8, with Poisson-ish
// arrivals and a heavy-tailed number of steps.
func randomConfig(t testing.TB, seed uint64) sim.Config {
	rng := rand.New(rand.NewPCG(seed, 7))
	var servers []models.Server
	for n := 1 + rng.IntN(4); n > 0; n-- {
		typ := "V100"
		if rng.IntN(3) == 0 {
			typ = "K80"
		}
		servers = append(servers, models.Server{Type: typ, GPUs: 4 << rng.IntN(2)})
	}
	servers = append(servers, models.Server{Type: "V100", GPUs: 8}) // every gang fits somewhere
	types := []string{"short", "long", "hog", "plain", "R64", "R32", "big"}
	var jobs []models.Job
	at := 0.0
	for i := 0; i < 120; i++ {
		at += rng.ExpFloat64() * 200
		gang := []int{1, 1, 1, 1, 1, 1, 1, 2, 4, 8}[rng.IntN(10)]
		jobs = append(jobs, models.Job{ID: models.JobID(i), User: "u", Type: types[rng.IntN(len(types))], Gang: gang,
			Steps: 10 * float64(int(1+rng.ExpFloat64()*300)), Arrival: sec(float64(int(at)))})
	}
	return sim.Config{Cluster: cluster(t, servers...), Users: []models.User{{Name: "u", Weight: 1}}, Jobs: jobs,
		Matrix: matrix(t), JobTypes: jobTypes}
}

// TestInvariantsRandom: on random workloads every decision of every variant
// passes the checks above, nothing is ever preempted or migrated, and the
// same inputs give byte-identical results.
func TestInvariantsRandom(t *testing.T) {
	t.Parallel()
	sharedSome, accumSome := map[string]bool{}, map[string]bool{}
	var all []struct {
		name string
		f    solvers.Factory
	}
	for _, v := range variants {
		all = append(all, v)
		all = append(all, struct {
			name string
			f    solvers.Factory
		}{v.name + "/gpus", gpusPairing(v.f)})
	}
	for seed := uint64(0); seed < 10; seed++ {
		cfg := randomConfig(t, seed)
		for _, v := range all {
			p := &checked{Policy: build(t, v.f), t: t}
			r, err := sim.Run(cfg, p)
			if err != nil {
				t.Fatalf("seed %d %s: %v", seed, v.name, err)
			}
			if r.Summary.Preemptions != 0 || r.Summary.Migrations != 0 {
				t.Errorf("seed %d %s: %d preemptions, %d migrations", seed, v.name, r.Summary.Preemptions, r.Summary.Migrations)
			}
			if p.shared > 0 {
				sharedSome[v.name] = true
			}
			if r.PolicyReport.(*sjfbsbf.Report).Accumulated > 0 {
				accumSome[v.name] = true
			}
			first, _ := json.Marshal(r)
			// Determinism: the same inputs give byte-identical results; and,
			// differentially, the "no room" memo changes nothing.
			for _, memo := range []bool{true, false} {
				if memo && seed >= 4 {
					continue
				}
				sjfbsbf.SetMemoise(memo)
				r, err := sim.Run(cfg, build(t, v.f))
				sjfbsbf.SetMemoise(true)
				if b, _ := json.Marshal(r); err != nil || string(b) != string(first) {
					t.Errorf("seed %d %s: a second run (memo %v) differs (%v)", seed, v.name, memo, err)
				}
			}
		}
	}
	for _, v := range all {
		if !sharedSome[v.name] || !accumSome[v.name] {
			t.Errorf("%s: shared %v, accumulated %v: the random workloads do not exercise both", v.name, sharedSome[v.name], accumSome[v.name])
		}
	}
}

// TestExampleScenario runs the paper-testbed example (the built-in
// catalogue, Gavel's measured pairs) with fewer jobs through every variant
// with the checks on.
func TestExampleScenario(t *testing.T) {
	t.Parallel()
	g, err := scenarios.Load("../../scenarios/examples/sjfbsbf.yaml")
	if err != nil {
		t.Fatal(err)
	}
	run := g.Runs[0]
	run.Spec.Workload.Jobs = 300
	run.Spec.Workload.ArrivalRatePerHour = 2 // overloaded: long queues, busy decisions
	w, err := run.Spec.Build(run.Seed)
	if err != nil {
		t.Fatal(err)
	}
	cfg := sim.Config{Cluster: w.Cluster, Users: w.Users, Jobs: w.Jobs, Matrix: w.Matrix, JobTypes: w.JobTypes,
		Round: w.Round, Costs: sim.Costs{PerType: w.Restore, BandwidthGBps: w.BandwidthGBPerSecond}}
	for _, v := range variants {
		p := &checked{Policy: build(t, v.f), t: t}
		r, err := sim.Run(cfg, p)
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		if p.shared == 0 {
			t.Errorf("%s: never shared", v.name)
		}
		sjfbsbf.SetMemoise(false)
		r2, err := sim.Run(cfg, build(t, v.f))
		sjfbsbf.SetMemoise(true)
		a, _ := json.Marshal(r)
		b, _ := json.Marshal(r2)
		if err != nil || string(a) != string(b) {
			t.Errorf("%s: without the memo the run differs (%v)", v.name, err)
		}
		t.Logf("%s: mean JCT %.0f s, %s", v.name, r.Summary.MeanJCT, fmt.Sprint(r.PolicyReport))
	}
}
