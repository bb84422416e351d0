package sjfbsbf

import (
	"math"
	"math/rand/v2"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestPairwiseHandComputed checks TCon, TSeq and Share on cases worked out by
// hand, both branches of t_con, sharing and waiting.
func TestPairwiseHandComputed(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name             string
		ea, eb, xia, xib float64
		tcon, tseq       float64
		share            bool
	}{
		{
			// Ê_a = 1.5·100 = 150 ≥ Ê_b = 1.25·40 = 50: b ends first, at 50 s;
			// by then a did 50/1.5 = 33.33 s of its 100 s and ends alone at
			// 50 + 66.67 = 116.67 s. t_con = (50 + 116.67)/2 = 83.33
			// = E_a/2 + (1 − 1/3)·50 = 50 + 33.33. t_seq = 40 + 50 = 90: share.
			name: "b ends first, share", ea: 100, eb: 40, xia: 1.5, xib: 1.25,
			tcon: 50 + 100.0/3, tseq: 90, share: true,
		},
		{
			// Ê_a = 2·20 = 40 < Ê_b = 2·100 = 200: a ends first at 40 s; b did
			// 20 s of its 100 and ends at 40 + 80 = 120. t_con = (40+120)/2 = 80
			// = E_b/2 + (1 − 1/4)·40 = 50 + 30. t_seq = 100 + 10 = 110: share
			// (a short job beside a long one: at ξ = 2 sharing is taking turns,
			// which helps the short job more than it hurts the long one).
			name: "a ends first, share", ea: 20, eb: 100, xia: 2, xib: 2,
			tcon: 80, tseq: 110, share: true,
		},
		{
			// Ê_a = 2·100 = 200 ≥ Ê_b = 200: branch one. t_con = 50 + 0.75·200
			// = 200 (both end at 200) against t_seq = 100 + 50 = 150: wait.
			name: "equal jobs at ξ = 2, wait", ea: 100, eb: 100, xia: 2, xib: 2,
			tcon: 200, tseq: 150, share: false,
		},
		{
			// Ê_a = 120 < Ê_b = 200: t_con = 50 + 0.75·120 = 140 > t_seq = 100 +
			// 30 = 130: wait (at ξ = 2 sharing pays only when E_b > 2·E_a = 120).
			name: "a ends first, wait", ea: 60, eb: 100, xia: 2, xib: 2,
			tcon: 140, tseq: 130, share: false,
		},
		{
			// Gavel's V100 pair ResNet-18 (batch 128) beside ResNet-50 (batch
			// 16): ξ = 17.994906/14.700100 = 1.2241 and 11.396129/7.969428 =
			// 1.4300; with E_a = 3600, E_b = 600: Ê_a = 4406.8 ≥ Ê_b = 858.0,
			// t_con = 1800 + (1 − 1/2.4482)·858.0 = 2307.5 < t_seq = 2400.
			name: "measured pair", ea: 3600, eb: 600,
			xia: 17.994906225052176 / 14.70009970854491, xib: 11.396129065315943 / 7.969428236318269,
			tcon: 1800 + (1-1/(2*17.994906225052176/14.70009970854491))*600*11.396129065315943/7.969428236318269,
			tseq: 2400, share: true,
		},
	}
	for _, c := range cases {
		tcon, tseq, ok := Share(c.ea, c.ea, c.eb, c.xia, c.xib)
		if !near(tcon, c.tcon) || !near(tseq, c.tseq) || ok != c.share {
			t.Errorf("%s: t_con %v t_seq %v share %v, want %v %v %v", c.name, tcon, tseq, ok, c.tcon, c.tseq, c.share)
		}
	}
	// The measured pair's t_con, spelled out: 2307.5 s to the tenth.
	if tc := TCon(3600, 600, 17.994906225052176/14.70009970854491, 11.396129065315943/7.969428236318269); math.Abs(tc-2307.5) > 0.05 {
		t.Errorf("measured pair t_con %v, want ≈ 2307.5", tc)
	}
	// With accumulation a shares at E_a(k) but would wait at E_a(1):
	// E_a(2) = 150, E_a(1) = 100, E_b = 1000, ξ = 1.25 both: Ê_a = 187.5 <
	// Ê_b = 1250, t_con = 500 + 0.6·187.5 = 612.5 < t_seq = 1000 + 50.
	if tcon, tseq, ok := Share(150, 100, 1000, 1.25, 1.25); !near(tcon, 612.5) || !near(tseq, 1050) || !ok {
		t.Errorf("accumulation: %v %v %v, want 612.5 1050 true", tcon, tseq, ok)
	}
}

// TestThresholdMatchesShare is a differential test: the closed-form
// threshold agrees with Share on random pairs (away from the boundary).
func TestThresholdMatchesShare(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	irregular := 0
	for n := 0; n < 200000; n++ {
		ea1 := math.Exp(rng.Float64()*10 - 2)
		eak := ea1
		if rng.IntN(2) == 0 {
			eak = ea1 * (0.8 + 2*rng.Float64())
		}
		xia, xib := 1+3*rng.Float64(), 1+3*rng.Float64()
		if rng.IntN(5) == 0 {
			xia = 1
		}
		eb := math.Exp(rng.Float64()*14 - 4)
		r, regular := threshold(eak, ea1, xia, xib)
		if !regular {
			irregular++
			if eak >= ea1 {
				t.Fatalf("E_a(k) %v ≥ E_a(1) %v reported irregular", eak, ea1)
			}
			continue
		}
		if math.Abs(eb-r) <= 1e-9*math.Max(1, r) {
			continue
		}
		_, _, want := Share(eak, ea1, eb, xia, xib)
		if got := eb > r; got != want {
			t.Fatalf("E_a(k) %v E_a(1) %v E_b %v ξ %v %v: threshold %v says %v, Share %v", eak, ea1, eb, xia, xib, r, got, want)
		}
	}
	if irregular == 0 {
		t.Error("no irregular case drawn")
	}
}

// TestTConGrowsWithEb: within a kind of running job the best partner is the
// shortest that passes (the search relies on it).
func TestTConGrowsWithEb(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 100000; n++ {
		ea, xia, xib := math.Exp(rng.Float64()*8), 1+3*rng.Float64(), 1+3*rng.Float64()
		e1 := math.Exp(rng.Float64() * 10)
		e2 := e1 * (1 + rng.Float64())
		if TCon(ea, e2, xia, xib) < TCon(ea, e1, xia, xib) {
			t.Fatalf("t_con falls from E_b %v to %v (E_a %v, ξ %v %v)", e1, e2, ea, xia, xib)
		}
	}
}
