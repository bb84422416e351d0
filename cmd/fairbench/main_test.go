package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fairbench/solvers/registry"
)

// run executes the CLI with args and returns stdout and the error.
func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRoot()
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

func TestSimulateWritesResultsAndTable(t *testing.T) {
	dir := t.TempDir()
	out, err := run(t, "simulate", "../../runs/testdata/small.yaml", "--policy", "fifo", "--seed", "7", "--out", dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "fifo") || !strings.Contains(out, "JCT") {
		t.Errorf("no comparison table in output:\n%s", out)
	}
	// One policy, one seed (--seed replaces the file's two); the pattern
	// leaves out the grid's manifest.
	files, _ := filepath.Glob(filepath.Join(dir, "[0-9a-f]*.json"))
	if len(files) != 1 {
		t.Fatalf("%d result files, want 1", len(files))
	}
	b, _ := os.ReadFile(files[0])
	if !strings.Contains(string(b), `"seed": 7`) {
		t.Errorf("result does not record seed 7")
	}
}

func TestBadInputIsNamed(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("cluster:\n  servers:\n    - {type: Z9, count: 1, gpus_per_server: 4}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"simulate", bad, "--out", t.TempDir()}, "Z9"},
		{[]string{"simulate", "../../runs/testdata/small.yaml", "--policy", "nope", "--out", t.TempDir()}, `unknown policy "nope"`},
		{[]string{"grid", "missing.yaml"}, "missing.yaml"},
		{[]string{"list", "widgets"}, "widgets"},
	}
	for _, c := range cases {
		if _, err := run(t, c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want an error naming %q", c.args, err, c.want)
		}
	}
}

func TestListAndVersion(t *testing.T) {
	out, err := run(t, "list")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"tiresias", "H200", "ResNet-50 (batch size 64)"} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q", want)
		}
	}
	out, err = run(t, "version")
	if err != nil || !strings.Contains(out, "solver backend:") {
		t.Errorf("version: %v\n%s", err, out)
	}
}

func TestSolvePrintsAllocation(t *testing.T) {
	out, err := run(t, "solve", "../../runs/testdata/instance.json", "--policy", "srtf")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `"policy": "srtf"`) || !strings.Contains(out, `"run"`) {
		t.Errorf("unexpected solve output:\n%s", out)
	}
}

// TestSimulateSkip: --skip thins the default policy list (every registered
// policy) of a scenario that names none, and is refused with --policy, with
// a scenario that names its policies, and for an unknown name.
func TestSimulateSkip(t *testing.T) {
	dir := t.TempDir()
	scen := filepath.Join(dir, "s.yaml")
	text := "cluster:\n  servers:\n    - {type: V100, count: 1, gpus_per_server: 4}\nworkload: {jobs: 3, gangs: [{size: 1, weight: 1}]}\n"
	if err := os.WriteFile(scen, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	reg := registry.Default()
	keep := reg.Names()[:3]
	skip := reg.Names()[3:]
	out := filepath.Join(dir, "out")
	if _, err := run(t, "simulate", scen, "--skip", strings.Join(skip, ","), "--out", out); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(out, "[0-9a-f]*.json"))
	if len(files) != len(keep) {
		t.Errorf("%d result files, want %d (%v)", len(files), len(keep), keep)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", scen, "--skip", "fifo", "--policy", "sjf"}, "--skip thins the default policy list"},
		{[]string{"simulate", "../../runs/testdata/small.yaml", "--skip", "fifo"}, "names its policies"},
		{[]string{"simulate", scen, "--skip", "fiffo"}, `unknown policy "fiffo"`},
	} {
		if _, err := run(t, append(c.args, "--out", filepath.Join(dir, "x"))...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.args, err, c.want)
		}
	}
}
