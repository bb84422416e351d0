// Package input reads the files fairbench is given within bounds, so that a
// huge file, /dev/zero, a FIFO or an endless line cannot exhaust memory or
// hang the process: every read stops at a documented limit (docs/limits.md)
// with an error that names the file and the limit.
package input

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// Limits on the size of input files, in bytes (see docs/limits.md).
const (
	MaxScenarioBytes    = 16 << 20  // a scenario or grid file
	MaxSettingsBytes    = 1 << 20   // a --config settings file
	MaxThroughputsBytes = 64 << 20  // a Gavel-format throughput file
	MaxTraceBytes       = 256 << 20 // a trace file
	MaxInstanceBytes    = 64 << 20  // an instance or replay file
	MaxRecordBytes      = 256 << 20 // a run record (<id>.json) or a companion file
	MaxTableBytes       = 16 << 20  // a calibration profile or property matrix for a report
	MaxLineBytes        = 1 << 20   // one line of a text file (trace, CSV)
)

// TooLargeError is a file that holds more bytes than its limit.
type TooLargeError struct {
	Path  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: larger than %s, the limit for this kind of file (docs/limits.md)", e.Path, Size(e.Limit))
}

// Size writes a byte count the way the limits are documented ("16 MiB").
func Size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Open opens path for reading. A FIFO is opened without waiting for a
// writer (one that has none reads as empty instead of blocking forever);
// a folder, a device (/dev/zero, /dev/urandom) or a socket is refused.
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	var why string
	switch m := st.Mode(); {
	case m.IsDir():
		why = "is a folder, not a file"
	case m&(os.ModeDevice|os.ModeCharDevice) != 0:
		why = "is a device, not a file"
	case m&os.ModeSocket != 0:
		why = "is a socket, not a file"
	}
	if why != "" {
		f.Close()
		return nil, &os.PathError{Op: "read", Path: path, Err: errors.New(why)}
	}
	return f, nil
}

// ReadFile reads the whole of path, refusing a file of more than limit
// bytes with a *TooLargeError: a regular file by its size, before reading
// it; a FIFO after reading at most limit+1 bytes.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Mode().IsRegular() {
		if st.Size() > limit {
			return nil, &TooLargeError{Path: path, Limit: limit}
		}
		var b bytes.Buffer
		b.Grow(int(st.Size()) + 512)
		if _, err := b.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
			return nil, err
		}
		if int64(b.Len()) > limit { // it grew while being read
			return nil, &TooLargeError{Path: path, Limit: limit}
		}
		return b.Bytes(), nil
	}
	return ReadAll(f, path, limit)
}

// ReadAll reads r to its end, refusing more than limit bytes; name is the
// file named in the error.
func ReadAll(r io.Reader, name string, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &TooLargeError{Path: name, Limit: limit}
	}
	return b, nil
}

// OpenLimit opens path (see Open) to be read as a stream of at most
// limit bytes: a regular file larger than that is refused at once, and
// reading past limit bytes (a FIFO, a growing file) fails with a
// *TooLargeError.
func OpenLimit(path string, limit int64) (io.ReadCloser, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > limit {
		f.Close()
		return nil, &TooLargeError{Path: path, Limit: limit}
	}
	return struct {
		io.Reader
		io.Closer
	}{Limit(f, path, limit), f}, nil
}

// Limit wraps r so that reading past limit bytes fails with a
// *TooLargeError naming name: for files read as a stream.
func Limit(r io.Reader, name string, limit int64) io.Reader {
	return &limited{r: r, name: name, left: limit, limit: limit}
}

type limited struct {
	r     io.Reader
	name  string
	left  int64
	limit int64
}

func (l *limited) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, &TooLargeError{Path: l.name, Limit: l.limit}
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n + int(l.left), &TooLargeError{Path: l.name, Limit: l.limit}
	}
	return n, err
}

// LineTooLongError is a line longer than the limit.
type LineTooLongError struct {
	Line  int // 1-based
	Limit int
}

func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("line %d is longer than %s, the limit for one line (docs/limits.md)", e.Line, Size(int64(e.Limit)))
}

// Lines wraps r so that a line of more than max bytes (not counting its
// newline) fails with a *LineTooLongError: a parser that buffers whole
// lines or records then holds at most max bytes of one.
func Lines(r io.Reader, max int) io.Reader { return &lines{r: r, max: max, line: 1} }

type lines struct {
	r    io.Reader
	max  int
	line int // the line being read
	cur  int // bytes of it so far
	err  error
}

func (l *lines) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	n, err := l.r.Read(p)
	for i := 0; i < n; i++ {
		if p[i] == '\n' {
			l.line++
			l.cur = 0
			continue
		}
		if l.cur++; l.cur > l.max {
			l.err = &LineTooLongError{Line: l.line, Limit: l.max}
			return i, l.err
		}
	}
	return n, err
}
