package microbench

import (
	"fmt"
	"runtime"
	"testing"

	"fairbench/runs"
	"fairbench/scenarios"
	"fairbench/sim"
	"fairbench/solvers"
	"fairbench/solvers/registry"
)

// philly builds the default cluster (36 V100 + 36 P100 + 36 K80 on 4-GPU
// servers, 8 users) with n Philly-like jobs arriving at rate jobs/hour.
func philly(b testing.TB, n int, rate float64) bench {
	b.Helper()
	yaml := fmt.Sprintf(`
cluster:
  servers:
    - {type: V100, count: 9, gpus_per_server: 4}
    - {type: P100, count: 9, gpus_per_server: 4}
    - {type: K80, count: 9, gpus_per_server: 4}
user_count: 8
policies: [fifo]
workload: {generator: philly, jobs: %d, arrival_rate_per_hour: %g}
`, n, rate)
	g, err := scenarios.Parse([]byte(yaml), "bench.yaml")
	if err != nil {
		b.Fatal(err)
	}
	return build(b, g.Runs[0].Spec, 0)
}

// bench is a built workload: what 'fairbench simulate' runs for a scenario
// and seed, without writing results.
type bench struct {
	cfg  sim.Config
	w    *scenarios.Workload
	seed int64
}

// build builds spec's workload with seed as a run does (runs.SimConfig).
func build(b testing.TB, spec scenarios.Spec, seed int64) bench {
	b.Helper()
	w, err := spec.Build(seed)
	if err != nil {
		b.Fatal(err)
	}
	return bench{cfg: runs.SimConfig(w, nil), w: w, seed: seed}
}

// policy builds a fresh instance of the named policy as a run of the
// bench's scenario does: with the scenario's options, the run's random
// stream and the restore costs (runs.PolicyConfig).
func (e bench) policy(b testing.TB, name string) solvers.Policy {
	b.Helper()
	p, err := registry.Default().New(name, runs.PolicyConfig(e.w, name, e.seed))
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkSimulate10kFIFO: the simulator's speed goal — 10,000
// Philly-like jobs on 108 GPUs under fifo in under 2 s on one core and under
// 500 MB. It reports the heap in use at the end of a run (peak-heap-MB).
func BenchmarkSimulate10kFIFO(b *testing.B) {
	for _, rate := range []float64{1.5, 3} {
		b.Run(fmt.Sprintf("rate=%g", rate), func(b *testing.B) {
			e := philly(b, 10000, rate)
			b.ReportAllocs()
			var peak uint64
			for i := 0; i < b.N; i++ {
				r, err := sim.Run(e.cfg, e.policy(b, "fifo")) // one instance per run
				if err != nil {
					b.Fatal(err)
				}
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
				_ = r
			}
			b.ReportMetric(float64(peak)/(1<<20), "heap-MB")
		})
	}
}

// BenchmarkSimulatePolicies runs each baseline on 2,000 jobs, reporting its
// LP solves and peak RSS (see simulate).
func BenchmarkSimulatePolicies(b *testing.B) {
	e := philly(b, 2000, 1.5)
	for _, name := range registry.Default().Names() {
		b.Run(name, func(b *testing.B) { simulate(b, e, name) })
	}
}
