package runs

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fairbench/scenarios"
)

// measuredGrid runs testdata/small.yaml at seed 1 with the measure key
// given into a fresh folder, returning the folder and the records.
func measuredGrid(t *testing.T, measure string) (string, []*Record) {
	t.Helper()
	data, err := os.ReadFile("testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(data), "seed: [1, 2]", "seed: 1", 1) + measure
	g, err := scenarios.Parse([]byte(text), "measured.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	recs, err := Grid(g.Runs, dir, options(), GridOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	return dir, recs
}

// TestMeasuredWindowRun: a scenario's measure window reaches the summary
// (jobs counted and mean JCT over the window's jobs only, computed here from
// the per-job results), every job is still in the record, and a resumed
// grid takes the run as complete (the record read back from disk).
func TestMeasuredWindowRun(t *testing.T) {
	t.Parallel()
	dir, recs := measuredGrid(t, "measure: {from_job: 10, to_job: 30}\n")
	for _, r := range recs {
		rec, ok := Complete(dir, r.ID)
		if !ok {
			t.Fatalf("%s: a measured run is not taken as complete on resume", r.Policy)
		}
		res := rec.Result
		var sum float64
		for _, j := range res.Jobs {
			if j.ID >= 10 && j.ID < 30 {
				sum += j.JCT
			}
		}
		if len(res.Jobs) != 40 || res.Summary.Jobs != 20 || math.Abs(res.Summary.MeanJCT-sum/20) > 1e-9*sum {
			t.Errorf("%s: %d jobs listed, %d measured, mean JCT %v; want 40, 20, %v", rec.Policy, len(res.Jobs), res.Summary.Jobs, res.Summary.MeanJCT, sum/20)
		}
	}
}

// TestStoppedWindowRun: with stop: window_done a run ends when jobs 5–14
// are done. Their results are bit-identical to the full run's, the jobs
// still out then are unfinished (empty JCT cells in the per-job file), the
// summary's window says it stopped, and a resumed grid takes the run as
// complete.
func TestStoppedWindowRun(t *testing.T) {
	t.Parallel()
	fullDir, full := measuredGrid(t, "measure: {from_job: 5, to_job: 15}\n")
	dir, stopped := measuredGrid(t, "measure: {from_job: 5, to_job: 15, stop: window_done}\n")
	unfinished := 0
	for i, r := range stopped {
		rec, ok := Complete(dir, r.ID)
		if !ok {
			t.Fatalf("%s: a stopped run is not taken as complete on resume", r.Policy)
		}
		fullRec, ok := Complete(fullDir, full[i].ID)
		if !ok {
			t.Fatalf("%s: the full run is not complete", full[i].Policy)
		}
		res, all := rec.Result, fullRec.Result
		if w := res.Summary.Window; w == nil || !w.StopWhenDone || res.Summary.Jobs != 10 || res.Summary.MeanJCT != all.Summary.MeanJCT {
			t.Errorf("%s: summary window %v, %d jobs, mean JCT %v; want a stopping window, 10 jobs, %v",
				r.Policy, w, res.Summary.Jobs, res.Summary.MeanJCT, all.Summary.MeanJCT)
		}
		csv, err := os.ReadFile(filepath.Join(dir, r.ID+".jobs.csv"))
		if err != nil {
			t.Fatal(err)
		}
		rows := strings.Split(strings.TrimSpace(string(csv)), "\n")[1:]
		for k, j := range res.Jobs {
			cells := strings.Split(rows[k], ",")
			switch {
			case j.Unfinished:
				unfinished++
				if j.ID >= 5 && j.ID < 15 || cells[8] != "" || all.Jobs[k].Finish <= res.Summary.Makespan {
					t.Errorf("%s: job %d unfinished (jct cell %q), finished at %v in the full run, stop at %v",
						r.Policy, j.ID, cells[8], all.Jobs[k].Finish, res.Summary.Makespan)
				}
			case j != all.Jobs[k]:
				t.Errorf("%s: job %d: %+v stopped, %+v in the full run", r.Policy, j.ID, j, all.Jobs[k])
			}
		}
	}
	if unfinished == 0 {
		t.Error("no job was left unfinished: the stop went untested")
	}
}
