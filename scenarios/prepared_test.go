package scenarios

import (
	"os"
	"reflect"
	"testing"

	"fairbench/models"
)

// readOnceScenario writes a trace scenario with a Gavel-format throughput
// file into a new folder and returns the scenario's path. The file gives
// ResNet-50 on a V100 at gang 1 7 steps/s, over the test catalogue's 10.
func readOnceScenario(t *testing.T) (dir string) {
	t.Helper()
	dir = t.TempDir()
	trace, err := os.ReadFile("testdata/gavel7.trace")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir+"/jobs.trace", string(trace))
	writeFile(t, dir+"/tp.json", `{"v100": {"('ResNet-50 (batch size 64)', 1)": {"null": 7}}}`)
	writeFile(t, dir+"/s.yaml", "cluster:\n  servers: [{type: V100, count: 2, gpus_per_server: 4}, {type: K80, count: 1, gpus_per_server: 4}]\n"+
		"throughputs: tp.json\npolicies: fifo\nworkload: {generator: trace, trace: jobs.trace}\n")
	return dir
}

// TestBuildReadsTheFilesOnce: a run builds from the throughput file and
// trace its grid read, whose digests Run.Inputs record: a build after both
// files were overwritten with garbage gives the workload a build gave
// before, and its figure is the file's (7), not the catalogue's (10).
func TestBuildReadsTheFilesOnce(t *testing.T) {
	t.Parallel()
	dir := readOnceScenario(t)
	g, err := LoadWith(dir+"/s.yaml", testCatalog())
	if err != nil {
		t.Fatal(err)
	}
	before := build(t, g.Runs[0])
	writeFile(t, dir+"/tp.json", "not JSON")
	writeFile(t, dir+"/jobs.trace", "not a trace\n")
	after := build(t, g.Runs[0])
	if !reflect.DeepEqual(before, after) {
		t.Fatalf("the build after the files changed differs:\n%+v\n%+v", before, after)
	}
	if got := after.Environment.Matrix.Throughput(keyV100(resnet)); got != 7 {
		t.Errorf("ResNet-50 on 1 V100: %g steps/s, want the file's 7", got)
	}
	if len(after.Jobs) != 3 { // gavel7.trace: 4 lines, one of scale factor 0
		t.Errorf("%d jobs, want 3", len(after.Jobs))
	}
}

// TestBuildReadsFilesNamedInCode: a spec changed in code to name other
// files is built from those, as Build's doc says, and a bad one is
// refused naming its field.
func TestBuildReadsFilesNamedInCode(t *testing.T) {
	t.Parallel()
	dir := readOnceScenario(t)
	g, err := LoadWith(dir+"/s.yaml", testCatalog())
	if err != nil {
		t.Fatal(err)
	}
	r := g.Runs[0]
	r.Spec.Throughputs = DefaultThroughputs
	if got := build(t, r).Environment.Matrix.Throughput(keyV100(resnet)); got != 10 {
		t.Errorf("with the catalogue named in code: %g steps/s, want the catalogue's 10", got)
	}
	writeFile(t, dir+"/other.json", `{"v100": {"('ResNet-50 (batch size 64)', 1)": {"null": 3}}}`)
	r.Spec.Throughputs = dir + "/other.json"
	if got := build(t, r).Environment.Matrix.Throughput(keyV100(resnet)); got != 3 {
		t.Errorf("with another file named in code: %g steps/s, want its 3", got)
	}
	writeFile(t, dir+"/one.trace", "A3C\tcmd\t--max-steps\t0\t500\t10.000000\t1\n")
	r.Spec.Workload.Trace = dir + "/one.trace"
	if w := build(t, r); len(w.Jobs) != 1 || w.Jobs[0].Type != a3c {
		t.Errorf("with another trace named in code: %+v, want its one A3C job", w.Jobs)
	}
	r.Spec.Throughputs = dir + "/missing.json"
	if _, err := r.Spec.Build(r.Seed); err == nil {
		t.Error("a missing throughput file named in code was not refused")
	} else {
		wantError(t, err, "throughputs")
	}
}

// keyV100 is job's figure key on one V100, consolidated.
func keyV100(job string) models.Key {
	return models.Key{Job: job, GPU: "V100", Gang: 1, Placement: models.Consolidated}
}
