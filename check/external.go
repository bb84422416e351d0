package check

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	"fairbench/models"
	"fairbench/solvers"
)

// ExecPrefix introduces an external policy: `--policy exec:CMD`.
const ExecPrefix = "exec:"

// Protocol is the name and version of the external-policy protocol, sent
// with every request.
const Protocol = "fairbench-policy/1"

// MaxAnswerBytes bounds one answer line of an external policy: a longer
// line is a malformed answer, and the process is killed (an endless line
// must not fill the memory).
const MaxAnswerBytes = 8 << 20

// errLineTooLong is a line over MaxAnswerBytes.
var errLineTooLong = fmt.Errorf("answer line longer than %d bytes", MaxAnswerBytes)

// DefaultExecTimeout is how long an external policy may take to answer one
// request before it counts as hanging.
const DefaultExecTimeout = 10 * time.Second

// ExternalError is a failure of an external policy.
type ExternalError struct {
	Command string
	// Kind is "crash", "hang", "malformed" or "error" (the policy answered
	// with an error).
	Kind   string
	Detail string
	// Stderr is the end of what the process wrote to stderr.
	Stderr string
}

// ErrExternal is matched (errors.Is) by every *ExternalError.
var ErrExternal = errors.New("external policy failed")

func (e *ExternalError) Error() string {
	s := fmt.Sprintf("external policy %q: %s: %s", e.Command, e.Kind, e.Detail)
	if e.Stderr != "" {
		s += "; stderr: " + e.Stderr
	}
	return s
}

// Is makes errors.Is(err, ErrExternal) true.
func (e *ExternalError) Is(target error) bool { return target == ErrExternal }

// External runs one external policy process and talks the protocol with it.
// It is safe for concurrent use; requests are serialised.
type External struct {
	cmd     string
	timeout time.Duration

	mu     sync.Mutex
	proc   *exec.Cmd
	stdin  io.WriteCloser
	lines  chan lineOrErr
	stderr *tail
	exited chan struct{}
	dead   error
	id     int64
	run    int64
}

type lineOrErr struct {
	line []byte
	err  error
}

// NewExternal prepares the external policy cmd (started on first use);
// timeout ≤ 0 means DefaultExecTimeout.
func NewExternal(cmd string, timeout time.Duration) *External {
	if timeout <= 0 {
		timeout = DefaultExecTimeout
	}
	return &External{cmd: cmd, timeout: timeout}
}

// Subject is the external policy as a checker subject; claims are what the
// caller says it claims.
func (x *External) Subject(claims []models.Claim) *Subject {
	return &Subject{Name: ExecPrefix + x.cmd, Claims: claims, Close: x.Close,
		New: func() (solvers.Policy, error) {
			x.mu.Lock()
			x.run++
			run := x.run
			x.mu.Unlock()
			return &externalPolicy{x: x, run: run}, nil
		}}
}

// Close ends the process: stdin is closed, and after a second it is killed.
func (x *External) Close() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.proc == nil {
		return nil
	}
	x.stdin.Close()
	select {
	case <-x.exited:
	case <-time.After(time.Second):
		kill(x.proc)
		<-x.exited
	}
	x.proc = nil
	return nil
}

