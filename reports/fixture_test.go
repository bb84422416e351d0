package reports

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"fairbench/runs"
	"fairbench/scenarios"
	"fairbench/solvers/registry"
)

// fixturePolicies are the fixture's policies: two baselines and, when this
// build registers it, gandiva-fair (which records trades).
var fixturePolicies = []string{"fifo", "srtf", "gandiva-fair"}

var fixture struct {
	once     sync.Once
	dir      string
	policies []string
	err      error
}

// fixtureDir runs testdata/tiny.yaml (2 arrival rates × 2 seeds × the
// registered fixturePolicies, with solver timings) once per test binary and
// returns its result folder.
func fixtureDir(t *testing.T) (string, []string) {
	t.Helper()
	fixture.once.Do(func() {
		fixture.dir, fixture.policies, fixture.err = makeFixture()
	})
	if fixture.err != nil {
		t.Fatal(fixture.err)
	}
	return fixture.dir, fixture.policies
}

func makeFixture() (string, []string, error) {
	dir, err := os.MkdirTemp("", "fairbench-reports-fixture-")
	if err != nil {
		return "", nil, err
	}
	reg := registry.Default()
	var pols []string
	for _, p := range fixturePolicies {
		if _, ok := reg.Lookup(p); ok {
			pols = append(pols, p)
		}
	}
	g, err := scenarios.Load("testdata/tiny.yaml")
	if err != nil {
		return "", nil, err
	}
	if g, err = g.WithPolicies(pols); err != nil {
		return "", nil, err
	}
	start := time.Now()
	o := runs.Options{Registry: reg, Version: "test", Backend: "test", Clock: func() time.Duration { return time.Since(start) }}
	if _, err := runs.Grid(g.Runs, dir, o, runs.GridOptions{Workers: 2}); err != nil {
		return "", nil, fmt.Errorf("fixture: %w", err)
	}
	return dir, pols, nil
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fixture.dir != "" {
		os.RemoveAll(fixture.dir)
	}
	os.Exit(code)
}

// copyDir copies the regular files of src into a new temporary folder.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}
