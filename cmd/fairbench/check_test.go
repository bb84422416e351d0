package main

import (
	"encoding/json"
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
	out, err := run(t, "check", "--policy", "static-partition", "--props", "sharing-incentive",
		"--claims", "sharing-incentive:all-users-active+identical-jobs-per-user",
		"--cases", "10", "--bound", "1", "--out", dir, "--quiet", "--junit", filepath.Join(dir, "junit.xml"))
	if status(err) != 0 || !strings.Contains(out, "sharing-incentive") || !strings.Contains(out, "holds") ||
		!strings.Contains(out, "instances/s") {
		t.Fatalf("isolated: %v\n%s", err, out)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "junit.xml")); err != nil || !strings.Contains(string(b), `<testcase name="sharing-incentive [all-users-active, identical-jobs-per-user]"`) {
		t.Errorf("junit: %v\n%s", err, b)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"check"}, "give --policy"},
		{[]string{"check", "--policy", "nope"}, "unknown policy"},
		{[]string{"check", "--policy", "static-partition", "--props", "fast"}, "unknown property"},
		{[]string{"check", "--policy", "static-partition", "--cases", "many"}, "invalid argument"},
		{[]string{"check", "--policy", "static-partition", "--cases", "-3"}, "cases must be in [0, 1000000], got -3"},
		{[]string{"check", "--policy", "static-partition", "--bound", "9"}, "bound must be in [0, 4], got 9"},
		{[]string{"check", "--policy", "static-partition", "--bound", "-1"}, "bound must be in [0, 4], got -1"},
		{[]string{"check", "--policy", "static-partition", "--arrivals", "NaN"}, "arrivals per round must be a number in (0, 64], got NaN"},
		{[]string{"check", "--policy", "static-partition", "--arrivals", "1e300"}, "arrivals per round"},
		{[]string{"check", "--policy", "static-partition", "--horizon", "100000"}, "horizon"},
		{[]string{"check", "--policy", "static-partition", "--max-users", "1000000000"}, "max users must be in [1, 64]"},
		{[]string{"check", "--policy", "static-partition", "--weights", "0"}, "weights"},
		{[]string{"check", "--policy", "static-partition", "--claims", "speed"}, "unknown property"},
		{[]string{"check", "--policy", "static-partition", "--claims", "envy-free:sunny"}, "unknown condition"},
		{[]string{"check", "--matrix", "--policy", "static-partition"}, "drop --policy"},
		{[]string{"check", "--policy", "static-partition", "--baseline", "x.json"}, "go with --matrix"},
		{[]string{"check", "--replay", filepath.Join(dir, "missing.json")}, "missing.json"},
	} {
		_, err := run(t, append(c.args, "--out", dir, "--quiet")...)
		if status(err) != 2 || err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: exit %d (%v), want 2 with %q", c.args, status(err), err, c.want)
		}
	}
}

// --cases 0 checks no random instance; with only temporal properties no
// single-decision instance is decided at all.
func TestCheckBudgetsAreWhatTheySay(t *testing.T) {
	dir := t.TempDir()
	out, err := run(t, "check", "--policy", "static-partition", "--props", "feasible", "--cases", "0", "--bound", "1", "--out", dir, "--quiet")
	if err != nil || !strings.Contains(out, "19 exhaustive + 0 random") {
		t.Errorf("--cases 0: %v\n%s", err, out)
	}
	out, err = run(t, "check", "--policy", "static-partition", "--props", "share-convergence", "--workloads", "1", "--horizons", "3",
		"--out", dir, "--quiet")
	if err != nil || strings.Contains(out, "single-decision instances") || !strings.Contains(out, "share-convergence") {
		t.Errorf("temporal only: %v\n%s", err, out)
	}
}

func python(t *testing.T) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Fatalf("no python3: the external-policy tests need it (make test-deps installs it): %v", err)
	}
	return py
}

