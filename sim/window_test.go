package sim

import (
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"fairbench/models"
	"fairbench/solvers"
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

// TestStopWhenWindowDone: TestHandComputedInOrder's run (A 0–100 on one
// GPU; C 10–100 beside it, preempted at 100 by B; B 100–130 on both GPUs;
// C 130–240) stopped when its window's jobs are done.
//
// Window [0, 1), A: the run stops at t=100, when A ends, before the
// decision of that moment. A's JCT 100; B never ran (unfinished, no first
// run); C ran 10–100 and is still running (unfinished, first run 10,
// executed 90, no preemption yet). Makespan 100; busy GPU-seconds A 100 +
// C 90 = 190 over 2 GPUs × 100 s: utilisation 0.95. Decisions at 0 and 10
// only.
//
// Window [1, 2), B: stops at t=130. A finished (JCT 100, outside the
// window); C unfinished, preempted once at 100, executed 90. Busy A 100 +
// B 2×30 + C 90 = 250 over 2 × 130: utilisation 250/260.
func TestStopWhenWindowDone(t *testing.T) {
	type want struct {
		stop, util, jct float64
		decisions       int
		unfinished      []models.JobID
		cFirst, cExec   float64
		cPreempt        int
	}
	for _, c := range []struct {
		w    Window
		want want
	}{
		{Window{From: 0, To: 1, StopWhenDone: true}, want{100, 190.0 / 200, 100, 2, []models.JobID{1, 2}, 10, 90, 0}},
		{Window{From: 1, To: 2, StopWhenDone: true}, want{130, 250.0 / 260, 130, -1, []models.JobID{2}, 10, 90, 1}},
	} {
		cfg := handComputedConfig(t)
		cfg.Measure = &c.w
		r, err := Run(cfg, inOrder{everyEvent})
		if err != nil {
			t.Fatal(err)
		}
		s, w := r.Summary, c.want
		if s.Makespan != w.stop || math.Abs(s.Utilisation-w.util) > 1e-9 || s.Jobs != 1 || math.Abs(s.MeanJCT-w.jct) > 1e-6 {
			t.Errorf("window %v: makespan %v utilisation %v, %d jobs of mean JCT %v; want %v, %v, 1, %v",
				c.w, s.Makespan, s.Utilisation, s.Jobs, s.MeanJCT, w.stop, w.util, w.jct)
		}
		if w.decisions >= 0 && s.Decisions != w.decisions {
			t.Errorf("window %v: %d decisions, want %d", c.w, s.Decisions, w.decisions)
		}
		var unfinished []models.JobID
		for _, j := range r.Jobs {
			if j.Unfinished {
				unfinished = append(unfinished, j.ID)
				if j.JCT != 0 || j.Finish != 0 || j.Rho != 0 || j.IsolatedJCT != 0 {
					t.Errorf("window %v: unfinished job %d has a completion: %+v", c.w, j.ID, j)
				}
			}
		}
		if !slices.Equal(unfinished, w.unfinished) || s.Unfinished != len(w.unfinished) {
			t.Errorf("window %v: unfinished %v (summary %d), want %v", c.w, unfinished, s.Unfinished, w.unfinished)
		}
		if b := r.Jobs[1]; b.Unfinished && (b.FirstRun != 0 || b.Starvation != 0 || b.Executed != 0) {
			t.Errorf("window %v: B never ran, got first run %v starvation %v executed %v", c.w, b.FirstRun, b.Starvation, b.Executed)
		}
		if cj := r.Jobs[2]; cj.FirstRun != w.cFirst || math.Abs(cj.Executed-w.cExec) > 1e-9 || cj.Preemptions != w.cPreempt {
			t.Errorf("window %v: C first run %v executed %v preemptions %d, want %v, %v, %d",
				c.w, cj.FirstRun, cj.Executed, cj.Preemptions, w.cFirst, w.cExec, w.cPreempt)
		}
		if s.Preemptions != w.cPreempt {
			t.Errorf("window %v: %d preemptions in the summary, want %d", c.w, s.Preemptions, w.cPreempt)
		}
	}
}

// TestStopWhenDoneIsCausal: on random scenarios and windows, a run stopped
// when its window's jobs are done ends at the window's last completion of
// the full run, and every job that finished by then — the window's jobs
// among them — has a result bit-identical to the full run's; the others
// are unfinished, finishing after the stop in the full run.
func TestStopWhenDoneIsCausal(t *testing.T) {
	stopped := 0 // runs in which the stop left a job unfinished
	for seed := int64(0); seed < 40; seed++ {
		rng := rand.New(rand.NewSource(seed))
		cfg := randomConfig(rng)
		p := []solvers.Policy{inOrder{everyEvent}, inOrder{models.AtRound}, fractional{}, sharing{}}[seed%4]
		if _, ok := p.(sharing); ok {
			addRandomPairs(rng, cfg.Matrix)
		}
		from := rng.Intn(len(cfg.Jobs))
		w := Window{From: models.JobID(from), To: models.JobID(from + 1 + rng.Intn(len(cfg.Jobs)-from))}
		cfg.Measure = &w
		full, err := Run(cfg, p)
		if err != nil {
			t.Fatalf("seed %d (%s): %v", seed, p.Name(), err)
		}
		w.StopWhenDone = true
		stop, err := Run(cfg, p)
		if err != nil {
			t.Fatalf("seed %d (%s), stopping: %v", seed, p.Name(), err)
		}
		end := 0.0
		for _, j := range full.Jobs {
			if w.Contains(j.ID) {
				end = math.Max(end, j.Finish)
			}
		}
		if stop.Summary.Makespan != end || !(stop.Summary.Utilisation >= 0 && stop.Summary.Utilisation <= 1+1e-9) {
			t.Errorf("seed %d (%s): stopped at %v (utilisation %v), want the window's last completion %v",
				seed, p.Name(), stop.Summary.Makespan, stop.Summary.Utilisation, end)
		}
		unfinished := 0
		for i, j := range stop.Jobs {
			f := full.Jobs[i]
			switch {
			case j.Unfinished:
				unfinished++
				if w.Contains(j.ID) || f.Finish <= end {
					t.Errorf("seed %d (%s): job %d unfinished at the stop (%v), finished at %v in the full run",
						seed, p.Name(), j.ID, end, f.Finish)
				}
			case j != f:
				t.Errorf("seed %d (%s): job %d: %+v stopped, %+v in the full run", seed, p.Name(), j.ID, j, f)
			}
		}
		sf, ss := full.Summary, stop.Summary
		if ss.Unfinished != unfinished || ss.Jobs != sf.Jobs || ss.MeanJCT != sf.MeanJCT || ss.P99JCT != sf.P99JCT ||
			ss.MeanRho != sf.MeanRho || ss.MaxStarve != sf.MaxStarve || ss.Decisions > sf.Decisions {
			t.Errorf("seed %d (%s): summary stopped %+v, full %+v", seed, p.Name(), ss, sf)
		}
		if unfinished > 0 {
			stopped++
		}
	}
	t.Logf("%d of 40 runs stopped with jobs unfinished", stopped)
	if stopped < 10 {
		t.Errorf("only %d of 40 runs stopped before a job finished: the stop went nearly untested", stopped)
	}
}
