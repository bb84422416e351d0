package sjfbsbf_test

import (
	"reflect"
	"strings"
	"testing"

	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/sjfbsbf"
)

// TestDecisions: one decision per case, with the expected starts of the
// four variants (bsbf, bsbf-consolidated, ffs, ffs-consolidated) as
// "job:[gpus]" or "job:[gpus]/k". Throughputs are 1 step/s unless the
// fixture says otherwise, so E = remaining steps in seconds.
func TestDecisions(t *testing.T) {
	t.Parallel()
	one := []models.Server{{Type: "V100", GPUs: 1}}
	two := []models.Server{{Type: "V100", GPUs: 2}}
	tests := []struct {
		name    string
		servers []models.Server
		jobs    []models.JobState
		want    [4][]string // bsbf, bsbf-consolidated, ffs, ffs-consolidated
		// wantGPUs is the same with pairing: gpus, when it differs.
		wantGPUs *[4][]string
	}{
		{
			// An idle GPU beats sharing.
			name:    "idle first",
			servers: two,
			jobs:    []models.JobState{running(job(1, 0, "long", 1, 1000), 0, 0), job(2, 1, "short", 1, 100)},
			want:    [4][]string{{"2:[1]"}, {"2:[1]"}, {"2:[1]"}, {"2:[1]"}},
		},
		{
			// short (E_a = 100) beside long (E_b = 900), ξ = 1.25 both:
			// Ê_a = 125 < Ê_b = 1125, t_con = 450 + 0.6·125 = 525 < t_seq =
			// 900 + 50 = 950: share.
			name:    "share when the test passes",
			servers: one,
			jobs:    []models.JobState{running(job(1, 0, "long", 1, 1000), 100, 0), job(2, 1, "short", 1, 100)},
			want:    [4][]string{{"2:[0]"}, {"2:[0]"}, {"2:[0]"}, {"2:[0]"}},
		},
		{
			// short beside hog, ξ = 4 both, E_a = E_b = 100: Ê_a = Ê_b = 400,
			// t_con = 50 + (1 − 1/8)·400 = 400 > t_seq = 100 + 50 = 150: sjf-bsbf
			// waits; sjf-ffs shares anyway.
			name:    "wait when the test fails",
			servers: one,
			jobs:    []models.JobState{running(job(1, 0, "hog", 1, 200), 100, 0), job(2, 1, "short", 1, 100)},
			want:    [4][]string{nil, nil, {"2:[0]"}, {"2:[0]"}},
		},
		{
			// Two passing partners: long on GPU 0 with E_b = 3000 and long on
			// GPU 1 with E_b = 1000. t_con (Ê_a = 125 < Ê_b) = E_b/2 + 75:
			// 1575 against 575, so sjf-bsbf takes GPU 1 (best benefit =
			// lowest t_con); sjf-ffs takes GPU 0 (first fit).
			name:    "best benefit first",
			servers: two,
			jobs: []models.JobState{
				running(job(1, 0, "long", 1, 3000), 0, 0), running(job(2, 0, "long", 1, 1000), 0, 1),
				job(3, 1, "short", 1, 100),
			},
			want: [4][]string{{"3:[1]"}, {"3:[1]"}, {"3:[0]"}, {"3:[0]"}},
		},
		{
			// GPU 0 holds two jobs already: nobody else goes there.
			name:    "never a third job",
			servers: one,
			jobs: []models.JobState{
				running(job(1, 0, "long", 1, 1000), 0, 0), running(job(2, 0, "long", 1, 1000), 0, 0),
				job(3, 1, "short", 1, 10),
			},
			want: [4][]string{nil, nil, nil, nil},
		},
		{
			// Job 1 (gang 2) shares GPU 0 with job 2; its GPU 1 holds it alone,
			// but a job that already shares is never given a second partner.
			name:    "a sharing job is not offered",
			servers: two,
			jobs: []models.JobState{
				running(job(1, 0, "long", 2, 1000), 0, 0, 1), running(job(2, 0, "long", 1, 1000), 0, 0),
				job(3, 1, "short", 1, 10),
			},
			want: [4][]string{nil, nil, nil, nil},
		},
		{
			// A gang of 2 beside two gang-1 jobs. pairing gangs: no running
			// job of its gang, wait. pairing gpus: plain has no pair figure,
			// the default ξ = 2 both ways, and E_b = 1000 > 2·E_a = 200: share
			// with both.
			name:    "gang met from two partners",
			servers: two,
			jobs: []models.JobState{
				running(job(1, 0, "long", 1, 1000), 0, 0), running(job(2, 0, "long", 1, 1000), 0, 1),
				job(3, 1, "plain", 2, 100),
			},
			want:     [4][]string{nil, nil, nil, nil},
			wantGPUs: &[4][]string{{"3:[0 1]"}, {"3:[0 1]"}, {"3:[0 1]"}, {"3:[0 1]"}},
		},
		{
			// A gang of 2 beside two running gangs of 2, on GPUs 2-3 (E_b =
			// 1000) and 0-1 (E_b = 5000); both pass at the default ξ = 2 (E_b >
			// 2·E_a = 200). t_con = E_b/2 + 0.75·200: 650 against 2650, so
			// sjf-bsbf takes GPUs 2-3; sjf-ffs the first GPUs, 0-1.
			name:    "same gang, same GPUs",
			servers: []models.Server{{Type: "V100", GPUs: 4}},
			jobs: []models.JobState{
				running(job(1, 0, "plain", 2, 1000), 0, 2, 3), running(job(2, 0, "plain", 2, 5000), 0, 0, 1),
				job(3, 1, "plain", 2, 100),
			},
			want: [4][]string{{"3:[2 3]"}, {"3:[2 3]"}, {"3:[0 1]"}, {"3:[0 1]"}},
		},
		{
			// The same at E_b = 150 < 2·E_a = 200: with pairing gpus sjf-bsbf
			// waits and sjf-ffs shares.
			name:    "gang partners fail the test",
			servers: two,
			jobs: []models.JobState{
				running(job(1, 0, "long", 1, 150), 0, 0), running(job(2, 0, "long", 1, 150), 0, 1),
				job(3, 1, "plain", 2, 100),
			},
			want:     [4][]string{nil, nil, nil, nil},
			wantGPUs: &[4][]string{nil, nil, {"3:[0 1]"}, {"3:[0 1]"}},
		},
		{
			// Two 2-GPU servers, each with one idle GPU and one GPU of a long
			// job. The plain variants take the two idle GPUs (spread over the
			// servers). With pairing gpus the consolidated ones first try one
			// server: idle GPU 1 plus the shared GPU 0 (server 0 wins the tie
			// on index); with pairing gangs there is no gang-2 partner, so
			// they too take the idle GPUs.
			name:    "one server first",
			servers: []models.Server{{Type: "V100", GPUs: 2}, {Type: "V100", GPUs: 2}},
			jobs: []models.JobState{
				running(job(1, 0, "long", 1, 10000), 0, 0), running(job(2, 0, "long", 1, 10000), 0, 2),
				job(3, 1, "short", 2, 100),
			},
			want:     [4][]string{{"3:[1 3]"}, {"3:[1 3]"}, {"3:[1 3]"}, {"3:[1 3]"}},
			wantGPUs: &[4][]string{{"3:[1 3]"}, {"3:[0 1]"}, {"3:[1 3]"}, {"3:[0 1]"}},
		},
		{
			// No idle GPU. Two running gangs of 2: job 2 spread over servers 0
			// and 1 (GPUs 1, 2; E_b = 1000) and job 4 on server 2 (GPUs 4, 5;
			// E_b = 5000). Pairing gangs: the consolidated variants take the
			// consolidated partner, job 4; the plain ones the best (sjf-bsbf:
			// lowest t_con, job 2; sjf-ffs: lowest GPU, job 2). Pairing gpus:
			// gang-1 jobs 1 and 3 are offered too; sjf-ffs takes GPUs 0 and 1.
			name:    "one server first, same gang",
			servers: []models.Server{{Type: "V100", GPUs: 2}, {Type: "V100", GPUs: 2}, {Type: "V100", GPUs: 2}},
			jobs: []models.JobState{
				running(job(1, 0, "plain", 1, 10000), 0, 0), running(job(2, 0, "plain", 2, 1000), 0, 1, 2),
				running(job(3, 0, "plain", 1, 10000), 0, 3), running(job(4, 0, "plain", 2, 5000), 0, 4, 5),
				job(5, 1, "plain", 2, 100),
			},
			want:     [4][]string{{"5:[1 2]"}, {"5:[4 5]"}, {"5:[1 2]"}, {"5:[4 5]"}},
			wantGPUs: &[4][]string{{"5:[1 2]"}, {"5:[4 5]"}, {"5:[0 1]"}, {"5:[0 1]"}},
		},
		{
			// Idle GPUs 1 and 3 on two servers; a gang of 2 (E_b = 1000) on
			// server 2. The plain variants spread over the idle GPUs; the
			// consolidated ones share on one server first: pairing gangs, the
			// gang-2 job's GPUs 4-5; pairing gpus, idle GPU 1 and job 1's GPU
			// 0 (one shared GPU, against two on server 2; jobs 1 and 2 tie on
			// t_con, job 1 arrived first and holds the lower GPU).
			name:    "one server first, idle GPUs spread",
			servers: []models.Server{{Type: "V100", GPUs: 2}, {Type: "V100", GPUs: 2}, {Type: "V100", GPUs: 2}},
			jobs: []models.JobState{
				running(job(1, 0, "long", 1, 10000), 0, 0), running(job(2, 0, "long", 1, 10000), 0, 2),
				running(job(3, 0, "plain", 2, 1000), 0, 4, 5), job(4, 1, "plain", 2, 100),
			},
			want:     [4][]string{{"4:[1 3]"}, {"4:[4 5]"}, {"4:[1 3]"}, {"4:[4 5]"}},
			wantGPUs: &[4][]string{{"4:[1 3]"}, {"4:[0 1]"}, {"4:[1 3]"}, {"4:[0 1]"}},
		},
		{
			// SJF order on remaining time: job 3 (10 s) before job 2 (50 s);
			// job 3 takes the idle GPU 1. Job 2 (E_a = 50) may then share with
			// long job 1 on GPU 0 (E_b = 1000) or with job 3 just started on GPU
			// 1 (E_b = 10); ξ = 1.25 for every pair of these types, so both
			// pass (s₁ < 0). t_con beside job 3: Ê_a = 62.5 ≥ Ê_b = 12.5, 25 +
			// 0.6·12.5 = 32.5; beside job 1: Ê_a < Ê_b, 500 + 0.6·62.5 =
			// 537.5. sjf-bsbf takes GPU 1, sjf-ffs the first GPU, 0.
			name:    "shortest first",
			servers: two,
			jobs: []models.JobState{
				running(job(1, 0, "long", 1, 1000), 0, 0), job(2, 1, "short", 1, 50), job(3, 2, "short", 1, 10),
			},
			want: [4][]string{{"3:[1]", "2:[1]"}, {"3:[1]", "2:[1]"}, {"3:[1]", "2:[0]"}, {"3:[1]", "2:[0]"}},
		},
		{
			// A job started in this decision on an idle GPU is a partner for
			// the next: job 2 (short, 10 s) takes GPU 0, job 3 (long, 1000 s)
			// then shares it? t_con with a = long (E_a = 1000), b = short (E_b
			// = 10): Ê_a = 1250 ≥ Ê_b = 12.5: t_con = 500 + 0.6·12.5 = 507.5 <
			// t_seq = 10 + 500 = 510: share.
			name:    "a job just started is a partner",
			servers: one,
			jobs:    []models.JobState{job(2, 1, "short", 1, 10), job(3, 2, "long", 1, 1000)},
			want:    [4][]string{{"2:[0]", "3:[0]"}, {"2:[0]", "3:[0]"}, {"2:[0]", "3:[0]"}, {"2:[0]", "3:[0]"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for v, variant := range variants {
				got := allocate(t, variant.f, snap(t, cluster(t, tc.servers...), tc.jobs...))
				if !reflect.DeepEqual(got, tc.want[v]) {
					t.Errorf("%s: started %v, want %v", variant.name, got, tc.want[v])
				}
				want := tc.want
				if tc.wantGPUs != nil {
					want = *tc.wantGPUs
				}
				got = allocate(t, gpusPairing(variant.f), snap(t, cluster(t, tc.servers...), tc.jobs...))
				if !reflect.DeepEqual(got, want[v]) {
					t.Errorf("%s, pairing gpus: started %v, want %v", variant.name, got, want[v])
				}
			}
		})
	}
}

// TestAccumulationChoice: running job big needs 10 GB of the 16; pending R64
// needs 9 GB whole (3 fixed), 3 + 6/2 = 6 GB with 2-step accumulation and
// 3 + 6/4 = 4.5 GB with 4 steps. Its throughput: 4 steps/s whole, R32's
// 7/2 = 3.5 with k = 2, R16's 12/4 = 3 with k = 4 (with R32 at 5: 2.5).
func TestAccumulationChoice(t *testing.T) {
	t.Parallel()
	one := []models.Server{{Type: "V100", GPUs: 1}}
	bigJob := func(mem float64) models.JobState {
		j := running(job(1, 0, "big", 1, 1000), 10, 0)
		j.MemoryGB = mem
		return j
	}
	tests := []struct {
		name string
		mem  float64 // big's memory
		r32  float64 // R32's throughput
		want [4][]string
	}{
		// 9 + 10 > 16; k = 2: 6 + 10 = 16 fits, and 3.5 > 3 steps/s: k = 2
		// for all (the first fit is also the fastest). E_a(2) = 400/3.5 =
		// 114.3, E_a(1) = 100, E_b = 990, ξ_a = 4/2 = 2, ξ_b = 1/0.8 = 1.25:
		// Ê_a = 228.6 < Ê_b = 1237.5, t_con = 495 + 0.6·228.6 = 632.1 <
		// t_seq = 990 + 50 = 1040.
		{"k = 2 fits", 10, 7, [4][]string{{"2:[0]/2"}, {"2:[0]/2"}, {"2:[0]/2"}, {"2:[0]/2"}}},
		// 11 GB: k = 2 needs 6 + 11 = 17 > 16; k = 4: 4.5 + 11 = 15.5 fits.
		{"only k = 4 fits", 11, 7, [4][]string{{"2:[0]/4"}, {"2:[0]/4"}, {"2:[0]/4"}, {"2:[0]/4"}}},
		// 13 GB: even k = 4 needs 17.5 > 16: the pair cannot share.
		{"nothing fits", 13, 7, [4][]string{nil, nil, nil, nil}},
		// R32 at 5 it/s: k = 2 gives 2.5 steps/s, k = 4 gives 3: sjf-bsbf
		// takes the faster k = 4 (lowest E_a(k), lowest t_con); sjf-ffs the
		// first that fits, k = 2.
		{"fastest fitting k", 10, 5, [4][]string{{"2:[0]/4"}, {"2:[0]/4"}, {"2:[0]/2"}, {"2:[0]/2"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for v, variant := range variants {
				s := snap(t, cluster(t, one...), bigJob(tc.mem), job(2, 5, "R64", 1, 400))
				s.Matrix.Set(models.Key{Job: "R32", GPU: "V100", Gang: 1}, tc.r32, "test")
				got := allocate(t, variant.f, s)
				if !reflect.DeepEqual(got, tc.want[v]) {
					t.Errorf("%s: started %v, want %v", variant.name, got, tc.want[v])
				}
			}
		})
	}
}

// TestForbiddenPair: a measured co-located throughput of 0 forbids the pair
// for every variant.
func TestForbiddenPair(t *testing.T) {
	t.Parallel()
	for _, v := range variants {
		s := snap(t, cluster(t, models.Server{Type: "V100", GPUs: 1}),
			running(job(1, 0, "long", 1, 1000), 0, 0), job(2, 1, "short", 1, 10))
		s.Matrix.SetPair(models.PairKey{Key: models.Key{Job: "long", GPU: "V100", Gang: 1}, Other: "short"}, 0, 0)
		if got := allocate(t, v.f, s); got != nil {
			t.Errorf("%s: started %v beside a forbidden partner", v.name, got)
		}
	}
}

// TestHeterogeneous: idle GPUs of a slower type beat sharing on a faster
// one; with no idle GPU the fastest type where the test passes is used.
func TestHeterogeneous(t *testing.T) {
	t.Parallel()
	c := []models.Server{{Type: "V100", GPUs: 1}, {Type: "K80", GPUs: 1}}
	got := allocate(t, sjfbsbf.New, snap(t, cluster(t, c...), running(job(1, 0, "long", 1, 1000), 0, 0), job(2, 1, "short", 1, 100)))
	if !reflect.DeepEqual(got, []string{"2:[1]"}) {
		t.Errorf("started %v, want the idle K80 (GPU 1)", got)
	}
	k80 := running(job(3, 0, "long", 1, 1000), 0, 1)
	k80.LastType = "K80"
	got = allocate(t, sjfbsbf.New, snap(t, cluster(t, c...), running(job(1, 0, "long", 1, 1000), 0, 0), k80, job(2, 1, "short", 1, 100)))
	if !reflect.DeepEqual(got, []string{"2:[0]"}) {
		t.Errorf("started %v, want beside job 1 on the V100 (GPU 0)", got)
	}
}

func TestOptions(t *testing.T) {
	t.Parallel()
	for _, v := range variants {
		if _, err := v.f(solvers.Config{Options: map[string]any{"default_slowdown": 0.5}}); err == nil || !strings.Contains(err.Error(), v.name) {
			t.Errorf("%s: default_slowdown 0.5 accepted (%v)", v.name, err)
		}
		if _, err := v.f(solvers.Config{Options: map[string]any{"pairing": "jobs"}}); err == nil {
			t.Errorf("%s: pairing jobs accepted", v.name)
		}
		if _, err := v.f(solvers.Config{Options: map[string]any{"nonsense": 1}}); err == nil {
			t.Errorf("%s: unknown option accepted", v.name)
		}
		p, err := v.f(solvers.Config{Options: map[string]any{"default_slowdown": 1.5}})
		if err != nil || p.Name() != v.name {
			t.Errorf("%s: %v, name %q", v.name, err, p.Name())
		}
	}
	// With default_slowdown 1.5 (and pairing gpus) a gang-2 job (no pair figure) shares with
	// E_b = 150 < 200 (at ξ = 1.5: s₁ = 1.5·(1 − 1/3) − 1 = 0, threshold
	// E_a·(3 − 1 − 1) = 100 < 150).
	p, _ := sjfbsbf.New(solvers.Config{Options: map[string]any{"default_slowdown": 1.5, "pairing": "gpus"}})
	s := snap(t, cluster(t, models.Server{Type: "V100", GPUs: 2}),
		running(job(1, 0, "plain", 1, 150), 0, 0), running(job(2, 0, "plain", 1, 150), 0, 1), job(3, 1, "plain", 2, 100))
	a, err := p.Allocate(s)
	if err != nil || len(a.Run) != 3 {
		t.Errorf("default_slowdown 1.5: %+v %v, want job 3 started", a, err)
	}
}

// TestRegressionInsertBeforeHead: a job started in a decision joins its
// class of running jobs ahead of a member that already shares; the class's
// walk must still find it. (Found by review: the insertion left the class's
// first-live index past the new member.)
//
// Pairing gpus, sjf-bsbf-consolidated. Servers [GPU 0: short R1, E = 50;
// GPU 1 idle] and [GPU 2 idle; GPU 3: hog X, E = 10]. In SJF order:
// A (plain, gang 2, E = 5) finds no server with 2 idle GPUs and shares on
// server 0: idle GPU 1 + R1's GPU 0 (ξ = 2 both, E_b = 50 > 2·5). B (short,
// E = 20) takes idle GPU 2 and joins R1's class ahead of it (20 < 50). C
// (short, E = 30) finds no idle GPU; beside X it fails (ξ = 4: E_b = 10 <
// 30·(8 − 1 − 1)), beside B it passes (ξ = 1.25): it shares GPU 2.
func TestRegressionInsertBeforeHead(t *testing.T) {
	t.Parallel()
	s := snap(t, cluster(t, models.Server{Type: "V100", GPUs: 2}, models.Server{Type: "V100", GPUs: 2}),
		running(job(1, 0, "short", 1, 60), 10, 0), running(job(2, 0, "hog", 1, 20), 10, 3),
		job(3, 1, "plain", 2, 5), job(4, 2, "short", 1, 20), job(5, 3, "short", 1, 30))
	got := allocate(t, gpusPairing(sjfbsbf.NewConsolidated), s)
	if want := []string{"3:[0 1]", "4:[2]", "5:[2]"}; !reflect.DeepEqual(got, want) {
		t.Errorf("started %v, want %v", got, want)
	}
}

// rounds_only makes the variants decide at round starts only (the
// prototype's schedule_interval); by default at arrivals and completions.
func TestRoundsOnly(t *testing.T) {
	t.Parallel()
	for _, f := range []solvers.Factory{sjfbsbf.New, sjfbsbf.NewFFS} {
		p, err := f(solvers.Config{Options: map[string]any{"rounds_only": true}})
		if err != nil {
			t.Fatal(err)
		}
		if got := solvers.TriggersOf(p); got != models.AtRound {
			t.Errorf("%s rounds_only: triggers %v", p.Name(), got)
		}
		p, _ = f(solvers.Config{})
		if got := solvers.TriggersOf(p); got != models.AtArrival|models.AtCompletion {
			t.Errorf("%s: triggers %v", p.Name(), got)
		}
	}
}
