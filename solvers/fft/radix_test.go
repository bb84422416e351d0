package fft

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// sortMoves orders as the comparison sort by key, then job, would: keys
// drawn with ties, both zeros, infinities' neighbours and both signs.
func TestSortMovesMatchesComparisonSort(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 9))
	pool := []float64{0, math.Copysign(0, -1), 1, -1, 1e-300, -1e-300, math.MaxFloat64, -math.MaxFloat64, 2.5, -2.5}
	var rs radix
	for trial := range 500 {
		moves := make([]entry, r.IntN(300))
		for c := range moves {
			k := pool[r.IntN(len(pool))]
			if r.IntN(2) == 0 {
				k = (r.Float64() - 0.5) * math.Pow(10, float64(r.IntN(20)-10))
			}
			moves[c] = entry{k, int32(c)}
		}
		want := slices.Clone(moves)
		slices.SortStableFunc(want, compareMoves)
		got := sortMoves(moves, &rs)
		for c := range want {
			if got[c] != want[c].j {
				t.Fatalf("trial %d: position %d holds job %d, want %d", trial, c, got[c], want[c].j)
			}
		}
	}
}
