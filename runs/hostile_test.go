package runs

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fairbench/scenarios"
	"fairbench/sim"
)

// shardReference is the plain greedy assignment Shard computes with a
// heap: runs by descending cost (ties by ID) each to the least-loaded
// shard, ties to the lowest index.
func shardReference(costs []float64, ids []string, n int) []int {
	order := make([]int, len(costs))
	for k := range order {
		order[k] = k
	}
	for a := 1; a < len(order); a++ { // insertion sort: small inputs
		for b := a; b > 0; b-- {
			x, y := order[b-1], order[b]
			if costs[x] > costs[y] || costs[x] == costs[y] && ids[x] < ids[y] {
				break
			}
			order[b-1], order[b] = y, x
		}
	}
	load := make([]float64, n)
	owner := make([]int, len(costs))
	for _, k := range order {
		best := 0
		for s := 1; s < n; s++ {
			if load[s] < load[best] {
				best = s
			}
		}
		owner[k] = best
		load[best] += costs[k]
	}
	return owner
}

// TestShardMatchesTheGreedyReference: on random grids (costs 1…5 so ties
// happen) and shard counts up to twice the runs, Shard puts every run where
// the quadratic greedy loop does.
func TestShardMatchesTheGreedyReference(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		m := 1 + r.IntN(30)
		runs := make([]scenarios.Run, m)
		costs := make([]float64, m)
		ids := make([]string, m)
		for k := range runs {
			costs[k] = float64(1 + r.IntN(5))
			ids[k] = string(rune('a'+k%26)) + string(rune('a'+k/26))
			runs[k] = scenarios.Run{ID: ids[k]}
			runs[k].Spec.Workload.Jobs = int(costs[k])
		}
		n := 1 + r.IntN(2*m)
		want := shardReference(costs, ids, n)
		index := map[string]int{}
		for k, id := range ids {
			index[id] = k
		}
		for i := 0; i < n; i++ {
			for _, run := range Shard(runs, i, n) {
				if k := index[run.ID]; want[k] != i {
					t.Fatalf("trial %d: run %s in shard %d, want %d", trial, run.ID, i, want[k])
				}
			}
		}
	}
}

// TestHugeShardCountIsRefusedOrCheap: N beyond MaxShards is refused; N up
// to it costs O(runs log N), not O(runs · N).
func TestHugeShardCountIsRefusedOrCheap(t *testing.T) {
	t.Parallel()
	if _, _, err := ParseShard("0/100000000000"); err == nil || !strings.Contains(err.Error(), "at most 100000") {
		t.Errorf("got %v, want N refused", err)
	}
	runs := sweep(t)
	if got := Shard(runs, MaxShards-1, MaxShards); len(got) != 0 {
		t.Errorf("shard %d of %d has %d runs, want 0", MaxShards-1, MaxShards, len(got))
	}
}

// FuzzShard: any --shard text is refused or parses to 0 ≤ I < N ≤
// MaxShards, and for N ≤ 64 the shards partition a small grid.
func FuzzShard(f *testing.F) {
	for _, s := range []string{"0/4", "3/4", "0/100000000000", "-1/2", "1/0", " 1 / 2 ", "9223372036854775807/9223372036854775807"} {
		f.Add(s)
	}
	runs := make([]scenarios.Run, 10)
	for k := range runs {
		runs[k] = scenarios.Run{ID: string(rune('a' + k))}
		runs[k].Spec.Workload.Jobs = 1 + k%3
	}
	f.Fuzz(func(t *testing.T, s string) {
		i, n, err := ParseShard(s)
		if err != nil {
			return
		}
		if i < 0 || i >= n || n > MaxShards {
			t.Fatalf("%q parsed to %d/%d", s, i, n)
		}
		if n > 64 {
			return
		}
		seen := map[string]int{}
		for k := 0; k < n; k++ {
			for _, r := range Shard(runs, k, n) {
				seen[r.ID]++
			}
		}
		if len(seen) != len(runs) {
			t.Fatalf("%d of %d runs in the shards", len(seen), len(runs))
		}
	})
}

// twoCopies runs the first run of small.yaml into two folders and returns
// them with the run's ID.
func twoCopies(t *testing.T) (a, b, id string) {
	t.Helper()
	g, err := scenarios.Load("testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	a, b = t.TempDir(), t.TempDir()
	for _, d := range []string{a, b} {
		if _, err := Grid(g.Runs[:1], d, options(), GridOptions{Workers: 1}); err != nil {
			t.Fatal(err)
		}
	}
	return a, b, g.Runs[0].ID
}

// TestMergeComparesEveryFile: a run whose jobs CSV or event log differs
// between two folders is refused in either argument order, naming both
// files; an event log only one copy has is kept in either order.
func TestMergeComparesEveryFile(t *testing.T) {
	t.Parallel()
	for _, ext := range []string{".jobs.csv", ".events.jsonl"} {
		a, b, id := twoCopies(t)
		p := filepath.Join(b, id+ext)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		// Same length, so the per-job file still has one row per job.
		i := bytes.LastIndexAny(data, "0123456789")
		data[i] = '0' + (data[i]-'0'+1)%10
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, order := range [][]string{{a, b}, {b, a}} {
			dst := filepath.Join(t.TempDir(), "m")
			_, err := Merge(dst, order)
			if err == nil || !strings.Contains(err.Error(), filepath.Join(a, id+ext)) || !strings.Contains(err.Error(), filepath.Join(b, id+ext)) {
				t.Errorf("%s changed, merge %v: got %v, want both files named", ext, order, err)
			}
			if _, err := os.Stat(dst); !os.IsNotExist(err) {
				t.Errorf("refused merge left %s", dst)
			}
		}
	}
	a, b, id := twoCopies(t)
	if err := os.Remove(filepath.Join(b, id+".events.jsonl")); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(filepath.Join(a, id+".events.jsonl"))
	for _, order := range [][]string{{a, b}, {b, a}} {
		dst := filepath.Join(t.TempDir(), "m")
		if _, err := Merge(dst, order); err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(filepath.Join(dst, id+".events.jsonl")); err != nil || !bytes.Equal(got, want) {
			t.Errorf("merge %v: event log %v, want the one copy kept", order, err)
		}
	}
}

// TestUnencodableRunLeavesNothing: a result the record cannot encode (a
// NaN metric) fails the write before any file of the run exists.
func TestUnencodableRunLeavesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := &Outcome{Record: &Record{ID: "abc", Result: &sim.Result{Summary: sim.Summary{MeanRho: math.NaN()}}}}
	if err := Write(dir, out); err == nil {
		t.Fatal("a NaN result was written")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("%d files left by a failed write, want none", len(ents))
	}
}

// TestGridStopsWhenCancelled: a cancelled grid starts nothing, writes no
// run and says why.
func TestGridStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	runs := sweep(t)[:4]
	dir := t.TempDir()
	stop := errors.New("interrupted by test")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(stop)
	if _, err := GridContext(ctx, runs, dir, options(), GridOptions{Workers: 2}); !errors.Is(err, stop) {
		t.Fatalf("got %v, want the cancellation cause", err)
	}
	for _, r := range runs {
		if _, err := os.Stat(filepath.Join(dir, r.ID+".jobs.csv")); !os.IsNotExist(err) {
			t.Errorf("run %s wrote its jobs file after the grid was cancelled", r.ID)
		}
	}
}
