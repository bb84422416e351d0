package calibrate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"fairbench/internal/torchtest"
	"fairbench/models"
)

// TestCalibrateOnCPU runs the whole pipeline for real: torch_train.py
// trains ResNet-18 (CIFAR shape, batch 2) and a small LSTM language model
// on the CPU for a few steps each, the runner finds the step time, and the
// profile is merged into a matrix file. The figures are filed under T4
// only because a matrix needs a catalogue GPU type; they are CPU figures.
func TestCalibrateOnCPU(t *testing.T) {
	torchtest.Require(t)
	dir := t.TempDir()
	profile := filepath.Join(dir, "cpu.yaml")
	text := `
name: cpu-smoke
devices: [{device: cpu, gpu_type: T4, threads: 1}]
models:
  - {model: resnet18, job_type: ResNet-18-16px, batch_sizes: [2], args: {image_size: 16}}
  - {model: lstm, job_type: LM-tiny, batch_sizes: [2], gang_sizes: [1, 2], args: {vocab: 500, seq_len: 8}}
steps: 40
warmup_steps: 1
window: 3
measure_steps: 3
cv_threshold: 0.3
max_seconds: 1
start_timeout_seconds: 120
`
	if err := os.WriteFile(profile, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := ReadSpec(profile)
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{Spec: s, OutDir: dir, Version: "test-version"}
	rec, err := r.Run(context.Background())
	if err != nil {
		for _, e := range rec.Entries {
			t.Logf("%s: %s %s\n%s", e.JobType, e.Status, e.Error, e.StderrTail)
		}
		t.Fatal(err)
	}
	if len(rec.Entries) != 3 {
		t.Fatalf("%d entries", len(rec.Entries))
	}
	for i := range rec.Entries {
		checkCPUEntry(t, &rec.Entries[i])
	}
	if rec.FairbenchVersion != "test-version" || rec.Host == "" || rec.CPU == "" || !rec.Complete {
		t.Errorf("record provenance: %+v", rec)
	}
	checkMergeInto(t, filepath.Join(dir, "matrix.json"), r.RecordPath())
}

// checkCPUEntry checks one entry of the CPU calibration: measured, with a
// confidence interval around its figure, the matrix figure of its gang and
// its provenance.
func checkCPUEntry(t *testing.T, e *Entry) {
	t.Helper()
	if e.Status != StatusOK || !(e.StepsPerSecond > 0) || !(e.SamplesPerSecond > 0) {
		t.Errorf("%s: %+v", e.JobType, e)
		return
	}
	t.Logf("%s ×%d: %.2f steps/s, 95%% CI %s, %.1f samples/s, CV %.3f, steady %v, %d steps in %.1f s",
		e.JobType, e.Gang, e.StepsPerSecond, fmtInterval(e.StepsPerSecondCI), e.SamplesPerSecond,
		e.StepTime.CV, e.StepTime.Steady, e.StepsRun, e.WallSecond)
	// On a busy shared CPU the interval may be unbounded above (High
	// nil) when the step times vary a lot; it must still be there.
	ci := e.StepsPerSecondCI
	if ci == nil || !(ci.Low > 0) || ci.Low > e.StepsPerSecond || (ci.High != nil && *ci.High < e.StepsPerSecond) {
		t.Errorf("%s: confidence interval %+v around %v", e.JobType, ci, e.StepsPerSecond)
	}
	if e.SamplesPerStep != float64(2*e.Gang) || !near(e.MatrixStepsPerSecond, float64(e.Gang)*e.StepsPerSecond, 1e-12) {
		t.Errorf("%s ×%d: %v samples per step, matrix figure %v", e.JobType, e.Gang, e.SamplesPerStep, e.MatrixStepsPerSecond)
	}
	if e.Workload.Torch == "" || e.Workload.Params == 0 || e.Started == "" || e.DeviceName == "" || e.PeakRSSBytes == 0 {
		t.Errorf("%s: provenance or workload report missing: %+v", e.JobType, e)
	}
}

// checkMergeInto merges the record into a matrix file target that already
// has another figure, and checks that both are there.
func checkMergeInto(t *testing.T, target, record string) {
	t.Helper()
	seed := models.NewMatrix()
	if err := seed.Set(models.Key{Job: "A3C", GPU: "T4", Gang: 1}, 1.5, "test"); err != nil {
		t.Fatal(err)
	}
	data, err := EncodeGavel(seed)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, data, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Merge(target, []string{record}, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteAll(rep.Files); err != nil {
		t.Fatal(err)
	}
	if rep.Added != 3 || rep.Total != 4 {
		t.Errorf("merge report %+v", rep)
	}
	m, err := LoadMatrix(target, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, job := range []string{"ResNet-18-16px (batch size 2)", "LM-tiny (batch size 2)", "A3C"} {
		if !m.Runnable(models.Key{Job: job, GPU: "T4", Gang: 1}) {
			t.Errorf("merged matrix lacks %s on T4", job)
		}
	}
}

func fmtInterval(iv *Interval) string {
	if iv == nil {
		return "none"
	}
	if iv.High == nil {
		return fmt.Sprintf("[%.3g, ∞)", iv.Low)
	}
	return fmt.Sprintf("[%.3g, %.3g]", iv.Low, *iv.High)
}