// start launches the process.
func (x *External) start() error {
	cmd := exec.Command("sh", "-c", x.cmd)
	setGroup(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	x.stderr = &tail{max: 2048}
	cmd.Stderr = x.stderr
	if err := cmd.Start(); err != nil {
		return &ExternalError{Command: x.cmd, Kind: "crash", Detail: "cannot start: " + err.Error()}
	}
	x.proc, x.stdin = cmd, stdin
	x.lines = make(chan lineOrErr, 1)
	x.exited = make(chan struct{})
	go func() {
		r := bufio.NewReaderSize(stdout, 1<<16)
		for {
			b, err := readLine(r, MaxAnswerBytes)
			if len(b) > 0 && err == nil {
				x.lines <- lineOrErr{line: b}
				continue
			}
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			x.lines <- lineOrErr{err: err}
			close(x.lines)
			return
		}
	}()
	go func() {
		cmd.Wait()
		close(x.exited)
	}()
	return nil
}

// request is one protocol request.
type request struct {
	Protocol string           `json:"protocol"`
	ID       int64            `json:"id"`
	Run      int64            `json:"run"`
	Trigger  string           `json:"trigger"`
	Instance *models.Instance `json:"instance"`
}

// response is one protocol answer.
type response struct {
	ID         *int64             `json:"id"`
	Allocation *models.Allocation `json:"allocation"`
	Error      *string            `json:"error"`
}

// ask sends one decision and waits for its answer.
func (x *External) ask(run int64, s *models.Snapshot) (models.Allocation, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.dead != nil {
		return models.Allocation{}, x.dead
	}
	if x.proc == nil {
		if err := x.start(); err != nil {
			x.dead = err
			return models.Allocation{}, err
		}
	}
	x.id++
	req := request{Protocol: Protocol, ID: x.id, Run: run, Trigger: s.Trigger.String(), Instance: models.InstanceOf(s)}
	b, err := json.Marshal(req)
	if err != nil {
		return models.Allocation{}, fmt.Errorf("external policy: request: %w", err)
	}
	b = append(b, '\n')
	timer := time.NewTimer(x.timeout)
	defer timer.Stop()
	wrote := make(chan error, 1)
	go func() {
		_, err := x.stdin.Write(b)
		wrote <- err
	}()
	for {
		select {
		case err := <-wrote:
			if err != nil {
				return models.Allocation{}, x.fail("crash", "writing the request: "+err.Error())
			}
			wrote = nil
			continue
		case l, ok := <-x.lines:
			if ok && errors.Is(l.err, errLineTooLong) {
				return models.Allocation{}, x.fail("malformed", fmt.Sprintf("request %d: %v", x.id, l.err))
			}
			if !ok || l.err != nil {
				return models.Allocation{}, x.fail("crash", "closed its output before answering request "+fmt.Sprint(x.id))
			}
			return x.parse(l.line)
		case <-timer.C:
			return models.Allocation{}, x.fail("hang", fmt.Sprintf("no answer to request %d within %v", x.id, x.timeout))
		}
	}
}

// readLine reads one line of at most max bytes (the newline included);
// a longer one is errLineTooLong, read no further.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > max {
			return nil, errLineTooLong
		}
		line = append(line, chunk...)
		if err != bufio.ErrBufferFull {
			return line, err
		}
	}
}

// parse checks one answer line.
func (x *External) parse(line []byte) (models.Allocation, error) {
	var r response
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return models.Allocation{}, x.fail("malformed", fmt.Sprintf("answer %q: %v", clip(line), err))
	}
	if dec.More() {
		return models.Allocation{}, x.fail("malformed", fmt.Sprintf("answer %q: more than one JSON value on the line", clip(line)))
	}
	switch {
	case r.ID == nil || *r.ID != x.id:
		return models.Allocation{}, x.fail("malformed", fmt.Sprintf("answer %q: id must be %d", clip(line), x.id))
	case r.Error != nil && r.Allocation == nil:
		return models.Allocation{}, &ExternalError{Command: x.cmd, Kind: "error", Detail: *r.Error}
	case r.Allocation == nil || r.Error != nil:
		return models.Allocation{}, x.fail("malformed", fmt.Sprintf("answer %q: needs exactly one of allocation and error", clip(line)))
	}
	return *r.Allocation, nil
}

// fail kills the process and makes err the answer to every later request.
func (x *External) fail(kind, detail string) error {
	if x.proc != nil {
		kill(x.proc)
		select {
		case <-x.exited:
		case <-time.After(2 * time.Second):
		}
		if kind == "crash" && x.proc.ProcessState != nil {
			detail += fmt.Sprintf(" (%s)", x.proc.ProcessState)
		}
	}
	e := &ExternalError{Command: x.cmd, Kind: kind, Detail: detail}
	if x.stderr != nil {
		e.Stderr = strings.TrimSpace(x.stderr.String())
	}
	x.dead = e
	return e
}

func clip(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// externalPolicy is one run of an external policy.
type externalPolicy struct {
	x   *External
	run int64
}

var (
	_ solvers.Policy    = (*externalPolicy)(nil)
	_ solvers.Triggered = (*externalPolicy)(nil)
)

func (p *externalPolicy) Name() string { return ExecPrefix + p.x.cmd }

// Triggers: an external policy is asked at round starts, arrivals and
// completions.
func (p *externalPolicy) Triggers() models.Trigger {
	return models.AtRound | models.AtArrival | models.AtCompletion
}

func (p *externalPolicy) Allocate(s *models.Snapshot) (models.Allocation, error) {
	return p.x.ask(p.run, s)
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
