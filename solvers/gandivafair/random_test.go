package gandivafair_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"fairbench/models"
)

// Invariants on random decision sequences, driven directly (no simulator):
// clusters of up to 24 servers of 2, 4 and 8 GPUs in three types, many large
// jobs (several consolidated in one quantum: this caught a server vacated
// twice, see TestConsolidateTwice), arrivals and completions between quanta, both profile modes. Every
// allocation must pass models.Feasible and name exactly its gang's GPUs
// (the driver checks both), and the same sequence must give the same
// allocations.
func TestRandomDecisions(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 300; seed++ {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) { randomDecisions(t, seed) })
	}
}

// Seed 178 of TestRandomDecisions caught a server vacated twice in one
// quantum: a large job's consolidation moved a small job onto a server that
// a second large job's consolidation then vacated without moving that job
// again (it only moved the server's own members), so the server was
// promised to both and the small job got no GPU.
func TestConsolidateTwice(t *testing.T) { randomDecisions(t, 178) }

// TestRandomDecisionsShuffled is TestRandomDecisions with the snapshot's
// jobs in a new random order at a third of the decisions (the simulator
// keeps them in arrival order, which the policy's per-user job lists
// follow from one decision to the next; another order makes it list them
// again). The driver checks the policy's bookkeeping against a
// recomputation at every decision (GandivaFair.CheckBookkeeping).
func TestRandomDecisionsShuffled(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 100; seed++ {
		randomRun(t, seed, true)
	}
}

// randomDecisions drives 30 quanta, with a decision between each two, of a
// random cluster and workload made from seed, twice, and compares the runs.
func randomDecisions(t *testing.T, seed uint64) {
	if a, b := randomRun(t, seed, false), randomRun(t, seed, false); !reflect.DeepEqual(a, b) {
		t.Fatalf("seed %d: two runs differ", seed)
	}
}

// randomRun is one run of randomDecisions, with the snapshot's jobs
// shuffled before some decisions if shuffle is set; it returns the running
// jobs after every decision.
func randomRun(t *testing.T, seed uint64, shuffle bool) [][]string {
	kinds := []string{"unit", "r4", "r2", "r15", "r125", "vonly", "pk"}
	rng := rand.New(rand.NewPCG(seed, 99))
	var srv []models.Server
	for _, g := range []string{"V100", "P100", "K80"} {
		for range rng.IntN(9) {
			srv = append(srv, models.Server{Type: g, GPUs: []int{2, 4, 4, 8}[rng.IntN(4)]})
		}
	}
	if len(srv) == 0 {
		srv = append(srv, models.Server{Type: "V100", GPUs: 4})
	}
	opts := map[string]any{"quantum_rounds": 1 + rng.IntN(2)}
	if rng.IntN(2) == 0 {
		opts["profile"] = "oracle"
	}
	us := []models.User{{Name: "a", Weight: 1}, {Name: "b", Weight: 2}, {Name: "c", Weight: 1}, {Name: "d", Weight: 3}}
	d := newDriver(t, newGF(t, opts), us, srv...)
	next := 0
	arrive := func(n int) {
		for range n {
			kind := kinds[rng.IntN(len(kinds))]
			gang := []int{1, 1, 2, 4, 6, 8, 8, 12, 16}[rng.IntN(9)]
			j := job(next, us[rng.IntN(len(us))].Name, kind, gang)
			next++
			for _, s := range srv {
				if rates[kind][s.Type] > 0 && d.c.Capacity(s.Type) >= gang {
					d.add(j) // only jobs the cluster can run, as the simulator admits
					break
				}
			}
		}
	}
	arrive(10 + rng.IntN(20))
	var trace [][]string
	mix := func() {
		if shuffle && rng.IntN(3) == 0 {
			rng.Shuffle(len(d.jobs), func(a, b int) { d.jobs[a], d.jobs[b] = d.jobs[b], d.jobs[a] })
		}
	}
	for q := range 30 {
		mix()
		d.quantum(q)
		trace = append(trace, d.running())
		for range rng.IntN(3) {
			if len(d.jobs) > 0 {
				d.remove(int(d.jobs[rng.IntN(len(d.jobs))].ID))
			}
		}
		arrive(rng.IntN(4))
		mix()
		d.decide(float64(q)*round.Seconds() + 100)
		trace = append(trace, d.running())
	}
	return trace
}
