package fft

import (
	"fmt"
	"math"
)

// Instance is one round's integer program (docs/algorithms/fft.md): over binary
// x[j][i],
//
//	minimise    Σ_j Σ_i c[j][i]·x[j][i]
//	subject to  Σ_i x[j][i] ≤ 1                 for every job j   (one type per job)
//	            Σ_j d_j·x[j][i] ≤ Υ_i           for every type i  (per-type capacity)
//	            Σ_i Σ_j d_j·x[j][i] ≥ K(t)                        (work conservation, Eq. 7)
//	            x[j][i] = 0 where !OK[j][i]                       (memory, measured figure)
//
// with c[j][i] = φ[j][i](t) + s[j][i](t) − ρ_j(t)·θ[j][i] built by the policy
// (see costs.go). K(t) is not stored: it is the largest Σ d_j·x[j][i] any
// feasible x reaches (see Solution.Fill and MaxFill).
//
// Jobs are indexed 0..len(Gang)−1 and types 0..Types−1; Cost and OK are
// row-major, job by job: Cost[j*Types+i].
type Instance struct {
	Types int
	Cap   []int     // Υ_i: GPUs of type i
	Gang  []int     // d_j: GPUs job j needs at once
	Cost  []float64 // c[j][i]
	OK    []bool    // x[j][i] may be 1
}

// Jobs is the number of jobs.
func (in *Instance) Jobs() int { return len(in.Gang) }

// Validate reports a malformed instance: sizes that disagree, a gang or a
// capacity below 1 or 0, a NaN or infinite cost where OK.
func (in *Instance) Validate() error {
	if in.Types <= 0 || len(in.Cap) != in.Types {
		return fmt.Errorf("fft: instance: %d types but %d capacities", in.Types, len(in.Cap))
	}
	n := len(in.Gang) * in.Types
	if len(in.Cost) != n || len(in.OK) != n {
		return fmt.Errorf("fft: instance: %d jobs × %d types needs %d costs and flags, got %d and %d",
			len(in.Gang), in.Types, n, len(in.Cost), len(in.OK))
	}
	for i, c := range in.Cap {
		if c < 0 {
			return fmt.Errorf("fft: instance: capacity of type %d is %d", i, c)
		}
	}
	for j, d := range in.Gang {
		if d < 1 {
			return fmt.Errorf("fft: instance: gang of job %d is %d", j, d)
		}
		for i := range in.Types {
			k := j*in.Types + i
			if in.OK[k] && (math.IsNaN(in.Cost[k]) || math.IsInf(in.Cost[k], 0)) {
				return fmt.Errorf("fft: instance: cost of job %d on type %d is %v", j, i, in.Cost[k])
			}
		}
	}
	return nil
}

// Solution is an integral x: Type[j] is the type job j runs on, or −1.
type Solution struct {
	Type []int
	// Objective is Σ c[j][Type[j]] over the jobs that run.
	Objective float64
	// Fill is Σ d_j over the jobs that run.
	Fill int
}

// evaluate fills Objective and Fill from Type.
func (in *Instance) evaluate(s *Solution) {
	s.Objective, s.Fill = 0, 0
	for j, i := range s.Type {
		if i >= 0 {
			s.Objective += in.Cost[j*in.Types+i]
			s.Fill += in.Gang[j]
		}
	}
}

// Check reports whether s is feasible for in (ignoring the fill row, whose
// right-hand side is not part of the instance).
func (in *Instance) Check(s Solution) error {
	if len(s.Type) != len(in.Gang) {
		return fmt.Errorf("fft: solution has %d jobs, instance %d", len(s.Type), len(in.Gang))
	}
	used := make([]int, in.Types)
	for j, i := range s.Type {
		if i < 0 {
			continue
		}
		if i >= in.Types || !in.OK[j*in.Types+i] {
			return fmt.Errorf("fft: job %d on type %d, which cannot run it", j, i)
		}
		used[i] += in.Gang[j]
	}
	for i, u := range used {
		if u > in.Cap[i] {
			return fmt.Errorf("fft: type %d holds %d GPUs of gangs, capacity %d", i, u, in.Cap[i])
		}
	}
	return nil
}
