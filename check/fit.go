package check

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Growth is the growth exponent of an over-time quantity v(H) measured at
// horizons H (docs/checker.md, "Growth exponents"): the model
//
//	v(H) = a + c·H^α
//
// fitted to the values as they are (no logarithm, no floor) by profile
// least squares: for each α the best a and c are linear least squares, and
// α̂ minimises the residual sum of squares S(α). The offset a absorbs what
// does not grow (a start-up lag, a first wait), so a slowly growing linear
// quantity is not mistaken for a bounded one. The confidence interval is
// the profile-likelihood interval {α : S(α) ≤ S(α̂)·(1 + F/(n−3))}, F the
// Confidence quantile of the F(1, n−3) distribution; with exact data it
// shrinks to α̂.
type Growth struct {
	Alpha float64 `json:"alpha"`
	Lo    float64 `json:"alpha_lo"`
	Hi    float64 `json:"alpha_hi"`
	// Rise is the fitted growth over the horizons, c·(H_max^α − H_min^α).
	Rise float64 `json:"rise"`
	// Flat is set when the quantity rises by less than one unit over the
	// horizons (or falls): it is bounded as far as the horizons tell, and
	// Alpha is reported as 0.
	Flat bool `json:"flat,omitempty"`
}

// Confidence is the level of the exponent's confidence interval.
const Confidence = 0.95

// Exponent range searched by the fit.
const (
	alphaMin  = -1.0
	alphaMax  = 2.5
	alphaStep = 0.0025
)

// fitGrowth fits v = a + c·H^α to the pairs (hs[i], vs[i]); unit is the
// rise below which the quantity counts as flat.
func fitGrowth(hs []int, vs []float64, unit float64) Growth {
	n := len(hs)
	if n < 2 {
		return Growth{Flat: true}
	}
	best, bestS := 0.0, math.Inf(1)
	var profile []float64
	for al := alphaMin; al <= alphaMax+1e-12; al += alphaStep {
		_, _, s := fitLinear(hs, vs, al)
		profile = append(profile, s)
		if math.IsInf(bestS, 1) || s < bestS-1e-12*math.Max(1, bestS) {
			best, bestS = al, s
		}
	}
	_, c, _ := fitLinear(hs, vs, best)
	rise := c * (math.Pow(float64(hs[n-1]), best) - math.Pow(float64(hs[0]), best))
	g := Growth{Alpha: best, Lo: best, Hi: best, Rise: rise}
	if n > 3 {
		limit := bestS * (1 + distuv.F{D1: 1, D2: float64(n - 3)}.Quantile(Confidence)/float64(n-3))
		g.Lo, g.Hi = math.Inf(1), math.Inf(-1)
		for i, s := range profile {
			if s <= limit+1e-12*math.Max(1, limit) {
				al := alphaMin + float64(i)*alphaStep
				g.Lo, g.Hi = math.Min(g.Lo, al), math.Max(g.Hi, al)
			}
		}
	} else {
		g.Lo, g.Hi = alphaMin, alphaMax
	}
	if rise < unit {
		g.Flat, g.Alpha = true, 0
	}
	return g
}

// fitLinear is the least-squares fit of v = a + c·H^α for one α: a, c and
// the residual sum of squares.
func fitLinear(hs []int, vs []float64, alpha float64) (a, c, sse float64) {
	n := float64(len(hs))
	var sx, sy, sxx, sxy float64
	for i, h := range hs {
		x := math.Pow(float64(h), alpha)
		sx, sy, sxx, sxy = sx+x, sy+vs[i], sxx+x*x, sxy+x*vs[i]
	}
	d := n*sxx - sx*sx
	if math.Abs(d) < 1e-300 {
		a = sy / n
	} else {
		c = (n*sxy - sx*sy) / d
		a = (sy - c*sx) / n
	}
	for i, h := range hs {
		r := vs[i] - a - c*math.Pow(float64(h), alpha)
		sse += r * r
	}
	return a, c, sse
}

func (g Growth) String() string {
	if g.Flat {
		return fmt.Sprintf("flat (rises %.3g over the horizons)", g.Rise)
	}
	return fmt.Sprintf("α = %.2f (%.0f%% CI %.2f–%.2f)", g.Alpha, 100*Confidence, g.Lo, g.Hi)
}

// Verdict of a growth against the claim "grows at most like H^limit",
// told apart from linear growth: the boundary is halfway between limit
// and 1 (0.75 for √H against H). It is sure when the confidence interval
// lies on one side of the boundary.
func (g Growth) Verdict(limit float64) (ok, sure bool) {
	if g.Flat {
		return true, true
	}
	mid := (limit + 1) / 2
	return g.Alpha <= mid, g.Hi <= mid || g.Lo > mid
}
