package reproduce

import (
	"reflect"
	"testing"

	"fairbench/models"
	"fairbench/reports"
	"fairbench/runs"
	"fairbench/sim"
)

// TestRhoByLength: eight jobs (IDs 0–7, isolated JCT 1–8 h under "a", so
// quartiles {0,1}, {2,3}, {4,5}, {6,7}); under "a" every job runs at its
// isolated pace without waiting (ρ = 1), under "b" job k waits k hours and
// then runs at its isolated pace, so ρ = (iso + k)/iso. Quartile 0 under b:
// jobs 0 (iso 1 h, wait 0, ρ 1) and 1 (iso 2 h, wait 1 h, ρ 1.5): one of two
// at ρ ≤ 1, mean ρ 1.25, mean wait 0.5 h, executing ÷ isolated 1. Job k's
// contention is k + 1: the shortest quarter's mean is (1 + 2)/2 = 1.5.
func TestRhoByLength(t *testing.T) {
	t.Parallel()
	p := &reports.Point{Label: "-"}
	job := func(k int, wait float64) sim.JobResult {
		iso := float64(k+1) * 3600
		return sim.JobResult{ID: models.JobID(k), IsolatedJCT: iso, Executed: iso, JCT: iso + wait*3600, Rho: (iso + wait*3600) / iso, Contention: float64(k + 1)}
	}
	var a, b []sim.JobResult
	for k := 7; k >= 0; k-- { // out of order: the quartiles sort by isolated JCT
		a, b = append(a, job(k, 0)), append(b, job(k, float64(k)))
	}
	run := func(pol string, jobs []sim.JobResult) *reports.Run {
		return &reports.Run{Point: p, Record: &runs.Record{Policy: pol, Result: &sim.Result{Jobs: jobs}}}
	}
	r := &Results{Set: &reports.Set{Points: []*reports.Point{p}, Policies: []string{"a", "b"}, Runs: []*reports.Run{run("a", a), run("b", b)}}}
	got := rhoByLength(r).Data.Rows
	if len(got) != 8 {
		t.Fatalf("%d rows, want 8: %v", len(got), got)
	}
	if want := []string{"", "a", "shortest quarter", "2", "100%", "1.00", "0.00", "1.00", "1.5"}; !reflect.DeepEqual(got[0], want) {
		t.Errorf("a, shortest: %v, want %v", got[0], want)
	}
	if want := []string{"", "b", "shortest quarter", "2", "50%", "1.25", "0.50", "1.00", "1.5"}; !reflect.DeepEqual(got[4], want) {
		t.Errorf("b, shortest: %v, want %v", got[4], want)
	}
	// b's longest quarter: jobs 6 (iso 7 h, wait 6, ρ 13/7) and 7 (iso 8 h,
	// wait 7, ρ 15/8): mean ρ (1.857 + 1.875)/2 = 1.87, mean wait 6.5 h,
	// contention (7 + 8)/2 = 7.5.
	if want := []string{"", "b", "longest quarter", "2", "0%", "1.87", "6.50", "1.00", "7.5"}; !reflect.DeepEqual(got[7], want) {
		t.Errorf("b, longest: %v, want %v", got[7], want)
	}
}
