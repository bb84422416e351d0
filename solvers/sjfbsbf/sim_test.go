package sjfbsbf_test

import (
	"testing"

	"fairbench/models"
	"fairbench/solvers/sjf"
	"fairbench/solvers/sjfbsbf"
)

// One V100. long (1000 steps at 1 step/s) arrives at 0 and starts; short
// (100 steps) arrives at 100 with long 900 s from its end. ξ = 1.25 both
// (co-located 0.8 steps/s each):
//
//	sjf-bsbf: E_a = 100, E_b = 900, Ê_a = 125 < Ê_b = 1125, t_con = 450 +
//	  0.6·125 = 525 < t_seq = 950: share at t = 100.
//	  short ends at 100 + 100/0.8 = 225 (JCT 125); long did 100 + 125·0.8 =
//	  200 steps by then and ends alone at 225 + 800 = 1025 (JCT 1025).
//	  Mean completion from t = 100: (125 + 925)/2 = 525 = t_con.
//	sjf: short waits; long ends at 1000, short at 1100 (JCT 1000).
func TestSimSharedJobsFinishAtTheSlowdownTimes(t *testing.T) {
	t.Parallel()
	c := cluster(t, models.Server{Type: "V100", GPUs: 1})
	jobs := []models.JobState{job(0, 0, "long", 1, 1000), job(1, 100, "short", 1, 100)}
	for _, v := range variants {
		got, r := simulate(t, build(t, v.f), c, jobs...)
		wantJCT(t, got, map[models.JobID]float64{0: 1025, 1: 125})
		if r.Summary.DefaultSlowdowns != 0 || r.Summary.Preemptions != 0 || r.Summary.Migrations != 0 {
			t.Errorf("%s: %+v", v.name, r.Summary)
		}
		if rep, ok := r.PolicyReport.(*sjfbsbf.Report); !ok || *rep != (sjfbsbf.Report{Started: 2, Shared: 1}) {
			t.Errorf("%s: report %#v", v.name, r.PolicyReport)
		}
	}
	got, _ := simulate(t, build(t, sjf.New), c, jobs...)
	wantJCT(t, got, map[models.JobID]float64{0: 1000, 1: 1000})
}

// hog (200 steps) runs from 0; short (100 steps) arrives at 100 when hog has
// 100 s left. ξ = 4 both ways (co-located 0.25 steps/s):
//
//	sjf-bsbf: t_con = 50 + (1 − 1/8)·400 = 400 > t_seq = 150: wait. hog ends
//	  at 200, short at 300 (JCT 200).
//	sjf-ffs: share at 100. Both at 0.25 steps/s: hog's 100 steps and short's
//	  100 take 400 s, both end at 500 (JCTs 500 and 400).
func TestSimBenefitTestAgainstFirstFit(t *testing.T) {
	t.Parallel()
	c := cluster(t, models.Server{Type: "V100", GPUs: 1})
	jobs := []models.JobState{job(0, 0, "hog", 1, 200), job(1, 100, "short", 1, 100)}
	got, _ := simulate(t, build(t, sjfbsbf.New), c, jobs...)
	wantJCT(t, got, map[models.JobID]float64{0: 200, 1: 200})
	got, _ = simulate(t, build(t, sjfbsbf.NewFFS), c, jobs...)
	wantJCT(t, got, map[models.JobID]float64{0: 500, 1: 400})
}

// big (10 GB, 1000 steps at 1 step/s) runs from 0; R64 (9 GB whole, 3 fixed;
// 400 steps) arrives at 10. 9 + 10 > 16 GB; with 2-step accumulation R64
// needs 3 + 6/2 = 6 GB and runs R32's 7 it/s / 2 = 3.5 steps/s alone, 3.5/2
// = 1.75 beside big (ξ = 4/2 = 2, its own type's pair figure); big beside it
// 0.8 (ξ = 1.25). The test (TestAccumulationChoice): share with k = 2.
//
//	R64 ends at 10 + 400/1.75 = 238.571 (JCT 228.571); big did 10 +
//	228.571·0.8 = 192.857 steps and ends alone at 238.571 + 807.143 =
//	1045.714.
//
// With big at 13 GB nothing fits (4.5 + 13 > 16): R64 waits until 1000 and
// runs alone at 4 steps/s: ends at 1100 (JCT 1090).
func TestSimAccumulation(t *testing.T) {
	t.Parallel()
	c := cluster(t, models.Server{Type: "V100", GPUs: 1})
	big := job(0, 0, "big", 1, 1000)
	r64 := job(1, 10, "R64", 1, 400)
	got, r := simulate(t, build(t, sjfbsbf.New), c, big, r64)
	wantJCT(t, got, map[models.JobID]float64{0: 238.571428571 + 807.142857143, 1: 400 / 1.75})
	if rep := r.PolicyReport.(*sjfbsbf.Report); rep.Accumulated != 1 {
		t.Errorf("report %+v, want one job started with accumulation", rep)
	}
	big.MemoryGB = 13
	got, _ = simulate(t, build(t, sjfbsbf.New), c, big, r64)
	wantJCT(t, got, map[models.JobID]float64{0: 1000, 1: 1090})
}

