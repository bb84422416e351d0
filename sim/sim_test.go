package sim

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"fairbench/models"
)

// inOrder is a test policy: every decision, active jobs in arrival order take
// the fastest type that still has room for their gang (skipping jobs that do
// not fit). It keeps a running job on its type, so it never migrates.
type inOrder struct{ trig models.Trigger }

func (p inOrder) Name() string             { return "in-order" }
func (p inOrder) Triggers() models.Trigger { return p.trig }
func (p inOrder) Allocate(s *models.Snapshot) (models.Allocation, error) {
	free := map[string]int{}
	for _, g := range s.Cluster.TypeNames() {
		free[g] = s.Cluster.Capacity(g)
	}
	var a models.Allocation
	for i := range s.Jobs {
		j := &s.Jobs[i]
		best, bt := "", 0.0
		for _, g := range s.Cluster.TypeNames() {
			t := s.Throughput(&j.Job, g)
			if j.LastType == g && free[g] >= j.Gang {
				best, bt = g, math.Inf(1)
			}
			if t > bt && free[g] >= j.Gang {
				best, bt = g, t
			}
		}
		if best != "" {
			free[best] -= j.Gang
			a.Run = append(a.Run, models.Assignment{Job: j.ID, Type: best})
		}
	}
	return a, nil
}

const everyEvent = models.AtRound | models.AtArrival | models.AtCompletion

func tinyConfig(t *testing.T, servers []models.Server, figs map[models.Key]float64, jobs []models.Job) Config {
	t.Helper()
	types := []models.GPUType{{Name: "V100", MemoryGB: 16, Rank: 3}, {Name: "K80", MemoryGB: 12, Rank: 1}}
	c, err := models.NewCluster(types, servers)
	if err != nil {
		t.Fatal(err)
	}
	m := models.NewMatrix()
	for k, v := range figs {
		if err := m.Set(k, v, "test"); err != nil {
			t.Fatal(err)
		}
	}
	return Config{Environment: models.Environment{Cluster: c, Matrix: m}, Users: []models.User{{Name: "u", Weight: 1}, {Name: "v", Weight: 1}}, Jobs: jobs}
}

