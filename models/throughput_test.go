package models

import (
	"fmt"
	"math/rand"
	"testing"
)

// randomMatrix holds n random figures and co-location figures over a few
// job types, so that two such matrices share some keys.
func randomMatrix(rng *rand.Rand, n int) *Matrix {
	m := NewMatrix()
	for i := 0; i < n; i++ {
		k := Key{Job: fmt.Sprintf("j%d", rng.Intn(4)), GPU: fmt.Sprintf("g%d", rng.Intn(3)), Gang: 1 + rng.Intn(4), Placement: Placement(rng.Intn(2))}
		if err := m.Set(k, float64(1+rng.Intn(100)), fmt.Sprint(i)); err != nil {
			panic(err)
		}
		if err := m.SetPair(PairKey{Key: k, Other: fmt.Sprintf("j%d", rng.Intn(4))}, float64(1+rng.Intn(100)), float64(1+rng.Intn(100))); err != nil {
			panic(err)
		}
	}
	return m
}

func sameMatrix(t *testing.T, got, want *Matrix) {
	t.Helper()
	if len(got.iso) != len(want.iso) || len(got.pair) != len(want.pair) {
		t.Fatalf("%d figures and %d pairs, want %d and %d", len(got.iso), len(got.pair), len(want.iso), len(want.pair))
	}
	for k, f := range want.iso {
		if g, ok := got.iso[k]; !ok || g != f {
			t.Fatalf("%v: %v, want %v", k, g, f)
		}
	}
	for k, p := range want.pair {
		if g, ok := got.pair[k]; !ok || g != p {
			t.Fatalf("%v with %s: %v, want %v", k.Key, k.Other, g, p)
		}
	}
}

// TestFillIsMergeTheOtherWayRound: o.Clone() filled from c holds what a
// new matrix holds after merging c, then o (o's figures win where both
// have one), and neither o nor c changes.
func TestFillIsMergeTheOtherWayRound(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 200; i++ {
		c, o := randomMatrix(rng, rng.Intn(30)), randomMatrix(rng, rng.Intn(30))
		cBefore, oBefore := NewMatrix(), NewMatrix()
		cBefore.Merge(c)
		oBefore.Merge(o)
		want := NewMatrix()
		want.Merge(c)
		want.Merge(o)
		got := o.Clone()
		got.Fill(c)
		sameMatrix(t, got, want)
		sameMatrix(t, c, cBefore)
		sameMatrix(t, o, oBefore)
	}
}

// TestCloneIsIndependent: a change to a clone leaves the original alone
// and the other way round; an empty matrix clones to one that takes
// figures.
func TestCloneIsIndependent(t *testing.T) {
	k := Key{Job: "a", GPU: "g", Gang: 1}
	m := NewMatrix()
	if err := m.Set(k, 2, "x"); err != nil {
		t.Fatal(err)
	}
	c := m.Clone()
	if err := c.Set(k, 3, "y"); err != nil {
		t.Fatal(err)
	}
	if err := m.SetPair(PairKey{Key: k, Other: "b"}, 1, 1); err != nil {
		t.Fatal(err)
	}
	if m.Throughput(k) != 2 || c.Throughput(k) != 3 {
		t.Fatalf("original %g, clone %g; want 2 and 3", m.Throughput(k), c.Throughput(k))
	}
	if _, ok := c.Pair(PairKey{Key: k, Other: "b"}); ok {
		t.Fatal("a pair set on the original shows in the clone")
	}
	e := (&Matrix{}).Clone()
	if err := e.Set(k, 1, "z"); err != nil || e.Len() != 1 {
		t.Fatalf("clone of an empty matrix: %v, %d figures", err, e.Len())
	}
}
