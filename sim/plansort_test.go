package sim

import (
	"math/rand"
	"slices"
	"testing"
)

// sortPlan leaves every list in the order of the stable sort by byPlanKey
// from unit order (the order planRound had before it), whatever order it
// is given the list in: random lists of 0 to 300 entries whose keys are
// drawn from a few values (so that ties on one, two or all three keys are
// common), with ±0 among them, shuffled; and lists already sorted or
// reversed, which would drive a plain quicksort to its worst case (the
// heapsort's path).
func TestSortPlanMatchesStableSort(t *testing.T) {
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
		sortPlan(got)
		for i := range want {
			if got[i].unit != want[i].unit {
				t.Fatalf("trial %d, %d entries: position %d holds unit %d, the stable sort unit %d", trial, n, i, got[i].unit, want[i].unit)
			}
		}
	}
}

// TestHeapPlan: the heapsort alone (the fallback) sorts as planBefore says.
func TestHeapPlan(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for trial := 0; trial < 200; trial++ {
		list := make([]planEntry, rng.Intn(100))
		for i := range list {
			list[i] = planEntry{unit: i, prio: float64(rng.Intn(5)), deficit: float64(rng.Intn(3))}
		}
		rng.Shuffle(len(list), func(i, j int) { list[i], list[j] = list[j], list[i] })
		heapPlan(list)
		for i := 1; i < len(list); i++ {
			if !planBefore(&list[i-1], &list[i]) {
				t.Fatalf("trial %d: entries %d and %d out of order: %+v, %+v", trial, i-1, i, list[i-1], list[i])
			}
		}
	}
}

func negZero() float64 { z := 0.0; return -z }
