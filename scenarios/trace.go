package scenarios

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"fairbench/internal/input"
	"fairbench/models"
)

// TraceJob is one job as a trace file gives it, before it is checked
// against a cluster.
type TraceJob struct {
	// Line is the job's 1-based line in the file.
	Line int
	// Arrival is the submission time (kept to the millisecond).
	Arrival time.Duration
	// User is the job's user; "" when the trace does not name one.
	User string
	// Type is the job type name.
	Type string
	// Gang is the number of GPUs.
	Gang int
	// Steps is the total work in steps; 0 when the trace gives
	// DurationSeconds instead (CSV only).
	Steps float64
	// DurationSeconds is the run time on the reference GPU type, converted
	// to steps by Build (CSV duration_seconds); 0 when Steps is given.
	DurationSeconds float64
	// Priority is Gavel's priority weight or the CSV priority (0: unset).
	Priority float64
	// MemoryGB is a per-worker memory need overriding the job type's (CSV
	// memory_gb; 0: the type's).
	MemoryGB float64
}

// Trace is the content of a trace file.
type Trace struct {
	File   string
	Format string // FormatGavel or FormatCSV
	// Jobs are the jobs in file order.
	Jobs []TraceJob
	// Skipped counts the lines left out on purpose: Gavel lines with scale
	// factor 0. Blank lines and comments are not counted.
	Skipped int
}

// ReadTrace reads the trace file at path in the given format, refusing a
// file of more than input.MaxTraceBytes.
func ReadTrace(path, format string) (*Trace, error) {
	r, err := input.OpenLimit(path, input.MaxTraceBytes)
	if err != nil {
		return nil, &Error{File: path, Reason: strings.TrimPrefix(err.Error(), path+": ")}
	}
	defer r.Close()
	switch format {
	case FormatGavel:
		return ReadGavelTrace(r, path)
	case FormatCSV:
		return ReadCSVTrace(r, path)
	}
	return nil, &Error{File: path, Reason: fmt.Sprintf("unknown trace format %q (known: %s, %s)", format, FormatGavel, FormatCSV)}
}

// gavelLayout names the columns of one Gavel trace layout and gives the
// 0-based index of each column read.
type gavelLayout struct {
	names                                          []string
	typ, totalSteps, scale, arrival, priority, slo int // -1: absent
	needsData                                      int
}

var gavelLayouts = map[int]gavelLayout{
	// Gavel's traces/msr and the shared samples.
	7: {names: []string{"job type", "command", "steps argument", "needs data dir", "total steps", "arrival time", "scale factor"},
		typ: 0, needsData: 3, totalSteps: 4, arrival: 5, scale: 6, priority: -1, slo: -1},
	// Gavel's parse_trace before the working directory column was added.
	9: {names: []string{"job type", "command", "steps argument", "needs data dir", "total steps", "scale factor", "priority weight", "SLO", "arrival time"},
		typ: 0, needsData: 3, totalSteps: 4, scale: 5, priority: 6, slo: 7, arrival: 8},
	// Gavel's current parse_trace.
	10: {names: []string{"job type", "command", "working directory", "steps argument", "needs data dir", "total steps", "scale factor", "priority weight", "SLO", "arrival time"},
		typ: 0, needsData: 4, totalSteps: 5, scale: 6, priority: 7, slo: 8, arrival: 9},
}

