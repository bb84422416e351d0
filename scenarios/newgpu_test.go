package scenarios

import (
	"strings"
	"testing"

	"fairbench/models"
)

// TestDeclaredGPUType: a scenario declares a GPU type the catalogue lacks,
// its servers and its throughput file may name it, and the jobs get its
// figures (30 and 55 steps/s at gangs 1 and 2, from the fixture).
func TestDeclaredGPUType(t *testing.T) {
	t.Parallel()
	g, err := Load("testdata/newgpu/scenario.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w, err := g.Runs[0].Spec.Build(g.Runs[0].Seed)
	if err != nil {
		t.Fatal(err)
	}
	if w.Cluster.Capacity("B200") != 8 || w.Cluster.TypeNames()[0] != "B200" {
		t.Fatalf("cluster types %v, B200 capacity %d; want B200 first with 8", w.Cluster.TypeNames(), w.Cluster.Capacity("B200"))
	}
	j := models.Job{Type: "ResNet-50 (batch size 64)", Gang: 2}
	if got := models.ThroughputOn(w.Cluster, w.Matrix, w.JobTypes, &j, "B200"); got != 55 {
		t.Errorf("B200 at gang 2: %v steps/s, want 55", got)
	}
}

func TestDeclaredGPUTypeErrors(t *testing.T) {
	t.Parallel()
	cases := []struct{ yaml, want string }{
		{"gpu_types: [{name: v100, memory_gb: 32}]\ncluster: {servers: [{type: V100, gpus_per_server: 1}]}\n", `"v100" is already a GPU type`},
		{"gpu_types: [{name: X1, memory_gb: 0}]\ncluster: {servers: [{type: X1, gpus_per_server: 1}]}\n", "memory_gb: must be positive"},
		{"gpu_types: [{name: X1, memory_gb: [80, 96]}]\ncluster: {servers: [{type: X1, gpus_per_server: 1}]}\n", "may not be a grid axis"},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.yaml), "s.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "s.yaml") {
			t.Errorf("%q: got %v, want an error naming s.yaml and %q", c.yaml, err, c.want)
		}
	}
}
