package scenarios

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func ids(g *Grid) []string {
	var out []string
	for _, r := range g.Runs {
		out = append(out, r.ID)
	}
	return out
}

func TestGridExpansion(t *testing.T) {
	t.Parallel()
	g := load(t, "testdata/grid.yaml")
	// 2 V100 counts × 2 arrival rates × 3 seeds × 2 policies.
	if len(g.Runs) != 2*2*3*2 {
		t.Fatalf("%d runs, want 24", len(g.Runs))
	}
	wantAxes := []Axis{
		{Path: "cluster.servers[0].count", Values: []any{int64(1), int64(2)}},
		{Path: "policies", Values: []any{"fifo", "tiresias"}},
		{Path: "seed", Values: []any{int64(0), int64(1), int64(2)}},
		{Path: "workload.arrival_rate_per_hour", Values: []any{0.0, 4.5}},
	}
	if !reflect.DeepEqual(g.Axes, wantAxes) {
		t.Errorf("axes\n\t%v\nwant\n\t%v", g.Axes, wantAxes)
	}
	seen := map[string]bool{}
	for i, r := range g.Runs {
		if len(r.ID) != 12 || seen[r.ID] {
			t.Errorf("run %d: ID %q empty, malformed or repeated", i, r.ID)
		}
		seen[r.ID] = true
		// The first axis varies slowest, the last fastest.
		want := []AxisValue{
			{"cluster.servers[0].count", int64(1 + i/12)},
			{"policies", []string{"fifo", "tiresias"}[i/6%2]},
			{"seed", int64(i / 2 % 3)},
			{"workload.arrival_rate_per_hour", []float64{0, 4.5}[i%2]},
		}
		if !reflect.DeepEqual(r.Point, want) {
			t.Errorf("run %d: point %v, want %v", i, r.Point, want)
		}
		s := r.Spec
		if r.Policy != want[1].Value || !reflect.DeepEqual(s.Policies, []string{r.Policy}) {
			t.Errorf("run %d: policy %q, spec policies %v", i, r.Policy, s.Policies)
		}
		if r.Seed != want[2].Value || s.Seed != r.Seed {
			t.Errorf("run %d: seed %d, spec seed %d", i, r.Seed, s.Seed)
		}
		if s.Cluster.Servers[0].Count != int(want[0].Value.(int64)) || s.Workload.ArrivalRatePerHour != want[3].Value {
			t.Errorf("run %d: spec does not take the point's values: %+v", i, s)
		}
		if r.Policy == "fifo" && s.PolicyOptions != nil {
			t.Errorf("run %d (fifo): options %v, want none", i, s.PolicyOptions)
		}
		if r.Policy == "tiresias" && s.PolicyOptions["tiresias"]["promote_knob"] != 0 {
			t.Errorf("run %d (tiresias): options %v", i, s.PolicyOptions)
		}
		if s.Name != "grid" || s.RoundSeconds != 360 || s.Workload.Generator != GeneratorPhilly ||
			!reflect.DeepEqual(s.Users, []UserSpec{{"alice", 2}, {"bob", 1}}) || !reflect.DeepEqual(s.Workload.Gangs, PhillyGangs()) {
			t.Errorf("run %d: defaults not applied: %+v", i, s)
		}
	}
}