// ReadGavelTrace parses a trace in the format of Gavel (Narayanan et al.,
// OSDI 2020; artifact scheduler/utils.py parse_trace and traces/): one job
// per line, tab-separated, in one of three layouts told apart by the number
// of columns (every line of a file must use the same one):
//
//	7 columns:  job type, command, steps argument, needs data dir (0/1),
//	            total steps, arrival time (s), scale factor
//	9 columns:  job type, command, steps argument, needs data dir, total steps,
//	            scale factor, priority weight, SLO, arrival time
//	10 columns: job type, command, working directory, steps argument,
//	            needs data dir, total steps, scale factor, priority weight,
//	            SLO, arrival time
//
// The scale factor is the gang size; a line with scale factor 0 is skipped
// and counted in Trace.Skipped. The command, working directory and steps
// argument are ignored (they drive Gavel's physical runs). The SLO is
// checked to be a number and ignored (-1 means none in Gavel). Blank lines
// and lines starting with # are ignored. Gavel traces name no users.
//
// Errors name the file, the line and the column: a wrong number of columns,
// an unparsable or non-finite number, a negative arrival time or priority,
// total steps ≤ 0, a scale factor that is not a whole number ≥ 0, a
// needs-data-dir flag other than 0 or 1, an empty job type, or a value
// beyond its limit (docs/limits.md): a line longer than
// input.MaxLineBytes, more than MaxJobs jobs, steps above models.MaxSteps,
// an arrival after models.MaxHorizon, a scale factor above
// models.MaxGPUs, a priority above models.MaxWeight.
func ReadGavelTrace(r io.Reader, name string) (*Trace, error) {
	tr := &Trace{File: name, Format: FormatGavel}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), input.MaxLineBytes+2)
	cols, first := 0, 0
	line := 1
	for ; sc.Scan(); line++ {
		if len(sc.Bytes()) > input.MaxLineBytes+1 {
			return nil, &Error{File: name, Line: line, Reason: (&input.LineTooLongError{Line: line, Limit: input.MaxLineBytes}).Error()}
		}
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "#") {
			continue
		}
		f := strings.Split(text, "\t")
		lay, ok := gavelLayouts[len(f)]
		if !ok {
			return nil, &Error{File: name, Line: line, Path: "columns",
				Reason: fmt.Sprintf("got %d tab-separated columns, want 7 (job type, command, steps argument, needs data dir, total steps, arrival time, scale factor), 9 (Gavel's older layout) or 10 (job type, command, working directory, steps argument, needs data dir, total steps, scale factor, priority weight, SLO, arrival time)", len(f))}
		}
		if cols == 0 {
			cols, first = len(f), line
		} else if len(f) != cols {
			return nil, &Error{File: name, Line: line, Path: "columns",
				Reason: fmt.Sprintf("got %d columns, but line %d has %d: a trace uses one layout", len(f), first, cols)}
		}
		j, scale, err := lay.job(f, name, line)
		if err != nil {
			return nil, err
		}
		if len(tr.Jobs)+tr.Skipped >= MaxJobs {
			return nil, &Error{File: name, Line: line, Reason: fmt.Sprintf("more than %d jobs, the limit", MaxJobs)}
		}
		if scale == 0 {
			tr.Skipped++
			continue
		}
		j.Gang = int(scale)
		tr.Jobs = append(tr.Jobs, j)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &Error{File: name, Line: line, Reason: (&input.LineTooLongError{Line: line, Limit: input.MaxLineBytes}).Error()}
		}
		return nil, &Error{File: name, Line: line, Reason: "reading: " + strings.TrimPrefix(err.Error(), name+": ")}
	}
	return tr, nil
}

// job reads one line's fields f: the job, and its scale factor (0: the
// line is skipped).
func (lay gavelLayout) job(f []string, name string, line int) (TraceJob, int64, error) {
	col := func(i int) string { return fmt.Sprintf("column %d (%s)", i+1, lay.names[i]) }
	bad := func(i int, format string, args ...any) error {
		return &Error{File: name, Line: line, Path: col(i), Reason: fmt.Sprintf(format, args...)}
	}
	j := TraceJob{Line: line, Type: strings.TrimSpace(f[lay.typ])}
	if j.Type == "" {
		return TraceJob{}, 0, bad(lay.typ, "empty job type")
	}
	scale, err := wholeNumber(f[lay.scale])
	if err != nil || scale < 0 || scale > models.MaxGPUs {
		return TraceJob{}, 0, bad(lay.scale, "must be a whole number between 0 (skips the job) and %d, got %q", models.MaxGPUs, f[lay.scale])
	}
	flag, err := wholeNumber(f[lay.needsData])
	if err != nil || (flag != 0 && flag != 1) {
		return TraceJob{}, 0, bad(lay.needsData, "must be 0 or 1, got %q", f[lay.needsData])
	}
	var ok bool
	if j.Steps, ok = within(f[lay.totalSteps], 0, models.MaxSteps); !ok || j.Steps == 0 {
		return TraceJob{}, 0, bad(lay.totalSteps, "must be a finite number > 0 and at most %g, got %q", float64(models.MaxSteps), f[lay.totalSteps])
	}
	arrival, ok := within(f[lay.arrival], 0, models.MaxHorizonSeconds)
	if !ok {
		return TraceJob{}, 0, bad(lay.arrival, "must be a finite number of seconds between 0 and %g (%s), got %q", models.MaxHorizonSeconds, models.Describe(models.MaxHorizon), f[lay.arrival])
	}
	j.Arrival = seconds(arrival)
	if lay.priority >= 0 {
		if j.Priority, ok = priority(f[lay.priority]); !ok {
			return TraceJob{}, 0, bad(lay.priority, "must be 0 or a finite number between %g and %g, got %q", models.MinWeight, float64(models.MaxWeight), f[lay.priority])
		}
		if _, err := number(f[lay.slo]); err != nil {
			return TraceJob{}, 0, bad(lay.slo, "must be a finite number (-1: none), got %q", f[lay.slo])
		}
	}
	return j, scale, nil
}

// within parses s as a finite number in [lo, hi].
func within(s string, lo, hi float64) (float64, bool) {
	v, err := number(s)
	return v, err == nil && v >= lo && v <= hi
}

// priority parses a priority weight: 0 (unset) or within models' weights.
func priority(s string) (float64, bool) {
	v, ok := within(s, 0, models.MaxWeight)
	return v, ok && (v == 0 || v >= models.MinWeight)
}

// number parses a finite float.
func number(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, err
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("not finite")
	}
	return v, nil
}

// wholeNumber parses a finite float with no fractional part ("4", "4.0").
func wholeNumber(s string) (int64, error) {
	v, err := number(s)
	if err != nil {
		return 0, err
	}
	if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
		return 0, fmt.Errorf("not a whole number")
	}
	return int64(v), nil
}
