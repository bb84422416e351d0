package calibrate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// ExitOOM is the workload's exit status for "out of memory".
const ExitOOM = 3

// Status of one entry.
const (
	StatusOK         = "ok"
	StatusDoesNotFit = "does_not_fit" // out of memory: recorded as 0 in the matrix
	StatusFailed     = "failed"       // crash, hang, garbage, timeout: not in the matrix
)

// stopGrace is how long a stopped workload gets between SIGTERM and SIGKILL.
const stopGrace = 3 * time.Second

// stderrTailBytes is how much of the end of the workload's stderr a failure
// report keeps.
const stderrTailBytes = 4096

// wire is one line of the workload protocol (see torch_train.py).
type wire struct {
	Event    string   `json:"event"`
	Step     int      `json:"step"`
	Time     float64  `json:"time"`
	Samples  float64  `json:"samples"`
	Loss     *float64 `json:"loss"`
	MemBytes uint64   `json:"mem_bytes"`
	Reserved uint64   `json:"reserved_bytes"`
	RSSBytes uint64   `json:"rss_bytes"`
	Rank     int      `json:"rank"`
	Message  string   `json:"message"`
	Torch    string   `json:"torch"`
	Python   string   `json:"python"`
	Devices  []string `json:"devices"`
	Params   int64    `json:"params"`
	Steps    int      `json:"steps"`
}

// Workload describes the process that ran: its command and what it said
// about itself.
type Workload struct {
	Argv []string `json:"argv"`
	// ScriptSHA256 identifies the training script that ran (the built-in
	// torch_train.py or the profile's workload).
	ScriptSHA256 string   `json:"script_sha256,omitempty"`
	Env          []string `json:"env,omitempty"` // the variables fairbench set
	Torch        string   `json:"torch,omitempty"`
	Python       string   `json:"python,omitempty"`
	Params       int64    `json:"params,omitempty"`
	Devices      []string `json:"devices,omitempty"`
}

// outcome is what running one workload produced.
type outcome struct {
	status   string
	err      error // why it failed
	exitCode *int
	stderr   string
	workload Workload
	stepsRun int
	stats    StepStats
	// The measured interval, in nanoseconds since the process started, and
	// the training samples processed in it.
	from, to       int64
	samplesPerStep float64
	measuredSamp   float64
	peakMem        uint64
	peakReserved   uint64
	peakRSS        uint64
	endedEarly     bool // paired: it ended before its partner was measured
	oom            string
	interrupted    bool
}

// stepEvent is a progress report from runWorkload.
type stepEvent struct {
	Step  int
	Phase Phase
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimRight(string(t.buf), "\n")
}

type line struct {
	text []byte
	at   time.Time
	err  error // a read error ends the stream
}

// pairing is how runWorkload runs one workload of a co-located pair: once
// its measurement is complete it calls measured (from its own goroutine)
// and keeps the workload running — its steps no longer measured — until
// release is closed, so that it interferes with its partner until the
// partner is measured too.
type pairing struct {
	measured func()
	release  <-chan struct{}
}

// runWorkload starts argv, reads its protocol lines, feeds the steady-state
// tracker and stops the workload as soon as the measurement is complete
// (with pair set: once pair.release is closed after it). It never returns
// an error: every failure is an outcome with its reason and the workload's
// stderr tail. The process group is always killed before it returns.
func runWorkload(ctx context.Context, argv, env []string, spec *Spec, started time.Time, progress func(stepEvent), pair *pairing) outcome {
	out := outcome{workload: Workload{Argv: argv, Env: env}}
	stderr := &tailBuffer{max: stderrTailBytes}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = stderr
	cmd.WaitDelay = stopGrace
	newGroup(cmd)
	pr, pw, err := os.Pipe()
	if err != nil {
		out.status, out.err = StatusFailed, fmt.Errorf("workload: %w", err)
		return out
	}
	cmd.Stdout = pw
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		out.status, out.err = StatusFailed, fmt.Errorf("workload: start %s: %w", argv[0], err)
		return out
	}
	pw.Close() // the child holds the write end now
	pid := cmd.Process.Pid
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	lines := make(chan line)
	quit := make(chan struct{})
	go readLines(pr, lines, quit)

	w := &watch{spec: spec, out: &out, tr: NewSteady(spec), recv: []time.Time{started}, started: started, progress: progress}
	hard := time.NewTimer(seconds(spec.TimeoutSeconds))
	defer hard.Stop()
	w.idle = time.NewTimer(seconds(spec.StartTimeoutSeconds))
	defer w.idle.Stop()
	var release <-chan struct{}
	var exitErr error
	exitSeen := false
