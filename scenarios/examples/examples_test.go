package examples_test

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"fairbench/scenarios"
	"fairbench/scenarios/examples"
)

// Every preset loads, and every run of it builds (its trace is valid and
// its jobs are runnable or, where the preset says so, skipped).
func TestPresetsLoad(t *testing.T) {
	names, err := fs.Glob(examples.Files, "*.yaml")
	if err != nil || len(names) == 0 {
		t.Fatalf("%v %v", names, err)
	}
	for _, n := range names {
		g, err := scenarios.Load(filepath.Join(".", n))
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		r := g.Runs[0]
		if _, err := r.Spec.Build(r.Seed); err != nil {
			t.Errorf("%s: %v", n, err)
		}
		if !strings.HasPrefix(string(must(examples.Read(n))), "#") {
			t.Errorf("%s: a preset starts with the comment that explains it", n)
		}
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
