package fft

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// childOf is in with what the search does to a node: some jobs fixed on a
// type their gang fits (their gang off its capacity), some kept out, some
// options dropped.
func childOf(r *rand.Rand, in *Instance) *Instance {
	t := in.Types
	c := &Instance{Types: t, Cap: slices.Clone(in.Cap), Gang: in.Gang, Cost: in.Cost, OK: slices.Clone(in.OK)}
	for j, d := range in.Gang {
		switch r.IntN(8) {
		case 0: // fixed on a type, if one holds it
			if i := r.IntN(t); c.OK[j*t+i] && c.Cap[i] >= d {
				c.Cap[i] -= d
				clear(c.OK[j*t : (j+1)*t])
			}
		case 1: // kept out
			clear(c.OK[j*t : (j+1)*t])
		case 2: // an option dropped
			c.OK[j*t+r.IntN(t)] = false
		}
	}
	return c
}

// checkFlow fails unless f is a flow of its instance: every job's units
// add up to its gang, sit only where it may run, and fill no type beyond
// its capacity.
func checkFlow(tb testing.TB, f *flow) {
	tb.Helper()
	in, t := f.in, f.t
	load := make([]int, t)
	for j, d := range in.Gang {
		sum := 0
		for a := range f.nodes {
			u := int(f.units[j*f.nodes+a])
			if u < 0 || (a < t && u > 0 && !in.OK[j*t+a]) {
				tb.Fatalf("job %d has %d units on node %d (ok %v)", j, u, a, a < t && in.OK[j*t+a])
			}
			if a < t {
				load[a] += u
			}
			sum += u
		}
		if sum != d {
			tb.Fatalf("job %d: units add up to %d, gang %d", j, sum, d)
		}
	}
	if !slices.Equal(load, f.load) {
		tb.Fatalf("loads %v, recorded %v", load, f.load)
	}
	for i, l := range load {
		if l > in.Cap[i] {
			tb.Fatalf("type %d holds %d of %d", i, l, in.Cap[i])
		}
	}
}

// A relaxation solved from the parent's flow has the fill and the optimum
// of the same relaxation solved from zero flow, and prices read off it that
// are optimal duals (their Lagrangian bound is the optimum), down a chain
// of children as the search builds them (without falling back to zero
// flow).
func TestWarmEqualsCold(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(41, 3))
	for trial := range 400 {
		in := randomInstance(r, 4+r.IntN(40), 1+r.IntN(6), false)
		ord := newOrder(in)
		f := relax(in, ord)
		for depth := range 4 {
			child := childOf(r, f.in)
			warm, cold := f.warmed(child), relax(child, ord)
			checkFlow(t, warm)
			if !warm.warm {
				t.Fatalf("trial %d depth %d: solved from zero flow after %d cancels", trial, depth, maxCancels)
			}
			if warm.fill() != cold.fill() {
				t.Fatalf("trial %d depth %d: warm fill %d, cold %d", trial, depth, warm.fill(), cold.fill())
			}
			want := cold.optimum()
			if got := warm.optimum(); math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
				t.Fatalf("trial %d depth %d: warm optimum %v, cold %v", trial, depth, got, want)
			}
			pr, ok := warm.prices()
			if !ok {
				t.Fatalf("trial %d depth %d: no prices", trial, depth)
			}
			if lb, _ := child.lagrange(pr, warm.fill()); math.Abs(lb-want) > 1e-9*(1+math.Abs(want)) {
				t.Fatalf("trial %d depth %d: Lagrangian bound %v, optimum %v", trial, depth, lb, want)
			}
			f = warm
		}
	}
}
