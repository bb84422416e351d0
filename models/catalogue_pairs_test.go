package models

import "testing"

// TestCataloguePairs checks the built-in co-location pairs: Gavel's 26 job
// types beside each other on one K80, P100 or V100, both directions stored
// and mirrored, every pair backed by isolated figures, no pair faster than
// its job alone, and the [0, 0] pairs (cannot run together) counted.
func TestCataloguePairs(t *testing.T) {
	t.Parallel()
	m := Catalogue().Matrix
	perGPU := map[string]int{}
	zero := map[string]int{}
	for _, k := range m.PairKeys() {
		if k.Gang != 1 || k.Placement != Consolidated {
			t.Errorf("%v beside %s: want gang 1, consolidated", k.Key, k.Other)
		}
		p, _ := m.Pair(k)
		back, ok := m.Pair(PairKey{Key: Key{Job: k.Other, GPU: k.GPU, Gang: 1}, Other: k.Job})
		if !ok || back != [2]float64{p[1], p[0]} {
			t.Errorf("%v beside %s = %v, reverse %v (present %v)", k.Key, k.Other, p, back, ok)
		}
		for i, job := range []string{k.Job, k.Other} {
			iso, ok := m.Lookup(Key{Job: job, GPU: k.GPU, Gang: 1})
			if !ok || iso.Value <= 0 {
				t.Errorf("%v beside %s: %s has no isolated figure on %s", k.Key, k.Other, job, k.GPU)
				continue
			}
			// Sharing never makes a job faster: ξ = isolated / co-located ≥ 1.
			if p[i] > iso.Value*(1+1e-12) {
				t.Errorf("%v beside %s: %s runs %v together, %v alone", k.Key, k.Other, job, p[i], iso.Value)
			}
		}
		if (p[0] == 0) != (p[1] == 0) {
			t.Errorf("%v beside %s = %v: one side 0", k.Key, k.Other, p)
		}
		perGPU[k.GPU]++
		if p[0] == 0 {
			zero[k.GPU]++
		}
	}
	if want := map[string]int{"K80": 676, "P100": 676, "V100": 676}; !mapsEqual(perGPU, want) {
		t.Errorf("pairs per GPU type %v, want %v", perGPU, want)
	}
	if want := map[string]int{"K80": 87, "P100": 20, "V100": 40}; !mapsEqual(zero, want) {
		t.Errorf("[0, 0] pairs per GPU type %v, want %v", zero, want)
	}
	// Spot checks, hand-copied from Gavel's simulation_throughputs.json.
	cases := []struct {
		key  PairKey
		want [2]float64
	}{
		// v100 → "('ResNet-18 (batch size 128)', 1)" → "('ResNet-18 (batch size 16)', 1)".
		{PairKey{Key{"ResNet-18 (batch size 128)", "V100", 1, Consolidated}, "ResNet-18 (batch size 16)"},
			[2]float64{17.994906225052176, 32.353384328946916}},
		// v100 → "('ResNet-18 (batch size 128)', 1)" → "('ResNet-50 (batch size 16)', 1)".
		{PairKey{Key{"ResNet-18 (batch size 128)", "V100", 1, Consolidated}, "ResNet-50 (batch size 16)"},
			[2]float64{14.70009970854491, 7.969428236318269}},
		// v100 → "('A3C', 1)" → "('ResNet-50 (batch size 128)', 1)": [0.0, 0.0].
		{PairKey{Key{"A3C", "V100", 1, Consolidated}, "ResNet-50 (batch size 128)"}, [2]float64{0, 0}},
	}
	for _, c := range cases {
		if got, ok := m.Pair(c.key); !ok || got != c.want {
			t.Errorf("%v beside %s = %v (present %v), want %v", c.key.Key, c.key.Other, got, ok, c.want)
		}
	}
	// Multi-GPU pairs are not built in (Gavel's are placeholders).
	if _, ok := m.Pair(PairKey{Key{"ResNet-18 (batch size 32)", "V100", 2, Consolidated}, "A3C"}); ok {
		t.Error("a multi-GPU pair is built in")
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestCataloguePairsMatchGavelFile is a differential test against the shared
// copy of Gavel's file (skipped when it is absent): the built-in pairs are
// exactly the file's scale-factor-1 consolidated pairs; the file's
// unconsolidated scale-1 pairs repeat them, and every multi-GPU pair in the
// file is [0, 0] (why they are left out).
func TestCataloguePairsMatchGavelFile(t *testing.T) {
	t.Parallel()
	f := openGavelShared(t)
	file, err := ReadGavelThroughputs(f, "simulation_throughputs.json")
	if err != nil {
		t.Fatal(err)
	}
	built := Catalogue().Matrix
	n := 0
	for _, k := range file.PairKeys() {
		p, _ := file.Pair(k)
		switch {
		case k.Gang > 1:
			if p != [2]float64{} {
				t.Errorf("file: %v beside %s = %v, want the [0, 0] placeholder", k.Key, k.Other, p)
			}
		case k.Placement == Spread:
			c := k
			c.Placement = Consolidated
			if q, _ := file.Pair(c); q != p {
				t.Errorf("file: %v beside %s = %v spread, %v consolidated", k.Key, k.Other, p, q)
			}
		default:
			n++
			if q, ok := built.Pair(k); !ok || q != p {
				t.Errorf("%v beside %s: built in %v (present %v), file %v", k.Key, k.Other, q, ok, p)
			}
		}
	}
	if got := len(built.PairKeys()); got != n {
		t.Errorf("%d built-in pairs, file has %d single-GPU consolidated pairs", got, n)
	}
	if n == 0 {
		t.Error("no pairs compared")
	}
}
