package scenarios

import (
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"fairbench/models"
)

func readFile(t *testing.T, path, format string) *Trace {
	t.Helper()
	tr, err := ReadTrace(path, format)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestReadGavelTrace7(t *testing.T) {
	t.Parallel()
	tr := readFile(t, "testdata/gavel7.trace", FormatGavel)
	want := []TraceJob{
		{Line: 1, Arrival: 0, Type: resnet, Gang: 4, Steps: 12000},
		{Line: 2, Arrival: 1456 * time.Second, Type: a3c, Gang: 1, Steps: 500},
		// line 3 has scale factor 0: skipped
		{Line: 4, Arrival: 600500 * time.Millisecond, Type: transformer, Gang: 2, Steps: 9000},
	}
	if !reflect.DeepEqual(tr.Jobs, want) || tr.Skipped != 1 {
		t.Errorf("jobs %+v (skipped %d)\nwant %+v (skipped 1)", tr.Jobs, tr.Skipped, want)
	}
}

func TestReadGavelTrace10(t *testing.T) {
	t.Parallel()
	tr := readFile(t, "testdata/gavel10.trace", FormatGavel)
	want := []TraceJob{
		{Line: 1, Arrival: 100 * time.Second, Type: resnet, Gang: 8, Steps: 3000, Priority: 2},
		{Line: 2, Arrival: 50 * time.Second, Type: a3c, Gang: 1, Steps: 700, Priority: 1},
	}
	if !reflect.DeepEqual(tr.Jobs, want) || tr.Skipped != 0 {
		t.Errorf("jobs %+v\nwant %+v", tr.Jobs, want)
	}
}

func TestReadCSVTrace(t *testing.T) {
	t.Parallel()
	tr := readFile(t, "testdata/jobs.csv", FormatCSV)
	want := []TraceJob{
		{Line: 3, Arrival: 0, User: "alice", Type: resnet, Gang: 2, Steps: 1000},
		{Line: 4, Arrival: 30250 * time.Millisecond, User: "bob", Type: a3c, Gang: 1, Steps: 200, Priority: 3},
		{Line: 6, Arrival: 30250 * time.Millisecond, User: "alice", Type: transformer, Gang: 4, Steps: 5000, Priority: 1},
	}
	if !reflect.DeepEqual(tr.Jobs, want) {
		t.Errorf("jobs %+v\nwant %+v", tr.Jobs, want)
	}
	tr = readFile(t, "testdata/durations.csv", FormatCSV)
	want = []TraceJob{
		{Line: 2, Arrival: 10 * time.Second, Type: resnet, Gang: 1, DurationSeconds: 100},
		{Line: 3, Arrival: 0, Type: a3c, Gang: 1, DurationSeconds: 100},
		{Line: 4, Arrival: 5 * time.Second, Type: resnet, Gang: 8, DurationSeconds: 50, MemoryGB: 15},
	}
	if !reflect.DeepEqual(tr.Jobs, want) {
		t.Errorf("jobs %+v\nwant %+v", tr.Jobs, want)
	}
}

func TestBadTraces(t *testing.T) {
	t.Parallel()
	row7 := func(cols ...string) string { return strings.Join(cols, "\t") + "\n" }
	good7 := row7("A3C", "cmd", "-n", "0", "500", "10", "1")
	cases := []struct {
		name, format, text string
		wants              []string
	}{
		{"too few columns", FormatGavel, good7 + row7("A3C", "cmd", "-n", "0", "500", "10"),
			[]string{"t.trace:2: columns: got 6 tab-separated columns, want 7"}},
		{"too many columns", FormatGavel, row7("A3C", "cmd", "-n", "0", "500", "10", "1", "x", "y", "z", "w"),
			[]string{"t.trace:1: columns: got 11"}},
		{"mixed layouts", FormatGavel, good7 + row7("A3C", "cmd", "wd", "-n", "0", "500", "1", "1", "-1", "10"),
			[]string{"t.trace:2: columns: got 10 columns, but line 1 has 7"}},
		{"unparsable steps", FormatGavel, good7 + row7("A3C", "cmd", "-n", "0", "5OO", "10", "1"),
			[]string{"t.trace:2: column 5 (total steps): must be a finite number > 0 and at most 1e+15, got \"5OO\""}},
		{"zero steps", FormatGavel, row7("A3C", "cmd", "-n", "0", "0", "10", "1"),
			[]string{"t.trace:1: column 5 (total steps)"}},
		{"NaN arrival", FormatGavel, row7("A3C", "cmd", "-n", "0", "5", "NaN", "1"),
			[]string{"t.trace:1: column 6 (arrival time): must be a finite number of seconds between 0 and 3.1536e+07 (1 year), got \"NaN\""}},
		{"negative arrival", FormatGavel, row7("A3C", "cmd", "-n", "0", "5", "-1", "1"),
			[]string{"t.trace:1: column 6 (arrival time)"}},
		{"fractional scale factor", FormatGavel, row7("A3C", "cmd", "-n", "0", "5", "1", "1.5"),
			[]string{"t.trace:1: column 7 (scale factor): must be a whole number between 0 (skips the job) and 100000, got \"1.5\""}},
		{"negative scale factor", FormatGavel, row7("A3C", "cmd", "-n", "0", "5", "1", "-2"),
			[]string{"t.trace:1: column 7 (scale factor)"}},
		{"bad data flag", FormatGavel, row7("A3C", "cmd", "-n", "2", "5", "1", "1"),
			[]string{"t.trace:1: column 4 (needs data dir): must be 0 or 1"}},
		{"empty job type", FormatGavel, row7(" ", "cmd", "-n", "0", "5", "1", "1"),
			[]string{"t.trace:1: column 1 (job type): empty job type"}},
		{"negative priority", FormatGavel, row7("A3C", "c", "wd", "-n", "0", "500", "1", "-1", "-1", "10"),
			[]string{"t.trace:1: column 8 (priority weight): must be 0 or a finite number between 1e-06 and 1e+06, got \"-1\""}},
		{"infinite SLO", FormatGavel, row7("A3C", "c", "wd", "-n", "0", "500", "1", "1", "+Inf", "10"),
			[]string{"t.trace:1: column 9 (SLO)"}},
		{"csv empty", FormatCSV, "", []string{"t.trace: empty CSV trace"}},
		{"csv unknown column", FormatCSV, "arrival_seconds,job_type,gang,steps,gpus\n",
			[]string{"t.trace:1: column 5: unknown column \"gpus\""}},
		{"csv missing column", FormatCSV, "arrival_seconds,gang,steps\n", []string{"t.trace:1: job_type: missing required column"}},
		{"csv steps and duration", FormatCSV, "arrival_seconds,job_type,gang,steps,duration_seconds\n",
			[]string{"t.trace:1: steps: want exactly one of the columns steps and duration_seconds"}},
		{"csv wrong column count", FormatCSV, "arrival_seconds,job_type,gang,steps\n0,A3C,1,5\n0,A3C,1\n",
			[]string{"t.trace:3: columns: got 3 columns, want 4"}},
		{"csv bad gang", FormatCSV, "arrival_seconds,job_type,gang,steps\n0,A3C,0,5\n", []string{"t.trace:2: gang: must be a whole number between 1 and 100000, got \"0\""}},
		{"csv NaN steps", FormatCSV, "arrival_seconds,job_type,gang,steps\n0,A3C,1,nan\n", []string{"t.trace:2: steps: must be a finite number > 0"}},
		{"csv negative duration", FormatCSV, "arrival_seconds,job_type,gang,duration_seconds\n0,A3C,1,-5\n", []string{"t.trace:2: duration_seconds"}},
		{"csv negative memory", FormatCSV, "arrival_seconds,job_type,gang,steps,memory_gb\n0,A3C,1,5,-1\n", []string{"t.trace:2: memory_gb"}},
		{"csv empty user", FormatCSV, "arrival_seconds,user,job_type,gang,steps\n0,,A3C,1,5\n", []string{"t.trace:2: user: empty user"}},
		{"csv bad quote", FormatCSV, "arrival_seconds,job_type,gang,steps\n0,\"A3C,1,5\n", []string{"t.trace:2: malformed CSV"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			if c.format == FormatGavel {
				_, err = ReadGavelTrace(strings.NewReader(c.text), "t.trace")
			} else {
				_, err = ReadCSVTrace(strings.NewReader(c.text), "t.trace")
			}
			wantError(t, err, c.wants...)
		})
	}
}

// TestBuildTraces: the jobs a trace scenario builds, sorted by arrival.
func TestBuildTraces(t *testing.T) {
	t.Parallel()
	g := load(t, "testdata/traces.yaml")
	w7 := build(t, g.Runs[0])
	want := []models.Job{
		{ID: 0, User: "u0", Type: resnet, Gang: 4, Steps: 12000, Arrival: 0},
		{ID: 1, User: "u1", Type: transformer, Gang: 2, Steps: 9000, Arrival: 600500 * time.Millisecond},
		{ID: 2, User: "u0", Type: a3c, Gang: 1, Steps: 500, Arrival: 1456 * time.Second},
	}
	if !reflect.DeepEqual(w7.Jobs, want) || w7.TraceSkipped != 1 {
		t.Errorf("7-column jobs %+v (skipped %d)\nwant %+v", w7.Jobs, w7.TraceSkipped, want)
	}
	w10 := build(t, g.Runs[1])
	want = []models.Job{
		{ID: 0, User: "u0", Type: a3c, Gang: 1, Steps: 700, Arrival: 50 * time.Second, Priority: 1},
		{ID: 1, User: "u1", Type: resnet, Gang: 8, Steps: 3000, Arrival: 100 * time.Second, Priority: 2},
	}
	if !reflect.DeepEqual(w10.Jobs, want) {
		t.Errorf("10-column jobs %+v\nwant %+v", w10.Jobs, want)
	}

	wc := build(t, load(t, "testdata/csv.yaml").Runs[0])
	want = []models.Job{
		{ID: 0, User: "alice", Type: resnet, Gang: 2, Steps: 1000, Arrival: 0},
		{ID: 1, User: "bob", Type: a3c, Gang: 1, Steps: 200, Arrival: 30250 * time.Millisecond, Priority: 3},
		{ID: 2, User: "alice", Type: transformer, Gang: 4, Steps: 5000, Arrival: 30250 * time.Millisecond, Priority: 1},
	}
	if !reflect.DeepEqual(wc.Jobs, want) {
		t.Errorf("CSV jobs %+v\nwant %+v", wc.Jobs, want)
	}
	if !reflect.DeepEqual(wc.Users, []models.User{{Name: "alice", Weight: 1}, {Name: "bob", Weight: 1}}) {
		t.Errorf("CSV users %+v", wc.Users)
	}
}

// TestBuildCSVDurations: duration_seconds becomes steps at the reference
// throughput; jobs: keeps the first n by arrival.
func TestBuildCSVDurations(t *testing.T) {
	t.Parallel()
	scenario := `cluster:
  servers:
    - {type: V100, count: 1, gpus_per_server: 8}
    - {type: K80, count: 1, gpus_per_server: 4}
workload: {generator: trace, trace: testdata/durations.csv, jobs: 2}
`
	w := build(t, parse(t, scenario, "s.yaml").Runs[0])
	want := []models.Job{
		// A3C: fastest V100 3/s × 100 s.
		{ID: 0, User: "u0", Type: a3c, Gang: 1, Steps: 300, Arrival: 0},
		// ResNet gang 8 on one 8-GPU V100 server (consolidated 80/s) × 50 s.
		{ID: 1, User: "u0", Type: resnet, Gang: 8, Steps: 4000, Arrival: 5 * time.Second, MemoryGB: 15},
	}
	if !reflect.DeepEqual(w.Jobs, want) {
		t.Errorf("jobs %+v\nwant %+v", w.Jobs, want)
	}
}

// TestLoadRefusesTraceJobs: a trace job the cluster cannot take is
// refused when the scenario loads (before any run starts), naming its line.
func TestLoadRefusesTraceJobs(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, csv, scenarioExtra string
		wants                    []string
	}{
		{"unknown job type", "arrival_seconds,job_type,gang,steps\n0,A3C,1,5\n9,ResNet-51,1,5\n", "",
			[]string{"jobs.csv:3: job type: unknown job type \"ResNet-51\" (known: A3C,"}},
		{"gang beyond every type", "arrival_seconds,job_type,gang,steps\n0,ResNet-50 (batch size 64),16,5\n", "",
			[]string{"jobs.csv:2: job: ResNet-50 (batch size 64) with gang 16 cannot run on any GPU type of this cluster: V100: gang 16 > 8 GPUs; K80: gang 16 > 4 GPUs"}},
		{"no figure", "arrival_seconds,job_type,gang,steps\n0,Transformer (batch size 128),8,5\n", "",
			[]string{"jobs.csv:2: job: Transformer (batch size 128) with gang 8 cannot run", "V100: no measured throughput at gang 8 (consolidated)"}},
		{"not enough memory", "arrival_seconds,job_type,gang,steps,memory_gb\n0,A3C,1,5,40\n", "",
			[]string{"jobs.csv:2: job: A3C with gang 1 cannot run", "V100: needs 40 GB per GPU, has 16 GB"}},
		{"undeclared user", "arrival_seconds,user,job_type,gang,steps\n0,alice,A3C,1,5\n1,carol,A3C,1,5\n", "users: [{name: alice}]\n",
			[]string{"jobs.csv:3: user: user \"carol\" is not one of the scenario's users (alice)"}},
		{"no jobs", "arrival_seconds,job_type,gang,steps\n", "", []string{"jobs.csv: the trace has no jobs"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(dir+"/jobs.csv", []byte(c.csv), 0o644); err != nil {
				t.Fatal(err)
			}
			scenario := "cluster:\n  servers:\n    - {type: V100, count: 1, gpus_per_server: 8}\n    - {type: K80, count: 1, gpus_per_server: 4}\n" +
				c.scenarioExtra + "workload: {generator: trace, trace: jobs.csv}\n"
			if err := os.WriteFile(dir+"/s.yaml", []byte(scenario), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadWith(dir+"/s.yaml", testCatalog())
			wantError(t, err, c.wants...)
		})
	}
}
