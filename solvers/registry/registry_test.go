package registry_test

import (
	"reflect"
	"strings"
	"testing"

	"fairbench/solvers"
	"fairbench/solvers/registry"
)

// TestDefault builds every registered policy: each has a summary and calls
// itself by its registered name. The baselines (fifo, isolated, sjf, srtf,
// tiresias) must be there.
func TestDefault(t *testing.T) {
	t.Parallel()
	r := registry.Default()
	for _, n := range []string{"fifo", "static-partition", "sjf", "srtf", "tiresias"} {
		if _, ok := r.Lookup(n); !ok {
			t.Errorf("%s is not registered (have %v)", n, r.Names())
		}
	}
	for _, n := range r.Names() {
		e, ok := r.Lookup(n)
		if !ok {
			t.Fatalf("%s is not registered (have %v)", n, r.Names())
		}
		if e.Summary == "" {
			t.Errorf("%s has no summary", n)
		}
		p, err := r.New(n, solvers.Config{})
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if p.Name() != n {
			t.Errorf("policy registered as %q calls itself %q", n, p.Name())
		}
	}
	if _, err := r.New("fifo", solvers.Config{Options: map[string]any{"nonsense": 1}}); err == nil ||
		!strings.Contains(err.Error(), "fifo") {
		t.Errorf("bad option error = %v, want one naming the policy", err)
	}
	if _, err := r.New("no-such-policy", solvers.Config{}); err == nil {
		t.Error("unknown policy accepted")
	}
	// Each call builds a fresh registry: stateful policies never leak across runs.
	if !reflect.DeepEqual(registry.Default().Names(), r.Names()) {
		t.Error("Default is not deterministic")
	}
}

// The Gavel family (Narayanan et al., OSDI 2020) is registered under its
// names.
func TestGavelRegistered(t *testing.T) {
	t.Parallel()
	r := registry.Default()
	for _, n := range []string{"gavel-las", "gavel-las-agnostic", "gavel-ftf", "gavel-makespan",
		"gavel-max-throughput", "gavel-hierarchical", "gavel-las-ss"} {
		if _, ok := r.Lookup(n); !ok {
			t.Errorf("%s is not registered (have %v)", n, r.Names())
		}
	}
}
