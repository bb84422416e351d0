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
	peakRSS        uint64
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

// runWorkload starts argv, reads its protocol lines, feeds the steady-state
// tracker and stops the workload as soon as the measurement is complete.
// It never returns an error: every failure is an outcome with its reason
// and the workload's stderr tail. The process group is always killed
// before it returns.
func runWorkload(ctx context.Context, argv, env []string, spec *Spec, started time.Time, progress func(stepEvent)) outcome {
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

	tr := NewSteady(spec)
	recv := []time.Time{started} // recv[k]: when step k's line arrived; recv[0]: the start line
	hard := time.NewTimer(seconds(spec.TimeoutSeconds))
	defer hard.Stop()
	idle := time.NewTimer(seconds(spec.StartTimeoutSeconds))
	defer idle.Stop()
	lineNo := 0
	done := false
	var exitErr error
	exitSeen := false

	fail := func(format string, args ...any) {
		out.status = StatusFailed
		out.err = fmt.Errorf(format, args...)
	}
loop:
	for {
		select {
		case <-ctx.Done():
			out.interrupted = true
			fail("interrupted")
			break loop
		case <-hard.C:
			fail("workload timed out after %gs (timeout_seconds) at step %d", spec.TimeoutSeconds, tr.Steps())
			break loop
		case <-idle.C:
			if out.status == StatusDoesNotFit {
				break loop // it reported running out of memory but did not exit
			}
			if tr.Steps() == 0 {
				fail("workload hung: no step within %gs of starting (start_timeout_seconds)", spec.StartTimeoutSeconds)
			} else {
				fail("workload hung: no step for %gs after step %d (stall_seconds)", spec.StallSeconds, tr.Steps())
			}
			break loop
		case err := <-exited:
			exitErr, exitSeen = err, true
			exited = nil // its lines may still be buffered: keep reading until EOF
		case l, ok := <-lines:
			if !ok {
				break loop
			}
			if l.err != nil {
				fail("workload stdout: %v", l.err)
				break loop
			}
			lineNo++
			if out.status == StatusDoesNotFit {
				continue // after "oom", wait for the exit (and its stderr)
			}
			var w wire
			if err := decodeLine(l.text, &w); err != nil {
				fail("workload printed garbage on stdout line %d (%v): %q", lineNo, err, clip(string(l.text), 200))
				break loop
			}
			switch w.Event {
			case "start":
				if tr.Steps() == 0 {
					recv[0] = l.at // the model is built: step 1 starts now
				}
				out.workload.Torch, out.workload.Python = w.Torch, w.Python
				out.workload.Params, out.workload.Devices = w.Params, w.Devices
			case "step":
				if w.Step != tr.Steps()+1 || !(w.Time > 0) || math.IsInf(w.Time, 0) || !(w.Samples > 0) {
					fail("workload printed garbage on stdout line %d: step %d with time %v and samples %v after step %d: %q",
						lineNo, w.Step, w.Time, w.Samples, tr.Steps(), clip(string(l.text), 200))
					break loop
				}
				recv = append(recv, l.at)
				out.samplesPerStep = w.Samples
				out.peakMem = max(out.peakMem, w.MemBytes)
				out.peakRSS = max(out.peakRSS, w.RSSBytes)
				ph := tr.Add(w.Time)
				if progress != nil {
					progress(stepEvent{Step: w.Step, Phase: ph})
				}
				idle.Reset(seconds(spec.StallSeconds))
				if ph == Done {
					done = true
					break loop
				}
			case "done":
				if tr.Finish() {
					done = true
				} else {
					fail("workload finished its %d steps before a measurement: raise steps (it has warmup_steps %d + window %d at least)",
						tr.Steps(), spec.WarmupSteps, spec.Window)
				}
				break loop
			case "oom":
				out.status = StatusDoesNotFit
				out.oom = fmt.Sprintf("step %d, worker %d: %s", w.Step, w.Rank, w.Message)
				idle.Reset(stopGrace)
			default:
				fail("workload printed an unknown event %q on stdout line %d", w.Event, lineNo)
				break loop
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
	out.stepsRun = tr.Steps()

	switch {
	case out.status == StatusDoesNotFit:
	case out.status == StatusFailed:
	case done:
		out.status = StatusOK
		out.stats = tr.Result()
		n := out.stats.N
		last := len(recv) - 1
		out.from, out.to = int64(recv[last-n].Sub(started)), int64(recv[last].Sub(started))
		out.measuredSamp = float64(n) * out.samplesPerStep
	case out.exitCode != nil && *out.exitCode == ExitOOM:
		out.status = StatusDoesNotFit
		out.oom = fmt.Sprintf("exit status %d (out of memory) at step %d", ExitOOM, tr.Steps())
	default:
		why := "exited"
		if exitErr != nil {
			why = exitErr.Error()
		}
		fail("workload ended (%s) after %d steps without a measurement", why, tr.Steps())
	}
	return out
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
