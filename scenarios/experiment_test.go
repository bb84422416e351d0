package scenarios

import (
	"reflect"
	"strings"
	"testing"
)

// TestSplitPath: axis paths split into keys and indices, quoted keys with
// brackets and dots inside included; and every path the template walker
// writes (field, index) splits back into the steps it was made of.
func TestSplitPath(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		path string
		want []any
	}{
		{`cluster.servers[2].count`, []any{"cluster", "servers", 2, "count"}},
		{`preemption.seconds["A3C [x]"]`, []any{"preemption", "seconds", "A3C [x]"}},
		{`seed`, []any{"seed"}},
		{`a["x.y"].b`, []any{"a", "x.y", "b"}},
		{`a[oops`, []any{"a", "[oops"}},
	} {
		if got := SplitPath(c.path); !reflect.DeepEqual(got, c.want) {
			t.Errorf("SplitPath(%s) = %#v, want %#v", c.path, got, c.want)
		}
	}
	for _, c := range []struct {
		path  string
		steps []any
	}{
		{index(field(field("", "cluster", false), "servers", false), 10) + ".gpus_per_server", []any{"cluster", "servers", 10, "gpus_per_server"}},
		{field(field("", "preemption", false), "ResNet-50 (batch size 64)", true), []any{"preemption", "ResNet-50 (batch size 64)"}},
		{field(field("", "policy_options", false), `say "hi"]`, true), []any{"policy_options", `say "hi"]`}},
		{field(index("users", 0), "weight", false), []any{"users", 0, "weight"}},
		{field("seconds", "A3C", true), []any{"seconds", "A3C"}},
	} {
		if got := SplitPath(c.path); !reflect.DeepEqual(got, c.steps) {
			t.Errorf("SplitPath(%s) = %#v, want %#v", c.path, got, c.steps)
		}
	}
}

// TestExperimentRule: two runs of one grid — another seed, policy, policy
// options and axis value — have the same ExperimentSpec; a difference
// outside the axes is found at its path; a user_count axis also frees the
// users it expands to; and each policy's options are compared on their own.
func TestExperimentRule(t *testing.T) {
	t.Parallel()
	run := func(seed int, policy string, servers, jobs float64, users []any) map[string]any {
		return map[string]any{
			"name": "sweep", "seed": seed, "policies": []any{policy},
			"policy_options": map[string]any{policy: map[string]any{"quantum_rounds": seed}},
			"cluster":        map[string]any{"servers": []any{map[string]any{"type": "V100", "count": servers}}},
			"workload":       map[string]any{"jobs": jobs},
			"users":          users,
		}
	}
	alice := []any{map[string]any{"name": "alice"}}
	axes := ExperimentAxes(map[string]any{"seed": 1, "policies": "fifo", "cluster.servers[0].count": 2})
	if !reflect.DeepEqual(axes, []string{"cluster.servers[0].count"}) {
		t.Fatalf("ExperimentAxes = %v", axes)
	}
	a, okA := ExperimentSpec(run(1, "fifo", 2, 10, alice), axes)
	b, okB := ExperimentSpec(run(2, "srtf", 4, 10, alice), axes)
	if !okA || !okB {
		t.Fatal("a spec is not a JSON object")
	}
	if d, differ := FirstDifference(a, b); differ {
		t.Errorf("runs of one grid differ at %+v", d)
	}
	c, _ := ExperimentSpec(run(1, "fifo", 2, 20, alice), axes)
	if d, differ := FirstDifference(a, c); !differ || d != (Difference{Path: "workload.jobs", A: "10", B: "20"}) {
		t.Errorf("another job count: %+v, %v", d, differ)
	}
	two := []any{map[string]any{"name": "u0"}, map[string]any{"name": "u1"}}
	u1, _ := ExperimentSpec(run(1, "fifo", 2, 10, alice), []string{"user_count"})
	u2, _ := ExperimentSpec(run(1, "fifo", 2, 10, two), []string{"user_count"})
	if d, differ := FirstDifference(u1, u2); differ {
		t.Errorf("a user_count axis does not free the users list: %+v", d)
	}
	if d, differ := FirstDifference(a, u2); !differ || d.Path != "cluster.servers[0].count" {
		t.Errorf("without the user_count axis: %+v, %v", d, differ)
	}
	if d, differ := FirstDifference(PolicyOptions(run(1, "fifo", 2, 10, alice), "fifo"), PolicyOptions(run(2, "fifo", 2, 10, alice), "fifo")); !differ || d.Path != "quantum_rounds" {
		t.Errorf("options: %+v, %v", d, differ)
	}
	if PolicyOptions(run(1, "fifo", 2, 10, alice), "srtf") != nil {
		t.Error("options of a policy the run does not give any")
	}
	if _, ok := ExperimentSpec([]int{1}, nil); ok {
		t.Error("a list accepted as a spec")
	}
	long := strings.Repeat("x", 100)
	if d, _ := FirstDifference(map[string]any{"k": long}, map[string]any{}); len(d.A) != 60 || d.B != "absent" {
		t.Errorf("shortened values: %+v", d)
	}
}
