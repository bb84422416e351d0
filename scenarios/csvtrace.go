package scenarios

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"

	"fairbench/internal/input"
	"fairbench/models"
)

// CSV trace columns.
const (
	ColArrival  = "arrival_seconds"  // required: submission time, seconds ≥ 0 (kept to the millisecond)
	ColUser     = "user"             // optional: the job's user
	ColJobType  = "job_type"         // required: a job type name
	ColGang     = "gang"             // required: GPUs, a whole number ≥ 1
	ColSteps    = "steps"            // total work in steps, > 0 (this or duration_seconds)
	ColDuration = "duration_seconds" // run time on the reference GPU type, > 0 (this or steps)
	ColPriority = "priority"         // optional: priority weight ≥ 0 (0 or absent: 1)
	ColMemory   = "memory_gb"        // optional: per-worker memory need in GB ≥ 0 (0: the type's)
)

var csvColumns = []string{ColArrival, ColUser, ColJobType, ColGang, ColSteps, ColDuration, ColPriority, ColMemory}

// ReadCSVTrace parses fairbench's plain CSV trace: RFC 4180 CSV (quote a
// job type that contains a comma), a header row naming the columns in any
// order, then one job per row. Columns:
//
//	arrival_seconds   required  submission time in seconds, finite, ≥ 0
//	user              optional  the job's user (non-empty when the column exists)
//	job_type          required  a job type of the catalogue or throughput file
//	gang              required  number of GPUs, a whole number ≥ 1
//	steps             one of    total work in training steps, > 0
//	duration_seconds  these two run time alone on the reference GPU type, > 0;
//	                            converted to steps like the philly generator's
//	priority          optional  priority weight ≥ 0
//	memory_gb         optional  per-worker memory need in GB, ≥ 0 (0: the job type's)
//
// For example:
//
//	arrival_seconds,user,job_type,gang,steps
//	0,alice,ResNet-50 (batch size 64),4,12000
//	3600,bob,A3C,1,50000
//
// Lines starting with # are comments; blank lines are ignored. Without a
// user column, jobs are assigned to users by workload.user_assignment.
// Errors name the file, the line and the column: an unknown, duplicate or
// missing column, a row with the wrong number of columns, an unparsable,
// non-finite or out-of-range number, an empty job type or user.
func ReadCSVTrace(r io.Reader, name string) (*Trace, error) {
	cr := csv.NewReader(input.Lines(r, input.MaxLineBytes))
	cr.Comment = '#'
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	tr := &Trace{File: name, Format: FormatCSV}
	header, err := cr.Read()
	if err == io.EOF {
		return nil, &Error{File: name, Reason: fmt.Sprintf("empty CSV trace: want a header row with %s, %s, %s and %s or %s",
			ColArrival, ColJobType, ColGang, ColSteps, ColDuration)}
	}
	if err != nil {
		return nil, csvError(name, err)
	}
	hline, _ := cr.FieldPos(0)
	col := map[string]int{}
	for i, h := range header {
		h = strings.TrimSpace(h)
		if !contains(csvColumns, h) {
			return nil, &Error{File: name, Line: hline, Path: fmt.Sprintf("column %d", i+1),
				Reason: fmt.Sprintf("unknown column %q (known: %s)", h, strings.Join(csvColumns, ", "))}
		}
		if _, dup := col[h]; dup {
			return nil, &Error{File: name, Line: hline, Path: h, Reason: "duplicate column"}
		}
		col[h] = i
	}
	for _, need := range []string{ColArrival, ColJobType, ColGang} {
		if _, ok := col[need]; !ok {
			return nil, &Error{File: name, Line: hline, Path: need, Reason: "missing required column"}
		}
	}
	_, hasSteps := col[ColSteps]
	_, hasDur := col[ColDuration]
	if hasSteps == hasDur {
		return nil, &Error{File: name, Line: hline, Path: ColSteps,
			Reason: fmt.Sprintf("want exactly one of the columns %s and %s", ColSteps, ColDuration)}
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvError(name, err)
		}
		line, _ := cr.FieldPos(0)
		if len(tr.Jobs) >= MaxJobs {
			return nil, &Error{File: name, Line: line, Reason: fmt.Sprintf("more than %d jobs, the limit", MaxJobs)}
		}
		if len(rec) != len(header) {
			return nil, &Error{File: name, Line: line, Path: "columns",
				Reason: fmt.Sprintf("got %d columns, want %d (%s)", len(rec), len(header), strings.Join(header, ","))}
		}
		j, err := csvRow{name: name, line: line, rec: rec, col: col}.job()
		if err != nil {
			return nil, err
		}
		tr.Jobs = append(tr.Jobs, j)
	}
	return tr, nil
}

