package scenarios

// Native fuzz targets for the scenario file, the Gavel trace and the CSV
// trace readers (docs/limits.md gives the commands). Each asserts more
// than "no panic": an error is an *Error naming the file, and what is
// accepted satisfies the documented limits and reads back the same.

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"fairbench/models"
)

// fuzzName is the name fuzzed scenarios get: in testdata, so that their
// relative trace and throughputs paths find the test files.
const fuzzName = "testdata/fuzz.yaml"

// addFiles seeds f with every file under dir whose name ends in one of
// exts.
func addFiles(f *testing.F, dir string, exts ...string) {
	f.Helper()
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		for _, e := range exts {
			if strings.HasSuffix(path, e) {
				b, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				f.Add(b)
			}
		}
		return nil
	})
	if err != nil {
		f.Fatal(err)
	}
}

// wantScenarioError checks that err is an *Error naming file.
func wantScenarioError(t *testing.T, err error, file string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is a %T, want *scenarios.Error", err, err)
	}
	if e.File == "" || !strings.HasPrefix(err.Error(), "scenarios: ") {
		t.Fatalf("error %q names no file", err)
	}
	_ = file
}

// FuzzScenario parses scenario files: an error is an *Error naming the
// file; a grid has 1..MaxRuns runs with distinct IDs, parses to the same
// IDs again (determinism), and its first run builds — when small enough
// to build quickly — into jobs that all validate, arrive within the
// horizon and can run on the cluster, or fails with an *Error.
func FuzzScenario(f *testing.F) {
	addFiles(f, "testdata", ".yaml")
	addFiles(f, "examples", ".yaml")
	f.Add(DefaultYAML())
	f.Add([]byte("cluster: {servers: [{type: V100, gpus_per_server: 4}]}\nworkload: {jobs: 5, gangs: [{size: 1, weight: 1}]}\n---\nseed: 1\n"))
	f.Add([]byte("a: &a [1, 2]\ncluster: {servers: [{type: V100, count: *a, gpus_per_server: 4}]}\n"))
	cat := models.Catalogue()
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := ParseWith(data, fuzzName, cat)
		if err != nil {
			wantScenarioError(t, err, fuzzName)
			return
		}
		if len(g.Runs) == 0 || len(g.Runs) > MaxRuns {
			t.Fatalf("%d runs", len(g.Runs))
		}
		again, err := ParseWith(data, fuzzName, cat)
		if err != nil {
			t.Fatalf("second parse failed: %v", err)
		}
		if !reflect.DeepEqual(ids(g), ids(again)) {
			t.Fatalf("IDs differ between two parses")
		}
		r := g.Runs[0]
		if r.Spec.Workload.Jobs > 300 || r.Spec.Workload.Generator == GeneratorTrace && r.Spec.Workload.Jobs == 0 {
			return // keep each input fast; the limits are checked at parse time
		}
		gpus := 0
		for _, s := range r.Spec.Cluster.Servers {
			gpus += s.Count * s.GPUsPerServer
		}
		if gpus > 4096 {
			return
		}
		w, err := r.Spec.Build(r.Seed)
		if err != nil {
			wantScenarioError(t, err, fuzzName)
			return
		}
		for i := range w.Jobs {
			j := &w.Jobs[i]
			if err := j.Validate(); err != nil {
				t.Fatalf("built an invalid job: %v", err)
			}
			if j.Arrival > models.MaxHorizon {
				t.Fatalf("job %d arrives at %v, after the horizon", j.ID, j.Arrival)
			}
			runs := false
			for _, gpu := range w.Cluster.TypeNames() {
				runs = runs || models.ThroughputOn(w.Cluster, w.Matrix, w.JobTypes, j, gpu) > 0
			}
			if !runs {
				t.Fatalf("job %d (%s, gang %d) cannot run on the cluster", j.ID, j.Type, j.Gang)
			}
		}
		for name, d := range w.Restore {
			if d < 0 || d > models.MaxRestore {
				t.Fatalf("restore of %s is %v", name, d)
			}
		}
	})
}

