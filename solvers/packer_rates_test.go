package solvers_test

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"fairbench/models"
	"fairbench/solvers"
)

// randomSnap is a snapshot of random jobs on a random cluster of the
// fixture's types, some of them running; with rates, the jobs carry their
// memoised rows as the simulator's do.
func randomSnap(t *testing.T, r *rand.Rand, rates bool) *models.Snapshot {
	var servers []models.Server
	for _, g := range []string{"V100", "P100", "K80"} {
		for range r.IntN(3) {
			servers = append(servers, models.Server{Type: g, GPUs: 1 + r.IntN(8)})
		}
	}
	if len(servers) == 0 {
		servers = []models.Server{{Type: "K80", GPUs: 4}}
	}
	types := []string{"resnet", "unit", "recsys", "k80"}
	var jobs []models.JobState
	for id := range 10 + r.IntN(30) {
		j := job(id, float64(id), types[r.IntN(len(types))], 1+r.IntN(6), 100)
		if r.IntN(2) == 0 {
			j = running(j, servers[r.IntN(len(servers))].Type, 0, 1, 1)
		}
		jobs = append(jobs, j)
	}
	s := snap(t, sec(100), nil, servers, jobs...)
	if rates {
		s.Rates = models.NewRates(s.Environment)
		for i := range s.Jobs {
			s.Rates.Attach(&s.Jobs[i])
		}
	}
	return s
}

// Invariant on random snapshots: Packer.Stay and Packer.Fastest place as
// Place with StayOrFastest and Fastest do, and a snapshot whose figures are
// memoised (Rates, rows attached to its jobs) answers as one that computes
// them: the same throughputs, the same best types, the same packing.
func TestPackerFastPathsAndRatesAgree(t *testing.T) {
	t.Parallel()
	for seed := range uint64(300) {
		plain := randomSnap(t, rand.New(rand.NewPCG(seed, 1)), false)
		memo := randomSnap(t, rand.New(rand.NewPCG(seed, 1)), true)
		for i := range plain.Jobs {
			pj, mj := &plain.Jobs[i], &memo.Jobs[i]
			for _, g := range append(plain.Cluster.TypeNames(), "A100") {
				want := plain.Throughput(&pj.Job, g)
				if got := memo.ThroughputOf(mj, g); got != want {
					t.Fatalf("seed %d job %d on %s: ThroughputOf %v, Throughput %v", seed, pj.ID, g, got, want)
				}
				if got := memo.Throughput(&mj.Job, g); got != want {
					t.Fatalf("seed %d job %d on %s: memoised Throughput %v, want %v", seed, pj.ID, g, got, want)
				}
			}
			wg, wt := plain.BestThroughput(&pj.Job)
			if g, bt := memo.BestThroughput(&mj.Job); g != wg || bt != wt {
				t.Fatalf("seed %d job %d: BestThroughput %s %v, want %s %v", seed, pj.ID, g, bt, wg, wt)
			}
		}
		// A job changed after its row was attached is not read from it.
		changed := memo.Jobs[0]
		changed.Gang++
		if got, want := memo.ThroughputOf(&changed, "V100"), plain.Throughput(&changed.Job, "V100"); got != want {
			t.Fatalf("seed %d: changed job: ThroughputOf %v, want %v", seed, got, want)
		}
		for _, s := range []*models.Snapshot{plain, memo} {
			slow, fast := solvers.NewPacker(s), solvers.NewPacker(s)
			for i := range s.Jobs {
				j := &s.Jobs[i]
				if j.Running() {
					if a, b := slow.Place(j, solvers.StayOrFastest), fast.Stay(j); a != b {
						t.Fatalf("seed %d job %d: Stay %v, Place(StayOrFastest) %v", seed, j.ID, b, a)
					}
				}
			}
			for i := range s.Jobs {
				j := &s.Jobs[i]
				if !j.Running() {
					if a, b := slow.Place(j, solvers.Fastest), fast.Fastest(j); a != b {
						t.Fatalf("seed %d job %d: Fastest %v, Place(Fastest) %v", seed, j.ID, b, a)
					}
				}
			}
			if !reflect.DeepEqual(slow.Assignments(), fast.Assignments()) {
				t.Fatalf("seed %d: fast paths placed %v, choosers %v", seed, fast.Assignments(), slow.Assignments())
			}
			for _, g := range s.Cluster.TypeNames() {
				if slow.Free(g) != fast.Free(g) {
					t.Fatalf("seed %d: %s free %d vs %d", seed, g, fast.Free(g), slow.Free(g))
				}
			}
		}
	}
}
