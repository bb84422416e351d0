package models

import (
	"strings"
	"testing"
)

// TestDecodeInstanceRefuses: each case breaks one rule of an instance
// file; the error names the line or the field.
func TestDecodeInstanceRefuses(t *testing.T) {
	t.Parallel()
	const ok = `{"servers":[{"type":"V100","count":1,"gpus_per_server":2}],"users":[{"name":"a","weight":1}],"jobs":[%s]}`
	job := func(extra string) string {
		return strings.Replace(ok, "%s", `{"id":1,"user":"a","gang":1,"steps":10,"throughputs":{"V100":1}`+extra+`}`, 1)
	}
	cases := []struct {
		name, text, want string
		yaml             bool
	}{
		{"trailing data", job("") + "\n x", "line 2: data after the instance's closing brace", false},
		{"second value", job("") + "\n{}", "line 2: data after the instance's closing brace", false},
		{"repeated key", `{"users":[{"name":"a","name":"b"}]}`, "line 1: users[0].name: key given twice", false},
		{"deep nesting", `{"options":{"a":` + strings.Repeat("[", 1001), "line 1: nested deeper than 1000 levels", false},
		{"unknown key", job(`,"dne":1`), `unknown field "dne"`, false},
		{"done beyond steps", job(`,"done":11`), "jobs[0] (id 1): done: 11 steps done of 10", false},
		{"last_gpus out of range", job(`,"last_type":"V100","last_gpus":[2]`), "jobs[0] (id 1): last_gpus[0]: GPU 2 does not exist (the instance has GPUs 0 to 1)", false},
		{"last_type without servers", job(`,"last_type":"K80"`), `last_type: "K80" is not a GPU type with servers`, false},
		{"received past the horizon", job(`,"received_s":{"V100":1e300}`), "received_s.V100: 1e+300 s is more than", false},
		{"first run NaN-free but huge", job(`,"first_run_s":1e12`), "first_run_s: 1e+12 s is more than", false},
		{"attained past 250 GPU-years", job(`,"attained_gpu_s":1e12`), "attained_gpu_s: 1e+12 s is more than", false},
		{"duplicate job type", strings.Replace(job(""), `"jobs"`, `"job_types":[{"name":"m"},{"name":"m"}],"jobs"`, 1), `job_types[1]: duplicate job type "m"`, false},
		{"yaml second document", "servers: [{type: V100, count: 1, gpus_per_server: 1}]\nusers: [{name: a, weight: 1}]\njobs: []\n---\njobs: []\n",
			"line 5: a second YAML document", true},
		{"yaml unknown key", "servers: []\nbogus: 1\n", "field bogus not found", true},
		{"empty", "", "empty: no instance", false},
	}
	for _, c := range cases {
		_, err := DecodeInstance([]byte(c.text), c.yaml, catalogueGPUTypes)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := DecodeInstance([]byte(job("")), false, catalogueGPUTypes); err != nil {
		t.Errorf("valid instance refused: %v", err)
	}
	if _, err := DecodeInstance([]byte("servers: [{type: V100, count: 1, gpus_per_server: 1}]\nusers: [{name: a, weight: 1}]\njobs: []\n---\n"), true, catalogueGPUTypes); err != nil {
		t.Errorf("a trailing empty YAML document refused: %v", err)
	}
}
