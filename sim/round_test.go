package sim

import (
	"math/rand/v2"
	"slices"
	"testing"

	"fairbench/models"
	"fairbench/solvers"
)

// unit is a single job of gang d with shares x, run times j and deficits
// (all per type, newest first), runnable wherever x is given.
func unit(id models.JobID, d int, x, j []float64) Unit {
	u := Unit{Jobs: [2]models.JobID{id, -1}, Gang: d, InAllocation: true, Share: x, Time: j,
		Deficit: make([]float64, len(x)), Runnable: make([]bool, len(x))}
	for g := range u.Runnable {
		u.Runnable[g] = true
	}
	return u
}

func picks(p Plan) [][2]int {
	var out [][2]int
	for _, k := range p.Picks {
		out = append(out, [2]int{k.Unit, k.Type})
	}
	return out
}

// Gavel's priority: x·W/J. Unit 0 has share 0.5 and ran 360 s of a
// W = 1440 s window: 0.5·1440/360 = 2; unit 1 share 0.25 after 180 s: 2;
// unit 2 share 0.6 after 720 s: 1.2. Special cases: share 0 → 0, not
// runnable → 0, not in the allocation → 0, no time yet → x·1e9.
func TestPriority(t *testing.T) {
	for _, tc := range []struct {
		u    Unit
		w    float64
		want float64
	}{
		{unit(0, 1, []float64{0.5}, []float64{360}), 1440, 2},
		{unit(1, 1, []float64{0.25}, []float64{180}), 1440, 2},
		{unit(2, 1, []float64{0.6}, []float64{720}), 1440, 1.2},
		{unit(3, 1, []float64{0}, []float64{180}), 1440, 0},
		{unit(4, 1, []float64{0.3}, []float64{0}), 1440, 0.3e9},
		{unit(5, 1, []float64{0.3}, []float64{180}), 0, 0.3e9},
	} {
		if got := Priority(&tc.u, 0, tc.w); got != tc.want {
			t.Errorf("unit %d: priority %v, want %v", tc.u.Jobs[0], got, tc.want)
		}
	}
	u := unit(6, 1, []float64{0.5}, []float64{180})
	u.Runnable[0] = false
	if got := Priority(&u, 0, 1440); got != 0 {
		t.Errorf("unrunnable: priority %v, want 0", got)
	}
	u = unit(7, 1, []float64{0.5}, []float64{180})
	u.InAllocation = false
	if got := Priority(&u, 0, 1440); got != 0 {
		t.Errorf("not in the allocation: priority %v, want 0", got)
	}
}

// Two types visited V100 then K80, 2 GPUs each. Priorities (W = 720 on
// both): unit 0 (gang 1) V100 0.9·720/180 = 3.6, K80 0; unit 1 (gang 2)
// V100 0.5·720/360 = 1, K80 0.5·720/180 = 2; unit 2 (gang 1) V100 0, K80
// 1·720/180 = 4; unit 3 (gang 1) no share anywhere.
//
// V100 list: 0 (3.6), 1 (1), 2 (0), 3 (0); K80 list: 2 (4), 1 (2), 0, 3.
// Walk: 0 → V100 (1 left); 1 does not fit the V100 (gang 2 > 1), passed
// over; 2 → V100 (its zero share there still takes a GPU left over; V100
// full); K80: 2 is placed, 1 → K80 (0 left). Unit 3 finds no room.
func TestPlanRoundWalk(t *testing.T) {
	in := RoundInput{
		Types: []string{"V100", "K80"}, Free: []int{2, 2}, WorkerTime: []float64{720, 720},
		Units: []Unit{
			unit(0, 1, []float64{0.9, 0}, []float64{180, 180}),
			unit(1, 2, []float64{0.5, 0.5}, []float64{360, 180}),
			unit(2, 1, []float64{0, 1}, []float64{180, 180}),
			unit(3, 1, []float64{0, 0}, []float64{180, 180}),
		},
	}
	got := picks(PlanRound(in))
	want := [][2]int{{0, 0}, {2, 0}, {1, 1}}
	if !slices.Equal(got, want) {
		t.Fatalf("picks %v, want %v", got, want)
	}
	// Visiting the K80 first changes the outcome: K80 list 2 (4), 1 (2):
	// 2 → K80, 1 does not fit the one K80 left; 0 has share 0 there but
	// takes it. V100: 1 → V100 (gang 2, both GPUs); 3 finds no room.
	in.Types, in.Free, in.WorkerTime = []string{"K80", "V100"}, []int{2, 2}, []float64{720, 720}
	for i := range in.Units {
		u := &in.Units[i]
		slices.Reverse(u.Share)
		slices.Reverse(u.Time)
	}
	got = picks(PlanRound(in))
	want = [][2]int{{2, 0}, {0, 0}, {1, 1}}
	if !slices.Equal(got, want) {
		t.Fatalf("K80 first: picks %v, want %v", got, want)
	}
}

