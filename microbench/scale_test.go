package microbench

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"fairbench/scenarios"
	"fairbench/sim"
	"fairbench/solvers/registry"
)

// preset builds the first run of a preset scenario (scenarios/examples).
func preset(b testing.TB, name string) sim.Config {
	b.Helper()
	g, err := scenarios.Load(filepath.Join("..", "scenarios", "examples", name))
	if err != nil {
		b.Fatal(err)
	}
	return build(b, g.Runs[0].Spec, g.Runs[0].Seed)
}

// BenchmarkSimulate20k runs every registered policy on the FFT paper's scale
// (scenarios/examples/fft-scale.yaml: 20,000 jobs on 1,000 GPUs of 8
// types). Goals (one core): heuristics ≤ 5 s, the LP family and FFT ≤ 60 s
// each, peak RSS ≤ 1 GB. Run one policy per process so that peak-RSS-MB is
// that policy's:
//
//	go test ./microbench -run X -bench 'Simulate20k/gavel-las$' -benchtime 1x -cpu 1
func BenchmarkSimulate20k(b *testing.B) {
	cfg := preset(b, "fft-scale.yaml")
	for _, name := range registry.Default().Names() {
		b.Run(name, func(b *testing.B) { simulate(b, cfg, name) })
	}
}

// simulate runs the policy b.N times on cfg and reports the LP solves of a
// run (lp-solves, where the policy reports them), the process's peak
// resident set (peak-RSS-MB, Linux) and the heap in use after the run.
func simulate(b *testing.B, cfg sim.Config, name string) {
	b.ReportAllocs()
	var heap uint64
	lps := -1
	for i := 0; i < b.N; i++ {
		r, err := sim.Run(cfg, policy(b, name)) // one instance per run
		if err != nil {
			b.Fatal(err)
		}
		lps = lpSolves(r.PolicyReport)
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		heap = max(heap, ms.HeapInuse)
	}
	if lps >= 0 {
		b.ReportMetric(float64(lps), "lp-solves")
	}
	if rss := peakRSS(); rss > 0 {
		b.ReportMetric(rss, "peak-RSS-MB")
	}
	b.ReportMetric(float64(heap)/(1<<20), "heap-MB")
}

// lpSolves reads a policy report's lp_solves, or −1 when it has none.
func lpSolves(report any) int {
	if report == nil {
		return -1
	}
	data, err := json.Marshal(report)
	if err != nil {
		return -1
	}
	var m struct {
		LPs *int `json:"lp_solves"`
	}
	if json.Unmarshal(data, &m) != nil || m.LPs == nil {
		return -1
	}
	return *m.LPs
}

// peakRSS is the process's peak resident set in MiB (VmHWM), 0 where
// /proc is not there.
func peakRSS() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
			if err != nil {
				return 0
			}
			return kb / 1024
		}
	}
	return 0
}
