package models

import (
	"math"
	"sort"
)

// WaterFill splits capacity among claimants in proportion to their weights,
// capping each at its demand and handing what a capped claimant cannot use to
// the others (weighted max-min fairness, "water-filling"). Weights must be
// positive; the result has one share per claimant and sums to
// min(capacity, Σ demands).
func WaterFill(capacity float64, weights, demands []float64) []float64 {
	share := make([]float64, len(weights))
	open := make([]int, 0, len(weights))
	for i := range weights {
		if demands[i] > 0 {
			open = append(open, i)
		}
	}
	left := capacity
	for len(open) > 0 && left > 1e-12 {
		wsum := 0.0
		for _, i := range open {
			wsum += weights[i]
		}
		// Claimants whose remaining demand is below their proportional
		// share are capped; the rest get their proportional share.
		var capped, rest []int
		for _, i := range open {
			if demands[i]-share[i] <= left*weights[i]/wsum {
				capped = append(capped, i)
			} else {
				rest = append(rest, i)
			}
		}
		if len(capped) == 0 {
			for _, i := range open {
				share[i] += left * weights[i] / wsum
			}
			break
		}
		for _, i := range capped {
			left -= demands[i] - share[i]
			share[i] = demands[i]
		}
		open = rest
	}
	return share
}

// EqualShareThroughput is the steps per second job j reaches when it owns the
// fraction f of every GPU type of the cluster, time-sharing nothing with other
// jobs: max Σ_g T[j][g]·x_g subject to Σ_g x_g ≤ 1 and d_j·x_g ≤ f·N_g. The
// greedy fill of the fastest types first is optimal for this fractional
// knapsack. With f = 1/n it is the "equal split" throughput of Gavel's
// max-min fairness and the isolated throughput of Themis' finish-time fairness.
func (e Environment) EqualShareThroughput(j *Job, f float64) float64 {
	c := e.Cluster
	type opt struct {
		t   float64
		cap float64
	}
	var opts []opt
	for _, g := range c.TypeNames() {
		if t := e.Throughput(j, g); t > 0 {
			opts = append(opts, opt{t, f * float64(c.Capacity(g)) / float64(j.Gang)})
		}
	}
	sort.SliceStable(opts, func(a, b int) bool { return opts[a].t > opts[b].t })
	left, tput := 1.0, 0.0
	for _, o := range opts {
		x := math.Min(left, o.cap)
		tput += o.t * x
		left -= x
		if left <= 0 {
			break
		}
	}
	return tput
}

// Jain is Jain's fairness index (Σx)² / (n·Σx²) of xs: 1 when all are equal,
// 1/n when one holds everything. It is 1 for an empty or all-zero input.
func Jain(xs []float64) float64 {
	var s, s2 float64
	for _, x := range xs {
		s += x
		s2 += x * x
	}
	if s2 == 0 {
		return 1
	}
	return s * s / (float64(len(xs)) * s2)
}
