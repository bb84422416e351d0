package check

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fairbench/models"
	"fairbench/solvers/registry"
)

// TestTargetSettleAndSubject: a replayed file names the policy when the
// target does not, unless it was found on an external policy (a file never
// makes the checker run a command); a registered policy takes the file's
// options when the file names it; an external one takes the file's claims;
// --claims replace either's.
func TestTargetSettleAndSubject(t *testing.T) {
	t.Parallel()
	reg := registry.Default()
	claims := []models.Claim{{Property: EnvyFree, Conditions: []string{"one-job-per-user"}}}
	file := func(policy string) *models.Instance {
		return &models.Instance{Policy: policy, Options: map[string]any{"quantum_rounds": 2},
			Check: &models.CheckRecord{Property: EnvyFree, Claims: claims}}
	}
	for _, c := range []struct {
		name   string
		target Target
		policy string // after Settle; "" when Settle fails with want
		want   string
	}{
		{"no replay", Target{Policy: "fifo"}, "fifo", ""},
		{"the file's policy", Target{Replay: "cx.json", Instance: file("gandiva-fair")}, "gandiva-fair", ""},
		{"named over the file's", Target{Policy: "srtf", Replay: "cx.json", Instance: file("gandiva-fair")}, "srtf", ""},
		{"a file without a policy", Target{Replay: "cx.json", Instance: file("")}, "", "cx.json names no policy: give --policy"},
		{"a file found on exec:", Target{Replay: "cx.json", Instance: file("exec:rm -rf /")}, "", "replay never runs a command read from a file"},
	} {
		err := c.target.Settle()
		switch {
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		case c.want == "" && (err != nil || c.target.Policy != c.policy):
			t.Errorf("%s: policy %q (%v), want %q", c.name, c.target.Policy, err, c.policy)
		}
	}

	gf := Target{Replay: "cx.json", Instance: file("gandiva-fair")}
	if err := gf.Settle(); err != nil {
		t.Fatal(err)
	}
	subj, err := gf.Subject(reg)
	if err != nil {
		t.Fatal(err)
	}
	if subj.Name != "gandiva-fair" || subj.Options["quantum_rounds"] != 2 || len(subj.Claims) == 0 {
		t.Errorf("registered subject %s, options %v, claims %v", subj.Name, subj.Options, subj.Claims)
	}
	other, err := (&Target{Policy: "fifo", Replay: "cx.json", Instance: file("gandiva-fair")}).Subject(reg)
	if err != nil || other.Options != nil {
		t.Errorf("another policy than the file's takes its options: %v, %v", err, other.Options)
	}
	ext, err := (&Target{Policy: "exec:true", Replay: "cx.json", Instance: file("exec:true")}).Subject(reg)
	if err != nil || len(ext.Claims) != 1 || ext.Claims[0].Property != EnvyFree {
		t.Errorf("external subject: %v, claims %v", err, ext.Claims)
	}
	over, err := (&Target{Policy: "fifo", Claims: []string{"sharing-incentive:one-job-per-user"}}).Subject(reg)
	if err != nil || len(over.Claims) != 1 || over.Claims[0].Property != SharingIncentive || over.Claims[0].Conditions[0] != "one-job-per-user" {
		t.Errorf("--claims: %v, %v", err, over.Claims)
	}
	for _, c := range []struct {
		target Target
		want   string
	}{
		{Target{Policy: "exec:  "}, "--policy exec: needs a command"},
		{Target{Policy: "nope"}, `unknown policy "nope"`},
		{Target{Policy: "fifo", Claims: []string{"speed"}}, "--claims: "},
	} {
		if _, err := c.target.Subject(reg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.target, err, c.want)
		}
	}
}

// TestFailures: the exit status and message of a report and of a matrix,
// without and against a baseline.
func TestFailures(t *testing.T) {
	t.Parallel()
	ok := Result{Property: Feasible, Claimed: true, Status: Holds}
	bad := Result{Property: EnvyFree, Claimed: true, Status: Violated}
	info := Result{Property: Regret, Status: Violated} // not claimed: information only
	broke := Result{Property: StarvationBound, Status: Errored}
	for _, c := range []struct {
		results []Result
		want    *Failure
	}{
		{[]Result{ok, info}, nil},
		{[]Result{ok, bad, info}, &Failure{1, "policy p violates claimed envy-free"}},
		{[]Result{bad, broke}, &Failure{1, "policy p violates claimed envy-free"}},
		{[]Result{ok, broke}, &Failure{2, "policy p failed while being checked (see the errors above)"}},
	} {
		got := (&Report{Policy: "p", Results: c.results}).Failure()
		if (got == nil) != (c.want == nil) || got != nil && *got != *c.want {
			t.Errorf("%+v: failure %+v, want %+v", c.results, got, c.want)
		}
	}
	m := &Matrix{Policies: []MatrixRow{{Policy: "a", Results: []Result{ok}}, {Policy: "b", Results: []Result{broke}}}}
	if f := m.Failure(nil, nil); f == nil || f.Status != 2 {
		t.Errorf("matrix with a failed policy: %+v", f)
	}
	m.Policies[0].Results = []Result{bad}
	if f := m.Failure(nil, nil); f == nil || f.Status != 1 {
		t.Errorf("matrix with a violated claim: %+v", f)
	}
	base := &Baseline{}
	if f := m.Failure(base, []Change{{Kind: "new claim", Fails: false}}); f != nil {
		t.Errorf("against a baseline, no failing change: %+v", f)
	}
	if f := m.Failure(base, []Change{{Policy: "a", Property: EnvyFree, Kind: "new violation", Fails: true}}); f == nil ||
		*f != (Failure{1, "1 claim verdict(s) changed against the baseline"}) {
		t.Errorf("a new violation: %+v", f)
	}
	if f := m.Failure(base, []Change{{Policy: "b", Property: Regret, Kind: "error", Detail: "crashed", Fails: true}}); f == nil ||
		*f != (Failure{2, "a policy failed while being checked: b regret: error: crashed"}) {
		t.Errorf("an error: %+v", f)
	}
}

// TestBaselineFiles: the checked-in baseline reads back and writes the same
// bytes; a missing file and an endless one are errors naming the file or
// the bound; PrintChanges marks the failing changes.
func TestBaselineFiles(t *testing.T) {
	t.Parallel()
	b, err := ReadBaselineFile("baseline.json")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "b.json")
	if err := b.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile("baseline.json")
	if got, _ := os.ReadFile(path); !bytes.Equal(got, want) {
		t.Error("the baseline does not write back to the same bytes")
	}
	if _, err := ReadBaselineFile("no-such-baseline.json"); err == nil || !strings.Contains(err.Error(), "no-such-baseline.json") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := ReadBaselineFile("/dev/zero"); err == nil || !strings.Contains(err.Error(), "/dev/zero") {
		t.Errorf("/dev/zero: %v", err)
	}
	var out strings.Builder
	PrintChanges(&out, "b.json", []Change{{Policy: "a", Property: EnvyFree, Kind: "new violation", Detail: "x", Fails: true},
		{Policy: "a", Property: Regret, Kind: "new claim", Detail: "holds"}})
	if want := "\nbaseline b.json: 1 change(s):\n✗ a envy-free: new violation: x\n  a regret: new claim: holds\n"; out.String() != want {
		t.Errorf("PrintChanges:\n%q\nwant\n%q", out.String(), want)
	}
	out.Reset()
	PrintChanges(&out, "b.json", nil)
	if want := "\nbaseline b.json: no change in any claim's verdict\n"; out.String() != want {
		t.Errorf("PrintChanges without changes: %q", out.String())
	}
}
