package sim

import (
	"math"
	"testing"

	"fairbench/models"
)

// together runs every active job on GPU 0, sharing it.
type together struct{}

func (together) Name() string             { return "together" }
func (together) Triggers() models.Trigger { return everyEvent }
func (together) Allocate(s *models.Snapshot) (models.Allocation, error) {
	a := models.Allocation{Colocate: true}
	for _, j := range s.Jobs {
		a.Run = append(a.Run, models.Assignment{Job: j.ID, Type: "V100", GPUs: []int{0}})
	}
	return a, nil
}

func colocConfig(t *testing.T, pairs bool) Config {
	cfg := tinyConfig(t, []models.Server{{Type: "V100", GPUs: 1}},
		map[models.Key]float64{{Job: "a", GPU: "V100", Gang: 1}: 1, {Job: "b", GPU: "V100", Gang: 1}: 1},
		[]models.Job{
			{ID: 0, User: "u", Type: "a", Gang: 1, Steps: 100},
			{ID: 1, User: "v", Type: "b", Gang: 1, Steps: 50},
		})
	if pairs {
		// a beside b runs at 0.5 steps/s (ξ = 2), b beside a at 0.8 (ξ = 1.25).
		_ = cfg.Matrix.SetPair(models.PairKey{Key: models.Key{Job: "a", GPU: "V100", Gang: 1}, Other: "b"}, 0.5, 0.8)
		_ = cfg.Matrix.SetPair(models.PairKey{Key: models.Key{Job: "b", GPU: "V100", Gang: 1}, Other: "a"}, 0.8, 0.5)
	}
	return cfg
}

// TestColocatedJobsRunAtPairSpeed: A (100 steps, 1 step/s alone) and B (50
// steps, 1 step/s alone) share one V100.
//
//	t=0:    A at 0.5 steps/s, B at 0.8 steps/s (the pair figures).
//	t=62.5: B ends (50 / 0.8); A has done 62.5·0.5 = 31.25 steps and
//	        returns to 1 step/s for its other 68.75.
//	t=131.25: A ends.
//
// The GPU is busy 0–131.25 and each job holds half of it while they share:
// utilisation 1.
func TestColocatedJobsRunAtPairSpeed(t *testing.T) {
	cfg := colocConfig(t, true)
	var rates []Event
	cfg.OnEvent = func(ev Event) {
		if ev.Kind == Rate {
			rates = append(rates, ev)
		}
	}
	r, err := Run(cfg, together{})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := r.Jobs[0].JCT, r.Jobs[1].JCT; math.Abs(a-131.25) > 1e-6 || math.Abs(b-62.5) > 1e-6 {
		t.Errorf("JCTs %v %v, want 131.25 62.5", a, b)
	}
	if len(rates) != 1 || rates[0].Job != 0 || rates[0].Rate != 1 || rates[0].Time != 62.5 {
		t.Errorf("rate events %+v, want one: job 0 back to 1 step/s at 62.5 s", rates)
	}
	if u := r.Summary.Utilisation; math.Abs(u-1) > 1e-9 {
		t.Errorf("utilisation %v, want 1", u)
	}
	if r.Summary.DefaultSlowdowns != 0 {
		t.Errorf("default slowdowns %d, want 0", r.Summary.DefaultSlowdowns)
	}
	// GPU time held: each held half the GPU for 62.5 s, then A all of it
	// for 68.75 s: A 31.25 + 68.75 = 100, B 31.25.
	if a, b := r.Users[0].GPUSeconds, r.Users[1].GPUSeconds; math.Abs(a-100) > 1e-6 || math.Abs(b-31.25) > 1e-6 {
		t.Errorf("GPU-seconds %v %v, want 100 31.25", a, b)
	}
}

// TestDefaultSlowdown: without pair figures both run at 1/2: B ends at 100
// (50 / 0.5) with A at 50 steps; A ends at 150. One default pair counted.
func TestDefaultSlowdown(t *testing.T) {
	r, err := Run(colocConfig(t, false), together{})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := r.Jobs[0].JCT, r.Jobs[1].JCT; a != 150 || b != 100 {
		t.Errorf("JCTs %v %v, want 150 100", a, b)
	}
	if r.Summary.DefaultSlowdowns != 1 {
		t.Errorf("default slowdowns %d, want 1", r.Summary.DefaultSlowdowns)
	}
}

// pairUp asks for every two active jobs to share the V100 all the time, and
// for a lone job to have it alone.
type pairUp struct{}

func (pairUp) Name() string { return "pair-up" }
func (pairUp) Allocate(s *models.Snapshot) (models.Allocation, error) {
	if len(s.Jobs) == 2 {
		return models.Allocation{Shared: []models.SharedFraction{{Jobs: [2]models.JobID{s.Jobs[0].ID, s.Jobs[1].ID}, Type: "V100", X: 1}}}, nil
	}
	a := models.Allocation{Fractions: map[models.JobID]map[string]float64{}}
	for _, j := range s.Jobs {
		a.Fractions[j.ID] = map[string]float64{"V100": 1}
	}
	return a, nil
}

// TestSharedFractionsRunPairsTogether: the round mechanism places a shared
// fraction's two jobs on the same GPU, at the pair speeds of
// TestColocatedJobsRunAtPairSpeed: B ends at 62.5 s, A at 131.25 s; at the
// round start at 100 s A stays where it is (no migration).
func TestSharedFractionsRunPairsTogether(t *testing.T) {
	cfg := colocConfig(t, true)
	cfg.Round = sec(100)
	r, err := Run(cfg, pairUp{})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := r.Jobs[0].JCT, r.Jobs[1].JCT; math.Abs(a-131.25) > 1e-6 || math.Abs(b-62.5) > 1e-6 {
		t.Errorf("JCTs %v %v, want 131.25 62.5", a, b)
	}
	if r.Summary.Migrations != 0 || r.Summary.Preemptions != 0 {
		t.Errorf("%d migrations, %d preemptions; want none", r.Summary.Migrations, r.Summary.Preemptions)
	}
}

// accumulating runs every job on the V100 with 2-step accumulation.
type accumulating struct{}

func (accumulating) Name() string { return "accumulating" }
func (accumulating) Allocate(s *models.Snapshot) (models.Allocation, error) {
	var a models.Allocation
	for _, j := range s.Jobs {
		a.Run = append(a.Run, models.Assignment{Job: j.ID, Type: "V100", Accum: 2})
	}
	return a, nil
}

// TestAccumulationSpeed: a batch-64 job at 3 steps/s whose batch-32 sibling
// runs at 5 iterations/s does 5/2 = 2.5 steps/s with 2-step accumulation:
// 100 steps take 40 s.
func TestAccumulationSpeed(t *testing.T) {
	cfg := tinyConfig(t, []models.Server{{Type: "V100", GPUs: 1}},
		map[models.Key]float64{{Job: "R (64)", GPU: "V100", Gang: 1}: 3, {Job: "R (32)", GPU: "V100", Gang: 1}: 5},
		[]models.Job{{ID: 0, User: "u", Type: "R (64)", Gang: 1, Steps: 100}})
	cfg.JobTypes = map[string]models.JobType{
		"R (64)": {Name: "R (64)", Model: "R", BatchSize: 64},
		"R (32)": {Name: "R (32)", Model: "R", BatchSize: 32},
	}
	r, err := Run(cfg, accumulating{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Jobs[0].JCT != 40 {
		t.Errorf("JCT %v, want 40", r.Jobs[0].JCT)
	}
}