func TestCheckFindsReplaysAndGates(t *testing.T) {
	py := python(t)
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
	// Replay never runs a command read from the file.
	_, err = run(t, "check", "--replay", files[0], "--quiet")
	if status(err) != 2 || !strings.Contains(err.Error(), "never runs a command read from a file") {
		t.Fatalf("replay of an exec: file without --policy: exit %d (%v)", status(err), err)
	}
	// Given the policy, the file's claims make the replay fail.
	out, err = run(t, "check", "--replay", files[0], "--policy", policy, "--quiet")
	if status(err) != 1 || !strings.Contains(out, "sharing-incentive") {
		t.Fatalf("replay: exit %d (%v)\n%s", status(err), err, out)
	}
	// The fixed policy passes the replay.
	out, err = run(t, "check", "--replay", files[0], "--policy", "static-partition", "--claims", "sharing-incentive", "--quiet")
	if status(err) != 0 {
		t.Fatalf("replay on the fixed policy: exit %d (%v)\n%s", status(err), err, out)
	}
	// `fairbench solve` reads the same file.
	if out, err := run(t, "solve", files[0], "--policy", "static-partition"); err != nil || !strings.Contains(out, "fractions") {
		t.Errorf("solve: %v\n%s", err, out)
	}
	// A crashing policy exits 2, not 1.
	if _, err := run(t, "check", "--policy", "exec:exit 3", "--props", "sharing-incentive", "--claims", "sharing-incentive",
		"--cases", "3", "--bound", "1", "--out", dir, "--quiet"); status(err) != 2 {
		t.Errorf("crashing policy: exit %d (%v)", status(err), err)
	}
}

// The README's example: the example policy keeps its claims (for users with
// one job each) through the whole default check.
func TestCheckReadmeExternalExample(t *testing.T) {
	py := python(t)
	dir := t.TempDir()
	out, err := run(t, "check", "--policy", "exec:"+py+" ../../check/examples/equal_share.py",
		"--claims", "sharing-incentive:one-job-per-user,envy-free:one-job-per-user,strategy-proof:one-job-per-user",
		"--props", "feasible,sharing-incentive,envy-free,strategy-proof", "--out", dir, "--quiet")
	if status(err) != 0 {
		t.Fatalf("exit %d (%v)\n%s", status(err), err, out)
	}
}

func TestCheckMatrixFiles(t *testing.T) {
	dir := t.TempDir()
	out, err := run(t, "check", "--matrix", "--props", "feasible", "--cases", "3", "--bound", "1", "--out", dir, "--quiet",
		"--junit", filepath.Join(dir, "matrix.xml"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, f := range []string{"check-matrix.json", "check-matrix.csv", "matrix.xml"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || !strings.Contains(string(b), "static-partition") {
			t.Errorf("%s: %v", f, err)
		}
	}
	if !strings.Contains(out, "policy") || !strings.Contains(out, "feasible") {
		t.Errorf("table:\n%s", out)
	}
}

// The gate: a matrix with a claimed violation exits 1; recorded as the
// baseline it passes; a changed baseline (a violation it does not know,
// or one it knows that is gone) fails with the change named.
func TestCheckMatrixBaselineGate(t *testing.T) {
	dir := t.TempDir()
	args := []string{"check", "--matrix", "--props", "sharing-incentive", "--cases", "20", "--bound", "1", "--out", dir, "--quiet"}
	if _, err := run(t, args...); status(err) != 1 {
		t.Fatalf("a matrix with violated claims exits %d (%v), want 1", status(err), err)
	}
	base := filepath.Join(dir, "baseline.json")
	if _, err := run(t, append(args, "--write-baseline", base)...); err != nil {
		t.Fatal(err)
	}
	gate := []string{"check", "--matrix", "--baseline", base, "--out", dir, "--quiet", "--junit", filepath.Join(dir, "gate.xml")}
	out, err := run(t, gate...)
	if err != nil || !strings.Contains(out, "no change") {
		t.Fatalf("the gate fails on its own baseline: %v\n%s", err, out)
	}
	if _, err := run(t, append(gate, "--cases", "5")...); status(err) != 2 {
		t.Errorf("a budget that differs from the baseline's: exit %d, want 2", status(err))
	}
	b, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	claims := m["claims"].([]any)
	// Flip a recorded violation and a recorded hold: a violation the
	// baseline does not know is a new one, a known one that holds now is
	// fixed.
	flipped := map[any]bool{}
	for i := range claims {
		e := claims[i].(map[string]any)
		was := e["unconditional"]
		if flipped[was] {
			continue
		}
		flipped[was] = true
		e["unconditional"] = map[string]string{"holds": "violated", "violated": "holds"}[was.(string)]
		changed, _ := json.Marshal(m)
		path := filepath.Join(dir, "changed.json")
		if err := os.WriteFile(path, changed, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := run(t, "check", "--matrix", "--baseline", path, "--out", dir, "--quiet")
		want := "fixed" // the baseline now expects a violation that is not there
		if was == "violated" {
			want = "new violation" // the baseline now expects the violation to hold
		}
		if status(err) != 1 || !strings.Contains(out, want) {
			t.Errorf("baseline with %s %s flipped from %s: exit %d\n%s", e["policy"], e["property"], was, status(err), out)
		}
		e["unconditional"] = was
	}
	if !flipped["holds"] || !flipped["violated"] {
		t.Fatalf("the baseline records no hold or no violation: %v", flipped)
	}
}
