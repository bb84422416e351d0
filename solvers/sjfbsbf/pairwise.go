package sjfbsbf

import "math"

// The pairwise test of SJF-BSBF (Luo et al., IWQoS 2024, §IV;
// docs/algorithms/sjf-bsbf.md). A pending job a may start now on the GPUs of a
// running job b, each then slowed by its interference factor ξ ≥ 1
// (iteration time × ξ), or wait until b ends. With E the exclusive remaining
// time (remaining iterations × iteration time alone) and Ê = ξ·E:
//
//	share now:  if Ê_a ≥ Ê_b, b ends first at Ê_b, having left a with
//	            E_a − Ê_b/ξ_a of exclusive work:
//	              t_con = (Ê_b + Ê_b + E_a − Ê_b/ξ_a) / 2 = E_a/2 + (1 − 1/(2ξ_a))·Ê_b
//	            else a ends first at Ê_a and b at Ê_a + E_b − Ê_a/ξ_b:
//	              t_con = E_b/2 + (1 − 1/(2ξ_b))·Ê_a
//	wait:       b ends at E_b, a at E_b + E_a:
//	              t_seq = E_b + E_a/2
//
// Both are the mean completion time of the two jobs measured from now; a
// shares only if t_con < t_seq, and among running jobs that pass, the one
// with the lowest t_con (the best sharing benefit) comes first.
//
// With gradient accumulation (a runs k sub-batches per step so that the pair
// fits in memory) a's exclusive time while sharing is E_a(k) ≥ E_a(1): TCon
// takes E_a(k), TSeq E_a(1) (waiting, a later runs alone with its whole
// batch).

// TCon is the mean completion time, from now, of pending job a (exclusive
// remaining time ea, slowdown xia) and running job b (eb, xib) when they
// share b's GPUs from now on.
func TCon(ea, eb, xia, xib float64) float64 {
	if xia*ea >= xib*eb {
		return ea/2 + (1-1/(2*xia))*xib*eb
	}
	return eb/2 + (1-1/(2*xib))*xia*ea
}

// TSeq is the mean completion time, from now, of a and b when a waits until
// b ends and then runs alone.
func TSeq(ea, eb float64) float64 { return eb + ea/2 }

// Share is the pairwise test: t_con with a's exclusive time eaShared while it
// shares (E_a(k)), t_seq with eaAlone (E_a(1)), and whether sharing wins
// (t_con < t_seq strictly: a tie waits).
func Share(eaShared, eaAlone, eb, xia, xib float64) (tcon, tseq float64, ok bool) {
	tcon, tseq = TCon(eaShared, eb, xia, xib), TSeq(eaAlone, eb)
	return tcon, tseq, tcon < tseq
}

// threshold is the running jobs' exclusive time E_b* above which sharing
// wins: for fixed a, ξ_a, ξ_b, Share holds exactly when E_b > E_b*, and t_con
// grows with E_b, so among running jobs of one kind the best partner is the
// shortest one above the threshold. It reports false when the passing set is
// not of that form (only when eaShared < eaAlone, an accumulation setting
// faster than the whole batch); the caller then tests each job.
//
// d(E_b) = t_con − t_seq is continuous and piecewise linear in E_b: from
// d(0) = (E_a(k) − E_a(1))/2 it has slope s₁ = (1 − 1/(2ξ_a))·ξ_b − 1 while
// Ê_a ≥ Ê_b, that is up to T = ξ_a·E_a(k)/ξ_b, and slope −1/2 after. So with
// d(0) ≥ 0: if s₁ < 0 and d(T) < 0 the root is d(0)/(−s₁); otherwise it lies
// on the second piece, −E_b/2 + (1 − 1/(2ξ_b))·ξ_a·E_a(k) − E_a(1)/2 = 0.
// Without accumulation d(0) = 0: every E_b > 0 passes when s₁ < 0 (for
// example ξ_a = ξ_b = 1.47, s₁ ≈ −0.03), else E_b > E_a·(2ξ_a − ξ_a/ξ_b − 1)
// (ξ_a = ξ_b = 2: E_b > 2·E_a).
func threshold(eaShared, eaAlone, xia, xib float64) (float64, bool) {
	d0 := (eaShared - eaAlone) / 2
	if d0 < 0 {
		return 0, false
	}
	s1 := (1-1/(2*xia))*xib - 1
	t := xia * eaShared / xib
	if s1 < 0 && d0+s1*t < 0 {
		return d0 / -s1, true
	}
	return math.Max(0, (2-1/xib)*xia*eaShared-eaAlone), true
}