// Ties in priority go to the larger deficit, then the larger share, then
// the units' order.
func TestPlanRoundTies(t *testing.T) {
	a := unit(0, 1, []float64{0.5}, []float64{180})
	b := unit(1, 1, []float64{0.5}, []float64{180})
	c := unit(2, 1, []float64{0.5}, []float64{180})
	b.Deficit[0] = 100
	in := RoundInput{Types: []string{"V100"}, Free: []int{1}, WorkerTime: []float64{360}, Units: []Unit{a, b, c}}
	if got := picks(PlanRound(in)); !slices.Equal(got, [][2]int{{1, 0}}) {
		t.Errorf("deficit: picks %v, want unit 1", got)
	}
	// Zero priority everywhere: deficit decides, then the share.
	a.Share[0], b.Share[0], c.Share[0] = 0, 0, 0
	b.Deficit[0] = 0
	in.Units = []Unit{a, b, c}
	if got := picks(PlanRound(in)); !slices.Equal(got, [][2]int{{0, 0}}) {
		t.Errorf("all equal: picks %v, want unit 0 (first)", got)
	}
}

// The arrival rules, for a job the allocation does not know on a cluster
// with one V100 left over: fill runs it, wait leaves the GPU idle and the
// job out, block claims the GPU and leaves it idle.
func TestPlanRoundArrivals(t *testing.T) {
	old := unit(0, 1, []float64{1}, []float64{180})
	fresh := unit(1, 1, []float64{0}, []float64{180})
	fresh.InAllocation = false
	later := unit(2, 1, []float64{0}, []float64{180})
	for _, tc := range []struct {
		rule    solvers.Arrivals
		picks   [][2]int
		blocked int
	}{
		{solvers.ArrivalsFill, [][2]int{{0, 0}, {1, 0}}, 0},
		{solvers.ArrivalsWait, [][2]int{{0, 0}, {2, 0}}, 0},
		{solvers.ArrivalsBlock, [][2]int{{0, 0}}, 1},
	} {
		in := RoundInput{Types: []string{"V100"}, Free: []int{2}, WorkerTime: []float64{540}, Units: []Unit{old, fresh, later},
			Arrivals: tc.rule}
		p := PlanRound(in)
		if got := picks(p); !slices.Equal(got, tc.picks) || p.Blocked[0] != tc.blocked {
			t.Errorf("%s: picks %v blocked %v, want %v and %d", tc.rule, got, p.Blocked, tc.picks, tc.blocked)
		}
	}
}

// SkipZero (Gavel's FIFO policies) leaves zero-priority units out; Capped
// leaves out zero shares and units over their share.
func TestPlanRoundSkipZeroAndCapped(t *testing.T) {
	a := unit(0, 1, []float64{1}, []float64{180})
	b := unit(1, 1, []float64{0}, []float64{180})
	c := unit(2, 1, []float64{0.5}, []float64{180})
	c.Over = []bool{true}
	a.Over, b.Over = []bool{false}, []bool{false}
	in := RoundInput{Types: []string{"V100"}, Free: []int{3}, WorkerTime: []float64{540}, Units: []Unit{a, b, c}}
	if got := picks(PlanRound(in)); len(got) != 3 {
		t.Errorf("default: picks %v, want all three", got)
	}
	in.SkipZero = true
	if got := picks(PlanRound(in)); !slices.Equal(got, [][2]int{{0, 0}, {2, 0}}) {
		t.Errorf("skip zero: picks %v, want units 0 and 2", got)
	}
	in.SkipZero, in.Capped = false, true
	if got := picks(PlanRound(in)); !slices.Equal(got, [][2]int{{0, 0}}) {
		t.Errorf("capped: picks %v, want unit 0 only", got)
	}
}

// A pair unit takes its gang once for both jobs, and neither job runs again
// alone in the same round.
func TestPlanRoundPair(t *testing.T) {
	pair := unit(0, 1, []float64{1}, []float64{180})
	pair.Jobs = [2]models.JobID{0, 1}
	alone := unit(1, 1, []float64{0.5}, []float64{180})
	other := unit(2, 1, []float64{0.1}, []float64{180})
	in := RoundInput{Types: []string{"V100"}, Free: []int{2}, WorkerTime: []float64{540}, Units: []Unit{pair, alone, other}}
	if got := picks(PlanRound(in)); !slices.Equal(got, [][2]int{{0, 0}, {2, 0}}) {
		t.Errorf("picks %v, want the pair and unit 2", got)
	}
}

