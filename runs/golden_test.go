package runs_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fairbench/runs"
	"fairbench/scenarios"
	"fairbench/solvers/registry"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.txt from the current behaviour")

// goldenScenarios are the small scenarios every registered policy is pinned
// on (testdata/golden/*.yaml; each file says what it exercises).
var goldenScenarios = []string{"hetero.yaml", "shared.yaml", "trace.yaml"}

// TestGoldenFingerprints pins every registered policy's outcome on the
// golden scenarios: one line per (scenario, policy) with a SHA-256 of the
// run's result (the simulator's whole Result as canonical JSON: every job's
// times, the series, the policy's report) and a one-line summary a reader
// can compare by eye. A change that moves any outcome shows here as a diff;
// a pure refactor leaves the file unchanged. After an intended change, run
//
//	go test ./runs -run TestGoldenFingerprints -update
//
// and commit testdata/golden.txt with the change that explains it.
//
// The fingerprints are of the default (CLP/CBC) build: the pure-Go LP
// backend may pick another optimum of a degenerate LP.
func TestGoldenFingerprints(t *testing.T) {
	t.Parallel()
	reg := registry.Default()
	var got strings.Builder
	got.WriteString("# scenario policy sha256(result)[:16] | jobs meanJCT_h makespan_h meanRho unfair% util% preempt migrate decisions\n")
	for _, file := range goldenScenarios {
		g, err := scenarios.Load(filepath.Join("testdata", "golden", file))
		if err != nil {
			t.Fatal(err)
		}
		g, err = g.WithPolicies(reg.Names())
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range g.Runs {
			out, err := runs.Execute(r, runs.Options{Registry: reg})
			if err != nil {
				t.Fatalf("%s %s: %v", file, r.Policy, err)
			}
			b, err := json.Marshal(out.Record.Result)
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(b)
			s := out.Record.Result.Summary
			fmt.Fprintf(&got, "%s %s %s | %d %.4f %.4f %.4f %.1f %.1f %d %d %d\n",
				strings.TrimSuffix(file, ".yaml"), r.Policy, hex.EncodeToString(sum[:8]),
				s.Jobs, s.MeanJCT/3600, s.Makespan/3600, s.MeanRho, 100*s.Unfair, 100*s.Utilisation,
				s.Preemptions, s.Migrations, s.Decisions)
		}
	}
	path := filepath.Join("testdata", "golden.txt")
	if *update {
		if err := os.WriteFile(path, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(want, []byte(got.String())) {
		t.Errorf("outcomes moved; diff (- pinned, + now), rerun with -update if intended:\n%s",
			lineDiff(string(want), got.String()))
	}
}

// lineDiff lists the lines of want missing from got (-) and of got missing
// from want (+), in order: enough to see which (scenario, policy) moved.
func lineDiff(want, got string) string {
	in := func(lines []string) map[string]bool {
		m := map[string]bool{}
		for _, l := range lines {
			m[l] = true
		}
		return m
	}
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	inW, inG := in(w), in(g)
	var b strings.Builder
	for _, l := range w {
		if !inG[l] {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range g {
		if !inW[l] {
			b.WriteString("+ " + l + "\n")
		}
	}
	return b.String()
}