// Two 2-GPU servers. Long jobs A (t = 0) and B (t = 0.2) of 1000 s and
// one-step jobs X (t = 0.1) and Y (t = 0.3) fill them best-fit: A on GPU 0,
// X on GPU 1, B on GPU 2, Y on GPU 3; X and Y end at 1.1 and 1.3. At t = 2 a
// plain gang-2 job of 100 steps arrives; GPUs 1 and 3 are idle. plain has no
// pair figure: ξ = 2 (the simulator's and the policy's default), and the
// test passes beside A (E_b = 998 > 2·100) and beside B (999.8).
//
//	With pairing gpus (the gang is made GPU by GPU):
//	sjf-bsbf takes the idle GPUs 1 and 3 (spread; the fixture's spread
//	  figure equals the consolidated one): 100 s alone, JCT 100.
//	sjf-bsbf-consolidated tries one server: idle GPU 1 + A's GPU 0 (t_con =
//	  998/2 + 0.75·200 = 649) beats idle GPU 3 + B's GPU 2 (649.9). Its gang
//	  runs at the pace of its slowed worker, 1/2 step/s: JCT 200. A runs at
//	  1/2 for those 200 s: 2 + 100 steps done at 202, ends at 202 + 898 =
//	  1100. One placement used the default slowdown.
func TestSimConsolidatedSharing(t *testing.T) {
	t.Parallel()
	c := cluster(t, models.Server{Type: "V100", GPUs: 2}, models.Server{Type: "V100", GPUs: 2})
	jobs := []models.JobState{job(0, 0, "long", 1, 1000), job(1, 0.1, "long", 1, 1), job(2, 0.2, "long", 1, 1000),
		job(3, 0.3, "long", 1, 1), job(4, 2, "plain", 2, 100)}
	got, r := simulate(t, build(t, gpusPairing(sjfbsbf.New)), c, jobs...)
	wantJCT(t, got, map[models.JobID]float64{0: 1000, 2: 1000, 4: 100})
	if r.Summary.DefaultSlowdowns != 0 {
		t.Errorf("sjf-bsbf: %d default slowdowns, want 0", r.Summary.DefaultSlowdowns)
	}
	got, r = simulate(t, build(t, gpusPairing(sjfbsbf.NewConsolidated)), c, jobs...)
	wantJCT(t, got, map[models.JobID]float64{0: 1100, 2: 1000, 4: 200})
	if r.Summary.DefaultSlowdowns != 1 {
		t.Errorf("sjf-bsbf-consolidated: %d default slowdowns, want 1", r.Summary.DefaultSlowdowns)
	}
}

// Pairing gangs (the default): one 2-GPU server. L (plain, gang 2, 1000
// steps at 1 step/s) runs from 0; P (plain, gang 2, 100 steps) arrives at
// 100 with L 900 s from its end. No pair figure: ξ = 2 both ways; E_b = 900
// > 2·E_a = 200: P shares L's two GPUs. Both run at 1/2 step/s: P ends at
// 100 + 200 = 300 (JCT 200); L did 100 + 100 = 200 steps by then and ends
// alone at 300 + 800 = 1100. A third job Q (gang 1, 10 steps, at 150) finds
// no idle GPU and no running job of its gang: it waits for L's end and runs
// 1100-1110 (JCT 960). The simulator counts the default slowdown once per
// shared GPU: 2.
func TestSimSameGangSharing(t *testing.T) {
	t.Parallel()
	c := cluster(t, models.Server{Type: "V100", GPUs: 2})
	jobs := []models.JobState{job(0, 0, "plain", 2, 1000), job(1, 100, "plain", 2, 100), job(2, 150, "plain", 1, 10)}
	got, r := simulate(t, build(t, sjfbsbf.New), c, jobs...)
	wantJCT(t, got, map[models.JobID]float64{0: 1100, 1: 200, 2: 960})
	if r.Summary.DefaultSlowdowns != 2 {
		t.Errorf("%d default slowdowns, want 2", r.Summary.DefaultSlowdowns)
	}
}
