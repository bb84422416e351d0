package models

import (
	"math"
	"testing"
)

func TestAccumulation(t *testing.T) {
	t.Parallel()
	types := map[string]JobType{
		"R (64)": {Name: "R (64)", Model: "R", BatchSize: 64, MemoryGB: 20, FixedMemoryGB: 4},
		"R (32)": {Name: "R (32)", Model: "R", BatchSize: 32},
		"R (16)": {Name: "R (16)", Model: "R", BatchSize: 16},
		"S (10)": {Name: "S (10)", Model: "S", BatchSize: 10, MemoryGB: 8},
	}
	m := NewMatrix()
	_ = m.Set(Key{Job: "R (64)", GPU: "V100", Gang: 2}, 3, "t")
	_ = m.Set(Key{Job: "R (32)", GPU: "V100", Gang: 2}, 5, "t")
	_ = m.Set(Key{Job: "R (16)", GPU: "V100", Gang: 2}, 8, "t")
	j := &Job{ID: 1, User: "u", Type: "R (64)", Gang: 2, Steps: 1}
	cases := []struct {
		k    int
		want float64
		ok   bool
	}{
		{1, 3, true},       // the job's own figure
		{2, 5.0 / 2, true}, // batch 32 at 5 it/s, 2 iterations per step
		{4, 8.0 / 4, true}, // batch 16 at 8 it/s, 4 per step
		{8, 0, false},      // batch 8 never measured: no extrapolation
		{3, 0, false},      // 64/3 is not a whole batch
	}
	for _, c := range cases {
		got, ok := AccumThroughput(types, m, j, "V100", Consolidated, c.k)
		if ok != c.ok || math.Abs(got-c.want) > 1e-12 {
			t.Errorf("k=%d: %v %v, want %v %v", c.k, got, ok, c.want, c.ok)
		}
	}
	// Memory: 4 GB fixed + 16 GB of activations / k: k=2 → 12, k=4 → 8.
	for k, want := range map[int]float64{1: 20, 2: 12, 4: 8} {
		if got := AccumMemory(types, j, k); got != want {
			t.Errorf("memory k=%d: %v, want %v", k, got, want)
		}
	}
	// No fixed part known: all of it shrinks: 8 / 2 = 4.
	if got := AccumMemory(types, &Job{Type: "S (10)"}, 2); got != 4 {
		t.Errorf("memory without a fixed part: %v, want 4", got)
	}
}
