package scenarios

import (
	"reflect"
	"testing"
	"time"

	"fairbench/models"
	"fairbench/models/catalogue"
)

func TestBuildWorkload(t *testing.T) {
	t.Parallel()
	g := load(t, "testdata/grid.yaml")
	r := g.Runs[len(g.Runs)-1] // count 2, tiresias, seed 2, rate 4.5
	w := build(t, r)
	if w.Name != "grid" || w.Seed != 2 || w.Round != 360*time.Second || w.BandwidthGBPerSecond != 2.5 {
		t.Errorf("workload header %q %d %v %v", w.Name, w.Seed, w.Round, w.BandwidthGBPerSecond)
	}
	wantServers := []models.Server{{Type: "V100", GPUs: 4}, {Type: "V100", GPUs: 4}, {Type: "P100", GPUs: 4}, {Type: "P100", GPUs: 4}}
	if !reflect.DeepEqual(w.Cluster.Servers, wantServers) || w.Cluster.TotalGPUs() != 16 {
		t.Errorf("servers %v", w.Cluster.Servers)
	}
	if names := w.Cluster.TypeNames(); !reflect.DeepEqual(names, []string{"V100", "P100"}) {
		t.Errorf("cluster types %v", names)
	}
	if !reflect.DeepEqual(w.Users, []models.User{{Name: "alice", Weight: 2}, {Name: "bob", Weight: 1}}) {
		t.Errorf("users %v", w.Users)
	}
	if len(w.Jobs) != 50 {
		t.Errorf("%d jobs, want 50", len(w.Jobs))
	}
	// Restore: preemption.seconds for ResNet-50, else StateGB / 2.5 GB/s.
	wantRestore := map[string]time.Duration{
		resnet:      30 * time.Second,
		transformer: 400 * time.Millisecond,
		a3c:         40 * time.Millisecond,
		big:         800 * time.Millisecond,
	}
	if !reflect.DeepEqual(w.Restore, wantRestore) {
		t.Errorf("restore %v, want %v", w.Restore, wantRestore)
	}
	if o := w.Options("tiresias"); o["promote_knob"] != 0 || !reflect.DeepEqual(o["thresholds"], []any{3600, 7200}) {
		t.Errorf("tiresias options %#v", o)
	}
	if o := w.Options("fifo"); o != nil {
		t.Errorf("fifo options %v", o)
	}
	if len(w.JobTypes) != 4 || w.Matrix.Len() != testCatalog().Matrix.Len() {
		t.Errorf("%d job types, %d figures", len(w.JobTypes), w.Matrix.Len())
	}
}

func TestBuildUniformUsers(t *testing.T) {
	t.Parallel()
	g := parse(t, okCluster+"user_count: 4\nworkload: {jobs: 400, user_assignment: uniform}\n", "s.yaml")
	w := build(t, g.Runs[0])
	count := map[string]int{}
	for _, j := range w.Jobs {
		count[j.User]++
	}
	for _, u := range []string{"u0", "u1", "u2", "u3"} {
		if count[u] < 60 || count[u] > 140 { // 100 ± 4.6σ
			t.Errorf("user %s got %d of 400 jobs", u, count[u])
		}
	}
	if again := build(t, g.Runs[0]); !reflect.DeepEqual(again.Jobs, w.Jobs) {
		t.Errorf("uniform assignment not reproducible")
	}
}

// TestBuildChecksSpec: Build validates a spec changed in code.
func TestBuildChecksSpec(t *testing.T) {
	t.Parallel()
	s := parse(t, okCluster, "s.yaml").Runs[0].Spec
	s.Cluster.Servers[1].GPUsPerServer = 0
	_, err := s.Build(0)
	wantError(t, err, "s.yaml:4: cluster.servers[1].gpus_per_server: must be ≥ 1")
	var zero Spec
	_, err = zero.Build(0)
	wantError(t, err, "round_seconds: must be between 1 and 86400 seconds (a day), got 0")
}

func TestBuildThroughputFile(t *testing.T) {
	t.Parallel()
	// A Gavel-format file gives the figures of a job type the catalogue
	// lacks, declared under job_types.
	dir := t.TempDir()
	writeFile(t, dir+"/tp.json", `{"v100": {"('Extra', 1)": {"null": 2.5}}}`)
	writeFile(t, dir+"/s.yaml", "cluster:\n  servers: [{type: V100, count: 1, gpus_per_server: 4}]\n"+
		"job_types: [{name: Extra}]\nthroughputs: tp.json\nworkload: {jobs: 5, job_types: [Extra], gangs: [{size: 1, weight: 1}]}\n")
	g, err := LoadWith(dir+"/s.yaml", testCatalog())
	if err != nil {
		t.Fatal(err)
	}
	r := g.Runs[0]
	if len(r.Inputs) != 1 || r.Inputs[0].Role != "throughputs" || r.Spec.Throughputs != dir+"/tp.json" {
		t.Errorf("inputs %+v, throughputs %q", r.Inputs, r.Spec.Throughputs)
	}
	w := build(t, r)
	for _, j := range w.Jobs {
		if j.Type != "Extra" {
			t.Errorf("job type %s", j.Type)
		}
	}
	if _, ok := w.JobTypes["Extra"]; !ok || w.Restore["Extra"] != 0 {
		t.Errorf("Extra missing from job types or has a restore cost")
	}
}

// TestDefaultScenario: the built-in default's shape, built against the
// test catalogue (it uses only V100, P100 and K80).
func TestDefaultScenario(t *testing.T) {
	t.Parallel()
	d := Default()
	if len(d.Runs) != 1 || d.Runs[0].Policy != "" || d.File != "" {
		t.Fatalf("default: %d runs, policy %q", len(d.Runs), d.Runs[0].Policy)
	}
	s := d.Runs[0].Spec
	if s.Name != "default" || s.Seed != 0 || s.RoundSeconds != 360 || len(s.Users) != 8 ||
		s.Workload.Jobs != 500 || s.Workload.ArrivalRatePerHour != DefaultArrivalRatePerHour || len(s.Cluster.Servers) != 3 {
		t.Errorf("default spec %+v", s)
	}
	g := parse(t, string(DefaultYAML()), "default.yaml")
	w := build(t, g.Runs[0])
	if len(w.Jobs) != 500 || w.Cluster.TotalGPUs() != 108 || len(w.Users) != 8 {
		t.Errorf("default workload: %d jobs, %d GPUs, %d users", len(w.Jobs), w.Cluster.TotalGPUs(), len(w.Users))
	}
	for _, typ := range []string{"V100", "P100", "K80"} {
		if c := w.Cluster.Capacity(typ); c != 36 {
			t.Errorf("%s: %d GPUs, want 36", typ, c)
		}
	}
	h, err := d.WithPolicies([]string{"fifo", "sjf"})
	if err != nil || len(h.Runs) != 2 || h.Runs[1].Policy != "sjf" {
		t.Errorf("default with policies: %v", err)
	}
}

// TestDefaultWithCatalogue builds the default against the built-in
// catalogue, which holds the default cluster's GPU types.
func TestDefaultWithCatalogue(t *testing.T) {
	t.Parallel()
	cat := catalogue.Builtin()
	if len(cat.GPUTypes) == 0 || cat.Matrix.Len() == 0 {
		t.Fatal("the built-in catalogue is empty")
	}
	r := Default().Runs[0]
	w, err := r.Spec.Build(r.Seed)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 500 {
		t.Errorf("%d jobs", len(w.Jobs))
	}
}