// Invariants on random inputs: capacity holds, every job runs at most once
// and only where it can, zero-priority units are never preferred over
// positive ones that fit, and the round is work-conserving: no unit left
// out could still fit a type it can run on.
func TestPlanRoundInvariants(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 13))
	types := []string{"V100", "P100", "K80"}
	for trial := 0; trial < 2000; trial++ {
		in := RoundInput{Types: types, Free: make([]int, 3), WorkerTime: make([]float64, 3)}
		for g := range types {
			in.Free[g] = r.IntN(9)
			in.WorkerTime[g] = 180 * float64(1+r.IntN(20))
		}
		n := 1 + r.IntN(12)
		for i := 0; i < n; i++ {
			u := unit(models.JobID(i), []int{1, 1, 2, 4, 8}[r.IntN(5)], make([]float64, 3), make([]float64, 3))
			for g := range types {
				u.Runnable[g] = r.IntN(5) > 0
				if r.IntN(3) > 0 {
					u.Share[g] = r.Float64() / 3
				}
				u.Time[g] = 180 + float64(r.IntN(2000))
				u.Deficit[g] = r.NormFloat64() * 100
			}
			u.InAllocation = r.IntN(6) > 0
			in.Units = append(in.Units, u)
		}
		p := PlanRound(in)
		used := make([]int, 3)
		seen := map[models.JobID]bool{}
		for _, k := range p.Picks {
			u := &in.Units[k.Unit]
			if seen[u.Jobs[0]] {
				t.Fatalf("trial %d: job %d placed twice", trial, u.Jobs[0])
			}
			seen[u.Jobs[0]] = true
			if !u.Runnable[k.Type] {
				t.Fatalf("trial %d: job %d placed on %s where it cannot run", trial, u.Jobs[0], types[k.Type])
			}
			used[k.Type] += u.Gang
		}
		for g := range types {
			if used[g] > in.Free[g] {
				t.Fatalf("trial %d: %s holds %d of %d GPUs", trial, types[g], used[g], in.Free[g])
			}
		}
		for i := range in.Units {
			u := &in.Units[i]
			if seen[u.Jobs[0]] {
				continue
			}
			for g := range types {
				if u.Runnable[g] && u.Gang <= in.Free[g]-used[g] {
					t.Fatalf("trial %d: job %d (gang %d) waits while %d %s GPUs are idle", trial, u.Jobs[0], u.Gang, in.Free[g]-used[g], types[g])
				}
			}
		}
	}
}

// The jobs placed in a round are marked in a slice by ID when the IDs are
// small and in a map otherwise: on random rounds with pairs (whose jobs
// are also units alone), one work space reused throughout, the plan is the
// same with the IDs 0..n−1 as with the same jobs renamed to IDs far above
// the slice's limit (the map), and to other small IDs in another order.
func TestPlanRoundMarksAnyIDs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	var w roundWork
	for trial := 0; trial < 2000; trial++ {
		in := RoundInput{Types: []string{"V100", "P100"}, Free: []int{r.IntN(9), r.IntN(9)}, WorkerTime: []float64{360, 720}}
		n := 1 + r.IntN(10)
		for i := 0; i < n; i++ {
			u := unit(models.JobID(i), []int{1, 2, 4}[r.IntN(3)], []float64{r.Float64(), r.Float64()}, []float64{180, 180 + float64(r.IntN(900))})
			u.InAllocation = true
			in.Units = append(in.Units, u)
		}
		for k := 0; k < r.IntN(3) && n > 1; k++ { // pairs of jobs already present
			a, b := r.IntN(n), r.IntN(n)
			if a == b {
				continue
			}
			u := unit(models.JobID(a), in.Units[a].Gang, []float64{r.Float64(), r.Float64()}, []float64{180, 180})
			u.Jobs[1] = models.JobID(b)
			u.InAllocation = true
			in.Units = append(in.Units, u)
		}
		want := slices.Clone(planRound(in, &w).Picks)
		for _, rename := range []func(models.JobID) models.JobID{
			func(id models.JobID) models.JobID { return id*7919 + 3*maxMarks },
			func(id models.JobID) models.JobID { return 1000 - id },
		} {
			renamed := in
			renamed.Units = slices.Clone(in.Units)
			for i := range renamed.Units {
				u := &renamed.Units[i]
				single := u.Single()
				u.Jobs[0] = rename(u.Jobs[0])
				if !single {
					u.Jobs[1] = rename(u.Jobs[1])
				}
			}
			if got := planRound(renamed, &w).Picks; !slices.Equal(got, want) {
				t.Fatalf("trial %d: picks %v with renamed IDs, %v with IDs from 0", trial, got, want)
			}
			if got := planRound(in, &w).Picks; !slices.Equal(got, want) {
				t.Fatalf("trial %d: picks %v after a round with renamed IDs, %v before", trial, got, want)
			}
		}
	}
}
