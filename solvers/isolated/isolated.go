// Package isolated is the static-partition baseline: every user owns a fixed
// weighted slice of every GPU type, whether or not the other users are active,
// and its jobs are never given more than that slice. (The policy states time
// fractions; how closely they are realised is up to the simulator's round
// mechanism.)
//
// It is the reference point of the sharing-incentive property (every user
// does at least as well as with its weighted 1/n of every type; Gavel,
// Narayanan et al., OSDI 2020, shows its max-min policy gives sharing
// incentive against this split) and the setting of the isolated
// time T_independent of Themis' finish-time fairness (Mahajan et al., NSDI
// 2020: completion time on a 1/N share of the cluster), here weighted by the
// users' tickets. It is not work-conserving by design: the GPUs of an idle
// user's slice stay idle, even while other users' jobs wait.
//
// This is not Gavel's "isolated" baseline, which splits every type equally
// among the active jobs: that is gavel-isolated (gavel.go).
// docs/algorithms/isolated.md describes both.
package isolated

import (
	"fmt"
	"math"
	"sort"

	"fairbench/models"
	"fairbench/solvers"
)

// Name is the policy's registered name.
const Name = "static-partition"

// Summary is the one-line description the registry shows.
const Summary = "static weighted partition of every GPU type per user, idle users included (not work-conserving; Gavel's isolated is gavel-isolated)"

// Isolated is the policy. It keeps no state between decisions.
type Isolated struct{}

var (
	_ solvers.Policy    = (*Isolated)(nil)
	_ solvers.Triggered = (*Isolated)(nil)
)

// New builds isolated; it takes no options.
func New(c solvers.Config) (solvers.Policy, error) {
	var o struct{}
	if err := c.Decode(&o); err != nil {
		return nil, fmt.Errorf("isolated: options: %w", err)
	}
	return &Isolated{}, nil
}

// Name is "static-partition" (it was "isolated", a name Gavel gives its equal split).
func (*Isolated) Name() string { return Name }

// Triggers: round starts, and arrivals and completions too, so that a user's
// slice is refilled as soon as one of its jobs arrives or ends, as a
// dedicated sub-cluster would be, instead of idling until the next round.
func (*Isolated) Triggers() models.Trigger {
	return models.AtRound | models.AtArrival | models.AtCompletion
}

// Share is the number of GPUs of type g that user u owns: w_u / Σ_v w_v · N_g,
// the sum running over every user of s (active or not).
func Share(s *models.Snapshot, u models.User, g string) float64 {
	total := 0.0
	for _, v := range s.Users {
		total += v.Weight
	}
	if total <= 0 {
		return 0
	}
	return u.Weight / total * float64(s.Cluster.Capacity(g))
}

// Allocate returns time fractions x[j][g], which the simulator's round
// mechanism realises. Users are served independently: user u's jobs, in
// arrival order, each fill their fastest types first,
//
//	x[j][g] = min(1 − Σ_h x[j][h], left_u[g] / d_j),  left_u[g] −= d_j · x[j][g],
//
// starting from left_u[g] = Share(u, g), with types tried in descending
// throughput of j (ties in s.Cluster.TypeNames() order) and skipped where j
// cannot run. So Σ_g x[j][g] ≤ 1 and Σ_{j of u} d_j·x[j][g] ≤ w_u/Σw · N_g,
// and summed over users Σ_j d_j·x[j][g] ≤ N_g. A gang larger than the slice
// gets a fraction below 1, which the round mechanism turns into time-sharing
// of the user's slice. Zero fractions are left out. A job whose user is not in
// s.Users is an error.
func (*Isolated) Allocate(s *models.Snapshot) (models.Allocation, error) {
	types := s.Cluster.TypeNames()
	slot := make(map[string]int, len(types))
	for k, g := range types {
		slot[g] = k
	}
	user := make(map[string]int, len(s.Users))
	left := make([][]float64, len(s.Users)) // user → type → GPUs still free in its slice
	full := make([]bool, len(s.Users))      // nothing left on any type
	for u := range s.Users {
		user[s.Users[u].Name] = u
		left[u] = make([]float64, len(types))
		for k, g := range types {
			left[u][k] = Share(s, s.Users[u], g)
		}
	}
	fr := map[models.JobID]map[string]float64{}
	for i := range s.Jobs {
		j := &s.Jobs[i]
		u, ok := user[j.User]
		if !ok {
			return models.Allocation{}, fmt.Errorf("isolated: job %d: unknown user %q", j.ID, j.User)
		}
		if full[u] {
			continue
		}
		need := 1.0
		for _, g := range byThroughput(s, j) {
			if need <= 0 {
				break
			}
			k := slot[g]
			x := math.Min(need, left[u][k]/float64(j.Gang))
			if x <= 0 {
				continue
			}
			if fr[j.ID] == nil {
				fr[j.ID] = map[string]float64{}
			}
			fr[j.ID][g] = x
			need -= x
			left[u][k] = math.Max(0, left[u][k]-x*float64(j.Gang))
		}
		full[u] = true
		for _, l := range left[u] {
			full[u] = full[u] && l <= 0
		}
	}
	return models.Allocation{Fractions: fr, Capped: true}, nil
}

// byThroughput lists the types that can run j, fastest first, ties in
// TypeNames order.
func byThroughput(s *models.Snapshot, j *models.JobState) []string {
	type opt struct {
		g string
		t float64
	}
	var opts []opt
	for _, g := range s.Cluster.TypeNames() {
		if t := s.Throughput(&j.Job, g); t > 0 {
			opts = append(opts, opt{g, t})
		}
	}
	sort.SliceStable(opts, func(a, b int) bool { return opts[a].t > opts[b].t })
	out := make([]string, len(opts))
	for i, o := range opts {
		out[i] = o.g
	}
	return out
}
