package gavelref

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fairbench/solvers/registry"
)

// fairbench's counterparts of six Gavel policies agree with Gavel's own
// simulator on a small trace it generated (testdata/small/README.md): every
// mean JCT over the 200 jobs within 3% of Gavel's, and about as many
// allocations computed (Gavel's re-solve cadence). The two 1,000-job
// reference traces are compared by `fairbench compare-gavel`; see
// docs/algorithms/gavel.md for the table.
func TestAgreesWithGavel(t *testing.T) {
	ref, err := Load("testdata/small", map[string]int{"V100": 12, "P100": 12, "K80": 12}, [2]int{0, 200})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := Compare(ref, Options{Seed: 7, Registry: registry.Default()})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(Pairs) {
		t.Fatalf("%d rows, want one per pair (%d)", len(rows), len(Pairs))
	}
	var table strings.Builder
	if err := WriteTable(&table, rows); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + table.String())
	if !strings.Contains(table.String(), "fairbench's runs stopped when the window's jobs were done, as Gavel's did") {
		t.Error("the table does not say that the runs stopped when the window's jobs were done")
	}
	for _, r := range rows {
		if !r.Stopped {
			t.Errorf("%s: the run did not stop with the window's jobs done, as Gavel's does", r.Fairbench)
		}
		if r.Jobs != 200 {
			t.Errorf("%s: averaged over %d jobs, want 200", r.Fairbench, r.Jobs)
		}
		if !(r.Ratio > 0.97 && r.Ratio < 1.03) {
			t.Errorf("%s: mean JCT %.0f s, Gavel's %s %.0f s: ratio %.3f outside [0.97, 1.03]", r.Fairbench, r.JCT, r.Gavel, r.GavelJCT, r.Ratio)
		}
		if d := float64(r.Decisions) / float64(r.GavelDecisions); d < 0.9 || d > 1.1 {
			t.Errorf("%s: %d allocations, Gavel %d", r.Fairbench, r.Decisions, r.GavelDecisions)
		}
	}
}

// TestStopKeepsTheWindow: over jobs 0–99 of the small trace (100 arrive
// after them), a run that stops when they are done gives the same mean JCT
// and window end, bit for bit, as one that simulates all 200 jobs, with
// fewer LP solves, and no more allocations up to the window's end (the
// stopped run skips the decision at that moment).
func TestStopKeepsTheWindow(t *testing.T) {
	ref, err := Load("testdata/small", map[string]int{"V100": 12, "P100": 12, "K80": 12}, [2]int{0, 100})
	if err != nil {
		t.Fatal(err)
	}
	var rows [2][]Row
	for k, all := range []bool{false, true} {
		if rows[k], err = Compare(ref, Options{Seed: 7, Registry: registry.Default(), Policies: []string{"gavel-las", "gavel-fifo"}, AllJobs: all}); err != nil {
			t.Fatal(err)
		}
	}
	for i, stop := range rows[0] {
		full := rows[1][i]
		if !stop.Stopped || full.Stopped || stop.JCT != full.JCT || stop.Last != full.Last || stop.Jobs != 100 {
			t.Errorf("%s: stopped %v: mean JCT %v, end %v, %d jobs; all jobs (stopped %v): %v, %v, %d",
				stop.Fairbench, stop.Stopped, stop.JCT, stop.Last, stop.Jobs, full.Stopped, full.JCT, full.Last, full.Jobs)
		}
		if stop.Decisions > full.Decisions || stop.Decisions < full.Decisions-1 || stop.LPs > full.LPs {
			t.Errorf("%s: stopped %d allocations and %d LPs; all jobs %d and %d", stop.Fairbench, stop.Decisions, stop.LPs, full.Decisions, full.LPs)
		}
		if stop.Fairbench == "gavel-las" && stop.LPs >= full.LPs {
			t.Errorf("gavel-las: %d LP solves stopped, %d for all jobs: the stop saved nothing", stop.LPs, full.LPs)
		}
	}
}

// Load names the file and line of a bad row, and the missing file.
func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "run-details.csv"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	head := "trace,policy,status,avg_jct_s,last_window_completion_s,dropped_window_job_ids,allocation_recomputations,cpu_s\n"
	if err := os.WriteFile(filepath.Join(dir, "t.trace"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ body, want string }{
		{"trace,policy\n", `no column "status"`},
		{head, "no runs"},
		{head + "t.trace,fifo_perf,ok,12x,5,,3,1\n", "run-details.csv:2: column avg_jct_s"},
		{head + "t.trace,fifo_perf,ok,12,5,7;x,3,1\n", `run-details.csv:2: column dropped_window_job_ids: "x"`},
		{head + "missing.trace,fifo_perf,ok,12,5,,3,1\n", "run-details.csv:2: trace"},
		{head + "../t.trace,fifo_perf,ok,12,5,,3,1\n", "want a file name in the folder"},
	} {
		write(tc.body)
		_, err := Load(dir, nil, [2]int{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want an error containing %q", tc.body, err, tc.want)
		}
	}
	// A crashed run: no JCT, and no ratio.
	write(head + "t.trace,finish_time_fairness_perf,crashed: ECOS failed,,,,574,67\n")
	ref, err := Load(dir, nil, [2]int{})
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := ref.Run("t.trace", "finish_time_fairness_perf"); !ok || r.OK() || r.Recomputations != 574 {
		t.Errorf("crashed run read as %+v", r)
	}
}
