package models

import (
	"reflect"
	"testing"
)

// Each allocation is of exactly one kind, read from the fields it sets.
func TestAllocationKind(t *testing.T) {
	t.Parallel()
	run := []Assignment{{Job: 1, Type: "V100"}}
	fr := map[JobID]map[string]float64{1: {"V100": 0.5}}
	pairs := []SharedFraction{{Jobs: [2]JobID{1, 2}, Type: "V100", X: 0.25}}
	for _, tc := range []struct {
		name string
		a    Allocation
		want Kind
	}{
		{"empty", Allocation{}, WholeGPUs{}},
		{"placements", Allocation{Run: run}, WholeGPUs{Run: run}},
		{"co-located", Allocation{Run: run, Colocate: true}, CoLocated{Run: run}},
		{"fractions", Allocation{Fractions: fr}, TimeShares{Fractions: fr}},
		{"capped", Allocation{Fractions: fr, Capped: true}, TimeShares{Fractions: fr, Capped: true}},
		{"pairs only", Allocation{Shared: pairs}, TimeShares{Pairs: pairs}},
		{"colocate ignored on fractions", Allocation{Fractions: fr, Colocate: true}, TimeShares{Fractions: fr}},
	} {
		if got := tc.a.Kind(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: kind %#v, want %#v", tc.name, got, tc.want)
		}
	}
}
