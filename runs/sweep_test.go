package runs

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fairbench/scenarios"
)

func sweep(t *testing.T) []scenarios.Run {
	t.Helper()
	g, err := scenarios.Load("testdata/sweep.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Runs) != 24 {
		t.Fatalf("%d runs, want 24", len(g.Runs))
	}
	return g.Runs
}

// TestShardsCoverEveryRunOnce: for N = 1…16 the shards partition the grid,
// and with costs 10 and 30 the shards' work differs by at most one run's
// cost (greedy largest-first onto the least-loaded shard).
func TestShardsCoverEveryRunOnce(t *testing.T) {
	t.Parallel()
	runs := sweep(t)
	for n := 1; n <= 16; n++ {
		seen := map[string]int{}
		lo, hi := 1e18, 0.0
		for i := 0; i < n; i++ {
			work := 0.0
			for _, r := range Shard(runs, i, n) {
				seen[r.ID]++
				work += Cost(r)
			}
			lo, hi = min(lo, work), max(hi, work)
		}
		if len(seen) != len(runs) {
			t.Errorf("N=%d: %d distinct runs in the shards, want %d", n, len(seen), len(runs))
		}
		for id, k := range seen {
			if k != 1 {
				t.Errorf("N=%d: run %s in %d shards", n, id, k)
			}
		}
		if n <= len(runs) && hi-lo > 30 {
			t.Errorf("N=%d: shard work from %v to %v, want a spread of at most one run (30)", n, lo, hi)
		}
	}
}

func TestParseShard(t *testing.T) {
	t.Parallel()
	if i, n, err := ParseShard("2/4"); err != nil || i != 2 || n != 4 {
		t.Errorf("2/4: %d %d %v", i, n, err)
	}
	for _, bad := range []string{"4/4", "-1/2", "1", "a/b", "0/0"} {
		if _, _, err := ParseShard(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestShardedMergeIsByteIdentical: the grid run as 4 shards into 4 folders
// and merged gives the same files, byte for byte, as one run of the whole
// grid.
func TestShardedMergeIsByteIdentical(t *testing.T) {
	t.Parallel()
	runs := sweep(t)
	o := options()
	whole := t.TempDir()
	if _, err := Grid(runs, whole, o, GridOptions{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	var parts []string
	for i := 0; i < 4; i++ {
		d := t.TempDir()
		if _, err := Grid(Shard(runs, i, 4), d, o, GridOptions{Workers: 1, Whole: runs}); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, d)
	}
	merged := filepath.Join(t.TempDir(), "merged")
	rep, err := Merge(merged, parts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Runs != 24 || len(rep.Missing) != 0 {
		t.Errorf("report %+v, want 24 runs and none missing", rep)
	}
	a, b := readDir(t, whole), readDir(t, merged)
	if len(a) != len(b) {
		t.Fatalf("%d files in one run, %d merged", len(a), len(b))
	}
	for name, data := range a {
		if !bytes.Equal(data, b[name]) {
			t.Errorf("%s differs", name)
		}
	}
}

// TestMergeReportsMissingAndRefusesConflicts.
func TestMergeReportsMissingAndRefusesConflicts(t *testing.T) {
	t.Parallel()
	runs := sweep(t)[:4]
	o := options()
	a, b := t.TempDir(), t.TempDir()
	if _, err := Grid(runs[:3], a, o, GridOptions{Workers: 2, Whole: runs}); err != nil {
		t.Fatal(err)
	}
	rep, err := Merge(filepath.Join(t.TempDir(), "m"), []string{a})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Missing) != 1 || !strings.HasPrefix(rep.Missing[0], runs[3].ID) {
		t.Errorf("missing %v, want run %s", rep.Missing, runs[3].ID)
	}
	// The same run with different content in two folders is refused.
	if _, err := Grid(runs[:1], b, o, GridOptions{Workers: 1, Whole: runs}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(b, runs[0].ID+".json")
	data, _ := os.ReadFile(path)
	if err := os.WriteFile(path, bytes.Replace(data, []byte(`"fairbench": "test"`), []byte(`"fairbench": "other"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "m")
	if _, err := Merge(dst, []string{a, b}); err == nil || !strings.Contains(err.Error(), ".json differ (the same run must have the same files") {
		t.Errorf("conflict: got %v", err)
	}
	if _, err := os.Stat(dst); !os.IsNotExist(err) {
		t.Errorf("a refused merge left %s behind", dst)
	}
}

// TestResumeSkipsCompleteRuns: a second pass computes nothing; a damaged
// result (a truncated jobs CSV) is recomputed; --force recomputes all.
func TestResumeSkipsCompleteRuns(t *testing.T) {
	t.Parallel()
	runs := sweep(t)[:6]
	dir := t.TempDir()
	o := options()
	count := func(g GridOptions) (executed int) {
		g.Progress = func(_, _ int, _ scenarios.Run, skipped bool, err error) {
			if err != nil {
				t.Fatal(err)
			}
			if !skipped {
				executed++
			}
		}
		if _, err := Grid(runs, dir, o, g); err != nil {
			t.Fatal(err)
		}
		return executed
	}
	if n := count(GridOptions{Workers: 2}); n != 6 {
		t.Fatalf("first pass executed %d, want 6", n)
	}
	before := readDir(t, dir)
	if n := count(GridOptions{Workers: 2}); n != 0 {
		t.Errorf("second pass executed %d, want 0", n)
	}
	csv := filepath.Join(dir, runs[2].ID+".jobs.csv")
	if err := os.WriteFile(csv, before[runs[2].ID+".jobs.csv"][:20], 0o644); err != nil {
		t.Fatal(err)
	}
	if n := count(GridOptions{Workers: 2}); n != 1 {
		t.Errorf("after damaging one run executed %d, want 1", n)
	}
	for name, data := range readDir(t, dir) {
		if !bytes.Equal(data, before[name]) {
			t.Errorf("%s differs after the resume", name)
		}
	}
	if n := count(GridOptions{Workers: 2, Force: true}); n != 6 {
		t.Errorf("forced pass executed %d, want 6", n)
	}
}
