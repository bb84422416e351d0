package sim

import (
	"math"
	"strings"
	"testing"

	"fairbench/models"
)

// TestMeasuredWindow: the run of TestHandComputedInOrder (JCTs A 100, B 130,
// C 230; makespan 240; B waited 100 s) measured over job IDs [1, 3):
//
//	jobs 2 (B and C); mean JCT (130 + 230)/2 = 180; median 180;
//	mean starvation (100 + 0)/2 = 50; user u's measured jobs: C alone,
//	mean JCT 230; user v: B, 130.
//
// The makespan (240), utilisation (0.75) and per-job results (all three)
// are those of the whole run.
func TestMeasuredWindow(t *testing.T) {
	cfg := handComputedConfig(t)
	cfg.Measure = &Window{From: 1, To: 3}
	r, err := Run(cfg, inOrder{everyEvent})
	if err != nil {
		t.Fatal(err)
	}
	s := r.Summary
	if s.Jobs != 2 || math.Abs(s.MeanJCT-180) > 1e-6 || math.Abs(s.MedianJCT-180) > 1e-6 || math.Abs(s.MeanStarve-50) > 1e-6 {
		t.Errorf("summary jobs %d mean %v median %v starvation %v, want 2, 180, 180, 50", s.Jobs, s.MeanJCT, s.MedianJCT, s.MeanStarve)
	}
	if s.Makespan != 240 || math.Abs(s.Utilisation-0.75) > 1e-9 || len(r.Jobs) != 3 {
		t.Errorf("makespan %v utilisation %v jobs listed %d, want 240, 0.75, 3", s.Makespan, s.Utilisation, len(r.Jobs))
	}
	if s.Window == nil || *s.Window != (Window{From: 1, To: 3}) {
		t.Errorf("summary window %v, want [1, 3)", s.Window)
	}
	for _, u := range r.Users {
		want := map[string]float64{"u": 230, "v": 130}[u.Name]
		if u.Jobs != 1 || math.Abs(u.MeanJCT-want) > 1e-6 {
			t.Errorf("user %s: %d jobs, mean JCT %v, want 1 and %v", u.Name, u.Jobs, u.MeanJCT, want)
		}
	}
}

// TestEmptyWindowIsRefused: a window that holds no job, or is reversed, is
// a configuration error naming the window, not a summary of nothing.
func TestEmptyWindowIsRefused(t *testing.T) {
	k := models.Key{Job: "m", GPU: "V100", Gang: 1}
	for _, w := range []Window{{From: 5, To: 9}, {From: 1, To: 1}, {From: 2, To: 1}, {From: -3, To: 0}} {
		cfg := tinyConfig(t, []models.Server{{Type: "V100", GPUs: 1}}, map[models.Key]float64{k: 1},
			[]models.Job{{ID: 0, User: "u", Type: "m", Gang: 1, Steps: 10}, {ID: 1, User: "v", Type: "m", Gang: 1, Steps: 10}})
		cfg.Measure = &w
		_, err := Run(cfg, inOrder{everyEvent})
		if err == nil || !strings.Contains(err.Error(), "measured window") {
			t.Errorf("window %v: error %v, want one naming the measured window", w, err)
		}
	}
}
