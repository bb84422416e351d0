package fft_test

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/fft"
	"fairbench/solvers/internal/policytest"
)

func newFFT(t *testing.T, exact bool, opts map[string]any) *fft.FFT {
	t.Helper()
	mk := fft.New
	if exact {
		mk = fft.NewExact
	}
	p, err := mk(solvers.Config{Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	return p.(*fft.FFT)
}

// decide runs one decision at round r (360 s rounds, the fixture's) and
// checks it with models.Feasible.
func decide(t *testing.T, p *fft.FFT, servers []models.Server, r int, jobs ...models.JobState) []string {
	t.Helper()
	s := policytest.Snap(t, time.Duration(r)*360*time.Second, nil, servers, jobs...)
	s.Round = r
	a, err := p.Allocate(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := models.Feasible(s, a); err != nil {
		t.Fatalf("round %d: %v", r, err)
	}
	return policytest.IDs(a)
}

// on marks j as running on the given GPUs of type gpu.
func on(j models.JobState, gpu string, gpus ...int) models.JobState {
	j = policytest.Running(j, gpu, 0, 0, 0)
	j.LastGPUs = gpus
	return j
}

// Two identical jobs on one fast and one slow GPU. One V100 (GPU 0) and one
// K80 (GPU 1); J1 and J2 are "resnet" (3 steps/s on V100, 1 on K80), 10,800
// steps, both arriving at 0; rounds of 360 s.
//
// Units (best-round): one unit = 3 steps/s × 360 s = 1,080 steps, so
// W = 10, θ_V = 1, θ_K = 1/3. Fair share: with n = 2 each job owns half of
// each GPU, EqualShareThroughput = 0.5·3 + 0.5·1 = 2 steps/s = 2/3 unit per
// round, so τ − a = 10 / (2/3) = 15 rounds and the pace W/(τ − a) = 2/3.
//
//	t=0  ρ = 0: c_V = 0 + 1·10/1 = 10, c_K = 0 + 10/(1/3) = 30 for both.
//	     K(t) = 2 GPUs: one job on each type, cost 40 either way; the tie
//	     goes to the earlier job: J1 on V100.
//	t=1  Eq. 5 with μ(0) = 0: ρ stays 0. c_V = 1·1/10 + 10 = 10.1,
//	     c_K = 1·(1/3)/10 + 30 ≈ 30.033, equal for both: J1 stays on V100.
//	t=2  Eq. 5 with μ(1) = 1/15: J1 ρ = max(0, (1/15)(2/3 − 1)) = 0;
//	     J2 ρ = (1/15)(2/3 − 1/3) = 1/45. Swapping saves J2's ρ·(θ_V − θ_K)
//	     = (1/45)(2/3) = 2/135 ≈ 0.0148 (every other term is the same for
//	     both jobs): J2 on V100, J1 on K80.
func TestTwoIdenticalJobsFastSlow(t *testing.T) {
	t.Parallel()
	servers := []models.Server{{Type: "V100", GPUs: 1}, {Type: "K80", GPUs: 1}}
	p := newFFT(t, false, nil)
	j1, j2 := policytest.Job(1, 0, "resnet", 1, 10800), policytest.Job(2, 0, "resnet", 1, 10800)
	if got, want := decide(t, p, servers, 0, j1, j2), []string{"1/V100", "2/K80"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("t=0: %v, want %v", got, want)
	}
	j1, j2 = on(j1, "V100", 0), on(j2, "K80", 1)
	if got, want := decide(t, p, servers, 1, j1, j2), []string{"1/V100", "2/K80"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("t=1: %v, want %v", got, want)
	}
	if got, want := decide(t, p, servers, 2, j1, j2), []string{"1/K80", "2/V100"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("t=2: %v, want %v", got, want)
	}
	if r, _ := p.Rho(2); math.Abs(r-1.0/45) > 1e-12 {
		t.Errorf("ρ_2 = %v, want 1/45", r)
	}
	if r, _ := p.Rho(1); r != 0 {
		t.Errorf("ρ_1 = %v, want 0", r)
	}
	if tau, _ := p.FairFinish(1); math.Abs(tau-15) > 1e-12 {
		t.Errorf("τ_1 = %v, want 15", tau)
	}
}

// The exact path on the same two jobs: its branch and bound may break the
// ties of t=0 and t=1 either way, but at t=2 the job that had the K80 at t=1
// (ρ = 1/45, the other 0) must get the V100.
func TestTwoIdenticalJobsExact(t *testing.T) {
	t.Parallel()
	servers := []models.Server{{Type: "V100", GPUs: 1}, {Type: "K80", GPUs: 1}}
	p := newFFT(t, true, nil)
	j1, j2 := policytest.Job(1, 0, "resnet", 1, 10800), policytest.Job(2, 0, "resnet", 1, 10800)
	decide(t, p, servers, 0, j1, j2)
	j1, j2 = on(j1, "V100", 0), on(j2, "K80", 1)
	got := decide(t, p, servers, 1, j1, j2)
	slow, fast := models.JobID(2), "2/V100"
	if got[0] == "1/K80" {
		slow, fast = 1, "1/V100"
	}
	if got := decide(t, p, servers, 2, j1, j2); !slices.Contains(got, fast) {
		t.Fatalf("t=2: %v, want %s (job %d had the K80 at t=1)", got, fast, slow)
	}
	if r, _ := p.Rho(slow); math.Abs(r-1.0/45) > 1e-12 {
		t.Errorf("ρ of job %d = %v, want 1/45", slow, r)
	}
}

// The program gives the fast type to the long job: in Σ d_j·W_j/θ a long job
// saves more from a fast GPU than a short one, and work conservation starts
// the short job at once on the slow GPU. One V100 and one K80, "resnet" (3
// steps/s on V100, 1 on K80), best-round units (1,080 steps): S has 1,080
// steps (W = 1), L 10,800 (W = 10), both arriving at 0, ρ = 0.
//
//	t=0  c_S,V = 1·1/1 = 1, c_S,K = 1/(1/3) = 3, c_L,V = 10/1 = 10,
//	     c_L,K = 10/(1/3) = 30. S on V100 and L on K80 costs 1 + 30 = 31;
//	     S on K80 and L on V100 costs 3 + 10 = 13: L gets the V100.
//
// The same with φ's age term off (age_scale 0): at t=0 it is 0 anyway.
func TestLongJobGetsFastType(t *testing.T) {
	t.Parallel()
	servers := []models.Server{{Type: "V100", GPUs: 1}, {Type: "K80", GPUs: 1}}
	for _, opts := range []map[string]any{{"work_unit": "best-round"}, {"work_unit": "best-round", "age_scale": 0}} {
		p := newFFT(t, false, opts)
		short, long := policytest.Job(1, 0, "resnet", 1, 1080), policytest.Job(2, 0, "resnet", 1, 10800)
		if got, want := decide(t, p, servers, 0, short, long), []string{"1/K80", "2/V100"}; !reflect.DeepEqual(got, want) {
			t.Errorf("%v: %v, want %v", opts, got, want)
		}
	}
}

// The switching penalty delays the swap. As above, with a 5 s transfer for
// resnet: s = 5/360 round for each job that changes type. The swap at t=2
// would save 2/135 ≈ 0.0148 but cost 2s ≈ 0.0278: no swap. At t=3, Eq. 5
// with μ(2) = 2/15 gives J2 ρ = 1/45 + (2/15)(1/3) = 1/15, saving
// (1/15)(2/3) = 2/45 ≈ 0.0444 > 0.0278: the jobs swap.
func TestSwitchingPenalty(t *testing.T) {
	t.Parallel()
	servers := []models.Server{{Type: "V100", GPUs: 1}, {Type: "K80", GPUs: 1}}
	p := newFFT(t, false, map[string]any{"restore_seconds": map[string]any{"resnet": 5}})
	j1, j2 := policytest.Job(1, 0, "resnet", 1, 10800), policytest.Job(2, 0, "resnet", 1, 10800)
	decide(t, p, servers, 0, j1, j2)
	j1, j2 = on(j1, "V100", 0), on(j2, "K80", 1)
	for r, want := range [][]string{1: {"1/V100", "2/K80"}, 2: {"1/V100", "2/K80"}, 3: {"1/K80", "2/V100"}} {
		if r == 0 {
			continue
		}
		if got := decide(t, p, servers, r, j1, j2); !reflect.DeepEqual(got, want) {
			t.Fatalf("t=%d: %v, want %v", r, got, want)
		}
	}
	if r, _ := p.Rho(2); math.Abs(r-1.0/15) > 1e-12 {
		t.Errorf("ρ_2 = %v, want 1/15", r)
	}
}

// A gang that fits only on one type. Four V100 on one server, two K80 on
// another. A is a 4-GPU resnet job of 10,800 steps (W = 10 units of 1,080
// steps), B and C 1-GPU resnet jobs of 1,080 steps (W = 1); all arrive at 0.
// A cannot run on the two K80s (models.Environment.Throughput: gang > capacity).
//
//	c_V(A) = 4·10/1 = 40;  c_V(B) = c_V(C) = 1·1/1 = 1;  c_K(B) = c_K(C) = 1/(1/3) = 3.
//
// Every cost is positive, so without Eq. 7 nothing would run. K(t) = 6:
// only A on the V100s with B and C on the K80s fills all six GPUs (B and C
// on V100s fill at most 4). The optimum is forced: 40 + 3 + 3 = 46.
func TestGangFitsOneType(t *testing.T) {
	t.Parallel()
	servers := []models.Server{{Type: "V100", GPUs: 4}, {Type: "K80", GPUs: 2}}
	for _, exact := range []bool{false, true} {
		p := newFFT(t, exact, nil)
		got := decide(t, p, servers, 0, policytest.Job(1, 0, "resnet", 4, 10800),
			policytest.Job(2, 0, "resnet", 1, 1080), policytest.Job(3, 0, "resnet", 1, 1080))
		if want := []string{"1/V100", "2/K80", "3/K80"}; !reflect.DeepEqual(got, want) {
			t.Fatalf("exact=%v: %v, want %v", exact, got, want)
		}
		rep := p.Report().(*fft.Report)
		if o := rep.Series[0].Objective; math.Abs(o-46) > 1e-9 {
			t.Errorf("exact=%v: objective %v, want 46", exact, o)
		}
	}
}

// A job with no memory fit on a type. One V100 (32 GB) and one P100
// (16 GB); "unit" jobs run at 1 step/s everywhere. Y (ID 1) needs no stated
// memory; X (ID 2) needs 20 GB per worker, more than a P100 has. Both have
// 360 steps (W = 1, θ = 1): every cost is 0·1/1 + 1·1/1 = 1, a tie that
// would give the V100 to Y, the earlier job — and leave X waiting. K(t) = 2
// is reached only with X on the V100 and Y on the P100.
func TestMemoryFit(t *testing.T) {
	t.Parallel()
	servers := []models.Server{{Type: "V100", GPUs: 1}, {Type: "P100", GPUs: 1}}
	x := policytest.Job(2, 0, "unit", 1, 360)
	x.MemoryGB = 20
	for _, exact := range []bool{false, true} {
		p := newFFT(t, exact, nil)
		got := decide(t, p, servers, 0, policytest.Job(1, 0, "unit", 1, 360), x)
		if want := []string{"1/P100", "2/V100"}; !reflect.DeepEqual(got, want) {
			t.Fatalf("exact=%v: %v, want %v", exact, got, want)
		}
	}
}

// Host placement at churn: two 4-GPU V100 servers (GPUs 0–3, 4–7). Kept jobs
// K1 (resnet, 1.25 GB of state: 1 s at 1.25 GB/s) on GPU 0 and K2 (unit,
// 6.25 GB: 5 s) on GPU 4 leave no server with 4 free GPUs for the new
// 4-GPU resnet job G. Spreading G would cost a round at half speed (spread
// 1.5 vs consolidated 3 steps/s): 4 × 360 × 0.5 = 720 GPU-s; moving K1
// costs 1 GPU-s, moving K2 5. FFT moves K1 to server 1 (its first free GPU,
// 5) and gives G all of server 0.
func TestPlacementConsolidates(t *testing.T) {
	t.Parallel()
	servers := []models.Server{{Type: "V100", GPUs: 4}, {Type: "V100", GPUs: 4}}
	s := policytest.Snap(t, 0, nil, servers,
		on(policytest.Job(1, 0, "resnet", 1, 1e6), "V100", 0),
		on(policytest.Job(2, 0, "unit", 1, 1e6), "V100", 4),
		policytest.Job(3, 0, "resnet", 4, 1e3))
	if err := s.Matrix.Set(models.Key{Job: "resnet", GPU: "V100", Gang: 4, Placement: models.Spread}, 1.5, "test"); err != nil {
		t.Fatal(err)
	}
	s.JobTypes["resnet"] = models.JobType{Name: "resnet", StateGB: 1.25}
	s.JobTypes["unit"] = models.JobType{Name: "unit", StateGB: 6.25}
	p := newFFT(t, false, nil)
	a, err := p.Allocate(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := models.Feasible(s, a); err != nil {
		t.Fatal(err)
	}
	got := map[models.JobID][]int{}
	for _, x := range a.Run {
		got[x.Job] = x.GPUs
	}
	want := map[models.JobID][]int{1: {5}, 2: {4}, 3: {0, 1, 2, 3}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("GPUs %v, want %v", got, want)
	}
	if rep := p.Report().(*fft.Report); rep.Evictions != 1 || rep.Spread != 0 {
		t.Errorf("evictions %d, spread %d; want 1 and 0", rep.Evictions, rep.Spread)
	}
}

// Work conservation (Eq. 7): on random snapshots of the fixture, no GPU type
// has as many free GPUs as the gang of a waiting job that can run there, and
// every allocation passes models.Feasible.
func TestWorkConserving(t *testing.T) {
	t.Parallel()
	types := []string{"resnet", "unit", "recsys", "k80"}
	gangs := []int{1, 1, 1, 2, 4, 8}
	servers := []models.Server{{Type: "V100", GPUs: 4}, {Type: "V100", GPUs: 4}, {Type: "P100", GPUs: 4},
		{Type: "K80", GPUs: 8}}
	for seed := range 40 {
		p := newFFT(t, false, nil)
		var jobs []models.JobState
		for i := range 3 + seed%17 {
			r := (seed*31 + i*17) % 97
			j := policytest.Job(i+1, float64(r), types[r%len(types)], gangs[(r/3)%len(gangs)], float64(100+r*1000))
			jobs = append(jobs, j)
		}
		s := policytest.Snap(t, 400*time.Second, nil, servers, jobs...)
		a, err := p.Allocate(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := models.Feasible(s, a); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		free := map[string]int{}
		for _, g := range s.Cluster.TypeNames() {
			free[g] = s.Cluster.Capacity(g)
		}
		ran := map[models.JobID]bool{}
		for _, x := range a.Run {
			free[x.Type] -= len(x.GPUs)
			ran[x.Job] = true
		}
		for _, j := range s.Jobs {
			if ran[j.ID] {
				continue
			}
			for _, g := range s.Cluster.TypeNames() {
				if s.Throughput(&j.Job, g) > 0 && free[g] >= j.Gang {
					t.Fatalf("seed %d: job %d (gang %d) waits while %d %s GPUs are free", seed, j.ID, j.Gang, free[g], g)
				}
			}
		}
	}
}

func TestOptions(t *testing.T) {
	t.Parallel()
	for _, bad := range []map[string]any{
		{"solve": "slow"}, {"work_unit": "fortnight"}, {"phi_work": "half"}, {"bandwidth_gb_per_second": -1},
		{"mu_scale": -1}, {"age_scale": -1}, {"node_limit": -1}, {"audit_every": -2}, {"trajectory_points": -1},
		{"restore_seconds": map[string]any{"x": -1}}, {"steps_per_epoch": map[string]any{"x": 0}}, {"nonsense": 1},
	} {
		if _, err := fft.New(solvers.Config{Options: bad}); err == nil || !strings.Contains(err.Error(), "fft") {
			t.Errorf("%v: error %v, want one naming fft", bad, err)
		}
	}
	p := newFFT(t, true, nil)
	if p.Name() != fft.ExactName || p.Options().Solve != fft.ModeExact || p.Options().BandwidthGBps != 1.25 {
		t.Errorf("fft-exact: %s %+v", p.Name(), p.Options())
	}
}

// work_unit epoch with 1,080 steps per epoch for resnet is the best-round
// unit of TestTwoIdenticalJobsFastSlow (3 steps/s × 360 s): the same ρ.
// With 540 steps per epoch, W = 20, θ_V = 2, θ_K = 2/3 and the pace 4/3:
// ρ_2 = (1/15)(4/3 − 2/3) = 2/45 (twice, as ρ·θ scales with the unit²: each
// factor of the unit halves). The epoch comes from the option, else from the
// job type's EpochSamples / BatchSize (540 = 17,280 samples / batch 32), else
// the job falls back to the best-round unit (1/45 again) and is counted.
func TestEpochUnit(t *testing.T) {
	t.Parallel()
	servers := []models.Server{{Type: "V100", GPUs: 1}, {Type: "K80", GPUs: 1}}
	for _, c := range []struct {
		name     string
		opts     map[string]any
		epoch    float64 // the job type's EpochSamples (batch 32)
		rho      float64
		fallback int
	}{
		{"option 1080", map[string]any{"steps_per_epoch": map[string]any{"resnet": 1080}}, 0, 1.0 / 45, 0},
		{"option 540", map[string]any{"steps_per_epoch": map[string]any{"resnet": 540}}, 0, 2.0 / 45, 0},
		{"option over type", map[string]any{"steps_per_epoch": map[string]any{"resnet": 1080}}, 540 * 32, 1.0 / 45, 0},
		{"job type 540", nil, 540 * 32, 2.0 / 45, 0},
		{"no epoch: best-round", nil, 0, 1.0 / 45, 2},
	} {
		p := newFFT(t, false, c.opts)
		if p.Options().WorkUnit != fft.UnitEpoch {
			t.Fatalf("default work unit %q", p.Options().WorkUnit)
		}
		step := func(r int, jobs ...models.JobState) {
			s := policytest.Snap(t, time.Duration(r)*360*time.Second, nil, servers, jobs...)
			s.Round = r
			s.JobTypes["resnet"] = models.JobType{Name: "resnet", BatchSize: 32, EpochSamples: c.epoch}
			if _, err := p.Allocate(s); err != nil {
				t.Fatal(err)
			}
		}
		j1, j2 := policytest.Job(1, 0, "resnet", 1, 10800), policytest.Job(2, 0, "resnet", 1, 10800)
		step(0, j1, j2)
		j1, j2 = on(j1, "V100", 0), on(j2, "K80", 1)
		step(1, j1, j2)
		step(2, j1, j2)
		if r, _ := p.Rho(2); math.Abs(r-c.rho) > 1e-12 {
			t.Errorf("%s: ρ_2 = %v, want %v", c.name, r, c.rho)
		}
		if got := p.Report().(*fft.Report).UnitFallbacks; got != c.fallback {
			t.Errorf("%s: %d unit fallbacks, want %d", c.name, got, c.fallback)
		}
	}
}
