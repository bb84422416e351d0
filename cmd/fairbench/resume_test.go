package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"fairbench/runs"
	"fairbench/scenarios"
)

// TestMain lets the test binary act as the fairbench command, so that tests
// can run it as a real subprocess (and kill it).
func TestMain(m *testing.M) {
	if os.Getenv("FAIRBENCH_AS_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fairbench starts the CLI as a subprocess.
func fairbench(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "FAIRBENCH_AS_MAIN=1")
	return cmd
}

// results reads the run records and jobs CSVs of dir (not temporaries, not
// timing files).
func results(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if n := e.Name(); !strings.HasPrefix(n, ".") {
			b, err := os.ReadFile(filepath.Join(dir, n))
			if err != nil {
				t.Fatal(err)
			}
			out[n] = b
		}
	}
	return out
}

// TestKilledGridResumes kills a grid subprocess with SIGKILL at a random
// moment after its first result, starts it again, and checks that the second
// run recomputes exactly the runs that had not finished and that the final
// files equal those of an uninterrupted run, byte for byte.
func TestKilledGridResumes(t *testing.T) {
	const grid = "testdata/killgrid.yaml"
	g, err := scenarios.Load(grid)
	if err != nil {
		t.Fatal(err)
	}
	ref, dir := t.TempDir(), t.TempDir()
	if out, err := fairbench("grid", grid, "--out", ref, "--jobs", "2").CombinedOutput(); err != nil {
		t.Fatalf("uninterrupted run: %v\n%s", err, out)
	}

	victim := fairbench("grid", grid, "--out", dir, "--jobs", "1")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if m, _ := filepath.Glob(filepath.Join(dir, "[0-9a-f]*.json")); len(m) > 0 {
			break
		}
	}
	delay := time.Duration(rand.IntN(300)) * time.Millisecond
	time.Sleep(delay)
	_ = victim.Process.Signal(syscall.SIGKILL)
	_ = victim.Wait()
	finished := 0
	for _, r := range g.Runs {
		if _, ok := runs.Complete(dir, r.ID); ok {
			finished++
		}
	}
	t.Logf("killed %v after the first result; %d of %d runs complete", delay, finished, len(g.Runs))

	again := fairbench("grid", grid, "--out", dir, "--jobs", "2")
	var stderr bytes.Buffer
	again.Stderr = &stderr
	if out, err := again.Output(); err != nil {
		t.Fatalf("resumed run: %v\n%s%s", err, out, stderr.String())
	}
	recomputed := strings.Count(stderr.String(), ": ok\n")
	skipped := strings.Count(stderr.String(), "done before, skipped")
	if recomputed != len(g.Runs)-finished || skipped != finished {
		t.Errorf("resume recomputed %d and skipped %d; want %d and %d\n%s", recomputed, skipped, len(g.Runs)-finished, finished, stderr.String())
	}
	want, got := results(t, ref), results(t, dir)
	if len(want) != len(got) {
		t.Errorf("%d files after the resume, %d uninterrupted", len(got), len(want))
	}
	for name, data := range want {
		if !bytes.Equal(data, got[name]) {
			t.Errorf("%s differs from the uninterrupted run", name)
		}
	}
}
