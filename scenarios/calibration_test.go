package scenarios

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fairbench/calibrate"
	"fairbench/models"
)

// mergedCalibration merges the CPU dry-run record of calibrate's tests into
// dir/b200.json (+ b200.calibration.json) and returns the record.
func mergedCalibration(t *testing.T, dir string) *calibrate.Record {
	t.Helper()
	rep, err := calibrate.Merge(filepath.Join(dir, "b200.json"), []string{"../calibrate/testdata/b200-cpu.calibration.json"}, calibrate.MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := calibrate.WriteAll(rep.Files); err != nil {
		t.Fatal(err)
	}
	return rep.Record
}

// declaredCPUJobTypes declares the job types the CPU dry run measured,
// which the catalogue lacks (a throughputs file may only name known ones).
const declaredCPUJobTypes = `job_types: [{name: "ResNet-18 CPU (batch size 2)"}, {name: "ResNet-18 CPU (batch size 4)"}, {name: "ResNet-18 CPU (batch size 8)"}, {name: "Transformer-LM tiny (batch size 8)"}]
`

const calibratedScenario = `name: cal
gpu_types: [{name: B200, memory_gb: 180, rank: 10, source: test}]
cluster: {servers: [{type: B200, count: 1, gpus_per_server: 8}]}
` + declaredCPUJobTypes + `throughputs: b200.json
calibration: b200.calibration.json
policies: [sjf-bsbf]
workload: {generator: philly, jobs: 10, job_types: ["ResNet-18 CPU (batch size 4)"], gangs: [{size: 1, weight: 1}]}
`

// TestCalibrationKey: the record's memory reaches the job types and its
// pairs the matrix, each keeping its measured slowdown.
func TestCalibrationKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rec := mergedCalibration(t, dir)
	path := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(path, []byte(calibratedScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := g.Runs[0].Spec.Build(0)
	if err != nil {
		t.Fatal(err)
	}
	var mem uint64
	for _, e := range rec.Entries {
		if e.JobType == "ResNet-18 CPU (batch size 4)" {
			mem = e.MemoryBytes
		}
	}
	jt := w.JobTypes["ResNet-18 CPU (batch size 4)"]
	if jt.MemoryGB != float64(mem)/1e9 || jt.FixedMemoryGB <= 0 || jt.FixedMemoryGB > jt.MemoryGB || !strings.Contains(jt.Source, "CPU-MEASURED") {
		t.Errorf("job type %+v, measured %d bytes", jt, mem)
	}
	k := models.Key{Job: "ResNet-18 CPU (batch size 4)", GPU: "B200", Gang: 1}
	p, ok := w.Matrix.Pair(models.PairKey{Key: k, Other: "Transformer-LM tiny (batch size 8)"})
	if !ok || p[0] <= 0 || (w.Matrix.Throughput(k)/p[0]-rec.Pairs[0].A.Slowdown) > 1e-9*rec.Pairs[0].A.Slowdown {
		t.Errorf("pair %v (%v): slowdown %v, measured %v", p, ok, w.Matrix.Throughput(k)/p[0], rec.Pairs[0].A.Slowdown)
	}
	// The record is an input of the run: its content is in the run ID.
	if len(g.Runs[0].Inputs) != 2 || g.Runs[0].Inputs[1].Role != "calibration" {
		t.Errorf("inputs %+v", g.Runs[0].Inputs)
	}
}

func TestCalibrationKeyErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mergedCalibration(t, dir)
	cases := []struct{ old, new, want string }{
		// The pairs are on B200, which the scenario no longer declares.
		{"gpu_types: [{name: B200, memory_gb: 180, rank: 10, source: test}]\ncluster: {servers: [{type: B200,",
			"cluster: {servers: [{type: V100,", "which the scenario does not have"},
		// Without the merged throughputs, the measured job types are unknown.
		{"throughputs: b200.json\n", "", "which the scenario does not know"},
		{"calibration: b200.calibration.json", "calibration: missing.json", "missing.json"},
	}
	for _, c := range cases {
		text := strings.Replace(calibratedScenario, c.old, c.new, 1)
		if c.old == "throughputs: b200.json\n" {
			text = strings.Replace(text, declaredCPUJobTypes, "", 1)
		}
		if c.new == "cluster: {servers: [{type: V100," {
			text = strings.Replace(text, "throughputs: b200.json\n", "", 1)
			text = strings.Replace(text, `job_types: ["ResNet-18 CPU (batch size 4)"]`, `job_types: ["ResNet-50 (batch size 64)"]`, 1)
		}
		path := filepath.Join(dir, "s.yaml")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(path)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "s.yaml:") || !strings.Contains(err.Error(), "calibration") {
			t.Errorf("%q → %q: %v, want s.yaml:LINE: calibration and %q", c.old, c.new, err, c.want)
		}
	}
}