// csvRow is one data row of a CSV trace.
type csvRow struct {
	name string
	line int
	rec  []string
	col  map[string]int
}

func (r csvRow) get(c string) (string, bool) {
	i, ok := r.col[c]
	if !ok {
		return "", false
	}
	return strings.TrimSpace(r.rec[i]), true
}

func (r csvRow) bad(c, format string, args ...any) error {
	return &Error{File: r.name, Line: r.line, Path: c, Reason: fmt.Sprintf(format, args...)}
}

// job reads the row's job, each column within its limits.
func (r csvRow) job() (TraceJob, error) {
	j := TraceJob{Line: r.line}
	v, _ := r.get(ColArrival)
	arrival, ok := within(v, 0, models.MaxHorizonSeconds)
	if !ok {
		return j, r.bad(ColArrival, "must be a finite number of seconds between 0 and %g (%s), got %q", models.MaxHorizonSeconds, models.Describe(models.MaxHorizon), v)
	}
	j.Arrival = seconds(arrival)
	if j.Type, _ = r.get(ColJobType); j.Type == "" {
		return j, r.bad(ColJobType, "empty job type")
	}
	v, _ = r.get(ColGang)
	gang, err := wholeNumber(v)
	if err != nil || gang < 1 || gang > models.MaxGPUs {
		return j, r.bad(ColGang, "must be a whole number between 1 and %d, got %q", models.MaxGPUs, v)
	}
	j.Gang = int(gang)
	if v, ok := r.get(ColSteps); ok {
		if j.Steps, ok = within(v, 0, models.MaxSteps); !ok || j.Steps == 0 {
			return j, r.bad(ColSteps, "must be a finite number > 0 and at most %g, got %q", float64(models.MaxSteps), v)
		}
	}
	if v, ok := r.get(ColDuration); ok {
		if j.DurationSeconds, ok = within(v, 0, models.MaxHorizonSeconds); !ok || j.DurationSeconds == 0 {
			return j, r.bad(ColDuration, "must be a finite number of seconds > 0 and at most %g (%s), got %q", models.MaxHorizonSeconds, models.Describe(models.MaxHorizon), v)
		}
	}
	if v, ok := r.get(ColUser); ok {
		if v == "" {
			return j, r.bad(ColUser, "empty user (the column exists, so every row needs one)")
		}
		j.User = v
	}
	if v, ok := r.get(ColPriority); ok && v != "" {
		if j.Priority, ok = priority(v); !ok {
			return j, r.bad(ColPriority, "must be 0 or a finite number between %g and %g, got %q", models.MinWeight, float64(models.MaxWeight), v)
		}
	}
	if v, ok := r.get(ColMemory); ok && v != "" {
		if j.MemoryGB, ok = within(v, 0, models.MaxMemoryGB); !ok {
			return j, r.bad(ColMemory, "must be a finite number of GB between 0 and %g, got %q", float64(models.MaxMemoryGB), v)
		}
	}
	return j, nil
}

func csvError(name string, err error) error {
	var pe *csv.ParseError
	var long *input.LineTooLongError
	switch {
	case errors.As(err, &long):
		return &Error{File: name, Line: long.Line, Reason: long.Error()}
	case errors.As(err, &pe):
		return &Error{File: name, Line: pe.Line, Reason: "malformed CSV: " + pe.Err.Error()}
	}
	return &Error{File: name, Reason: "reading: " + strings.TrimPrefix(err.Error(), name+": ")}
}
