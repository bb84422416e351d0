package gavel_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"fairbench/models"
	"fairbench/solvers/gavel"
	"fairbench/solvers/lp"
)

// randomSnapshot is a small random instance: 1–3 GPU types on servers of
// 1, 2, 4 or 8 GPUs, 1–12 runnable jobs of the fixture's types with gangs 1,
// 2, 4 or 8, priorities, three users, some progress and waiting time.
func randomSnapshot(t testing.TB, r *rand.Rand) *models.Snapshot {
	var servers []models.Server
	for _, g := range []string{"V100", "P100", "K80"} {
		if len(servers) > 0 && r.IntN(3) == 0 {
			continue
		}
		for k := 1 + r.IntN(3); k > 0; k-- {
			servers = append(servers, models.Server{Type: g, GPUs: []int{1, 2, 4, 8}[r.IntN(4)]})
		}
	}
	users := []models.User{{Name: "a", Weight: 1}, {Name: "b", Weight: 2}, {Name: "c", Weight: 0.5}}
	s := snap(t, 3600, users, servers)
	types := []string{"fast", "mid", "flat", "recsys", "k80", "zero"}
	for id, n := 0, 1+r.IntN(12); len(s.Jobs) < n && id < 100; id++ {
		j := job(id, float64(r.IntN(3600)), types[r.IntN(len(types))], []int{1, 1, 1, 2, 4, 8}[r.IntN(6)], float64(100+r.IntN(100000)))
		j.User = users[r.IntN(3)].Name
		j.Done = math.Floor(j.Steps * r.Float64() * 0.9)
		if r.IntN(3) == 0 {
			j.Priority = []float64{0.5, 2, 3}[r.IntN(3)]
		}
		if _, best := s.BestThroughput(&j.Job); best > 0 {
			s.Jobs = append(s.Jobs, j)
		}
	}
	return s
}

// closeObjective compares two objectives of policy n: gavel-ftf's within
// twice its bisection tolerance, gavel-hierarchical's within 10 times its
// level slack (levels carried from one LP to the next are loosened by 1e-6),
// the others to 1e-6 relative.
func closeObjective(n string, a, b float64) bool {
	switch n {
	case "gavel-ftf":
		return near(a, b, 2*ftfTol)
	case "gavel-hierarchical":
		return near(a, b, 1e-5)
	}
	return near(a, b, 1e-6)
}

// On random instances every policy returns a feasible allocation with no
// time where a job cannot run (allocate checks both), the aggregated LP has
// the optimal value of the per-job one, and with one user and equal
// priorities gavel-hierarchical's first level is n times gavel-las's t.
func TestRandomInstances(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for k := 0; k < 150; k++ {
		s := randomSnapshot(t, r)
		if len(s.Jobs) == 0 {
			continue
		}
		obj := map[string]float64{}
		for _, n := range names {
			for _, agg := range []bool{true, false} {
				p := build(t, n, map[string]any{"aggregate": agg})
				allocate(t, p, s)
				if agg {
					obj[n] = p.Objective()
				} else if !closeObjective(n, obj[n], p.Objective()) {
					t.Errorf("instance %d, %s: objective %.12g aggregated, %.12g per job", k, n, obj[n], p.Objective())
				}
			}
		}
		one := *s
		one.Jobs = append([]models.JobState(nil), s.Jobs...)
		for i := range one.Jobs {
			one.Jobs[i].User, one.Jobs[i].Priority = "a", 0
		}
		las, h := build(t, "gavel-las", nil), build(t, "gavel-hierarchical", nil)
		allocate(t, las, &one)
		allocate(t, h, &one)
		if want := float64(len(one.Jobs)) * las.Objective(); !closeObjective("gavel-hierarchical", h.Objective(), want) {
			t.Errorf("instance %d: hierarchical max-min value %.12g, want n·t = %.12g", k, h.Objective(), want)
		}
	}
}

// Both backends reach the same optimal objective on small instances.
func TestBackendsAgree(t *testing.T) {
	if lp.Default().Name() == (lp.Pure{}).Name() {
		t.Skip("built without the coin backend")
	}
	r := rand.New(rand.NewPCG(3, 4))
	for k := 0; k < 100; k++ {
		s := randomSnapshot(t, r)
		if len(s.Jobs) == 0 {
			continue
		}
		for _, n := range names {
			for _, agg := range []bool{true, false} {
				var got [2]float64
				for b, backend := range []string{"coin", "pure"} {
					p := build(t, n, map[string]any{"backend": backend, "aggregate": agg})
					allocate(t, p, s)
					got[b] = p.Objective()
				}
				if !closeObjective(n, got[0], got[1]) {
					t.Errorf("instance %d, %s (aggregate %v): coin %.12g, pure %.12g", k, n, agg, got[0], got[1])
				}
			}
		}
	}
}

// gavel-ftf's Objective is the max ρ of the allocation it returns, and at
// most that of the equal split.
func TestFTFObjectiveIsItsAllocations(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for k := 0; k < 100; k++ {
		s := randomSnapshot(t, r)
		if len(s.Jobs) == 0 {
			continue
		}
		p := build(t, "gavel-ftf", nil)
		a := allocate(t, p, s)
		n := float64(len(s.Jobs))
		got, equal := 0.0, 0.0
		for i := range s.Jobs {
			j := &s.Jobs[i]
			e := s.EqualShareThroughput(&j.Job, 1/n)
			d := j.Remaining() / e
			y := 0.0
			for g, x := range a.Fractions[j.ID] {
				y += x * s.Throughput(&j.Job, g)
			}
			w := (s.Now - j.Arrival).Seconds()
			got = math.Max(got, (w+j.Remaining()/y)/d)
			equal = math.Max(equal, (w+d)/d)
		}
		if !near(p.Objective(), got, 1e-9) || got > equal*(1+1e-9) {
			t.Errorf("instance %d: objective %v, allocation's max ρ %v, equal split's %v", k, p.Objective(), got, equal)
		}
	}
	_ = fmt.Sprint
}

// The basis gavel-ftf carries from one decision to the next (carried)
// changes where the first step's simplex starts, not the answer: two
// policies that saw the same first decision, one of them made to forget the
// basis, reach the same max ρ on the second within twice the bisection
// tolerance (each is within it of the optimum). The two snapshots are
// independent random ones, so jobs of one ID change type, gang, data and
// the cluster its types: the carried basis is often a poor guess.
func TestFTFCarriedBasisKeepsOptimum(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for k := 0; k < 60; k++ {
		first, second := randomSnapshot(t, r), randomSnapshot(t, r)
		if len(first.Jobs) == 0 || len(second.Jobs) == 0 {
			continue
		}
		warm, cold := build(t, "gavel-ftf", nil), build(t, "gavel-ftf", nil)
		allocate(t, warm, first)
		allocate(t, cold, first)
		gavel.DropCarry(cold)
		allocate(t, warm, second)
		allocate(t, cold, second)
		if !closeObjective("gavel-ftf", warm.Objective(), cold.Objective()) {
			t.Errorf("instance %d: max ρ %.12g with the carried basis, %.12g without", k, warm.Objective(), cold.Objective())
		}
	}
}
