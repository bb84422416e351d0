package gavel_test

import (
	"strings"
	"testing"

	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/gavel"
	"fairbench/solvers/lp"
)

func TestOptions(t *testing.T) {
	for _, tc := range []struct {
		policy string
		opts   map[string]any
		want   string // substring of the error; "" for none
	}{
		{"gavel-las", map[string]any{"nonsense": 1}, "nonsense"},
		{"gavel-las", map[string]any{"backend": "gurobi"}, `backend must be "auto", "coin" or "pure", got "gurobi"`},
		{"gavel-las", map[string]any{"backend": "pure", "time_limit": "2s", "aggregate": false}, ""},
		{"gavel-las", map[string]any{"time_limit": "-1s"}, "time_limit must not be negative"},
		{"gavel-las", map[string]any{"time_limit": 0}, ""},
		{"gavel-las", map[string]any{"normaliser": "equal"}, `normaliser must be "proportional" or "equal-share"`},
		{"gavel-las-agnostic", map[string]any{"normaliser": "equal-share"}, ""},
		{"gavel-las-ss", map[string]any{"tolerance": 0.1}, "tolerance"},
		{"gavel-ftf", map[string]any{"tolerance": 0}, "tolerance must lie in (0, 1)"},
		{"gavel-ftf", map[string]any{"tolerance": "0.01", "max_bisections": 5}, ""},
		{"gavel-ftf", map[string]any{"max_bisections": 0}, "max_bisections must be at least 1"},
		{"gavel-ftf", map[string]any{"normaliser": "proportional"}, "normaliser"},
		{"gavel-makespan", map[string]any{"normaliser": "proportional"}, "normaliser"},
		{"gavel-max-throughput", map[string]any{"aggregate": "false"}, ""},
		{"gavel-hierarchical", map[string]any{"slack": 2}, "slack must lie in (0, 1)"},
		{"gavel-hierarchical", map[string]any{"slack": 0.01, "normaliser": "equal-share"}, ""},
	} {
		var err error
		for _, e := range gavel.Entries() {
			if e.Name == tc.policy {
				_, err = e.New(solvers.Config{Options: tc.opts})
			}
		}
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s %v: %v", tc.policy, tc.opts, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), tc.policy+": options: ")):
			t.Errorf("%s %v: error %v, want one naming the policy and containing %q", tc.policy, tc.opts, err, tc.want)
		}
	}
}

// backend coin is CLP where the build has it, an error where it does not.
func TestBackendOption(t *testing.T) {
	p := build(t, "gavel-las", map[string]any{"backend": "pure"})
	if got := p.(interface{ Backend() string }).Backend(); got != (lp.Pure{}).Name() {
		t.Errorf("backend pure: solving with %s", got)
	}
	_, err := gavel.NewLAS(solvers.Config{Options: map[string]any{"backend": "coin"}})
	if coin := lp.Default().Name() != (lp.Pure{}).Name(); coin != (err == nil) {
		t.Errorf("backend coin in a build with default %s: error %v", lp.Default().Name(), err)
	}
}

func TestTriggersAndNames(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range gavel.Entries() {
		p, err := e.New(solvers.Config{})
		if err != nil {
			t.Fatal(err)
		}
		if p.Name() != e.Name || e.Summary == "" || seen[e.Name] {
			t.Errorf("entry %q: policy calls itself %q, summary %q", e.Name, p.Name(), e.Summary)
		}
		seen[e.Name] = true
		if got := solvers.TriggersOf(p); got != models.AtRound {
			t.Errorf("%s: triggers %v, want rounds only", e.Name, got)
		}
		a, err := p.Allocate(snap(t, 0, nil, oneV100OneK80))
		if err != nil || a.Fractional() {
			t.Errorf("%s with no job: %v, %v", e.Name, a, err)
		}
	}
	if len(seen) != 8 {
		t.Errorf("%d policies, want 8", len(seen))
	}
}
