package lp

import (
	"bytes"
	"testing"
)

// Remap renumbers by the maps given. Old basis: variables (basic, at lower,
// at upper), rows (at lower, basic). New problem: variable 0 is old 2 (at
// upper), variable 1 new (at lower), variable 2 old 0 (basic); row 0 new
// (basic), row 1 old 0 (at lower); an index past the old basis counts as
// new. An empty basis remaps to an empty one.
func TestBasisRemap(t *testing.T) {
	const upper = 2
	old := &Basis{status: []byte{basisBasic, basisLower, upper, basisLower, basisBasic}, cols: 3, rows: 2}
	got := old.Remap([]int{2, -1, 0, 7}, []int{-1, 0})
	want := []byte{upper, basisLower, basisBasic, basisLower, basisBasic, basisLower}
	if !bytes.Equal(got.status, want) || got.cols != 4 || got.rows != 2 {
		t.Errorf("Remap: %v (%d cols, %d rows), want %v (4, 2)", got.status, got.cols, got.rows, want)
	}
	if e := (&Basis{}).Remap([]int{0}, nil); e.status != nil {
		t.Errorf("empty basis remapped to %v, want empty", e.status)
	}
	var none *Basis
	if e := none.Remap([]int{0}, nil); e == nil || e.status != nil {
		t.Errorf("nil basis remapped to %v, want an empty Basis", e)
	}
}
