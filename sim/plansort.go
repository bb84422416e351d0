package sim

import "math/bits"

// The per-type lists of the round mechanism are sorted every round, by
// (priority, deficit, share) highest first and then by unit: a strict total
// order over one type's list (each unit appears once), so every correct
// sort leaves the same order as the stable sort by byPlanKey does. This
// file is that sort with the comparison inlined: slices.SortFunc calls its
// comparison through a function value, which was half of the sort's time.

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

// sortPlan sorts a by planBefore: quicksort with the median of three,
// insertion sort for short runs, heapsort past 2·log₂ n levels.
func sortPlan(a []planEntry) {
	depth := 2 * bits.Len(uint(len(a)))
	for len(a) > 12 {
		if depth == 0 {
			heapPlan(a)
			return
		}
		depth--
		p := partitionPlan(a)
		if p < len(a)-1-p { // recurse on the shorter side
			sortPlan(a[:p])
			a = a[p+1:]
		} else {
			sortPlan(a[p+1:])
			a = a[:p]
		}
	}
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && planBefore(&a[j], &a[j-1]); j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// partitionPlan puts the median of a's first, middle and last entries at
// the position it returns, the entries before it first (Sedgewick's
// partition).
func partitionPlan(a []planEntry) int {
	hi, m := len(a)-1, len(a)/2
	if planBefore(&a[m], &a[0]) {
		a[m], a[0] = a[0], a[m]
	}
	if planBefore(&a[hi], &a[m]) {
		a[hi], a[m] = a[m], a[hi]
		if planBefore(&a[m], &a[0]) {
			a[m], a[0] = a[0], a[m]
		}
	}
	a[0], a[m] = a[m], a[0] // the median is the pivot, at 0
	v := a[0]
	i, j := 0, len(a)
	for {
		for i++; planBefore(&a[i], &v); i++ {
			if i == hi {
				break
			}
		}
		for j--; planBefore(&v, &a[j]); j-- {
		}
		if i >= j {
			break
		}
		a[i], a[j] = a[j], a[i]
	}
	a[0], a[j] = a[j], a[0]
	return j
}

// heapPlan heapsorts a by planBefore.
func heapPlan(a []planEntry) {
	down := func(root, n int) {
		for {
			c := 2*root + 1
			if c >= n {
				return
			}
			if c+1 < n && planBefore(&a[c], &a[c+1]) {
				c++
			}
			if !planBefore(&a[root], &a[c]) {
				return
			}
			a[root], a[c] = a[c], a[root]
			root = c
		}
	}
	for i := len(a)/2 - 1; i >= 0; i-- {
		down(i, len(a))
	}
	for end := len(a) - 1; end > 0; end-- {
		a[0], a[end] = a[end], a[0]
		down(0, end)
	}
}
