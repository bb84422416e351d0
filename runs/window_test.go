package runs

import (
	"math"
	"os"
	"strings"
	"testing"

	"fairbench/scenarios"
)

// TestMeasuredWindowRun: a scenario's measure window reaches the summary
// (jobs counted and mean JCT over the window's jobs only, computed here from
// the per-job results), every job is still in the record, and a resumed
// grid takes the run as complete (the record read back from disk).
func TestMeasuredWindowRun(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(data), "seed: [1, 2]", "seed: 1", 1) + "measure: {from_job: 10, to_job: 30}\n"
	g, err := scenarios.Parse([]byte(text), "measured.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	recs, err := Grid(g.Runs, dir, options(), GridOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
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
