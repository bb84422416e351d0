package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"fairbench/reports"
	"fairbench/runs"
)

// stopBound is how long a command may take to stop after SIGINT or SIGTERM
// (docs/limits.md: Ctrl-C and SIGTERM "stop any command within 2 s").
const stopBound = 2 * time.Second

// stop is how a command stopped after a signal: the time on the clock from
// the signal to its exit, and the CPU time the command itself spent in it.
type stop struct {
	wall, cpu time.Duration
}

// late reports whether the command took longer than stopBound to stop. On
// an idle machine the clock decides. On a loaded one (the test suite's
// packages and other work share the cores) the clock also counts the time
// the command waited for a core, so a stop of up to 5 × stopBound on the
// clock is late only if the command's own work after the signal (its CPU
// time, all threads) exceeded stopBound.
func (s stop) late() bool {
	if s.wall <= stopBound {
		return false
	}
	return s.wall > 5*stopBound || s.cpu > stopBound
}

func (s stop) String() string {
	return fmt.Sprintf("%v (%v of CPU)", s.wall.Round(time.Millisecond), s.cpu.Round(time.Millisecond))
}

// cpuTime is the CPU time (user and system) process pid has used so far,
// from /proc/PID/stat (fields 14 and 15, in the kernel's fixed 100 ticks a
// second); 0 where it cannot be read.
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	var ticks int64
	for _, s := range f[11:13] { // fields 14 and 15, counted from field 3
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0
		}
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}

// longGrid is a grid that runs for minutes: enough that a signal always
// lands in the middle of it.
const longGrid = `name: long
seed: [0, 1, 2, 3]
cluster:
  servers:
    - {type: V100, count: 4, gpus_per_server: 4}
    - {type: K80, count: 4, gpus_per_server: 4}
user_count: 4
policies: [%s]
workload: {jobs: 3000, arrival_rate_per_hour: 30}
`

// syncBuffer is a bytes.Buffer the test reads while the command writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// interrupt starts fairbench args in dir, waits until ready(output) (at
// most a minute), then after, sends sig, and returns the exit status, how
// it stopped, and the output.
func interrupt(t *testing.T, dir string, sig syscall.Signal, after time.Duration, ready func(string) bool, args ...string) (int, stop, string) {
	t.Helper()
	cmd := exec.Command(fairbenchBinary(t), args...)
	cmd.Dir = dir
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for !ready(out.String()) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(after)
	sent, used := time.Now(), cpuTime(cmd.Process.Pid)
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
		return -1, stop{wall: 10 * time.Second, cpu: 10 * time.Second}, out.String()
	}
	wall := time.Since(sent)
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime() - used
	return cmd.ProcessState.ExitCode(), stop{wall: wall, cpu: cpu}, out.String()
}

// checkClean fails on any temporary file or folder under root, and on a
// run record in dir whose run is not complete.
func checkClean(t *testing.T, root, dir string) {
	t.Helper()
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err == nil && strings.Contains(filepath.Base(p), ".tmp") {
			t.Errorf("left behind: %s", p)
		}
		return nil
	})
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		n := e.Name()
		if strings.HasSuffix(n, ".json") && !strings.HasPrefix(n, "manifest-") {
			if _, ok := runs.Complete(dir, strings.TrimSuffix(n, ".json")); !ok {
				t.Errorf("%s: an incomplete run", n)
			}
		}
		if id, ok := strings.CutSuffix(n, ".jobs.csv"); ok {
			if _, err := os.Stat(filepath.Join(dir, id+".json")); err != nil {
				t.Errorf("%s without its record: a half-written run", n)
			}
		}
	}
}

// wantStopped checks that a command stopped by sig exited with 128+sig
// within stopBound.
func wantStopped(t *testing.T, sig syscall.Signal, code int, took stop, text string) {
	t.Helper()
	if code != 128+int(sig) || took.late() {
		t.Errorf("%v: exit status %d after %v, want %d within %v\n%s", sig, code, took, 128+int(sig), stopBound, clipText(text))
	}
}

func hasManifest(dir string) func(string) bool {
	return func(string) bool {
		m, _ := filepath.Glob(filepath.Join(dir, "manifest-*.json"))
		return len(m) > 0
	}
}

