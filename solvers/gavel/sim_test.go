package gavel_test

import (
	"fmt"
	"reflect"
	"testing"

	"fairbench/scenarios"
	"fairbench/sim"
)

// phillyConfig is a scaled-down default scenario: 12 V100 + 12 P100 + 12 K80
// on 4-GPU servers, 4 users, n Philly-like jobs of the built-in catalogue
// (Gavel's 26 job types and figures) arriving at rate jobs/hour.
func phillyConfig(t testing.TB, n int, rate float64, seed int64) sim.Config {
	t.Helper()
	yaml := fmt.Sprintf(`
cluster:
  servers:
    - {type: V100, count: 3, gpus_per_server: 4}
    - {type: P100, count: 3, gpus_per_server: 4}
    - {type: K80, count: 3, gpus_per_server: 4}
user_count: 4
policies: [fifo]
workload: {generator: philly, jobs: %d, arrival_rate_per_hour: %g}
`, n, rate)
	g, err := scenarios.Parse([]byte(yaml), "gavel-test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w, err := g.Runs[0].Spec.Build(seed)
	if err != nil {
		t.Fatal(err)
	}
	return sim.Config{Environment: w.Environment, Users: w.Users, Jobs: w.Jobs, Round: w.Round, Costs: sim.Costs{PerType: w.Restore, BandwidthGBps: w.BandwidthGBPerSecond}}
}

// gavel-las beats gavel-las-agnostic on mean JCT on a heterogeneous
// cluster: 120 Philly-like jobs at 2 jobs/hour on 12 V100 + 12 P100 + 12 K80,
// seeds 0–2. (The figures are printed with -v.)
func TestSimLASBeatsAgnostic(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	for seed := int64(0); seed < 3; seed++ {
		cfg := phillyConfig(t, 80, 2, seed)
		jct := map[string]float64{}
		for _, n := range []string{"gavel-las", "gavel-las-agnostic"} {
			r, err := sim.Run(cfg, build(t, n, nil))
			if err != nil {
				t.Fatalf("%s: %v", n, err)
			}
			if len(r.Jobs) != len(cfg.Jobs) {
				t.Fatalf("%s: %d of %d jobs finished", n, len(r.Jobs), len(cfg.Jobs))
			}
			jct[n] = r.Summary.MeanJCT
			t.Logf("seed %d, %s: mean JCT %.0f s (%.2f h), makespan %.0f s, mean ρ %.3f", seed, n, r.Summary.MeanJCT,
				r.Summary.MeanJCT/3600, r.Summary.Makespan, r.Summary.MeanRho)
		}
		if jct["gavel-las"] >= jct["gavel-las-agnostic"] {
			t.Errorf("seed %d: gavel-las mean JCT %.0f s is not below gavel-las-agnostic's %.0f s", seed, jct["gavel-las"], jct["gavel-las-agnostic"])
		}
	}
}

// Every Gavel policy runs random small workloads to completion (the
// simulator checks each allocation with models.Feasible), the same twice.
func TestSimAllPolicies(t *testing.T) {
	cfg := phillyConfig(t, 24, 6, 7)
	for _, n := range names {
		run := func() *sim.Result {
			r, err := sim.Run(cfg, build(t, n, nil))
			if err != nil {
				t.Fatalf("%s: %v", n, err)
			}
			return r
		}
		a, b := run(), run()
		if len(a.Jobs) != len(cfg.Jobs) {
			t.Fatalf("%s: %d of %d jobs finished", n, len(a.Jobs), len(cfg.Jobs))
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%s: two runs differ", n)
		}
		t.Logf("%s: mean JCT %.0f s, makespan %.0f s, max ρ %.2f", n, a.Summary.MeanJCT, a.Summary.Makespan, a.Summary.MaxRho)
	}
}
