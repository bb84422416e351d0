package reproduce

import (
	"fairbench/reports"
)

// ratioOf is num's mean of a summary metric ÷ den's at a point.
func ratioOf(num, den, key string) func(r *Results, p *reports.Point) (float64, bool) {
	return func(r *Results, p *reports.Point) (float64, bool) {
		a, ok1 := r.Mean(p, num, key)
		b, ok2 := r.Mean(p, den, key)
		if !ok1 || !ok2 || b == 0 {
			return 0, false
		}
		return a / b, true
	}
}

// ratioCheck judges num ÷ den of a summary metric against t.
func ratioCheck(num, den, key string, t Target, paper string) Check {
	return Check{Value: ratioOf(num, den, key), Target: t, Paper: paper, Format: "%.2f×", Needs: []string{num, den}}
}

// fairShareRatio is a's share of jobs with ρ ≤ 1 ÷ b's at a point.
func fairShareRatio(a, b string) func(r *Results, p *reports.Point) (float64, bool) {
	return func(r *Results, p *reports.Point) (float64, bool) {
		x, ok1 := r.Mean(p, a, "unfair_pct")
		y, ok2 := r.Mean(p, b, "unfair_pct")
		if !ok1 || !ok2 || y >= 100 {
			return 0, false
		}
		return (100 - x) / (100 - y), true
	}
}
