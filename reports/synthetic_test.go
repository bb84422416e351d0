package reports

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"fairbench/models"
	"fairbench/runs"
	"fairbench/sim"
	"fairbench/solvers/gandivafair"
)

// Synthetic results: records made up in memory, not simulated, so that the
// figure tests (golden images, layout, fonts) do not move when the
// simulator or a policy changes. Numbers are drawn from a seeded generator.

// manyPolicies are 20 policies of every family (and one new mechanism):
// more than one panel holds, so figures split them by family.
var manyPolicies = []string{
	"fifo", "sjf", "srtf", "tiresias", "static-partition",
	"gavel-las", "gavel-las-agnostic", "gavel-ftf", "gavel-makespan", "gavel-max-throughput", "gavel-hierarchical", "gavel-las-ss",
	"gandiva-fair", "gandiva-fair-notrade", "fft", "fft-exact", "sjf-bsbf", "sjf-bsbf-consolidated", "sjf-ffs-consolidated",
	"drf-new",
}

// syntheticSet is a set of runs: every policy at every point (a map of
// axis path to value; nil for a set without axes) for every seed.
func syntheticSet(t *testing.T, policies []string, points []map[string]any, seeds []int64) *Set {
	t.Helper()
	if points == nil {
		points = []map[string]any{{}}
	}
	var found []*Run
	for _, pt := range points {
		for k, pol := range policies {
			for _, seed := range seeds {
				found = append(found, syntheticRun(pol, k, pt, seed))
			}
		}
	}
	s := &Set{Inputs: []string{"synthetic"}}
	if err := s.assemble(found); err != nil {
		t.Fatal(err)
	}
	return s
}

