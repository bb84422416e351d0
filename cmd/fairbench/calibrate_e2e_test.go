package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fairbench/calibrate"
	"fairbench/internal/torchtest"
	"fairbench/solvers/registry"
)

// TestHardwareTeamPath is docs/calibration.md's four commands on the CPU:
// a GPU type the catalogue lacks (B200) calibrated with real PyTorch
// training (throughput, memory, one co-located pair), merged into a new
// matrix with a ready scenario, simulated under every registered policy,
// and reported.
func TestHardwareTeamPath(t *testing.T) {
	torchtest.Require(t)
	dir := t.TempDir()
	cal := filepath.Join(dir, "cal")
	out, err := run(t, "calibrate", "run", "--profile", "../../calibrate/profiles/b200-cpu.yaml", "--out", cal)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Logf("calibrate run:\n%s", out)
	for _, want := range []string{"4 entries and 1 pairs measured", "CPU: peak RSS, not a GPU figure", "ResNet-18 CPU  ", "HELD-BACK BATCH", "(ξ "} {
		if !strings.Contains(out, want) {
			t.Errorf("run output lacks %q", want)
		}
	}
	rec, err := calibrate.ReadRecord(filepath.Join(cal, "b200-cpu.calibration.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range rec.Entries {
		if e.GPUType != "B200" || e.MemoryFrom != calibrate.MemoryFromCPURSS || e.MemoryBytes == 0 {
			t.Errorf("%s: type %s, memory %d from %q", e.JobType, e.GPUType, e.MemoryBytes, e.MemoryFrom)
		}
	}
	if len(rec.Pairs) != 1 || rec.Pairs[0].Status != calibrate.PairOK || !(rec.Pairs[0].A.Slowdown > 0) {
		t.Fatalf("pairs %+v", rec.Pairs)
	}
	scenario := filepath.Join(cal, "b200-scenario.yaml")
	out, err = run(t, "calibrate", "merge", filepath.Join(cal, "b200.json"), filepath.Join(cal, "b200-cpu.calibration.json"), "--scenario", scenario)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, f := range []string{"b200.json", "b200.calibration.json", "b200.gpu_types.yaml", "b200-scenario.yaml"} {
		if _, err := os.Stat(filepath.Join(cal, f)); err != nil {
			t.Errorf("merge did not write %s: %v", f, err)
		}
	}
	sim := filepath.Join(dir, "sim")
	out, err = run(t, "simulate", scenario, "--out", sim)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	results, _ := filepath.Glob(filepath.Join(sim, "[0-9a-f]*.jobs.csv"))
	if n := len(registry.Default().Names()); len(results) != n {
		t.Errorf("%d runs, want one per registered policy (%d)", len(results), n)
	}
	rep := filepath.Join(dir, "report")
	if out, err = run(t, "report", sim, "--out", rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(rep, "index.html")); err != nil {
		t.Error(err)
	}
}

// TestMergeRepositoryNewGPUFile: the repository's own B200 file merges once
// the type is declared by the scenario that uses it; without, the error
// says how.
func TestMergeRepositoryNewGPUFile(t *testing.T) {
	dir := t.TempDir()
	const file = "../../scenarios/testdata/newgpu/b200.throughputs.json"
	if _, err := run(t, "calibrate", "merge", filepath.Join(dir, "m.json"), file); err == nil || !strings.Contains(err.Error(), "--gpu-types") {
		t.Errorf("undeclared: %v", err)
	}
	out, err := run(t, "calibrate", "merge", filepath.Join(dir, "m.json"), file, "--gpu-types", "../../scenarios/testdata/newgpu/scenario.yaml")
	if err != nil || !strings.Contains(out, "2 figures (0 before, 2 added") || !strings.Contains(out, "m.gpu_types.yaml") {
		t.Errorf("%v\n%s", err, out)
	}
}
