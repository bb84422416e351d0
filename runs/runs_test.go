package runs

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"fairbench/scenarios"
	"fairbench/solvers/registry"
)

func options() Options {
	return Options{Registry: registry.Default(), Version: "test", Backend: "test", Events: true}
}

func readDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = b
	}
	return files
}

// TestGridIsByteIdentical: the same grid run twice, once on one worker and
// once on four, gives byte-identical result files.
func TestGridIsByteIdentical(t *testing.T) {
	t.Parallel()
	g, err := scenarios.Load("testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Runs) != 4 { // 2 seeds × 2 policies
		t.Fatalf("%d runs, want 4", len(g.Runs))
	}
	a, b := t.TempDir(), t.TempDir()
	if _, err := Grid(g.Runs, a, options(), GridOptions{Workers: 1}); err != nil {
		t.Fatal(err)
	}
	recs, err := Grid(g.Runs, b, options(), GridOptions{Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	fa, fb := readDir(t, a), readDir(t, b)
	// Per run: record, jobs CSV, event log; plus the grid's manifest.
	if len(fa) != 13 || len(fb) != 13 {
		t.Fatalf("%d and %d files, want 13", len(fa), len(fb))
	}
	for name, data := range fa {
		if !bytes.Equal(data, fb[name]) {
			t.Errorf("%s differs between the two runs", name)
		}
	}
	for _, r := range recs {
		back, err := ReadRecord(filepath.Join(a, r.ID+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if back.Result.Summary != r.Result.Summary || back.Policy != r.Policy {
			t.Errorf("run %s: record read back differs", r.ID)
		}
	}
}

// TestFailedRunLeavesNothing: a run whose policy does not exist fails and
// writes no file, while the good run beside it completes.
func TestFailedRunLeavesNothing(t *testing.T) {
	t.Parallel()
	g, err := scenarios.Load("testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	runs := g.Runs[:2]
	runs[1].Policy = "no-such-policy"
	dir := t.TempDir()
	recs, err := Grid(runs, dir, options(), GridOptions{Workers: 2})
	if err == nil || !strings.Contains(err.Error(), `unknown policy "no-such-policy"`) {
		t.Fatalf("got %v, want the unknown policy named", err)
	}
	if len(recs) != 1 {
		t.Fatalf("%d records, want 1", len(recs))
	}
	var names []string
	for n := range readDir(t, dir) {
		names = append(names, n)
	}
	sort.Strings(names)
	want := []string{runs[0].ID + ".events.jsonl", runs[0].ID + ".jobs.csv", runs[0].ID + ".json", ManifestName(GridID(runs))}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("files %v, want %v (nothing from the failed run, no temporary files)", names, want)
	}
}

// TestSolve: srtf on two jobs. Remaining times at the best throughput:
// job 1 1000/4 = 250 s, job 2 100/3 ≈ 33 s → job 2 first, on V100 (3 > 2),
// taking 2 of the 4 V100s; job 1 (gang 4) no longer fits on V100 and goes
// to the K80s at 1 step/s.
func TestSolve(t *testing.T) {
	t.Parallel()
	d, err := Solve("testdata/instance.json", "srtf", registry.Default(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Allocation.Run) != 2 || d.Allocation.Run[0].Job != 2 || d.Allocation.Run[0].Type != "V100" ||
		d.Allocation.Run[1].Job != 1 || d.Allocation.Run[1].Type != "K80" {
		t.Fatalf("allocation %+v, want job 2 on V100 then job 1 on K80", d.Allocation.Run)
	}
	if d.Throughput[2] != 3 || d.Throughput[1] != 1 {
		t.Errorf("throughputs %v, want 2→3, 1→1", d.Throughput)
	}
}

func TestSolveRefusesBadInstances(t *testing.T) {
	t.Parallel()
	cases := []struct{ path, policy, want string }{
		{"testdata/bad_instance.json", "fifo", "testdata/bad_instance.json: line 5"},
		{"testdata/instance.json", "nope", `unknown policy "nope"`},
		{"testdata/instance.json", "", "no policy given"},
		{"testdata/missing.json", "fifo", "no such file"},
	}
	for _, c := range cases {
		if _, err := Solve(c.path, c.policy, registry.Default(), 0); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s/%s: got %v, want %q", c.path, c.policy, err, c.want)
		}
	}
}
