package solvers_test

import (
	"cmp"
	"fmt"
	"slices"

	"fairbench/models"
	"fairbench/sim"
	"fairbench/solvers"
)

// smallestFirst is a minimal policy: every round it starts the waiting jobs
// smallest gang first, each on the fastest GPU type with room for its gang,
// and keeps a running job on its type while there is room (the solvers
// package's packer does the counting). It keeps no state, so one value
// serves any number of runs; a stateful policy is built fresh for each run
// by its registry entry (see Policy).
type smallestFirst struct{}

func (smallestFirst) Name() string { return "smallest-first" }

func (smallestFirst) Allocate(s *models.Snapshot) (models.Allocation, error) {
	order := make([]*models.JobState, len(s.Jobs))
	for i := range s.Jobs {
		order[i] = &s.Jobs[i]
	}
	slices.SortStableFunc(order, func(a, b *models.JobState) int { return cmp.Compare(a.Gang, b.Gang) })
	return models.Allocation{Run: solvers.Pack(s, order, solvers.StayOrFastest, false)}, nil
}

// Writing a policy: the type above, an entry in a registry (fairbench's
// own is solvers/registry, see docs/adding-a-policy.md), and a run.
//
// A 2-GPU V100 server and a 2-GPU K80 server; three jobs arrive at t=0:
// job 1 needs 2 GPUs and 7,200 steps, jobs 2 and 3 one GPU and 3,600 steps
// each. A V100 trains 2 steps/s per GPU, a K80 1. Smallest first, jobs 2
// and 3 take the two V100s and finish at 3,600 / 2 = 1,800 s; job 1 takes
// the K80s at 2 steps/s. At 1,800 s it keeps its type (it still has room
// there), so it finishes at 7,200 / 2 = 3,600 s.
func Example_policy() {
	reg := &solvers.Registry{}
	err := reg.Register(solvers.Entry{Name: "smallest-first", Summary: "smallest gang first, fastest type",
		New: func(c solvers.Config) (solvers.Policy, error) {
			return smallestFirst{}, c.Decode(&struct{}{}) // no options: any given is an error
		}})
	if err != nil {
		fmt.Println(err)
		return
	}
	cluster, _ := models.NewCluster(
		[]models.GPUType{{Name: "V100", MemoryGB: 32, Rank: 3}, {Name: "K80", MemoryGB: 12, Rank: 1}},
		[]models.Server{{Type: "V100", GPUs: 2}, {Type: "K80", GPUs: 2}})
	m := models.NewMatrix()
	for gang := 1; gang <= 2; gang++ {
		for gpu, perGPU := range map[string]float64{"V100": 2, "K80": 1} {
			_ = m.Set(models.Key{Job: "cnn", GPU: gpu, Gang: gang, Placement: models.Consolidated}, perGPU*float64(gang), "example")
		}
	}
	p, err := reg.New("smallest-first", solvers.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := sim.Run(sim.Config{Cluster: cluster, Users: []models.User{{Name: "u", Weight: 1}}, Matrix: m, Jobs: []models.Job{
		{ID: 1, User: "u", Type: "cnn", Gang: 2, Steps: 7200},
		{ID: 2, User: "u", Type: "cnn", Gang: 1, Steps: 3600},
		{ID: 3, User: "u", Type: "cnn", Gang: 1, Steps: 3600},
	}}, p)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, j := range r.Jobs {
		fmt.Printf("job %d: JCT %g s\n", j.ID, j.JCT)
	}
	_, err = reg.New("smallest-first", solvers.Config{Options: map[string]any{"speed": 2}})
	fmt.Println(err != nil)
	// Output:
	// job 1: JCT 3600 s
	// job 2: JCT 1800 s
	// job 3: JCT 1800 s
	// true
}
