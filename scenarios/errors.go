package scenarios

import (
	"fmt"
	"strings"
)

// Error is bad input in a scenario file, a trace file or a spec built in
// code. It names the file, the line (0 when unknown), the field path or trace
// column, and the reason.
type Error struct {
	File   string // the scenario or trace file; "" for a spec built in code
	Line   int    // 1-based line in File; 0 when unknown
	Path   string // field path such as cluster.servers[1].gpus_per_server, or a trace column
	Reason string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("scenarios: ")
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
		}
		b.WriteString(": ")
	} else if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Reason)
	return b.String()
}

// fieldError is a validation failure before the file and line are known.
type fieldError struct {
	path   string
	reason string
}

func (e *fieldError) Error() string { return e.path + ": " + e.reason }

func errf(path, format string, args ...any) *fieldError {
	return &fieldError{path: path, reason: fmt.Sprintf(format, args...)}
}
