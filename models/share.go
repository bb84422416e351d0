package models

import (
	"math"
	"sort"
)

// WaterFill splits capacity among claimants in proportion to their weights,
// capping each at its demand and handing what a capped claimant cannot use to
// the others (weighted max-min fairness, "water-filling"). Weights must be
// positive; the result has one share per claimant and sums to
// min(capacity, Σ demands). It runs a Filling to the end.
func WaterFill(capacity float64, weights, demands []float64) []float64 {
	f := NewFilling(capacity, weights, demands)
	for f.Step() != nil {
	}
	return f.Share
}

// Filling is water-filling in progress, one level at a time: at each step
// the claimants still open share what is left in proportion to their
// weights; those whose remaining demand is at most their proportional share
// are capped at their demand and leave, and the level rises again with what
// they did not use. When none is capped, the open ones take their
// proportional shares and the filling ends. A caller that needs to act
// between levels (to log them, or to re-solve with the capped claimants
// frozen) steps it itself; WaterFill runs it to the end.
type Filling struct {
	// Weights and Demands are the claimants'; Share is what each has so far.
	Weights, Demands, Share []float64
	// Left is the capacity not yet handed out.
	Left float64
	open []int // claimants not capped yet, in index order
}

// NewFilling starts water-filling capacity over claimants with the given
// weights (positive) and demands; claimants with no demand never open.
func NewFilling(capacity float64, weights, demands []float64) *Filling {
	f := &Filling{Weights: weights, Demands: demands, Share: make([]float64, len(weights)), Left: capacity,
		open: make([]int, 0, len(weights))}
	for i := range weights {
		if demands[i] > 0 {
			f.open = append(f.open, i)
		}
	}
	return f
}

// Open is the claimants not capped yet, in index order (not to be modified).
func (f *Filling) Open() []int { return f.open }

// Done reports whether the filling has ended: no claimant is open, or the
// capacity is used up.
func (f *Filling) Done() bool { return len(f.open) == 0 || f.Left <= 1e-12 }

// Step raises the level once and returns the claimants it capped at their
// demand, in index order; nil when the filling is done, including when this
// step gave every open claimant its proportional share and ended it.
func (f *Filling) Step() []int {
	if f.Done() {
		return nil
	}
	wsum := 0.0
	for _, i := range f.open {
		wsum += f.Weights[i]
	}
	var capped, rest []int
	for _, i := range f.open {
		if f.Demands[i]-f.Share[i] <= f.Left*f.Weights[i]/wsum {
			capped = append(capped, i)
		} else {
			rest = append(rest, i)
		}
	}
	if len(capped) == 0 {
		for _, i := range f.open {
			f.Share[i] += f.Left * f.Weights[i] / wsum
		}
		f.open, f.Left = nil, 0
		return nil
	}
	for _, i := range capped {
		f.Left -= f.Demands[i] - f.Share[i]
		f.Share[i] = f.Demands[i]
	}
	f.open = rest
	return capped
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