loop:
	for {
		select {
		case <-ctx.Done():
			out.interrupted = true
			w.fail("interrupted")
			break loop
		case <-release:
			break loop
		case <-hard.C:
			if !w.done {
				w.fail("workload timed out after %gs (timeout_seconds) at step %d", spec.TimeoutSeconds, w.tr.Steps())
			}
			break loop
		case <-w.idle.C:
			switch {
			case w.done: // measured; its partner's turn
				w.idle.Reset(seconds(spec.StallSeconds))
				continue
			case out.status == StatusDoesNotFit: // it reported running out of memory but did not exit
			case w.tr.Steps() == 0:
				w.fail("workload hung: no step within %gs of starting (start_timeout_seconds)", spec.StartTimeoutSeconds)
			default:
				w.fail("workload hung: no step for %gs after step %d (stall_seconds)", spec.StallSeconds, w.tr.Steps())
			}
			break loop
		case err := <-exited:
			exitErr, exitSeen = err, true
			exited = nil // its lines may still be buffered: keep reading until EOF
		case l, ok := <-lines:
			if !ok {
				out.endedEarly = w.done && pair != nil
				break loop
			}
			if !w.line(l) {
				break loop
			}
			if w.done && release == nil {
				if pair == nil {
					break loop
				}
				pair.measured()
				release = pair.release
			}
		}
	}
	// Stop the whole group (a no-op when it is gone) and collect the exit.
	close(quit)
	if !exitSeen {
		signalGroup(pid, false)
		select {
		case exitErr = <-exited:
		case <-time.After(stopGrace):
			signalGroup(pid, true)
			exitErr = <-exited
		}
	}
	signalGroup(pid, true) // stragglers of a data-parallel gang
	pr.Close()
	out.stderr = stderr.String()
	if ps := cmd.ProcessState; ps != nil {
		c := ps.ExitCode()
		out.exitCode = &c
	}
	out.stepsRun = w.tr.Steps()

	switch {
	case out.status == StatusDoesNotFit:
	case out.status == StatusFailed:
	case w.done:
		out.status = StatusOK
	case out.exitCode != nil && *out.exitCode == ExitOOM:
		out.status = StatusDoesNotFit
		out.oom = fmt.Sprintf("exit status %d (out of memory) at step %d", ExitOOM, w.tr.Steps())
	default:
		why := "exited"
		if exitErr != nil {
			why = exitErr.Error()
		}
		w.fail("workload ended (%s) after %d steps without a measurement", why, w.tr.Steps())
	}
	return out
}

// watch follows one workload's protocol lines.
type watch struct {
	spec     *Spec
	out      *outcome
	tr       *Steady
	recv     []time.Time // recv[k]: when step k's line arrived; recv[0]: the start line
	started  time.Time
	idle     *time.Timer
	progress func(stepEvent)
	lineNo   int
	done     bool // measured
}

func (w *watch) fail(format string, args ...any) {
	w.out.status = StatusFailed
	w.out.err = fmt.Errorf(format, args...)
}

// line handles one line; false ends the loop.
func (w *watch) line(l line) bool {
	out, tr, spec := w.out, w.tr, w.spec
	if l.err != nil {
		if w.done {
			return false
		}
		w.fail("workload stdout: %v", l.err)
		return false
	}
	w.lineNo++
	if out.status == StatusDoesNotFit || w.done {
		return true // after "oom", wait for the exit (and its stderr); after the measurement, wait for the partner
	}
	var wl wire
	if err := decodeLine(l.text, &wl); err != nil {
		w.fail("workload printed garbage on stdout line %d (%v): %q", w.lineNo, err, clip(string(l.text), 200))
		return false
	}
	switch wl.Event {
	case "start":
		if tr.Steps() == 0 {
			w.recv[0] = l.at // the model is built: step 1 starts now
		}
		out.workload.Torch, out.workload.Python = wl.Torch, wl.Python
		out.workload.Params, out.workload.Devices = wl.Params, wl.Devices
	case "step":
		if wl.Step != tr.Steps()+1 || !(wl.Time > 0) || math.IsInf(wl.Time, 0) || !(wl.Samples > 0) || math.IsInf(wl.Samples, 0) {
			w.fail("workload printed garbage on stdout line %d: step %d with time %v and samples %v after step %d: %q",
				w.lineNo, wl.Step, wl.Time, wl.Samples, tr.Steps(), clip(string(l.text), 200))
			return false
		}
		w.recv = append(w.recv, l.at)
		out.samplesPerStep = wl.Samples
		out.peakMem = max(out.peakMem, wl.MemBytes)
		out.peakReserved = max(out.peakReserved, wl.Reserved)
		out.peakRSS = max(out.peakRSS, wl.RSSBytes)
		ph := tr.Add(wl.Time)
		if w.progress != nil {
			w.progress(stepEvent{Step: wl.Step, Phase: ph})
		}
		w.idle.Reset(seconds(spec.StallSeconds))
		if ph == Done {
			w.measure()
		}
	case "done":
		if !tr.Finish() {
			w.fail("workload finished its %d steps before a measurement: raise steps (it has warmup_steps %d + window %d at least)",
				tr.Steps(), spec.WarmupSteps, spec.Window)
			return false
		}
		w.measure()
	case "oom":
		out.status = StatusDoesNotFit
		out.oom = fmt.Sprintf("step %d, worker %d: %s", wl.Step, wl.Rank, wl.Message)
		w.idle.Reset(stopGrace)
	default:
		w.fail("workload printed an unknown event %q on stdout line %d", wl.Event, w.lineNo)
		return false
	}
	return true
}

// measure takes the measurement: the last Result().N steps.
func (w *watch) measure() {
	out := w.out
	w.done = true
	out.stats = w.tr.Result()
	n := out.stats.N
	last := len(w.recv) - 1
	out.from, out.to = int64(w.recv[last-n].Sub(w.started)), int64(w.recv[last].Sub(w.started))
	out.measuredSamp = float64(n) * out.samplesPerStep
}

// readLines sends the lines of r until EOF, a read error, or quit.
func readLines(r *os.File, lines chan<- line, quit <-chan struct{}) {
	defer close(lines)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		select {
		case lines <- line{text: append([]byte(nil), b...), at: time.Now()}:
		case <-quit:
			return
		}
	}
	if err := sc.Err(); err != nil {
		select {
		case lines <- line{err: err, at: time.Now()}:
		case <-quit:
		}
	}
}

// decodeLine parses one protocol line: a JSON object with a string "event".
func decodeLine(b []byte, w *wire) error {
	if len(b) == 0 || b[0] != '{' {
		return errors.New("not a JSON object")
	}
	if err := json.Unmarshal(b, w); err != nil {
		return err
	}
	if w.Event == "" {
		return errors.New(`no "event"`)
	}
	return nil
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