// checkTraceJobs asserts the reader's documented limits on what it accepts.
func checkTraceJobs(t *testing.T, tr *Trace) {
	t.Helper()
	if len(tr.Jobs) > MaxJobs {
		t.Fatalf("%d jobs", len(tr.Jobs))
	}
	for _, j := range tr.Jobs {
		switch {
		case j.Line < 1:
			t.Fatalf("job without a line: %+v", j)
		case j.Type == "":
			t.Fatalf("line %d: empty type accepted", j.Line)
		case j.Gang < 1 || j.Gang > models.MaxGPUs:
			t.Fatalf("line %d: gang %d accepted", j.Line, j.Gang)
		case j.Arrival < 0 || j.Arrival > models.MaxHorizon:
			t.Fatalf("line %d: arrival %v accepted", j.Line, j.Arrival)
		case (j.Steps <= 0) == (j.DurationSeconds <= 0):
			t.Fatalf("line %d: steps %v and duration %v", j.Line, j.Steps, j.DurationSeconds)
		case j.Steps > models.MaxSteps || j.DurationSeconds > models.MaxHorizonSeconds:
			t.Fatalf("line %d: steps %v or duration %v past the limit", j.Line, j.Steps, j.DurationSeconds)
		case j.Priority < 0 || j.Priority > models.MaxWeight || j.MemoryGB < 0 || j.MemoryGB > models.MaxMemoryGB:
			t.Fatalf("line %d: priority %v or memory %v out of range", j.Line, j.Priority, j.MemoryGB)
		}
	}
}

// FuzzGavelTrace reads Gavel traces: errors are *Error naming the file;
// accepted jobs respect the limits, and writing them back as a 7-column
// trace reads back the same jobs (line numbers aside).
func FuzzGavelTrace(f *testing.F) {
	addFiles(f, "testdata", ".trace")
	f.Add([]byte("A3C\tcmd\t-n\t0\t1e13\t1e10\t1\n"))
	f.Add([]byte("A3C\tcmd\t-n\t0\t5\t1e308\t1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := ReadGavelTrace(bytes.NewReader(data), "t.trace")
		if err != nil {
			wantScenarioError(t, err, "t.trace")
			return
		}
		checkTraceJobs(t, tr)
		var b bytes.Buffer
		for _, j := range tr.Jobs {
			if strings.ContainsAny(j.Type, "\t\n\r") || strings.HasPrefix(j.Type, "#") {
				return // not writable in the format
			}
			fmt.Fprintf(&b, "%s\tcmd\t-n\t0\t%s\t%s\t%d\n", j.Type, strconv.FormatFloat(j.Steps, 'g', -1, 64),
				strconv.FormatFloat(j.Arrival.Seconds(), 'g', -1, 64), j.Gang)
		}
		back, err := ReadGavelTrace(&b, "back.trace")
		sameJobs(t, tr, back, err, b.String(), true)
	})
}

// sameJobs checks that back, tr written and read again, has its jobs
// (line numbers aside, and priorities when the format written lacks
// them).
func sameJobs(t *testing.T, tr, back *Trace, err error, written string, noPriority bool) {
	t.Helper()
	if err != nil {
		t.Fatalf("written back: %v\n%s", err, written)
	}
	if len(back.Jobs) != len(tr.Jobs) {
		t.Fatalf("%d jobs back, %d read", len(back.Jobs), len(tr.Jobs))
	}
	for i := range back.Jobs {
		a, c := tr.Jobs[i], back.Jobs[i]
		a.Line, c.Line = 0, 0
		if noPriority {
			a.Priority = 0
		}
		if a != c {
			t.Fatalf("job %d: %+v read back as %+v", i, a, c)
		}
	}
}

// FuzzCSVTrace reads CSV traces: errors are *Error naming the file;
// accepted jobs respect the limits and read back the same when written
// with encoding/csv.
func FuzzCSVTrace(f *testing.F) {
	addFiles(f, "testdata", ".csv")
	f.Add([]byte("arrival_seconds,job_type,gang,steps\n1e308,A3C,1,5\n"))
	f.Add([]byte("arrival_seconds,job_type,gang,duration_seconds\n0,A3C,1,1e10\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := ReadCSVTrace(bytes.NewReader(data), "t.csv")
		if err != nil {
			wantScenarioError(t, err, "t.csv")
			return
		}
		checkTraceJobs(t, tr)
		if len(tr.Jobs) == 0 {
			return
		}
		work, users := ColSteps, tr.Jobs[0].User != ""
		if tr.Jobs[0].Steps == 0 {
			work = ColDuration
		}
		header := []string{ColArrival, ColJobType, ColGang, work, ColPriority, ColMemory}
		if users {
			header = append(header, ColUser)
		}
		var b bytes.Buffer
		w := csv.NewWriter(&b)
		w.Write(header)
		num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
		for _, j := range tr.Jobs {
			row := []string{num(j.Arrival.Seconds()), j.Type, strconv.Itoa(j.Gang), num(j.Steps + j.DurationSeconds), num(j.Priority), num(j.MemoryGB)}
			if users {
				row = append(row, j.User)
			}
			w.Write(row)
		}
		w.Flush()
		back, err := ReadCSVTrace(&b, "back.csv")
		sameJobs(t, tr, back, err, b.String(), false)
	})
}
