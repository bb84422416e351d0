package fft

import (
	"math"
	"slices"
)

// radixMin is the length below which sortMoves sorts by comparison: a
// radix pass costs its 256 counts whatever the length.
const radixMin = 128

// radix is the work space of sortMoves.
type radix struct {
	keys, tmpKeys []uint64
	jobs, tmpJobs []int32
}

// sortMoves returns the jobs of moves ordered by key, ties by job, for
// moves listed by increasing job (moves itself may be reordered): from
// radixMin moves on by a least significant digit radix sort (stable, 8
// bits a pass, passes where every key shares the digit skipped) over the
// keys' bits mapped to unsigned integers in the same order (−0 as +0;
// keys are never NaN), which gives the comparison sort's order.
func sortMoves(moves []entry, rs *radix) []int32 {
	n := len(moves)
	if n < radixMin {
		slices.SortFunc(moves, compareMoves)
		jobs := make([]int32, n)
		for c, e := range moves {
			jobs[c] = e.j
		}
		return jobs
	}
	rs.keys, rs.tmpKeys = grow(rs.keys, n), grow(rs.tmpKeys, n)
	rs.jobs, rs.tmpJobs = grow(rs.jobs, n), grow(rs.tmpJobs, n)
	keys, jobs := rs.keys, rs.jobs
	for c, e := range moves {
		keys[c], jobs[c] = ordered(e.key), e.j
	}
	tk, tj := rs.tmpKeys, rs.tmpJobs
	var count [256]int
	for shift := 0; shift < 64; shift += 8 {
		clear(count[:])
		for _, k := range keys {
			count[k>>shift&0xff]++
		}
		if n == 0 || count[keys[0]>>shift&0xff] == n {
			continue // one digit: the pass would not move anything
		}
		sum := 0
		for d, c := range count {
			count[d], sum = sum, sum+c
		}
		for c, k := range keys {
			d := k >> shift & 0xff
			tk[count[d]], tj[count[d]] = k, jobs[c]
			count[d]++
		}
		keys, tk = tk, keys
		jobs, tj = tj, jobs
	}
	return append([]int32(nil), jobs...)
}

// ordered maps a float64 to a uint64 of the same order: negative numbers'
// bits inverted, the others' sign bit set.
func ordered(x float64) uint64 {
	if x == 0 {
		x = 0 // −0 sorts as +0
	}
	b := math.Float64bits(x)
	if b>>63 == 1 {
		return ^b
	}
	return b | 1<<63
}

// grow is s with length n, reallocated when too short.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// compareMoves orders moves by key, ties by job: the order sortMoves gives.
func compareMoves(x, y entry) int {
	switch {
	case x.key < y.key:
		return -1
	case x.key > y.key:
		return 1
	}
	return int(x.j - y.j)
}
