// Command equalshare is a minimal external policy for `fairbench check
// --policy exec:CMD`, written against the standard library only so that it
// can be copied out of this repository as the start of a policy in Go. It
// speaks the JSON-lines protocol of docs/external-policy-sdk.md
// (fairbench-policy/1): one request per line on stdin, one answer per line
// on stdout.
//
// The policy is check/examples/equal_share.py in Go: every active user owns
// the fraction w_u / Σw of every GPU type; each of its jobs, in order, fills
// its fastest types first within what is left of its user's slice. It
// keeps sharing incentive, envy-freeness and strategy-proofness for users
// with one job each:
//
//	go build -o /tmp/equalshare ./check/examples/equalshare
//	fairbench check --policy exec:/tmp/equalshare \
//	    --claims sharing-incentive:one-job-per-user,envy-free:one-job-per-user,strategy-proof:one-job-per-user
//
// With -ignore-weights it gives every user the same slice: a planted bug
// the checker catches.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
)

// request is one decision to make.
type request struct {
	Protocol string   `json:"protocol"`
	ID       int64    `json:"id"`
	Run      int64    `json:"run"`
	Trigger  string   `json:"trigger"`
	Instance instance `json:"instance"`
}

// instance is the part of the instance this policy reads; the protocol
// sends more (history, gpu_types, …), which it ignores.
type instance struct {
	Servers []struct {
		Type  string `json:"type"`
		Count int    `json:"count"`
		GPUs  int    `json:"gpus_per_server"`
	} `json:"servers"`
	Users []struct {
		Name   string  `json:"name"`
		Weight float64 `json:"weight"`
	} `json:"users"`
	// Jobs is null when no job is active.
	Jobs []struct {
		ID          int64              `json:"id"`
		User        string             `json:"user"`
		Gang        int                `json:"gang"`
		Throughputs map[string]float64 `json:"throughputs"`
	} `json:"jobs"`
}

// answer is an allocation or an error, for the request with the same id.
type answer struct {
	ID         int64       `json:"id"`
	Allocation *allocation `json:"allocation,omitempty"`
	Error      string      `json:"error,omitempty"`
}

// allocation is time fractions: job id → GPU type → share of time.
type allocation struct {
	Fractions map[string]map[string]float64 `json:"fractions"`
	Capped    bool                          `json:"capped"`
}

func decide(in instance, ignoreWeights bool) *allocation {
	capacity := map[string]float64{}
	for _, s := range in.Servers {
		capacity[s.Type] += float64(s.Count * s.GPUs)
	}
	active := map[string]bool{}
	for _, j := range in.Jobs {
		active[j.User] = true
	}
	weight := map[string]float64{}
	total := 0.0
	for _, u := range in.Users {
		w := u.Weight
		if ignoreWeights {
			w = 1
		}
		if active[u.Name] {
			weight[u.Name] = w
			total += w
		}
	}
	left := map[string]map[string]float64{}
	for name, w := range weight {
		left[name] = map[string]float64{}
		for t, n := range capacity {
			left[name][t] = w / total * n
		}
	}
	a := &allocation{Fractions: map[string]map[string]float64{}, Capped: true}
	for _, j := range in.Jobs {
		var types []string
		for t, v := range j.Throughputs {
			if v > 0 && capacity[t] >= float64(j.Gang) {
				types = append(types, t)
			}
		}
		// Fastest first; ties by name, so that the answer is deterministic.
		sort.Slice(types, func(x, y int) bool {
			tx, ty := j.Throughputs[types[x]], j.Throughputs[types[y]]
			return tx > ty || tx == ty && types[x] < types[y]
		})
		need := 1.0
		for _, t := range types {
			if need <= 1e-12 {
				break
			}
			x := min(need, left[j.User][t]/float64(j.Gang))
			if x <= 1e-12 {
				continue
			}
			id := fmt.Sprint(j.ID)
			if a.Fractions[id] == nil {
				a.Fractions[id] = map[string]float64{}
			}
			a.Fractions[id][t] = x
			left[j.User][t] -= x * float64(j.Gang)
			need -= x
		}
	}
	return a
}

func main() {
	ignoreWeights := flag.Bool("ignore-weights", false, "give every user the same slice (a planted bug)")
	flag.Parse()
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	for in.Scan() {
		var req request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			fmt.Fprintln(os.Stderr, "equalshare: bad request:", err)
			os.Exit(1)
		}
		if err := enc.Encode(answer{ID: req.ID, Allocation: decide(req.Instance, *ignoreWeights)}); err != nil {
			os.Exit(1)
		}
		// One answer per request, flushed at once: the checker waits for it.
		if err := out.Flush(); err != nil {
			os.Exit(1)
		}
	}
}