// TestSignalStopsAGrid sends SIGINT and SIGTERM to grids in the middle of
// their runs (a cheap policy, and an LP policy in the middle of its
// solves): each stops within stopBound with status 128+signal, and its
// folder holds complete runs only, no temporary file.
func TestSignalStopsAGrid(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the built binary")
	}
	for _, c := range []struct {
		policies string
		sig      syscall.Signal
	}{
		{"fifo, tiresias", syscall.SIGINT},
		{"fifo, tiresias", syscall.SIGTERM},
		{"gavel-las", syscall.SIGTERM},
		{"gavel-las", syscall.SIGINT},
		{"fft-exact", syscall.SIGINT}, // CBC's MIPs: its solver installs its own SIGINT handler
		{"gavel-las-ss", syscall.SIGINT},
	} {
		t.Run(fmt.Sprintf("%s/%v", c.policies, c.sig), func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "g.yaml"), []byte(fmt.Sprintf(longGrid, c.policies)), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out")
			code, took, text := interrupt(t, dir, c.sig, 700*time.Millisecond, hasManifest(out), "grid", "g.yaml", "--out", out, "--jobs", "2")
			var problems []string
			if code != 128+int(c.sig) {
				problems = append(problems, fmt.Sprintf("exit status %d, want %d", code, 128+int(c.sig)))
			}
			if took.late() {
				problems = append(problems, fmt.Sprintf("stopped %v after the signal, want within %v", took, stopBound))
			}
			for _, p := range problems {
				t.Errorf("%s\n%s", p, clipText(text))
			}
			checkClean(t, dir, out)
		})
	}
}

// TestSignalStopsAReport interrupts a report while it renders: it stops
// within stopBound, and neither the report folder nor its hidden
// temporary folder is left.
func TestSignalStopsAReport(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the built binary")
	}
	dir := t.TempDir()
	res := filepath.Join(dir, "res")
	if b, err := exec.Command(fairbenchBinary(t), "grid", "../../runs/testdata/sweep.yaml", "--out", res).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		out := filepath.Join(dir, "rep-"+sig.String())
		// Signalled while it renders: once its hidden temporary folder exists.
		rendering := func(string) bool {
			m, _ := filepath.Glob(filepath.Join(dir, ".rep-"+sig.String()+".tmp-*"))
			return len(m) > 0
		}
		code, took, text := interrupt(t, dir, sig, 0, rendering, "report", res, "--out", out)
		wantStopped(t, sig, code, took, text)
		// The report is absent, or whole when it was put in place just
		// before the signal.
		if _, err := os.Stat(out); err == nil {
			for _, f := range []string{reports.ManifestName, "index.html"} {
				if _, err := os.Stat(filepath.Join(out, f)); err != nil {
					t.Errorf("%v: an interrupted report left a partial %s (no %s)", sig, out, f)
				}
			}
		}
		checkClean(t, dir, res)
	}
}

// TestSignalStopsACheck interrupts the checker: it stops within stopBound
// and leaves no temporary file (its matrix files are written whole or
// not at all).
func TestSignalStopsACheck(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the built binary")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	// The property matrix of every policy takes minutes; it is signalled
	// once the checker reports its first property.
	checking := func(output string) bool { return output != "" }
	code, took, text := interrupt(t, dir, syscall.SIGTERM, 300*time.Millisecond, checking,
		"check", "--matrix", "--out", out)
	wantStopped(t, syscall.SIGTERM, code, took, text)
	checkClean(t, dir, out)
}

// TestCPUTimeReadsProc guards late's lenient branch: a cpuTime that read 0
// would let a slow stop pass on a loaded machine. This process spins for
// 300 ms of its own CPU time, which /proc must show (at 10 ms a tick).
func TestCPUTimeReadsProc(t *testing.T) {
	before := cpuTime(os.Getpid())
	start := time.Now()
	x := 0
	for cpuTime(os.Getpid())-before < 300*time.Millisecond && time.Since(start) < 30*time.Second {
		for i := 0; i < 1e6; i++ {
			x += i
		}
	}
	if got := cpuTime(os.Getpid()) - before; got < 300*time.Millisecond || x == 0 {
		t.Errorf("cpuTime grew by %v while the test spun for %v, want at least 300ms", got, time.Since(start))
	}
}
