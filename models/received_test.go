package models_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"fairbench/models"
)

// Received keeps one entry per type in the order the types first come, adds
// in place, and On reads what a map of the same additions would hold.
func TestReceivedAgreesWithAMap(t *testing.T) {
	types := []string{"V100", "P100", "K80", "A100"}
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		var r models.Received
		want := map[string]time.Duration{}
		var order []string
		for range rng.IntN(30) {
			g := types[rng.IntN(len(types))]
			d := time.Duration(rng.IntN(1000)) * time.Second
			if _, ok := want[g]; !ok {
				order = append(order, g)
			}
			want[g] += d
			r = r.Add(g, d)
		}
		if len(r) != len(order) {
			t.Fatalf("trial %d: %d entries for %d types", trial, len(r), len(order))
		}
		for i, e := range r {
			if e.Type != order[i] || e.Time != want[e.Type] {
				t.Errorf("trial %d: entry %d = %+v, want %s %v", trial, i, e, order[i], want[order[i]])
			}
		}
		for _, g := range append(types, "H100") {
			if got := r.On(g); got != want[g] {
				t.Errorf("trial %d: On(%s) = %v, want %v", trial, g, got, want[g])
			}
		}
	}
}
