package check

import (
	"errors"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// python finds a Python 3 interpreter for the example policy.
func python(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	t.Fatal("no python3: the external-policy examples need it (make test-deps installs it)")
	return ""
}

// The example policy, checked end to end through the protocol: it keeps the
// properties it claims, for users with one job each; its planted bug is
// caught.
func TestExternalPythonPolicy(t *testing.T) {
	py := python(t)
	claims := oneJobClaims()
	x := NewExternal(py+" examples/equal_share.py", 20*time.Second)
	defer x.Close()
	cfg := Config{Seed: 1, Cases: 25, Bound: 1, Props: []string{Feasible, SharingIncentive, EnvyFree, StrategyProof, ShareConvergence},
		Temporal: TemporalConfig{Workloads: 1, BaseRounds: 2, Horizons: 4, MaxHorizons: 4}}
	rep, err := Run(x.Subject(claims), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if r.Status != Holds {
			t.Errorf("%s: %s: %s", r.Property, r.Status, r.Reason)
		}
	}
	if rep.ExitCode() != 0 {
		t.Errorf("exit code %d", rep.ExitCode())
	}
	catchesIgnoredWeights(t, py+" examples/equal_share.py --ignore-weights")
}

// catchesIgnoredWeights checks that the example policy's planted bug (every
// user's slice the same whatever its weight) is caught at the default
// random budget.
func catchesIgnoredWeights(t *testing.T, cmd string) {
	t.Helper()
	bug := NewExternal(cmd, 20*time.Second)
	defer bug.Close()
	rep, err := Run(bug.Subject(oneJobClaims()), Config{Seed: 1, Cases: DefaultCases, Props: []string{SharingIncentive}})
	if err != nil {
		t.Fatal(err)
	}
	if r := result(t, rep, SharingIncentive); r.Status != Violated || rep.ExitCode() != 1 {
		t.Fatalf("ignored weights: %s (exit %d): %s", r.Status, rep.ExitCode(), r.Reason)
	}
}

// A broken external policy is reported as broken, never as a violation.
func TestExternalFailures(t *testing.T) {
	py := python(t)
	cases := []struct {
		cmd, kind string
	}{
		{py + " examples/equal_share.py --crash", "crash"},
		{py + " examples/equal_share.py --hang", "hang"},
		{py + " examples/equal_share.py --garbage", "malformed"},
		{"exit 4", "crash"},
		{"echo 'no'; cat > /dev/null", "malformed"},
		{`while read l; do echo '{"id": 999, "allocation": {}}'; done`, "malformed"},
		{`while read l; do echo '{"id": 1, "allocation": {}, "extra": 1}'; done`, "malformed"},
		{`while read l; do id=$(echo "$l" | sed 's/^{"protocol":"[^"]*","id":\([0-9]*\).*/\1/'); echo "{\"id\": $id, \"error\": \"cannot decide\"}"; done`, "error"},
		{"/nonexistent/policy", "crash"},
		// An endless line (3.9 GB in 5 s before the line limit): malformed
		// once it passes MaxAnswerBytes, and the process killed.
		{`yes | tr -d '\n'`, "malformed"},
	}
	for _, c := range cases {
		x := NewExternal(c.cmd, time.Second)
		rep, err := Run(x.Subject(claimsOf(SharingIncentive)), Config{Seed: 1, Cases: 5, Bound: 1, Props: []string{Feasible, SharingIncentive}})
		x.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rep.Results {
			if r.Status != Errored {
				t.Errorf("%q: %s %s: %s", c.cmd, r.Property, r.Status, r.Reason)
			}
			if strings.HasPrefix(c.cmd, "yes") && !strings.Contains(r.Reason, "longer than") {
				t.Errorf("endless line: reason %q does not name the limit", r.Reason)
			}
			if !strings.Contains(r.Reason, c.kind+":") {
				t.Errorf("%q: %s: reason %q does not say %s", c.cmd, r.Property, r.Reason, c.kind)
			}
		}
		if rep.ExitCode() != 2 {
			t.Errorf("%q: exit code %d, want 2", c.cmd, rep.ExitCode())
		}
	}
	x := NewExternal("exit 1", time.Second)
	p, _ := x.Subject(nil).New()
	snap, err := DefaultLimits().Random(rand.New(rand.NewPCG(1, 1))).Instance().Snapshot(nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Allocate(snap)
	var ee *ExternalError
	if err == nil || !errors.Is(err, ErrExternal) || !errors.As(err, &ee) {
		t.Errorf("error %v does not match ErrExternal", err)
	}
}
