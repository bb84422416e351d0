package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// status is the exit status main would end with for err.
func status(err error) int {
	if err == nil {
		return 0
	}
	var ec exitCode
	if errors.As(err, &ec) {
		return int(ec)
	}
	return 1
}

func TestCheckExitCodes(t *testing.T) {
	dir := t.TempDir()
	out, err := run(t, "check", "--policy", "isolated", "--props", "feasible,sharing-incentive", "--claims", "sharing-incentive",
		"--cases", "10", "--bound", "1", "--out", dir, "--quiet", "--junit", filepath.Join(dir, "junit.xml"))
	if status(err) != 0 || !strings.Contains(out, "sharing-incentive") || !strings.Contains(out, "holds") {
		t.Fatalf("isolated: %v\n%s", err, out)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "junit.xml")); err != nil || !strings.Contains(string(b), `<testcase name="sharing-incentive"`) {
		t.Errorf("junit: %v\n%s", err, b)
	}
	for _, args := range [][]string{
		{"check"},
		{"check", "--policy", "nope"},
		{"check", "--policy", "isolated", "--props", "fast"},
		{"check", "--policy", "isolated", "--cases", "many"},
		{"check", "--policy", "isolated", "--bound", "9"},
		{"check", "--policy", "isolated", "--claims", "speed"},
		{"check", "--matrix", "--policy", "isolated"},
		{"check", "--replay", filepath.Join(dir, "missing.json")},
	} {
		if _, err := run(t, append(args, "--out", dir, "--quiet")...); status(err) != 2 {
			t.Errorf("%v: exit %d (%v), want 2", args, status(err), err)
		}
	}
}

func TestCheckFindsReplaysAndGates(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	dir := t.TempDir()
	policy := "exec:" + py + " ../../check/examples/equal_share.py --ignore-weights"
	out, err := run(t, "check", "--policy", policy, "--claims", "sharing-incentive", "--props", "sharing-incentive", "--out", dir, "--quiet")
	if status(err) != 1 || !strings.Contains(out, "VIOLATED") {
		t.Fatalf("exit %d (%v)\n%s", status(err), err, out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "check", "exec-sharing-incentive-*.json"))
	if len(files) != 1 {
		t.Fatalf("counterexample files %v", files)
	}
	// The file names its policy and property: replay needs nothing else.
	out, err = run(t, "check", "--replay", files[0], "--claims", "sharing-incentive", "--quiet")
	if status(err) != 1 || !strings.Contains(out, "sharing-incentive") {
		t.Fatalf("replay: exit %d (%v)\n%s", status(err), err, out)
	}
	// The fixed policy passes the replay.
	out, err = run(t, "check", "--replay", files[0], "--policy", "isolated", "--claims", "sharing-incentive", "--quiet")
	if status(err) != 0 {
		t.Fatalf("replay on the fixed policy: exit %d (%v)\n%s", status(err), err, out)
	}
	// `fairbench solve` reads the same file.
	if out, err := run(t, "solve", files[0], "--policy", "isolated"); err != nil || !strings.Contains(out, "fractions") {
		t.Errorf("solve: %v\n%s", err, out)
	}
	// A crashing policy exits 2, not 1.
	if _, err := run(t, "check", "--policy", "exec:exit 3", "--props", "sharing-incentive", "--claims", "sharing-incentive",
		"--cases", "3", "--bound", "1", "--out", dir, "--quiet"); status(err) != 2 {
		t.Errorf("crashing policy: exit %d (%v)", status(err), err)
	}
}

func TestCheckMatrixFiles(t *testing.T) {
	dir := t.TempDir()
	out, err := run(t, "check", "--matrix", "--props", "feasible", "--cases", "3", "--bound", "1", "--out", dir, "--quiet")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, f := range []string{"check-matrix.json", "check-matrix.csv"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || !strings.Contains(string(b), "isolated") {
			t.Errorf("%s: %v", f, err)
		}
	}
	if !strings.Contains(out, "policy") || !strings.Contains(out, "feasible") {
		t.Errorf("table:\n%s", out)
	}
}
