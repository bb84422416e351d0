// Package deploy holds the manifests that run fairbench grids on batch
// systems; its tests check that they parse and carry what the shards need.
package deploy

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"fairbench/scenarios"
)

func TestKubernetesIndexedJob(t *testing.T) {
	b, err := os.ReadFile("kubernetes/grid-indexed-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	docs := map[string]map[string]any{}
	for {
		var d map[string]any
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		docs[d["kind"].(string)] = d
	}
	job, cm := docs["Job"], docs["ConfigMap"]
	if job == nil || cm == nil {
		t.Fatalf("want a Job and a ConfigMap, got %v", docs)
	}
	spec := job["spec"].(map[string]any)
	if spec["completionMode"] != "Indexed" {
		t.Errorf("completionMode %v, want Indexed", spec["completionMode"])
	}
	n := spec["completions"].(int)
	c := spec["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	args := strings.Join(toStrings(c["args"]), " ")
	if !strings.Contains(args, `--shard "${JOB_COMPLETION_INDEX}/`+strconv.Itoa(n)+`"`) {
		t.Errorf("container args %q do not shard by JOB_COMPLETION_INDEX over %d completions", args, n)
	}
	if !strings.Contains(args, "--out /results") {
		t.Errorf("container args %q do not write to the results volume", args)
	}
	// The scenario in the ConfigMap is a valid fairbench grid.
	data := cm["data"].(map[string]any)["scenario.yaml"].(string)
	if _, err := scenarios.Parse([]byte(data), "configmap.yaml"); err != nil {
		t.Errorf("ConfigMap scenario: %v", err)
	}
}

func TestSlurmScriptSyntax(t *testing.T) {
	out, err := exec.Command("bash", "-n", "slurm/grid-array.sh").CombinedOutput()
	if err != nil {
		t.Fatalf("bash -n: %v\n%s", err, out)
	}
	// Run it as array task 3 of 8 with echo standing in for fairbench; a
	// "%a" in OUTDIR becomes the task's index.
	for _, c := range []struct{ out, want string }{
		{"res", "grid sweep.yaml --shard 3/8 --jobs 2 --out res"},
		{"res/shard-%a", "grid sweep.yaml --shard 3/8 --jobs 2 --out res/shard-3"},
	} {
		cmd := exec.Command("bash", "slurm/grid-array.sh", "sweep.yaml", c.out)
		cmd.Env = append(os.Environ(), "FAIRBENCH=echo", "SLURM_ARRAY_TASK_ID=3", "SLURM_ARRAY_TASK_COUNT=8", "SLURM_CPUS_PER_TASK=2")
		out, err = cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(string(out)); got != c.want {
			t.Errorf("OUTDIR %q: the script runs %q, want %q", c.out, got, c.want)
		}
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
