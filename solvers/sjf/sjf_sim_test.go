package sjf_test

import (
	"testing"

	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/internal/policytest"
	"fairbench/solvers/sjf"
)

func build(t *testing.T, f solvers.Factory) solvers.Policy {
	t.Helper()
	p, err := f(solvers.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// One V100, unit jobs at 1 step/s, no restore cost:
//
//	J1 100 steps, arrives 0    J2 50 steps, arrives 10    J3 30 steps, arrives 20
//
// sjf (non-preemptive):
//
//	t=0    J1 starts and runs to 100.
//	t=100  J3 (30 s) before J2 (50 s): J3 ends at 130, then J2 at 180.
//	JCTs: J1 100, J2 170, J3 110; mean 380/3; no preemption.
//
// srtf (preemptive):
//
//	t=10   J2 (50 s left) < J1 (90 s left): J2 runs, J1 preempted.
//	t=20   J3 (30) < J2 (40) < J1 (90): J3 runs, J2 preempted; J3 ends at 50.
//	t=50   J2 (40) runs, ends at 90.
//	t=90   J1 (90) resumes, ends at 180.
//	JCTs: J1 180, J2 80, J3 30; mean 290/3; 2 preemptions.
func TestSimShortestFirst(t *testing.T) {
	t.Parallel()
	servers := []models.Server{{Type: "V100", GPUs: 1}}
	jobs := []models.Job{policytest.Job(1, 0, "unit", 1, 100).Job, policytest.Job(2, 10, "unit", 1, 50).Job, policytest.Job(3, 20, "unit", 1, 30).Job}
	tests := []struct {
		name        string
		f           solvers.Factory
		want        map[models.JobID]float64
		mean        float64
		preemptions int
	}{
		{"sjf", sjf.New, map[models.JobID]float64{1: 100, 2: 170, 3: 110}, 380.0 / 3, 0},
		{"srtf", sjf.NewSRTF, map[models.JobID]float64{1: 180, 2: 80, 3: 30}, 290.0 / 3, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, r := policytest.Simulate(t, build(t, tc.f), servers, nil, jobs...)
			policytest.WantJCT(t, got, tc.want)
			if d := r.Summary.MeanJCT - tc.mean; d > 1e-6 || d < -1e-6 {
				t.Errorf("mean JCT %v, want %v", r.Summary.MeanJCT, tc.mean)
			}
			if r.Summary.Preemptions != tc.preemptions {
				t.Errorf("%d preemptions, want %d", r.Summary.Preemptions, tc.preemptions)
			}
		})
	}
}

// srtf on 1 V100 + 1 K80 (resnet: 3 steps/s on V100, 1 on K80), ranking by
// time left at the best throughput (V100's 3 steps/s):
//
//	t=0    J1 (600 steps: 200 s) ranks first and takes the V100; J2 (1,200
//	       steps: 400 s) the K80.
//	t=50   J1 has 600 − 150 = 450 steps left (150 s), J2 1,200 − 50 = 1,150
//	       (383.3 s); J3 arrives with 300 steps (100 s). Order J3, J1, J2: J3
//	       takes the V100, J1 moves to the K80 (its V100 is gone), J2 is
//	       preempted.
//	t=150  J3 ends (300 / 3 = 100 s; JCT 100). J1 has 450 − 100 = 350 steps
//	       left (116.7 s), J2 1,150: order J1, J2. J1 keeps its type, the K80,
//	       which has room (srtf moves a running job only when it must), and J2
//	       resumes on the V100.
//	t=500  J1 ends (150 + 350 / 1; JCT 500).
//	       J2 ends at 150 + 1,150 / 3 = 533.33 (JCT 533.33).
//
// Round starts at 360 change nothing (same order, both keep their types).
func TestSimSRTFHeterogeneous(t *testing.T) {
	t.Parallel()
	servers := []models.Server{{Type: "V100", GPUs: 1}, {Type: "K80", GPUs: 1}}
	got, r := policytest.Simulate(t, build(t, sjf.NewSRTF), servers, nil,
		policytest.Job(1, 0, "resnet", 1, 600).Job, policytest.Job(2, 0, "resnet", 1, 1200).Job, policytest.Job(3, 50, "resnet", 1, 300).Job)
	policytest.WantJCT(t, got, map[models.JobID]float64{3: 100, 1: 500, 2: 150 + 1150.0/3})
	// J1 migrated once (V100 → K80); J2 was preempted once and resumed.
	if got[1].Migrations != 1 || got[2].Preemptions != 1 {
		t.Errorf("J1 migrations %d (want 1), J2 preemptions %d (want 1)", got[1].Migrations, got[2].Preemptions)
	}
	if r.Summary.Migrations != 1 {
		t.Errorf("%d migrations, want 1", r.Summary.Migrations)
	}
}

// rounds_only: sjf decides at round starts (360 s) only. The
// TestSimShortestFirst jobs: J1 starts at 0 and ends at 100; the GPU idles
// until 360, when J3 (30 s) runs to 390, then J2 must wait for the round at
// 720 and ends at 770. JCTs: J1 100, J2 760, J3 370.
func TestSimRoundsOnly(t *testing.T) {
	t.Parallel()
	p, err := sjf.New(solvers.Config{Options: map[string]any{"rounds_only": true}})
	if err != nil {
		t.Fatal(err)
	}
	jobs := []models.Job{policytest.Job(1, 0, "unit", 1, 100).Job, policytest.Job(2, 10, "unit", 1, 50).Job, policytest.Job(3, 20, "unit", 1, 30).Job}
	got, _ := policytest.Simulate(t, p, []models.Server{{Type: "V100", GPUs: 1}}, nil, jobs...)
	policytest.WantJCT(t, got, map[models.JobID]float64{1: 100, 2: 760, 3: 370})
}
