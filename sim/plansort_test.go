package sim

import (
	"math/rand"
	"slices"
	"testing"
)

// The heap draws every list in the order of the stable sort by byPlanKey
// from unit order (the order planRound had before it), whatever order it
// is given the list in: random lists of 0 to 300 entries whose keys are
// drawn from a few values (so that ties on one, two or all three keys are
// common), with ±0 among them, shuffled, already sorted or reversed.
func TestHeapPlanMatchesStableSort(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	keys := []float64{0, negZero(), 1e-9, 0.5, 1, 2, 1e9}
	for trial := 0; trial < 3000; trial++ {
		n := rng.Intn(300)
		list := make([]planEntry, n)
		for i := range list {
			list[i] = planEntry{unit: i, typ: 0, prio: keys[rng.Intn(len(keys))],
				deficit: keys[rng.Intn(1+trial%len(keys))], share: keys[rng.Intn(len(keys))]}
		}
		want := slices.Clone(list)
		slices.SortStableFunc(want, byPlanKey)
		got := slices.Clone(list)
		switch trial % 3 {
		case 0:
			rng.Shuffle(len(got), func(i, j int) { got[i], got[j] = got[j], got[i] })
		case 1:
			got = slices.Clone(want)
		case 2:
			got = slices.Clone(want)
			slices.Reverse(got)
		}
		heapifyPlan(got)
		for i := range want {
			if got[0].unit != want[i].unit {
				t.Fatalf("trial %d, %d entries: draw %d is unit %d, the stable sort's unit %d", trial, n, i, got[0].unit, want[i].unit)
			}
			got = popPlan(got)
		}
		if len(got) != 0 {
			t.Fatalf("trial %d: %d entries left in the heap", trial, len(got))
		}
	}
}

func negZero() float64 { z := 0.0; return -z }
