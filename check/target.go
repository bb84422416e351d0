package check

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"fairbench/internal/atomicfile"
	"fairbench/internal/input"
	"fairbench/models"
	"fairbench/solvers"
)

// The workflows of `fairbench check`, from what the command line names to
// a verdict: which policy to check with which claims (Target), replaying a
// counterexample file, the matrix's files, and the baseline gate.

// Target is what one check is of, as a command line names it.
type Target struct {
	// Policy is a registered policy's name or exec:CMD (an external
	// policy); for a replay, "" takes the file's own registered policy.
	Policy string
	// Claims override the policy's claims, each PROPERTY or
	// PROPERTY:CONDITION+CONDITION (ParseClaims); nil keeps the registry's
	// (for exec: the replayed file's, else none but feasibility).
	Claims []string
	// Timeout is what an external policy may take per decision.
	Timeout time.Duration
	// Replay is the path of a counterexample file to re-check and
	// Instance its content (runs.ReadInstance); nil when not replaying.
	Replay   string
	Instance *models.Instance
}

// Settle settles a replay's policy: the file's registered policy when the
// target names none. A file never makes the checker run a command: a file
// found on an external policy needs it named in the target.
func (t *Target) Settle() error {
	if t.Instance == nil || t.Policy != "" {
		return nil
	}
	switch in := t.Instance; {
	case in.Policy == "":
		return fmt.Errorf("%s names no policy: give --policy", t.Replay)
	case strings.HasPrefix(in.Policy, ExecPrefix):
		return fmt.Errorf("%s was found on the external policy %q; replay never runs a command read from a file: "+
			"give it with --policy (e.g. --policy '%s') to run it", t.Replay, in.Policy, in.Policy)
	}
	t.Policy = t.Instance.Policy
	return nil
}

// Subject is the settled target as a checker subject: a registered policy
// (with the replayed file's options when the file names the same policy)
// or an external one, with its claims.
func (t *Target) Subject(reg *solvers.Registry) (*Subject, error) {
	var subj *Subject
	if cmd, ok := strings.CutPrefix(t.Policy, ExecPrefix); ok {
		if strings.TrimSpace(cmd) == "" {
			return nil, errors.New("--policy exec: needs a command")
		}
		var claims []models.Claim
		if t.Instance != nil && t.Instance.Check != nil {
			claims = t.Instance.Check.Claims
		}
		subj = NewExternal(cmd, t.Timeout).Subject(claims)
	} else {
		var opts map[string]any
		if t.Instance != nil && t.Instance.Policy == t.Policy {
			opts = t.Instance.Options
		}
		var err error
		if subj, err = SubjectOf(reg, t.Policy, opts); err != nil {
			return nil, err
		}
	}
	if t.Claims != nil {
		claims, err := ParseClaims(t.Claims)
		if err != nil {
			return nil, fmt.Errorf("--claims: %w", err)
		}
		subj.Claims = claims
	}
	return subj, nil
}

// Check checks subj: a replay of the target's file (whose results that do
// not hold name the file as their counterexample), else a full Run.
func (t *Target) Check(subj *Subject, cfg Config) (*Report, error) {
	if t.Instance == nil {
		return Run(subj, cfg)
	}
	rep, err := Replay(subj, t.Instance, cfg)
	if err != nil {
		return nil, err
	}
	for i := range rep.Results {
		if rep.Results[i].Status != Holds {
			rep.Results[i].Counterexample = t.Replay
		}
	}
	return rep, nil
}

// Failure is why a check did not pass, with the exit status a command ends
// with: 1 when a claim is violated (or, against a baseline, a verdict
// changed), 2 when a policy failed so that a property could not be checked.
type Failure struct {
	Status int
	Msg    string
}

func (f *Failure) Error() string { return f.Msg }

// Failure is the report's failure; nil when every claim holds.
func (r *Report) Failure() *Failure {
	switch r.ExitCode() {
	case 1:
		var bad []string
		for _, res := range r.Results {
			if res.Claimed && res.Status == Violated {
				bad = append(bad, res.Property)
			}
		}
		return &Failure{1, fmt.Sprintf("policy %s violates claimed %s", r.Policy, strings.Join(bad, ", "))}
	case 2:
		return &Failure{2, fmt.Sprintf("policy %s failed while being checked (see the errors above)", r.Policy)}
	}
	return nil
}

// Failure is the matrix's failure: without a baseline, a claim violated
// under its conditions or a policy that failed; against base, a change in a
// claim's verdict (changes, from base.Compare). Nil when it passes.
func (m *Matrix) Failure(base *Baseline, changes []Change) *Failure {
	if base == nil {
		switch m.ExitCode() {
		case 1:
			return &Failure{1, "a claimed property is violated under its conditions (see the table above)"}
		case 2:
			return &Failure{2, "a policy failed while being checked (see the table above)"}
		}
		return nil
	}
	failing := Failing(changes)
	for _, c := range failing {
		if c.Kind == "error" {
			return &Failure{2, "a policy failed while being checked: " + c.String()}
		}
	}
	if len(failing) > 0 {
		return &Failure{1, fmt.Sprintf("%d claim verdict(s) changed against the baseline", len(failing))}
	}
	return nil
}

// ReadBaselineFile reads a baseline file (ReadBaseline) of at most
// MaxBaselineBytes — one is a few hundred KB, and a hostile one must not
// exhaust memory; errors name the file.
func ReadBaselineFile(path string) (*Baseline, error) {
	fh, err := input.OpenLimit(path, MaxBaselineBytes)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	b, err := ReadBaseline(fh)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

// WriteFile writes the baseline to path, whole or not at all.
func (b *Baseline) WriteFile(path string) error {
	data, err := b.JSON()
	if err != nil {
		return err
	}
	return atomicfile.Write(path, data)
}

// WriteFiles writes the matrix as dir/check-matrix.json and .csv, each
// whole or not at all, and says so on w as each is written.
func (m *Matrix) WriteFiles(w io.Writer, dir string) error {
	j, err := m.JSON()
	if err != nil {
		return err
	}
	c, err := m.CSV()
	if err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		b    []byte
	}{{"check-matrix.json", j}, {"check-matrix.csv", c}} {
		path := filepath.Join(dir, f.name)
		if err := atomicfile.Write(path, f.b); err != nil {
			return err
		}
		fmt.Fprintln(w, "wrote", path)
	}
	return nil
}

// PrintChanges prints the changes against the baseline file path: how many
// fail the gate, then each, the failing ones marked ✗.
func PrintChanges(w io.Writer, path string, changes []Change) {
	failing := Failing(changes)
	if len(failing) == 0 {
		fmt.Fprintf(w, "\nbaseline %s: no change in any claim's verdict\n", path)
	} else {
		fmt.Fprintf(w, "\nbaseline %s: %d change(s):\n", path, len(failing))
	}
	for _, c := range changes {
		mark := "  "
		if c.Fails {
			mark = "✗ "
		}
		fmt.Fprintln(w, mark+c.String())
	}
}
