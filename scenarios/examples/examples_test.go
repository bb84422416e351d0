package examples_test

import (
	"fmt"
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
	t.Parallel()
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

// The prototype trace's derivation, pinned: 61 jobs submitted within 600 s,
// run times from 23.5 s (job 85: 111 iterations of 212 ms) to 6,402.3 s
// (job 281: 6,690 × 957 ms), 50.91 GPU-hours in all, gangs 1–32.
func TestPrototypeTrace(t *testing.T) {
	t.Parallel()
	data := must(examples.Read("sjfbsbf-prototype.trace.csv"))
	var rows [][]string
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if !strings.HasPrefix(l, "#") {
			rows = append(rows, strings.Split(l, ","))
		}
	}
	if strings.Join(rows[0], ",") != "arrival_seconds,job_type,gang,duration_seconds,memory_gb" || len(rows) != 62 {
		t.Fatalf("header %v, %d rows", rows[0], len(rows)-1)
	}
	lo, hi, gpuH, last, maxGang := 1e9, 0.0, 0.0, 0.0, 0
	for _, r := range rows[1:] {
		var at, d float64
		var g int
		fmt.Sscan(r[0], &at)
		fmt.Sscan(r[2], &g)
		fmt.Sscan(r[3], &d)
		lo, hi, last, maxGang = min(lo, d), max(hi, d), max(last, at), max(maxGang, g)
		gpuH += float64(g) * d / 3600
	}
	if lo != 23.532 || hi != 6402.33 || last != 600 || maxGang != 32 || gpuH < 50.9 || gpuH > 50.92 {
		t.Errorf("durations %v–%v s, last arrival %v s, largest gang %d, %.3f GPU-hours", lo, hi, last, maxGang, gpuH)
	}
}
