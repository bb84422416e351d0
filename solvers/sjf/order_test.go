package sjf

import (
	"math/rand/v2"
	"slices"
	"testing"

	"fairbench/models"
	"fairbench/solvers/internal/policytest"
)

// Invariant over random runs of snapshots (jobs arrive, start and leave):
// the order kept across decisions lists the waiting jobs exactly as sorting
// them afresh by Duration (sortBy) does.
func TestOrderMatchesFreshSort(t *testing.T) {
	t.Parallel()
	servers := []models.Server{{Type: "V100", GPUs: 4}, {Type: "K80", GPUs: 4}}
	types := []string{"resnet", "unit", "k80"}
	for seed := range uint64(50) {
		r := rand.New(rand.NewPCG(seed, 2))
		var o order
		o.key = Duration
		var active []models.JobState
		next := 0
		for step := range 40 {
			for range r.IntN(4) { // arrivals, some at the same time
				j := policytest.Job(next, float64(step), types[r.IntN(len(types))], 1+r.IntN(3), float64(1+r.IntN(5))*100)
				active = append(active, j)
				next++
			}
			active = slices.DeleteFunc(active, func(models.JobState) bool { return r.IntN(5) == 0 })
			for i := range active {
				if r.IntN(3) == 0 {
					active[i] = policytest.Running(active[i], "V100", 0, 1, 1)
				} else {
					active[i].LastGPUs, active[i].LastType = nil, ""
				}
			}
			s := policytest.Snap(t, policytest.Sec(float64(step)), nil, servers, active...)
			o.update(s)
			var got, want []*models.JobState
			for j := range o.waiting(s) {
				got = append(got, j)
			}
			for i := range s.Jobs {
				if !s.Jobs[i].Running() {
					want = append(want, &s.Jobs[i])
				}
			}
			sortBy(want, func(j *models.JobState) float64 { return Duration(s, j) })
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d step %d: kept order differs from a fresh sort", seed, step)
			}
		}
	}
}
