package runs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"fairbench/calibrate"
	"fairbench/scenarios"
	"fairbench/solvers/sjfbsbf"
)

// pairScenario: 2 B200 GPUs, 6 single-GPU jobs of the two job types the CPU
// calibration measured as a pair, all at t = 0, under sjf-bsbf.
const pairScenario = `name: pairs
gpu_types: [{name: B200, memory_gb: 180, rank: 10, source: test}]
cluster: {servers: [{type: B200, count: 1, gpus_per_server: 2}]}
job_types: [{name: "ResNet-18 CPU (batch size 2)"}, {name: "ResNet-18 CPU (batch size 4)"}, {name: "ResNet-18 CPU (batch size 8)"}, {name: "Transformer-LM tiny (batch size 8)"}]
throughputs: b200.json
policies: [sjf-bsbf]
workload: {generator: philly, jobs: 6, arrival_rate_per_hour: 0, job_types: ["ResNet-18 CPU (batch size 4)", "Transformer-LM tiny (batch size 8)"], gangs: [{size: 1, weight: 1}]}
`

// favourablePair writes the CPU dry run's calibration record with its one
// pair's Transformer side edited from its measured slowdown (3.83: the pair
// together makes 1/1.64 + 1/3.83 = 0.87 of the work of taking turns, so no
// policy should share) to 1.25 (1/1.64 + 1/1.25 = 1.41: sharing pays). The
// edit is this test's fixture, not a measurement.
func favourablePair(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile("../calibrate/testdata/b200-cpu.calibration.json")
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	b := rec["pairs"].([]any)[0].(map[string]any)["b"].(map[string]any)
	b["slowdown"] = 1.25
	b["paired_steps_per_second"] = b["alone_steps_per_second"].(float64) / 1.25
	out, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "favourable.calibration.json")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCalibratedPairChangesSharing: a calibrated co-location pair decides
// whether sjf-bsbf shares. `calibrate merge` writes the record's pairs into
// the throughputs file the scenario names. With the CPU dry run's measured
// pair (slowdowns 1.64 and 3.83: together 0.87 of taking turns) SJF-BSBF's
// benefit test never shares; with the pair edited to 1.64 and 1.25
// (together 1.41) sharing pays, and some jobs start beside a running one.
func TestCalibratedPairChangesSharing(t *testing.T) {
	t.Parallel()
	shared := map[string]int{}
	for _, rec := range []string{"measured", "favourable"} {
		dir := t.TempDir()
		in := "../calibrate/testdata/b200-cpu.calibration.json"
		if rec == "favourable" {
			in = favourablePair(t, dir)
		}
		rep, err := calibrate.Merge(filepath.Join(dir, "b200.json"), []string{in}, calibrate.MergeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := calibrate.WriteAll(rep.Files); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "s.yaml")
		if err := os.WriteFile(path, []byte(pairScenario), 0o644); err != nil {
			t.Fatal(err)
		}
		g, err := scenarios.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		out, err := Execute(g.Runs[0], options())
		if err != nil {
			t.Fatal(err)
		}
		r, ok := out.Record.Result.PolicyReport.(*sjfbsbf.Report)
		if !ok {
			t.Fatalf("report %T, want *sjfbsbf.Report", out.Record.Result.PolicyReport)
		}
		shared[rec] = r.Shared
	}
	if shared["measured"] != 0 || shared["favourable"] == 0 {
		t.Errorf("jobs started sharing: %d with the measured pair, %d with the favourable one; want 0 and > 0", shared["measured"], shared["favourable"])
	}
}
