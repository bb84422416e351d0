package runs

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"fairbench/scenarios"
)

// ParseShard reads "I/N" (0 ≤ I < N).
func ParseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	if ok {
		i, err = strconv.Atoi(a)
		if err == nil {
			n, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("--shard %q: want I/N with 0 ≤ I < N, e.g. 0/4", s)
	}
	return i, n, nil
}

// Shard returns the runs of shard i of n. The assignment depends only on the
// grid: runs are taken in descending expected cost (ties by ID) and each goes
// to the shard with the least expected work so far (ties to the lowest
// index), so every process given the same grid computes the same split,
// every run lands in exactly one shard, and shards carry similar work rather
// than similar counts. The runs of a shard keep the grid's order.
func Shard(runs []scenarios.Run, i, n int) []scenarios.Run {
	order := make([]int, len(runs))
	cost := make([]float64, len(runs))
	for k := range runs {
		order[k] = k
		cost[k] = Cost(runs[k])
	}
	sort.SliceStable(order, func(a, b int) bool {
		ka, kb := order[a], order[b]
		if cost[ka] != cost[kb] {
			return cost[ka] > cost[kb]
		}
		return runs[ka].ID < runs[kb].ID
	})
	load := make([]float64, n)
	owner := make([]int, len(runs))
	for _, k := range order {
		best := 0
		for s := 1; s < n; s++ {
			if load[s] < load[best] {
				best = s
			}
		}
		owner[k] = best
		load[best] += cost[k]
	}
	var out []scenarios.Run
	for k, r := range runs {
		if owner[k] == i {
			out = append(out, r)
		}
	}
	return out
}

// Cost is a run's expected cost, in jobs: the number of jobs it simulates
// (for a whole trace, its size in bytes over 100, about a line's length).
// A simulation's time grows with its jobs; the policy is not weighed.
func Cost(r scenarios.Run) float64 {
	if n := r.Spec.Workload.Jobs; n > 0 {
		return float64(n)
	}
	for _, in := range r.Inputs {
		if in.Role == "trace" {
			if st, err := os.Stat(in.Path); err == nil {
				return float64(st.Size()) / 100
			}
		}
	}
	return 1
}
