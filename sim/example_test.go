package sim_test

import (
	"fmt"
	"time"

	"fairbench/models"
	"fairbench/sim"
	"fairbench/solvers"
	"fairbench/solvers/fifo"
)

// Two jobs on one 4-GPU V100 server under FIFO (non-preemptive; it decides
// at arrivals and completions). Job 1 (alice) takes all 4 GPUs at t=0 and
// trains 36,000 steps at 10 steps/s: it finishes at 3,600 s. Job 2 (bob),
// 2 GPUs, arrives at 60 s and waits: job 1 holds every GPU and is never
// preempted. It starts when job 1 completes, at 3,600 s, and trains 9,000
// steps at 5 steps/s, so it finishes at 3,600 + 1,800 = 5,400 s: JCT
// 5,400 − 60 = 5,340 s.
func ExampleRun() {
	cluster, err := models.NewCluster([]models.GPUType{{Name: "V100", MemoryGB: 32, Rank: 3}},
		[]models.Server{{Type: "V100", GPUs: 4}})
	if err != nil {
		fmt.Println(err)
		return
	}
	m := models.NewMatrix()
	_ = m.Set(models.Key{Job: "resnet", GPU: "V100", Gang: 4, Placement: models.Consolidated}, 10, "example")
	_ = m.Set(models.Key{Job: "resnet", GPU: "V100", Gang: 2, Placement: models.Consolidated}, 5, "example")
	cfg := sim.Config{
		Cluster: cluster,
		Users:   []models.User{{Name: "alice", Weight: 1}, {Name: "bob", Weight: 1}},
		Jobs: []models.Job{
			{ID: 1, User: "alice", Type: "resnet", Gang: 4, Steps: 36000},
			{ID: 2, User: "bob", Type: "resnet", Gang: 2, Steps: 9000, Arrival: 60 * time.Second},
		},
		Matrix: m,
	}
	p, err := fifo.New(solvers.Config{}) // a fresh policy for every run
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := sim.Run(cfg, p)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, j := range r.Jobs {
		fmt.Printf("job %d (%s): first ran at %g s, finished at %g s, JCT %g s\n", j.ID, j.User, j.FirstRun, j.Finish, j.JCT)
	}
	fmt.Printf("%d jobs, makespan %g s, %d preemptions\n", r.Summary.Jobs, r.Summary.Makespan, r.Summary.Preemptions)
	// Output:
	// job 1 (alice): first ran at 0 s, finished at 3600 s, JCT 3600 s
	// job 2 (bob): first ran at 3600 s, finished at 5400 s, JCT 5340 s
	// 2 jobs, makespan 5400 s, 0 preemptions
}
