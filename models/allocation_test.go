package models

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

func feasibilitySnapshot(t *testing.T) *Snapshot {
	t.Helper()
	in := &Instance{
		GPUTypes: []GPUType{{Name: "V100", MemoryGB: 16, Rank: 3}, {Name: "K80", MemoryGB: 12, Rank: 1}},
		Servers:  []ServerGroup{{Type: "V100", Count: 1, GPUs: 4}, {Type: "K80", Count: 2, GPUs: 2}},
		Users:    []User{{Name: "a", Weight: 1}},
		Jobs: []InstanceJob{
			{ID: 1, User: "a", Gang: 2, Steps: 10, Throughputs: map[string]float64{"V100": 4, "K80": 1}},
			{ID: 2, User: "a", Gang: 4, Steps: 10, Throughputs: map[string]float64{"V100": 8}},
			{ID: 3, User: "a", Gang: 1, Steps: 10, MemoryGB: 14, Throughputs: map[string]float64{"V100": 2, "K80": 1}},
			{ID: 4, User: "a", Gang: 1, Steps: 10, MemoryGB: 4, Throughputs: map[string]float64{"V100": 2}},
			{ID: 5, User: "a", Gang: 1, Steps: 10, Throughputs: map[string]float64{"V100": 2, "K80": 1}},
		},
	}
	s, err := in.Snapshot(nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

type feasibleCase struct {
	name string
	a    Allocation
	want string // "" = feasible
}

// feasibleCases are allocations against feasibilitySnapshot and the start
// of the violation each breaks.
func feasibleCases() []feasibleCase {
	run := func(as ...Assignment) Allocation { return Allocation{Run: as} }
	return []feasibleCase{
		{"fits", run(Assignment{Job: 1, Type: "K80"}, Assignment{Job: 2, Type: "V100"}), ""},
		{"capacity", run(Assignment{Job: 1, Type: "V100"}, Assignment{Job: 2, Type: "V100"}), "capacity (V100): Σ gang = 6 > 4 GPUs"},
		{"no figure", run(Assignment{Job: 2, Type: "K80"}), "runnable (job 2 on K80)"},
		{"memory", run(Assignment{Job: 3, Type: "K80"}), "runnable (job 3 on K80)"},
		{"unknown job", run(Assignment{Job: 9, Type: "K80"}), "active job (job 9)"},
		{"twice", run(Assignment{Job: 1, Type: "K80"}, Assignment{Job: 1, Type: "V100"}), "one placement per job"},
		{"gang size", run(Assignment{Job: 1, Type: "V100", GPUs: []int{0}}), "1 GPUs named for a gang of 2"},
		{"wrong type", run(Assignment{Job: 1, Type: "V100", GPUs: []int{0, 4}}), "GPU 4 is a K80"},
		{"no such GPU", run(Assignment{Job: 1, Type: "V100", GPUs: []int{0, 99}}), "GPU 99 does not exist"},
		{"named twice", run(Assignment{Job: 1, Type: "V100", GPUs: []int{2, 2}}), "GPU 2 named twice"},
		{"named twice, shared", Allocation{Colocate: true, Run: []Assignment{{Job: 3, Type: "V100", GPUs: []int{1}}, {Job: 1, Type: "V100", GPUs: []int{1, 1}}}}, "GPU 1 named twice"},
		{"double booked", run(Assignment{Job: 1, Type: "V100", GPUs: []int{0, 1}}, Assignment{Job: 3, Type: "V100", GPUs: []int{1}}), "GPU 1 also given to job 1"},
		{"share without colocate", Allocation{Run: []Assignment{{Job: 1, Type: "V100", GPUs: []int{0, 1}}, {Job: 3, Type: "V100", GPUs: []int{1}}}}, "double-booked"},
		// Job 1 (no memory figure) beside job 3 (14 GB) on a 16 GB V100: fits.
		{"share", Allocation{Colocate: true, Run: []Assignment{{Job: 1, Type: "V100", GPUs: []int{0, 1}}, {Job: 3, Type: "V100", GPUs: []int{1}}}}, ""},
		// Shared GPUs count once: 2 named + 0 more for job 3 + 2 implicit... job 2 needs 4: 2 + 4 = 6 > 4.
		{"share capacity", Allocation{Colocate: true, Run: []Assignment{{Job: 1, Type: "V100", GPUs: []int{0, 1}}, {Job: 3, Type: "V100", GPUs: []int{1}}, {Job: 2, Type: "V100"}}}, "Σ gang = 6 > 4"},
		{"three on a GPU", Allocation{Colocate: true, Run: []Assignment{{Job: 2, Type: "V100", GPUs: []int{0, 1, 2, 3}}, {Job: 1, Type: "V100", GPUs: []int{0, 1}}, {Job: 3, Type: "V100", GPUs: []int{1}}}}, "GPU 1 already shared by jobs 2 and 1"},
		{"fractions fit", Allocation{Fractions: map[JobID]map[string]float64{1: {"V100": 0.5, "K80": 0.5}, 2: {"V100": 0.75}}}, ""},
		// 2·0.5 + 4·0.8 = 4.2 > 4 V100s.
		{"fraction capacity", Allocation{Fractions: map[JobID]map[string]float64{1: {"V100": 0.5}, 2: {"V100": 0.8}}}, "Σ_j d_j·x[j][g] ≤ N_g (V100): Σ = 4.2 > 4"},
		{"fraction sum", Allocation{Fractions: map[JobID]map[string]float64{1: {"V100": 0.6, "K80": 0.6}}}, "Σ_g x[j][g] ≤ 1 (job 1)"},
		// 14 GB + 4 GB > 16 GB.
		{"share memory", Allocation{Colocate: true, Run: []Assignment{{Job: 3, Type: "V100", GPUs: []int{2}}, {Job: 4, Type: "V100", GPUs: []int{2}}}}, "jobs 3 and 4 need 18 GB together on a V100 GPU, which has 16 GB"},
		// Shared: job 1 (gang 2) alone 0.5 of V100 + with job... gangs must match.
		{"shared gangs differ", Allocation{Shared: []SharedFraction{{Jobs: [2]JobID{1, 3}, Type: "V100", X: 0.5}}}, "jobs 1 and 3 have gangs 2 and 1"},
		// Job 5 alone 0.6 + shared with job 3 0.5 = 1.1 > 1.
		{"shared sum", Allocation{Fractions: map[JobID]map[string]float64{5: {"V100": 0.6}}, Shared: []SharedFraction{{Jobs: [2]JobID{5, 3}, Type: "V100", X: 0.5}}}, "Σ_g x[j][g] ≤ 1 (job 5)"},
		// 0.5 + 0.5 = 1 for job 5; V100 load 1·0.5 + 1·0.5 = 1 ≤ 4; 14 GB + 0 fit.
		{"shared fits", Allocation{Fractions: map[JobID]map[string]float64{5: {"V100": 0.5}}, Shared: []SharedFraction{{Jobs: [2]JobID{5, 3}, Type: "V100", X: 0.5}}}, ""},
		{"shared memory", Allocation{Shared: []SharedFraction{{Jobs: [2]JobID{4, 3}, Type: "V100", X: 0.5}}}, "need 18 GB together"},
		{"fraction negative", Allocation{Fractions: map[JobID]map[string]float64{1: {"V100": -0.5}}}, "0 ≤ x ≤ 1"},
	}
}

func TestFeasible(t *testing.T) {
	t.Parallel()
	s := feasibilitySnapshot(t)
	for _, c := range feasibleCases() {
		err := Feasible(s, c.a)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: refused: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		case err != nil:
			var v *Violation
			if !errors.As(err, &v) {
				t.Errorf("%s: error is not a *Violation", c.name)
			}
		}
	}
}

func TestInstanceRoundTrip(t *testing.T) {
	t.Parallel()
	s := feasibilitySnapshot(t)
	back, err := InstanceOf(s).Snapshot(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Jobs) != 5 || back.Cluster.TotalGPUs() != 8 || len(back.Cluster.Servers) != 3 {
		t.Fatalf("round trip lost structure: %d jobs, %d GPUs", len(back.Jobs), back.Cluster.TotalGPUs())
	}
	for i := range s.Jobs {
		for _, g := range []string{"V100", "K80"} {
			if a, b := s.Throughput(&s.Jobs[i].Job, g), back.Throughput(&back.Jobs[i].Job, g); a != b {
				t.Errorf("job %d on %s: %v became %v", s.Jobs[i].ID, g, a, b)
			}
		}
	}
}

func TestInstanceRefusesConflictsAndBadNumbers(t *testing.T) {
	t.Parallel()
	base := func() *Instance {
		return &Instance{
			GPUTypes: []GPUType{{Name: "V100", MemoryGB: 16}},
			Servers:  []ServerGroup{{Type: "V100", Count: 1, GPUs: 4}},
			Users:    []User{{Name: "a", Weight: 1}},
		}
	}
	in := base()
	in.Jobs = []InstanceJob{
		{ID: 1, User: "a", Type: "r", Gang: 1, Steps: 1, Throughputs: map[string]float64{"V100": 2}},
		{ID: 2, User: "a", Type: "r", Gang: 1, Steps: 1, Throughputs: map[string]float64{"V100": 3}},
	}
	if _, err := in.Snapshot(nil); err == nil || !strings.Contains(err.Error(), "jobs[1]: job 2: throughputs.V100: 3 disagrees with 2") {
		t.Errorf("conflict: got %v", err)
	}
	in = base()
	in.Jobs = []InstanceJob{{ID: 1, User: "b", Gang: 1, Steps: 1, Throughputs: map[string]float64{"V100": 2}}}
	if _, err := in.Snapshot(nil); err == nil || !strings.Contains(err.Error(), `unknown user "b"`) {
		t.Errorf("unknown user: got %v", err)
	}
	in = base()
	in.Jobs = []InstanceJob{{ID: 1, User: "a", Gang: 1, Steps: 1, Done: -3, Throughputs: map[string]float64{"V100": 2}}}
	if _, err := in.Snapshot(nil); err == nil || !strings.Contains(err.Error(), "done: must not be negative") {
		t.Errorf("negative done: got %v", err)
	}
}

// A Checker kept from check to check, on snapshots of different sizes and
// with Locate guessing right, wrong, out of range or not at all, says what
// Feasible says.
func TestCheckerAgreesWithFeasible(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 11))
	full := feasibilitySnapshot(t)
	part := *full
	part.Jobs = full.Jobs[1:4] // jobs 2, 3, 4
	snaps := []*Snapshot{full, &part}
	var c Checker
	var at *Snapshot
	c.Locate = func(id JobID) int {
		switch rng.IntN(4) {
		case 0:
			for i := range at.Jobs {
				if at.Jobs[i].ID == id {
					return i
				}
			}
			return -1
		case 1:
			return rng.IntN(len(at.Jobs) + 2)
		case 2:
			return -1 - rng.IntN(3)
		}
		return len(at.Jobs) + rng.IntN(3)
	}
	cases := feasibleCases()
	for range 20 {
		for _, k := range rng.Perm(len(cases)) {
			at = snaps[rng.IntN(len(snaps))]
			want, got := Feasible(at, cases[k].a), c.Feasible(at, cases[k].a)
			if (want == nil) != (got == nil) || (want != nil && want.Error() != got.Error()) {
				t.Fatalf("%s on %d jobs: Checker says %v, Feasible %v", cases[k].name, len(at.Jobs), got, want)
			}
		}
	}
}

// jobIndexAfter finds what jobIndex finds from any starting position, in
// snapshots sorted by ID with random gaps (it gallops from the position)
// and in unsorted ones (it looks the job up), for IDs present and absent.
func TestJobIndexAfterAgreesWithJobIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 19))
	for trial := range 200 {
		n := rng.IntN(40)
		s := &Snapshot{Jobs: make([]JobState, n)}
		id := JobID(rng.IntN(3))
		for i := range s.Jobs {
			s.Jobs[i].ID = id
			id += 1 + JobID(rng.IntN(4))
		}
		if trial%4 == 3 {
			rng.Shuffle(n, func(a, b int) { s.Jobs[a], s.Jobs[b] = s.Jobs[b], s.Jobs[a] })
		}
		for want := JobID(0); want <= id; want++ {
			wi, wok := s.jobIndex(want)
			for from := -1; from <= n; from++ {
				if i, ok := s.jobIndexAfter(want, from); ok != wok || (ok && i != wi) {
					t.Fatalf("trial %d: job %d from %d: (%d, %v), jobIndex (%d, %v)", trial, want, from, i, ok, wi, wok)
				}
			}
		}
	}
}
