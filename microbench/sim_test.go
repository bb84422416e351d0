package microbench

import (
	"fmt"
	"runtime"
	"testing"

	"fairbench/scenarios"
	"fairbench/sim"
	"fairbench/solvers"
	"fairbench/solvers/registry"
)

// philly builds the default cluster (36 V100 + 36 P100 + 36 K80 on 4-GPU
// servers, 8 users) with n Philly-like jobs arriving at rate jobs/hour.
func philly(b *testing.B, n int, rate float64) sim.Config {
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
	w, err := g.Runs[0].Spec.Build(0)
	if err != nil {
		b.Fatal(err)
	}
	return sim.Config{Cluster: w.Cluster, Users: w.Users, Jobs: w.Jobs, Matrix: w.Matrix, JobTypes: w.JobTypes,
		Round: w.Round, Costs: sim.Costs{PerType: w.Restore, BandwidthGBps: w.BandwidthGBPerSecond}}
}

func policy(b *testing.B, name string) solvers.Policy {
	p, err := registry.Default().New(name, solvers.Config{})
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
			cfg := philly(b, 10000, rate)
			b.ReportAllocs()
			var peak uint64
			for i := 0; i < b.N; i++ {
				r, err := sim.Run(cfg, policy(b, "fifo")) // one instance per run
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

// BenchmarkSimulatePolicies runs each baseline on 2,000 jobs.
func BenchmarkSimulatePolicies(b *testing.B) {
	cfg := philly(b, 2000, 1.5)
	for _, name := range registry.Default().Names() {
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := sim.Run(cfg, policy(b, name)); err != nil { // one instance per run
					b.Fatal(err)
				}
			}
		})
	}
}