func sec(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// handComputedConfig is TestHandComputedInOrder's cluster and jobs.
func handComputedConfig(t *testing.T) Config {
	k := func(g int) models.Key { return models.Key{Job: "m", GPU: "V100", Gang: g} }
	return tinyConfig(t, []models.Server{{Type: "V100", GPUs: 2}},
		map[models.Key]float64{k(1): 1, k(2): 2},
		[]models.Job{
			{ID: 0, User: "u", Type: "m", Gang: 1, Steps: 100},
			{ID: 1, User: "v", Type: "m", Gang: 2, Steps: 60},
			{ID: 2, User: "u", Type: "m", Gang: 1, Steps: 200, Arrival: sec(10)},
		})
}

// TestHandComputedInOrder: one server of 2 V100s; the in-order policy
// (preemptive, arrival order, skipping jobs that do not fit).
// A (gang 1, 100 steps at 1 step/s) and B (gang 2, 60 steps at 2 steps/s)
// arrive at 0; C (gang 1, 200 steps at 1 step/s) at 10 s.
//
//	t=0:   A starts on one GPU; B needs 2, only 1 free: skipped.
//	t=10:  C arrives and takes the free GPU (B still does not fit).
//	t=100: A ends (100/1). B comes before C and takes both GPUs: C is
//	       preempted with 90 of its 200 steps done.
//	t=130: B ends (100 + 60/2); C resumes (restore cost 0: no state size).
//	t=240: C ends (130 + 110/1).
//
// JCTs: A 100, B 130, C 230 → mean 460/3, median 130, makespan 240.
func TestHandComputedInOrder(t *testing.T) {
	r, err := Run(handComputedConfig(t), inOrder{everyEvent})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{100, 130, 230}
	for i, w := range want {
		if got := r.Jobs[i].JCT; math.Abs(got-w) > 1e-6 {
			t.Errorf("job %d: JCT %v, want %v", i, got, w)
		}
	}
	if math.Abs(r.Summary.MeanJCT-460.0/3) > 1e-9 || r.Summary.MedianJCT != 130 || r.Summary.Makespan != 240 {
		t.Errorf("summary %+v, want mean 153.33 median 130 makespan 240", r.Summary)
	}
	// Starvation: B waited 0→100, the others started on arrival.
	if r.Jobs[1].Starvation != 100 || r.Jobs[0].Starvation != 0 || r.Jobs[2].Starvation != 0 {
		t.Errorf("starvation %v %v %v, want 0 100 0", r.Jobs[0].Starvation, r.Jobs[1].Starvation, r.Jobs[2].Starvation)
	}
	if r.Summary.Preemptions != 1 || r.Jobs[2].Preemptions != 1 {
		t.Errorf("preemptions %d (C: %d), want 1 (C: 1)", r.Summary.Preemptions, r.Jobs[2].Preemptions)
	}
	// Finish-time fairness of A: over its lifetime [0, 100] two jobs were
	// active for 10 s and three for 90 s, so n = (2·10 + 3·90)/100 = 2.9. On
	// 1/2.9 of the 2 V100s (0.69 GPU) A runs at 2/2.9 steps/s: isolated JCT
	// 100·2.9/2 = 145 s, ρ = 100/145 = 2/2.9.
	if a := r.Jobs[0]; math.Abs(a.Contention-2.9) > 1e-9 || math.Abs(a.Rho-2/2.9) > 1e-9 {
		t.Errorf("A: contention %v ρ %v, want 2.9 and %v", a.Contention, a.Rho, 2/2.9)
	}
	// Busy GPU-seconds: A 100 + B 2×30 + C 200 = 360 over 2 GPUs × 240 s.
	if u := r.Summary.Utilisation; math.Abs(u-360.0/480) > 1e-9 {
		t.Errorf("utilisation %v, want 0.75", u)
	}
}

// TestRoundsOnlyWaitForTheRound: a round-only policy with 100 s rounds does
// not see an arrival until the next round, and freed GPUs stay idle until
// then. One V100; A (50 steps at 1/s) at 0, B (30 steps) at 20 s.
//
//	t=0: A starts; t=50: A ends; t=100: round 1, B starts; t=130: B ends.
//
// JCTs: A 50, B 110.
func TestRoundsOnlyWaitForTheRound(t *testing.T) {
	cfg := tinyConfig(t, []models.Server{{Type: "V100", GPUs: 1}},
		map[models.Key]float64{{Job: "m", GPU: "V100", Gang: 1}: 1},
		[]models.Job{
			{ID: 0, User: "u", Type: "m", Gang: 1, Steps: 50},
			{ID: 1, User: "u", Type: "m", Gang: 1, Steps: 30, Arrival: sec(20)},
		})
	cfg.Round = sec(100)
	r, err := Run(cfg, inOrder{models.AtRound})
	if err != nil {
		t.Fatal(err)
	}
	if r.Jobs[0].JCT != 50 || r.Jobs[1].JCT != 110 {
		t.Errorf("JCTs %v %v, want 50 110", r.Jobs[0].JCT, r.Jobs[1].JCT)
	}
}

// lifo preempts: the most recent arrival goes first. It records, per
// decision, which jobs the snapshot showed as running.
type lifo struct{ seen *[]string }

func (lifo) Name() string             { return "lifo" }
func (lifo) Triggers() models.Trigger { return everyEvent }
func (l lifo) Allocate(s *models.Snapshot) (models.Allocation, error) {
	if l.seen != nil {
		var running []string
		for _, j := range s.Jobs {
			if j.Running() {
				running = append(running, fmt.Sprintf("%d@%v", j.ID, j.LastGPUs))
			}
		}
		*l.seen = append(*l.seen, fmt.Sprintf("t=%v:%v", s.Now.Seconds(), running))
	}
	if len(s.Jobs) == 0 {
		return models.Allocation{}, nil
	}
	j := s.Jobs[len(s.Jobs)-1]
	return models.Allocation{Run: []models.Assignment{{Job: j.ID, Type: "V100"}}}, nil
}

// TestPreemptionCost: one V100, restore cost 5 s. A (100 steps at 1/s) at 0;
// B (20 steps) at 30 s preempts A.
//
//	t=30: A has done 30 steps; B starts (first start is free), ends at 50.
//	t=50: A resumes, pays 5 s, runs 70 steps: ends at 50 + 5 + 70 = 125.
//
// JCTs: A 125, B 20. A: 1 preemption, 1 resume, 5 s restoring.
func TestPreemptionCost(t *testing.T) {
	cfg := tinyConfig(t, []models.Server{{Type: "V100", GPUs: 1}},
		map[models.Key]float64{{Job: "m", GPU: "V100", Gang: 1}: 1},
		[]models.Job{
			{ID: 0, User: "u", Type: "m", Gang: 1, Steps: 100},
			{ID: 1, User: "v", Type: "m", Gang: 1, Steps: 20, Arrival: sec(30)},
		})
	cfg.Costs.PerType = map[string]time.Duration{"m": sec(5)}
	var seen []string
	r, err := Run(cfg, lifo{&seen})
	if err != nil {
		t.Fatal(err)
	}
	a, b := r.Jobs[0], r.Jobs[1]
	if a.JCT != 125 || b.JCT != 20 {
		t.Errorf("JCTs %v %v, want 125 20", a.JCT, b.JCT)
	}
	if a.Preemptions != 1 || a.Resumes != 1 || a.Lost != 5 || a.Executed != 100 {
		t.Errorf("A: %+v, want 1 preemption, 1 resume, 5 s lost, 100 s executed", a)
	}
	if r.Summary.LostGPUSeconds != 5 {
		t.Errorf("lost GPU-seconds %v, want 5", r.Summary.LostGPUSeconds)
	}
	// What the policy saw running: nothing at 0; A at 30 (before it decides
	// to preempt); B only at 50, when B ends (A was preempted at 30 and must
	// not still show its GPU); at 125 A has ended and nothing is left.
	want := "[t=0:[] t=30:[0@[0]] t=50:[] t=125:[]]"
	if got := fmt.Sprint(seen); got != want {
		t.Errorf("snapshots showed running %s, want %s", got, want)
	}
}

// TestSpreadThroughput: a gang of 2 on two 1-GPU servers runs at the spread
// figure: 40 steps at 0.5 steps/s spread → 80 s (consolidated would be 20 s
// at 2/s, but no server holds 2 GPUs).
func TestSpreadThroughput(t *testing.T) {
	cfg := tinyConfig(t, []models.Server{{Type: "V100", GPUs: 1}, {Type: "V100", GPUs: 1}},
		map[models.Key]float64{
			{Job: "m", GPU: "V100", Gang: 2}:                           2,
			{Job: "m", GPU: "V100", Gang: 2, Placement: models.Spread}: 0.5,
		},
		[]models.Job{{ID: 0, User: "u", Type: "m", Gang: 2, Steps: 40}})
	r, err := Run(cfg, inOrder{everyEvent})
	if err != nil {
		t.Fatal(err)
	}
	if r.Jobs[0].JCT != 80 {
		t.Errorf("JCT %v, want 80", r.Jobs[0].JCT)
	}
}

func TestRefusesJobWithoutFigure(t *testing.T) {
	cfg := tinyConfig(t, []models.Server{{Type: "V100", GPUs: 4}},
		map[models.Key]float64{{Job: "m", GPU: "V100", Gang: 1}: 1},
		[]models.Job{{ID: 7, User: "u", Type: "m", Gang: 2, Steps: 10}})
	_, err := Run(cfg, inOrder{everyEvent})
	if err == nil || !strings.Contains(err.Error(), "job 7") {
		t.Fatalf("got %v, want an error naming job 7", err)
	}
}

// greedy is an infeasible test policy: it gives every job the V100s.
type greedy struct{}

func (greedy) Name() string { return "greedy" }
func (greedy) Allocate(s *models.Snapshot) (models.Allocation, error) {
	var a models.Allocation
	for _, j := range s.Jobs {
		a.Run = append(a.Run, models.Assignment{Job: j.ID, Type: "V100"})
	}
	return a, nil
}

func TestInfeasibleAllocationNamesPolicyAndRound(t *testing.T) {
	cfg := tinyConfig(t, []models.Server{{Type: "V100", GPUs: 1}},
		map[models.Key]float64{{Job: "m", GPU: "V100", Gang: 1}: 1},
		[]models.Job{{ID: 0, User: "u", Type: "m", Gang: 1, Steps: 10}, {ID: 1, User: "u", Type: "m", Gang: 1, Steps: 10}})
	_, err := Run(cfg, greedy{})
	if err == nil {
		t.Fatal("want an error")
	}
	for _, want := range []string{"greedy", "round 0", "capacity", "V100"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// idle never runs anything.
type idle struct{ trig models.Trigger }

func (idle) Name() string               { return "idle" }
func (p idle) Triggers() models.Trigger { return p.trig }
func (idle) Allocate(*models.Snapshot) (models.Allocation, error) {
	return models.Allocation{}, nil
}

func TestStallIsAnError(t *testing.T) {
	for _, trig := range []models.Trigger{models.AtRound, models.AtArrival} {
		cfg := tinyConfig(t, []models.Server{{Type: "V100", GPUs: 1}},
			map[models.Key]float64{{Job: "m", GPU: "V100", Gang: 1}: 1},
			[]models.Job{{ID: 0, User: "u", Type: "m", Gang: 1, Steps: 10}})
		cfg.MaxIdleRounds = 3
		if _, err := Run(cfg, idle{trig}); err == nil || !strings.Contains(err.Error(), "stalled") {
			t.Errorf("trigger %v: got %v, want a stall error", trig, err)
		}
	}
}

// half asks for half of a V100's time for every job, capped or not.
type half struct{ capped bool }

func (half) Name() string { return "half" }
func (h half) Allocate(s *models.Snapshot) (models.Allocation, error) {
	a := models.Allocation{Fractions: map[models.JobID]map[string]float64{}, Capped: h.capped}
	for _, j := range s.Jobs {
		a.Fractions[j.ID] = map[string]float64{"V100": 0.5}
	}
	return a, nil
}

// TestCappedFractions: one V100, 100 s rounds, one job of 150 steps at
// 1 step/s with x = 0.5.
//
//	uncapped: the GPU is free, so the job runs every round: JCT 150.
//	capped:   t=0 runs (priority ∞), 100 steps by t=100; at t=100 it has had
//	          100/100 = 1 > 0.5 of its time: skipped; at t=200 it has had
//	          100/200 = 0.5, not more than its share: runs, ends at 250.
func TestCappedFractions(t *testing.T) {
	for _, c := range []struct {
		capped bool
		want   float64
	}{{false, 150}, {true, 250}} {
		cfg := tinyConfig(t, []models.Server{{Type: "V100", GPUs: 1}},
			map[models.Key]float64{{Job: "m", GPU: "V100", Gang: 1}: 1},
			[]models.Job{{ID: 0, User: "u", Type: "m", Gang: 1, Steps: 150}})
		cfg.Round = sec(100)
		r, err := Run(cfg, half{c.capped})
		if err != nil {
			t.Fatal(err)
		}
		if r.Jobs[0].JCT != c.want {
			t.Errorf("capped=%v: JCT %v, want %v", c.capped, r.Jobs[0].JCT, c.want)
		}
	}
}

// counting reports how many decisions it made.
type counting struct {
	inOrder
	n int
}

func (c *counting) Allocate(s *models.Snapshot) (models.Allocation, error) {
	c.n++
	return c.inOrder.Allocate(s)
}
func (c *counting) Report() any { return map[string]int{"decisions": c.n} }

// TestPolicyReport: a Reporter's report lands in the result. One job of
// 50 steps at 1/s on one V100 with 100 s rounds, deciding at rounds and
// completions: decisions at t=0 (round) and t=50 (completion) → 2.
func TestPolicyReport(t *testing.T) {
	cfg := tinyConfig(t, []models.Server{{Type: "V100", GPUs: 1}},
		map[models.Key]float64{{Job: "m", GPU: "V100", Gang: 1}: 1},
		[]models.Job{{ID: 0, User: "u", Type: "m", Gang: 1, Steps: 50}})
	cfg.Round = sec(100)
	r, err := Run(cfg, &counting{inOrder: inOrder{models.AtRound | models.AtCompletion}})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.PolicyReport.(map[string]int)["decisions"]; got != 2 || r.Summary.Decisions != 2 {
		t.Errorf("report %v, summary %d decisions; want 2 and 2", r.PolicyReport, r.Summary.Decisions)
	}
}