// TestRunIDsStable: the same content gives the same IDs whatever the key
// order, the defaults written out or left implicit, the spelling of a GPU
// type's case, the file's name and directory, and the name key.
func TestRunIDsStable(t *testing.T) {
	t.Parallel()
	a := load(t, "testdata/grid.yaml")
	b := load(t, "testdata/other/reordered.yaml")
	if !reflect.DeepEqual(ids(a), ids(b)) {
		t.Errorf("reordered file gives other IDs:\n\t%v\n\t%v", ids(a), ids(b))
	}
	if b.Runs[0].Spec.Name != "something-else" {
		t.Errorf("name %q", b.Runs[0].Spec.Name)
	}
	data, err := os.ReadFile("testdata/grid.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c := parse(t, string(data), "/elsewhere/copy.yaml")
	if !reflect.DeepEqual(ids(a), ids(c)) {
		t.Errorf("re-parsing gives other IDs")
	}
	// Golden: changing this ID means every stored result is orphaned; do it
	// only on purpose (and bump the "v" of the ID document).
	if got, want := a.Runs[0].ID, "6d2e2ce0e463"; got != want {
		t.Errorf("first run's ID is %s, want %s: the ID scheme changed", got, want)
	}
	// Any change of content changes the IDs.
	d := parse(t, strings.Replace(string(data), "jobs: 50", "jobs: 51", 1), "grid.yaml")
	for i := range a.Runs {
		if a.Runs[i].ID == d.Runs[i].ID {
			t.Errorf("run %d: jobs 50 and 51 share ID %s", i, a.Runs[i].ID)
		}
	}
}

// TestRunIDFollowsTraceContent: a trace is identified by its content, not
// its path.
func TestRunIDFollowsTraceContent(t *testing.T) {
	t.Parallel()
	g := load(t, "testdata/traces.yaml")
	if len(g.Runs) != 2 || g.Runs[0].ID == g.Runs[1].ID {
		t.Fatalf("want 2 runs with distinct IDs, got %d", len(g.Runs))
	}
	dir := t.TempDir()
	trace, err := os.ReadFile("testdata/gavel7.trace")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "renamed.trace"), trace, 0o644); err != nil {
		t.Fatal(err)
	}
	scenario := `cluster:
  servers:
    - {type: V100, count: 2, gpus_per_server: 4}
    - {type: K80, count: 1, gpus_per_server: 4}
user_count: 2
policies: [fifo]
workload: {generator: trace, trace: renamed.trace, trace_format: gavel}
`
	path := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(path, []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	h := load(t, path)
	if h.Runs[0].ID != g.Runs[0].ID {
		t.Errorf("same trace content elsewhere: ID %s, want %s", h.Runs[0].ID, g.Runs[0].ID)
	}
	if in := h.Runs[0].Inputs; len(in) != 1 || in[0].Role != "trace" || in[0].Path != filepath.Join(dir, "renamed.trace") || len(in[0].SHA256) != 64 {
		t.Errorf("inputs %+v", in)
	}
	if err := os.WriteFile(filepath.Join(dir, "renamed.trace"), append(trace, []byte("A3C\tc\t-n\t0\t5\t9\t1\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	if h2 := load(t, path); h2.Runs[0].ID == h.Runs[0].ID {
		t.Errorf("editing the trace kept the ID %s", h.Runs[0].ID)
	}
}

func TestWithPolicies(t *testing.T) {
	t.Parallel()
	g := parse(t, okCluster+"seed: [1, 2]\nworkload: {jobs: 5}\n", "s.yaml")
	if len(g.Runs) != 2 || g.Runs[0].Policy != "" || g.Runs[0].Spec.Policies != nil {
		t.Fatalf("without policies: %d runs, policy %q", len(g.Runs), g.Runs[0].Policy)
	}
	h, err := g.WithPolicies([]string{"fifo", "srtf", "sjf"})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Runs) != 6 || len(g.Runs) != 2 {
		t.Fatalf("%d runs (original now %d), want 6 (2)", len(h.Runs), len(g.Runs))
	}
	var got []string
	for _, r := range h.Runs {
		got = append(got, fmt.Sprintf("%s/%d", r.Policy, r.Seed))
	}
	if want := "fifo/1 fifo/2 srtf/1 srtf/2 sjf/1 sjf/2"; strings.Join(got, " ") != want {
		t.Errorf("runs %s, want %s", strings.Join(got, " "), want)
	}
	// The same as writing the policies in the file.
	k := parse(t, okCluster+"seed: [1, 2]\nworkload: {jobs: 5}\npolicies: [fifo, srtf, sjf]\n", "t.yaml")
	if !reflect.DeepEqual(ids(h), ids(k)) {
		t.Errorf("WithPolicies IDs %v, written policies %v", ids(h), ids(k))
	}
	if _, err := g.WithPolicies([]string{"fifo", "fifo"}); err == nil {
		t.Errorf("duplicate policies accepted")
	}
	if _, err := g.WithPolicies(nil); err == nil {
		t.Errorf("no policies accepted")
	}
}

// TestListOfListsAxis: a list-valued key written as a list of lists.
func TestListOfListsAxis(t *testing.T) {
	t.Parallel()
	g := parse(t, okCluster+"workload:\n  job_types: [[A3C, \"ResNet-50 (batch size 64)\"], [\"ResNet-50 (batch size 64)\"]]\n  gangs: [{size: 1, weight: 1}]\n", "s.yaml")
	if len(g.Runs) != 2 || len(g.Axes) != 1 || g.Axes[0].Path != "workload.job_types" {
		t.Fatalf("runs %d, axes %v", len(g.Runs), g.Axes)
	}
	if got := g.Runs[0].Spec.Workload.JobTypes; !reflect.DeepEqual(got, []string{a3c, resnet}) {
		t.Errorf("run 0 job types %v", got)
	}
	if got := g.Runs[1].Spec.Workload.JobTypes; !reflect.DeepEqual(got, []string{resnet}) {
		t.Errorf("run 1 job types %v", got)
	}
	// A plain list is a value, not an axis.
	h := parse(t, okCluster+"workload:\n  job_types: [A3C]\n  gangs: [{size: 1, weight: 1}]\n", "s.yaml")
	if len(h.Runs) != 1 || len(h.Axes) != 0 {
		t.Errorf("plain list: %d runs, axes %v", len(h.Runs), h.Axes)
	}
}

func TestAliasesAndNulls(t *testing.T) {
	t.Parallel()
	g := parse(t, `cluster:
  servers:
    - &v100 {type: V100, count: 2, gpus_per_server: 4}
    - *v100
round_seconds: ~
users:
`, "s.yaml")
	s := g.Runs[0].Spec
	if len(s.Cluster.Servers) != 2 || s.Cluster.Servers[1] != s.Cluster.Servers[0] || s.RoundSeconds != DefaultRoundSeconds || s.Users != nil {
		t.Errorf("spec %+v", s)
	}
}

// TestCheckKey: a trace is checked once per setting that can change the
// check's verdict. The calibration and the declared GPU and job types
// change the figures a trace's jobs are checked against, so they are part
// of the key (a key without them let a grid's run skip its check after
// another calibration's run passed); the seed, the name and the policies
// are not.
func TestCheckKey(t *testing.T) {
	base := Spec{Name: "a", Seed: 1, Policies: []string{"fifo"}, Calibration: "x.calibration.json",
		GPUTypes: []GPUTypeSpec{{Name: "B200", MemoryGB: 180}}, JobTypes: []JobTypeSpec{{Name: "J"}}}
	same := base
	same.Name, same.Seed, same.Policies = "b", 2, []string{"sjf"}
	if checkKey(&base) != checkKey(&same) {
		t.Error("runs differing only in seed, name and policies check their trace twice")
	}
	for name, edit := range map[string]func(*Spec){
		"calibration": func(s *Spec) { s.Calibration = "y.calibration.json" },
		"gpu_types":   func(s *Spec) { s.GPUTypes = []GPUTypeSpec{{Name: "B200", MemoryGB: 80}} },
		"job_types":   func(s *Spec) { s.JobTypes = []JobTypeSpec{{Name: "K"}} },
		"throughputs": func(s *Spec) { s.Throughputs = "t.json" },
	} {
		other := base
		edit(&other)
		if checkKey(&base) == checkKey(&other) {
			t.Errorf("runs differing in %s share a trace check", name)
		}
	}
}
