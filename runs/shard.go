package runs

import (
	"container/heap"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"fairbench/scenarios"
)

// MaxShards bounds N in --shard I/N: a grid has at most
// scenarios.MaxRuns runs, so more shards than that would all be empty.
const MaxShards = scenarios.MaxRuns

// ParseShard reads "I/N" (0 ≤ I < N ≤ MaxShards).
func ParseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	if ok {
		i, err = strconv.Atoi(strings.TrimSpace(a))
		if err == nil {
			n, err = strconv.Atoi(strings.TrimSpace(b))
		}
	}
	if !ok || err != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("--shard %q: want I/N with 0 ≤ I < N, e.g. 0/4", s)
	}
	if n > MaxShards {
		return 0, 0, fmt.Errorf("--shard %q: N must be at most %d (a grid has at most that many runs)", s, MaxShards)
	}
	return i, n, nil
}

// Shard returns the runs of shard i of n. The assignment depends only on the
// grid: runs are taken in descending expected cost (ties by ID) and each goes
// to the shard with the least expected work so far (ties to the lowest
// index), so every process given the same grid computes the same split,
// every run lands in exactly one shard, and shards carry similar work rather
// than similar counts. The runs of a shard keep the grid's order. It takes
// O(runs · log n) time and O(n) memory.
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
	// Shards beyond the number of runs get nothing (each of the first runs
	// goes to a still-empty shard, the lowest index first).
	m := min(n, len(runs))
	loads := make(shardLoads, m)
	for s := range loads {
		loads[s] = shardLoad{index: s}
	}
	owner := make([]int, len(runs))
	for _, k := range order {
		owner[k] = loads[0].index
		loads[0].load += cost[k]
		heap.Fix(&loads, 0)
	}
	var out []scenarios.Run
	for k, r := range runs {
		if owner[k] == i {
			out = append(out, r)
		}
	}
	return out
}

// shardLoads is a min-heap of shards by (expected work, index).
type shardLoad struct {
	load  float64
	index int
}

type shardLoads []shardLoad

func (h shardLoads) Len() int { return len(h) }
func (h shardLoads) Less(a, b int) bool {
	if h[a].load != h[b].load {
		return h[a].load < h[b].load
	}
	return h[a].index < h[b].index
}
func (h shardLoads) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *shardLoads) Push(x any)   { *h = append(*h, x.(shardLoad)) }
func (h *shardLoads) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
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
