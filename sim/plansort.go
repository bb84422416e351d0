package sim

// The per-type lists of the round mechanism are walked every round in the
// order (priority, deficit, share) highest first and then by unit: a strict
// total order over one type's list (each unit appears once), so any correct
// ordering is the one the stable sort by byPlanKey leaves. This file draws
// the entries in that order from a binary heap, the comparison inlined
// (slices.SortFunc calls its comparison through a function value, which was
// half of a sort's time), so that a walk that ends early orders only what
// it reads.

// planBefore reports whether a comes before b: byPlanKey(a, b) < 0, or the
// two equal there and a's unit first. No key may be NaN.
func planBefore(a, b *planEntry) bool {
	switch {
	case a.prio != b.prio:
		return a.prio > b.prio
	case a.deficit != b.deficit:
		return a.deficit > b.deficit
	case a.share != b.share:
		return a.share > b.share
	}
	return a.unit < b.unit
}

// heapifyPlan makes a a binary heap whose root comes first by planBefore.
func heapifyPlan(a []planEntry) {
	for i := len(a)/2 - 1; i >= 0; i-- {
		siftPlan(a, i)
	}
}

// popPlan removes the root of the heap a and returns the heap left.
func popPlan(a []planEntry) []planEntry {
	n := len(a) - 1
	a[0] = a[n]
	a = a[:n]
	siftPlan(a, 0)
	return a
}

// siftPlan moves a[root] down the heap a to its place.
func siftPlan(a []planEntry, root int) {
	for {
		c := 2*root + 1
		if c >= len(a) {
			return
		}
		if c+1 < len(a) && planBefore(&a[c+1], &a[c]) {
			c++
		}
		if !planBefore(&a[c], &a[root]) {
			return
		}
		a[root], a[c] = a[c], a[root]
		root = c
	}
}
