package gavel

import (
	"encoding/binary"
	"math"
	"sort"

	"fairbench/models"
)

// instance is a snapshot as the LPs see it: the cluster's GPU types and
// counts, and every active job's throughput on each type.
type instance struct {
	s     *models.Snapshot
	types []string    // s.Cluster.TypeNames(), newest first
	caps  []float64   // N_g, GPUs of each type
	tput  [][]float64 // T[j][g] = s.Throughput(job j, type g): 0 where j cannot run
	// can[j][g] says whether job j can run on type g: T[j][g] > 0 before any
	// change of the throughputs (agnostic).
	can [][]bool
	// fractions is the policy's memory for the allocation's maps (nil: new
	// maps).
	fractions *fractionMaps
}

// runs reports whether job i can run on type g.
func (in *instance) runs(i, g int) bool { return in.can[i][g] }

// newInstance reads s. A job that no type can run is an *UnrunnableError.
func newInstance(policy string, s *models.Snapshot) (*instance, error) {
	in := &instance{s: s, types: s.Cluster.TypeNames()}
	in.caps = make([]float64, len(in.types))
	for g, name := range in.types {
		in.caps[g] = float64(s.Cluster.Capacity(name))
	}
	in.tput = make([][]float64, len(s.Jobs))
	in.can = make([][]bool, len(s.Jobs))
	for i := range s.Jobs {
		j := &s.Jobs[i]
		row := make([]float64, len(in.types))
		can := make([]bool, len(in.types))
		any := false
		for g, name := range in.types {
			row[g] = s.ThroughputOf(j, name) // from the row the simulator attached, without a lookup by key
			can[g] = row[g] > 0
			any = any || can[g]
		}
		if !any {
			return nil, unrunnable(policy, s, j)
		}
		in.tput[i], in.can[i] = row, can
	}
	return in, nil
}

// agnostic replaces every throughput by 1: the heterogeneity-agnostic view.
// With everywhere set (Gavel's MaxMinFairnessPolicy, used for central
// solves) that includes the types where the job cannot run; otherwise those
// keep 0.
func (in *instance) agnostic(everywhere bool) *instance {
	out := *in
	out.tput = make([][]float64, len(in.tput))
	for i, row := range in.tput {
		out.tput[i] = make([]float64, len(row))
		for g, t := range row {
			if t > 0 || everywhere {
				out.tput[i][g] = 1
			}
		}
	}
	return &out
}

// n is the number of active jobs.
func (in *instance) n() int { return len(in.s.Jobs) }

// gang is d_j.
func (in *instance) gang(i int) int { return in.s.Jobs[i].Gang }

// normaliser is the throughput that job i's LP throughput is divided by in
// the max-min policies: Gavel's proportional throughput or the equal share.
func (in *instance) normaliser(kind string, i int) float64 {
	if kind == NormEqualShare {
		return equalShare(in.tput[i], in.caps, in.gang(i), 1/float64(in.n()))
	}
	return proportional(in.tput[i], in.caps)
}

// proportional is Gavel's proportional throughput (docs/algorithms/gavel.md,
// "Normalisers"): every one of the m jobs gets x[g] = N_g / m of each type,
// divided by the largest row sum Σ_g N_g / m, so x[g] = N_g / Σ_h N_h
// whatever m:
//
//	P = Σ_g T[g]·N_g / Σ_g N_g
//
// The gang does not enter (Gavel multiplies the objective by the scale
// factor instead).
func proportional(t, caps []float64) float64 {
	num, total := 0.0, 0.0
	for g := range t {
		num += t[g] * caps[g]
		total += caps[g]
	}
	return num / total
}

// equalShare is the throughput of a job with gang d on the fraction f of
// every type, fastest types first: max Σ_g T[g]·x[g] subject to Σ_g x[g] ≤ 1
// and d·x[g] ≤ f·N_g (models.Environment.EqualShareThroughput, for any throughput row).
func equalShare(t, caps []float64, d int, f float64) float64 {
	order := make([]int, 0, len(t))
	for g := range t {
		if t[g] > 0 {
			order = append(order, g)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return t[order[a]] > t[order[b]] })
	left, tput := 1.0, 0.0
	for _, g := range order {
		x := math.Min(left, f*caps[g]/float64(d))
		tput += t[g] * x
		left -= x
		if left <= 0 {
			break
		}
	}
	return tput
}

// equalShareX is the allocation behind equalShare: the per-type shares.
func equalShareX(t, caps []float64, d int, f float64) []float64 {
	x := make([]float64, len(t))
	order := make([]int, 0, len(t))
	for g := range t {
		if t[g] > 0 {
			order = append(order, g)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return t[order[a]] > t[order[b]] })
	left := 1.0
	for _, g := range order {
		x[g] = math.Min(left, f*caps[g]/float64(d))
		left -= x[g]
		if left <= 0 {
			break
		}
	}
	return x
}

// class is a set of active jobs that the LP cannot tell apart: the same
// gang, throughputs and policy data (weights, normaliser, ...). The LP has one
// set of per-job variables for the class; since the LP is symmetric in its
// jobs and convex, some optimum gives them all the same shares, so this loses
// nothing (see Options.Aggregate).
type class struct {
	jobs []int // indices into s.Jobs, in snapshot order
}

// rep is the class's first job, whose data stand for all of them.
func (c class) rep() int { return c.jobs[0] }

// size is the number of jobs in the class.
func (c class) size() float64 { return float64(len(c.jobs)) }

// keyer builds the key of a job's class from exact float bits.
type keyer []byte

func (k keyer) num(v float64) keyer {
	return binary.LittleEndian.AppendUint64(k, math.Float64bits(v))
}

func (k keyer) nums(vs []float64) keyer {
	for _, v := range vs {
		k = k.num(v)
	}
	return k
}

func (k keyer) bools(bs []bool) keyer {
	for _, b := range bs {
		if b {
			k = append(k, 1)
		} else {
			k = append(k, 0)
		}
	}
	return k
}

func (k keyer) str(s string) keyer {
	k = binary.LittleEndian.AppendUint64(k, uint64(len(s)))
	return append(k, s...)
}

// group partitions the jobs 0..n−1 into classes of equal key, ordered by
// their first job; without aggregate every job is its own class. key
// appends job i's key to k (an empty buffer, reused from job to job).
func group(n int, aggregate bool, key func(k keyer, i int) keyer) []class {
	if !aggregate {
		out := make([]class, n)
		for i := range out {
			out[i] = class{jobs: []int{i}}
		}
		return out
	}
	idx := map[string]int{}
	var out []class
	var buf keyer
	for i := 0; i < n; i++ {
		buf = key(buf[:0], i)
		c, ok := idx[string(buf)] // a lookup converts without copying
		if !ok {
			c = len(out)
			idx[string(buf)] = c
			out = append(out, class{})
		}
		out[c].jobs = append(out[c].jobs, i)
	}
	return out
}
