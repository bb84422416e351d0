package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fairbench/calibrate"
	"fairbench/models"
)

// TestCalibrateDevicesWithoutDriver: this machine, like CI, has no NVIDIA
// driver (and a CGO_ENABLED=0 build has no NVML at all): the command says
// which library it looked for and exits 2.
func TestCalibrateDevicesWithoutDriver(t *testing.T) {
	lib := filepath.Join(t.TempDir(), "libnvidia-ml.so.1")
	_, err := run(t, "calibrate", "devices", "--nvml-lib", lib)
	var ec exitCode
	if !errors.As(err, &ec) || ec != 2 || !strings.Contains(err.Error(), lib) || !errors.Is(err, calibrate.ErrNoNVML) {
		t.Fatalf("err %v (exit %d), want exit 2 naming %s", err, ec, lib)
	}
	// A profile with a GPU device fails the same way, before running anything.
	profile := filepath.Join(t.TempDir(), "gpu.yaml")
	os.WriteFile(profile, []byte("devices: [{device: 'cuda:0'}]\nmodels: [{model: resnet18, batch_sizes: [64]}]\n"), 0o644)
	_, err = run(t, "calibrate", "run", "--profile", profile, "--nvml-lib", lib, "--out", t.TempDir())
	if !errors.As(err, &ec) || ec != 2 {
		t.Fatalf("run with a GPU profile: %v", err)
	}
}

// TestCalibrateRunMergeSimulate goes from a calibration (with the fake
// workload, on the "cpu" device filed as T4) through merge to a
// simulation that uses the merged matrix.
func TestCalibrateRunMergeSimulate(t *testing.T) {
	dir := t.TempDir()
	wd, _ := os.Getwd()
	fake := filepath.Join(wd, "..", "..", "calibrate", "testdata", "fake_workload.sh")
	profile := filepath.Join(dir, "fake.yaml")
	os.WriteFile(profile, []byte(`
python: /bin/sh
workload: `+fake+`
devices: [{device: cpu, gpu_type: T4}]
models: [{model: resnet18, batch_sizes: [4, 8]}]
warmup_steps: 2
window: 5
measure_steps: 5
steps: 60
`), 0o644)
	t.Setenv("FAKE_MODE", "ok")
	out, err := run(t, "calibrate", "run", "--profile", profile, "--out", dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "2 entries and 0 pairs measured") || !strings.Contains(out, "100 steps/s") {
		t.Errorf("run output:\n%s", out)
	}
	matrix := filepath.Join(dir, "t4.json")
	out, err = run(t, "calibrate", "merge", matrix, filepath.Join(dir, "fake.calibration.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "2 figures (0 before, 2 added") || !strings.Contains(out, "wrote "+filepath.Join(dir, "t4.calibration.json")) {
		t.Errorf("merge output: %s", out)
	}
	// Merging the matrix file again replaces nothing.
	if out, err = run(t, "calibrate", "merge", matrix, filepath.Join(dir, "fake.throughputs.json")); err != nil || !strings.Contains(out, "2 unchanged") {
		t.Errorf("second merge: %v\n%s", err, out)
	}
	scenario := filepath.Join(dir, "t4.yaml")
	os.WriteFile(scenario, []byte(`
name: t4
cluster: {servers: [{type: T4, count: 1, gpus_per_server: 4}]}
job_types: [{name: "ResNet-18 (batch size 4)"}, {name: "ResNet-18 (batch size 8)"}]
throughputs: t4.json
policies: [fifo]
workload: {generator: philly, jobs: 6, job_types: ["ResNet-18 (batch size 4)", "ResNet-18 (batch size 8)"], gangs: [{size: 1, weight: 1}]}
`), 0o644)
	out, err = run(t, "simulate", scenario, "--out", filepath.Join(dir, "sim"))
	if err != nil || !strings.Contains(out, "fifo") {
		t.Fatalf("simulate on the calibrated matrix: %v\n%s", err, out)
	}
}

// TestCalibrateExtrapolate: the command prints the leave-one-type-out
// table and the estimates, writes --output and its side file, and --json
// prints what the side file holds (the workflow's own tests are
// calibrate's TestExtrapolate).
func TestCalibrateExtrapolate(t *testing.T) {
	dir := t.TempDir()
	out, err := run(t, "calibrate", "extrapolate", "--gpu", "h200", "--output", filepath.Join(dir, "h200.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"leave-one-type-out", "K80", "A100-40GB", "all", "estimates for H200", "ResNet-50 (batch size 64)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "h200.json"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := models.ReadGavelThroughputs(bytes.NewReader(data), "h200.json"); err != nil {
		t.Error(err)
	}
	side, err := os.ReadFile(filepath.Join(dir, "h200.extrapolation.json"))
	if err != nil {
		t.Fatalf("no side file: %v", err)
	}
	out, err = run(t, "calibrate", "extrapolate", "--gpu", "h200", "--json")
	if err != nil || out != string(side) {
		t.Errorf("--json differs from the side file: %v\n%.300s\n%.300s", err, out, side)
	}
	if _, err := run(t, "calibrate", "extrapolate", "--gpu", "B200"); err == nil || !strings.Contains(err.Error(), "--datasheet") {
		t.Errorf("unknown type: %v", err)
	}
}

func TestCalibrateWorkloadPrintsScript(t *testing.T) {
	out, err := run(t, "calibrate", "workload")
	if err != nil || !strings.Contains(out, "def count_flops") {
		t.Errorf("%v: %.200s", err, out)
	}
}
