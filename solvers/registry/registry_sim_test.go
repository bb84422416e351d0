package registry_test

import (
	"math/rand"
	"reflect"
	"testing"
	"time"

	"fairbench/models"
	"fairbench/sim"
	"fairbench/solvers"
	"fairbench/solvers/registry"
)

// Every baseline policy of this issue runs random small workloads on a
// heterogeneous cluster to completion (the simulator checks each allocation
// with models.Feasible), and gives the same result twice.
func TestSimRandomWorkloads(t *testing.T) {
	types := []models.GPUType{{Name: "V100", MemoryGB: 32, Rank: 3}, {Name: "P100", MemoryGB: 16, Rank: 2}, {Name: "K80", MemoryGB: 12, Rank: 1}}
	c, err := models.NewCluster(types, []models.Server{
		{Type: "V100", GPUs: 4}, {Type: "P100", GPUs: 4}, {Type: "P100", GPUs: 2}, {Type: "K80", GPUs: 8},
	})
	if err != nil {
		t.Fatal(err)
	}
	m := models.NewMatrix()
	speed := map[string]map[string]float64{
		"a": {"V100": 4, "P100": 2, "K80": 1},
		"b": {"V100": 1.5, "P100": 2.5, "K80": 1},
		"c": {"V100": 3, "K80": 0.5},
	}
	for jt, by := range speed {
		for g, v := range by {
			for gang := 1; gang <= 8; gang++ {
				_ = m.Set(models.Key{Job: jt, GPU: g, Gang: gang, Placement: models.Consolidated}, v*float64(gang), "test")
				_ = m.Set(models.Key{Job: jt, GPU: g, Gang: gang, Placement: models.Spread}, 0.8*v*float64(gang), "test")
			}
		}
	}
	users := []models.User{{Name: "x", Weight: 1}, {Name: "y", Weight: 2}, {Name: "z", Weight: 1}}
	names := registry.Default().Names()
	for seed := int64(1); seed <= 5; seed++ {
		rng := rand.New(rand.NewSource(seed))
		var jobs []models.Job
		for i := 0; i < 25; i++ {
			jt := []string{"a", "b", "c"}[rng.Intn(3)]
			gang := []int{1, 1, 1, 2, 4, 8}[rng.Intn(6)]
			jobs = append(jobs, models.Job{
				ID: models.JobID(i), User: users[rng.Intn(3)].Name, Type: jt, Gang: gang,
				Steps:   float64(100 + rng.Intn(20000)),
				Arrival: time.Duration(rng.Intn(3600)) * time.Second,
			})
		}
		for _, n := range names {
			run := func() *sim.Result {
				p, err := registry.Default().New(n, solvers.Config{})
				if err != nil {
					t.Fatal(err)
				}
				r, err := sim.Run(sim.Config{Cluster: c, Users: users, Jobs: jobs, Matrix: m}, p)
				if err != nil {
					t.Fatalf("seed %d, %s: %v", seed, n, err)
				}
				return r
			}
			a, b := run(), run()
			if len(a.Jobs) != len(jobs) {
				t.Fatalf("seed %d, %s: %d of %d jobs finished", seed, n, len(a.Jobs), len(jobs))
			}
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("seed %d, %s: two runs differ", seed, n)
			}
		}
	}
}