func syntheticRun(pol string, k int, point map[string]any, seed int64) *Run {
	h := sha256.Sum256([]byte(fmt.Sprintf("%s/%d/%v", pol, seed, point)))
	rng := rand.New(rand.NewPCG(uint64(h[0])<<8|uint64(h[1]), uint64(seed)))
	rate := 4.0
	if r, ok := point["workload.arrival_rate_per_hour"].(float64); ok {
		rate = r
	}
	v100 := 2.0
	if c, ok := point["cluster.servers[0].count"].(float64); ok {
		v100 = c
	}
	spec := map[string]any{"name": "synthetic", "seed": float64(seed),
		"cluster":  map[string]any{"servers": []any{map[string]any{"type": "V100", "count": v100, "gpus_per_server": 4.0}, map[string]any{"type": "K80", "count": 2.0, "gpus_per_server": 4.0}}},
		"workload": map[string]any{"generator": "philly", "jobs": 30.0, "arrival_rate_per_hour": rate}}
	// Policy k is slower by a factor that grows with k; a heavier load
	// and fewer fast servers slow every policy.
	scale := (1 + 0.25*float64(k)) * (1 + rate/8) * 3 / v100 * 3600
	if pol == "fifo" {
		scale *= 5 // an outlier
	}
	users := []string{"alice", "bob", "carol"}
	var jobs []sim.JobResult
	var jcts, rhos []float64
	starved, unfair := 0.0, 0
	for j := 0; j < 30; j++ {
		iso := (0.5 + rng.Float64()*20) * 3600
		jct := iso * (0.6 + rng.ExpFloat64()*scale/3600/4)
		st := 0.0
		if rng.Float64() > 0.3 {
			st = rng.ExpFloat64() * scale / 10
		}
		rho := jct / iso
		if rho > 1 {
			unfair++
		}
		jobs = append(jobs, sim.JobResult{ID: models.JobID(j), User: users[j%3], Type: "ResNet-50", Gang: 1 << (j % 3),
			Arrival: float64(j) * 3600 / rate, JCT: jct, IsolatedJCT: iso, Rho: rho, Starvation: st})
		jcts, rhos = append(jcts, jct), append(rhos, rho)
		starved = math.Max(starved, st)
	}
	slices.Sort(jcts)
	const buckets = 40
	series := sim.Series{Width: 3600, Share: map[string][]float64{}, Entitled: map[string][]float64{}}
	var ures []sim.UserResult
	for b := 0; b < buckets; b++ {
		series.Start = append(series.Start, float64(b)*3600)
		series.Utilisation = append(series.Utilisation, math.Min(1, 0.4+0.5*math.Abs(math.Sin(float64(b+k)/6))))
	}
	for u, name := range users {
		for b := 0; b < buckets; b++ {
			series.Share[name] = append(series.Share[name], math.Max(0, 0.3+0.2*math.Sin(float64(b+3*u)/5)))
			series.Entitled[name] = append(series.Entitled[name], 1.0/3)
		}
		ures = append(ures, sim.UserResult{Name: name, Weight: 1, Jobs: 10, GPUSeconds: 1e5 * float64(u+1), EntitledSeconds: 2e5, ShareRatio: 0.5 * float64(u+1), MeanJCT: scale, MeanRho: 1.1})
	}
	var report any
	if pol == "gandiva-fair" {
		report = &gandivafair.Report{Trading: true, Markets: []gandivafair.MarketRecord{
			{Time: 0, Trades: []gandivafair.Trade{{Slow: "K80", Fast: "V100", Volume: 1.5 + rng.Float64(), Price: 3.2}}},
			{Time: 36000, Trades: []gandivafair.Trade{{Slow: "K80", Fast: "V100", Volume: 0.5, Price: 2.8},
				{Slow: "P100", Fast: "V100", Volume: 0.25, Price: 1.6}}},
		}}
	}
	var timing []sim.DecisionTiming
	for r := 0; r < 60; r++ {
		active := 1 + r%25
		sec := 2e-6 * math.Pow(10, float64(k%5)) * float64(active) * (1 + rng.Float64())
		timing = append(timing, sim.DecisionTiming{Time: float64(r) * 360, Round: r, Trigger: "round", Active: active, Seconds: sec})
	}
	mean := func(xs []float64) float64 {
		var s float64
		for _, x := range xs {
			s += x
		}
		return s / float64(len(xs))
	}
	sum := sim.Summary{Jobs: len(jobs), MeanJCT: mean(jcts), MedianJCT: jcts[len(jcts)/2], P99JCT: jcts[len(jcts)-1],
		Makespan: jcts[len(jcts)-1] * 1.2, MeanRho: mean(rhos), MaxRho: slices.Max(rhos), Unfair: float64(unfair) / float64(len(jobs)),
		MeanStarve: starved / 3, MaxStarve: starved, JainUsers: 0.9 + 0.005*float64(k%10), Utilisation: 0.5 + 0.01*float64(k),
		Preemptions: 10 * k, Migrations: 3 * k}
	pt := map[string]any{"seed": float64(seed)}
	for a, v := range point {
		pt[a] = v
	}
	id := hex.EncodeToString(h[:6])
	rec := &runs.Record{ID: id, Scenario: "synthetic", Policy: pol, Seed: seed, Point: pt, Fairbench: "test", Backend: "test", Spec: spec,
		Result: &sim.Result{Policy: pol, Summary: sum, Users: ures, Jobs: jobs, Series: series, PolicyReport: report}}
	return &Run{Record: rec, Path: "synthetic/" + id + ".json", Timing: timing}
}

// syntheticReports are the synthetic reports the figure tests look at:
// 20 policies at one point (with a calibration profile and a property
// matrix), and a 3 × 2 grid of 4 policies.
func syntheticReports(t *testing.T) []*Report {
	t.Helper()
	cal, err := ReadCalibration("testdata/calibration.csv")
	if err != nil {
		t.Fatal(err)
	}
	m, err := ReadMatrix("testdata/check-matrix.csv")
	if err != nil {
		t.Fatal(err)
	}
	one, err := Build(syntheticSet(t, manyPolicies, nil, []int64{1, 2}), Options{Calibration: cal, Matrix: m})
	if err != nil {
		t.Fatal(err)
	}
	var pts []map[string]any
	for _, c := range []float64{2, 3} {
		for _, r := range []float64{2, 4, 8} {
			pts = append(pts, map[string]any{"workload.arrival_rate_per_hour": r, "cluster.servers[0].count": c})
		}
	}
	grid, err := Build(syntheticSet(t, []string{"fifo", "gavel-las", "gandiva-fair", "fft"}, pts, []int64{1, 2, 3}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return []*Report{one, grid}
}
