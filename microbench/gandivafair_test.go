package microbench

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/gandivafair"
)

// gandivaInstance is gandiva-fair's benchmark size: 1,000 users (weights 1–3),
// 5,000 active jobs (gangs 1/2/4/8 with Philly-like weights 0.7/0.1/0.15/0.05;
// gang 8 is a large job on 4-GPU servers) of 20 job types whose speedups
// differ, and 2,000 GPUs of 4 types on 4-GPU servers. Every job has run on
// every type (Received > 0), so with measured profiling all speedups are
// known and the market trades every pair.
func gandivaInstance(b *testing.B) *models.Snapshot {
	b.Helper()
	rng := rand.New(rand.NewPCG(4, 2020))
	gpus := []models.GPUType{
		{Name: "H100", MemoryGB: 80, Rank: 4}, {Name: "A100", MemoryGB: 40, Rank: 3},
		{Name: "V100", MemoryGB: 32, Rank: 2}, {Name: "K80", MemoryGB: 12, Rank: 1},
	}
	var servers []models.Server
	for _, g := range gpus {
		servers = append(servers, slices.Repeat([]models.Server{{Type: g.Name, GPUs: 4}}, 125)...)
	}
	c, err := models.NewCluster(gpus, servers)
	if err != nil {
		b.Fatal(err)
	}
	m := models.NewMatrix()
	var jobTypes []string
	for k := range 20 {
		jt := fmt.Sprintf("model-%02d", k)
		jobTypes = append(jobTypes, jt)
		base := 1 + rng.Float64()
		speed := []float64{2 + 6*rng.Float64(), 1.5 + 3*rng.Float64(), 1 + 2*rng.Float64(), 1} // H100 … K80
		for i, g := range gpus {
			for _, gang := range []int{1, 2, 4, 8} {
				for _, p := range []models.Placement{models.Consolidated, models.Spread} {
					v := base * speed[i] * float64(gang) * 0.9
					if p == models.Spread {
						v *= 0.8
					}
					if err := m.Set(models.Key{Job: jt, GPU: g.Name, Gang: gang, Placement: p}, v, "benchmark"); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
	}
	users := make([]models.User, 1000)
	for u := range users {
		users[u] = models.User{Name: fmt.Sprintf("u%04d", u), Weight: float64(1 + rng.IntN(3))}
	}
	jobs := make([]models.JobState, 5000)
	for i := range jobs {
		gang := 1
		switch x := rng.Float64(); {
		case x < 0.05:
			gang = 8
		case x < 0.20:
			gang = 4
		case x < 0.30:
			gang = 2
		}
		var rec models.Received
		for _, g := range gpus {
			rec = rec.Add(g.Name, time.Minute)
		}
		jobs[i] = models.JobState{
			Job: models.Job{ID: models.JobID(i), User: users[rng.IntN(len(users))].Name,
				Type: jobTypes[rng.IntN(len(jobTypes))], Gang: gang, Steps: 1e9},
			FirstRun: 0, Received: rec,
		}
	}
	return &models.Snapshot{Now: 3600 * time.Second, Round: 10, RoundLength: 360 * time.Second, Trigger: models.AtRound,
		Environment: models.Environment{Cluster: c, Matrix: m, JobTypes: map[string]models.JobType{}}, Users: users, Jobs: jobs}
}

// advance applies a to s as the simulator would and moves s one round on.
func advance(s *models.Snapshot, a models.Allocation) {
	run := map[models.JobID]models.Assignment{}
	for _, as := range a.Run {
		run[as.Job] = as
	}
	for i := range s.Jobs {
		j := &s.Jobs[i]
		if as, ok := run[j.ID]; ok {
			j.LastType, j.LastGPUs = as.Type, as.GPUs
		} else {
			j.LastType, j.LastGPUs = "", nil
		}
	}
	s.Now += s.RoundLength
	s.Round++
}

// BenchmarkGandivaFairDecision: one gandiva-fair decision (water-filling,
// trading over 6 type pairs, homes, load balancing, central and local stride
// schedulers, GPU assignment) at that size; the goal is under 50 ms on
// one core (GOMAXPROCS=1). "cold" is the first decision of a policy, which
// also homes all 5,000 jobs; "steady" a quantum after ten decisions.
func BenchmarkGandivaFairDecision(b *testing.B) {
	for _, name := range []string{gandivafair.Name, gandivafair.NoTradeName} {
		newPolicy := func() solvers.Policy {
			var p solvers.Policy
			var err error
			if name == gandivafair.Name {
				p, err = gandivafair.New(solvers.Config{})
			} else {
				p, err = gandivafair.NewNoTrade(solvers.Config{})
			}
			if err != nil {
				b.Fatal(err)
			}
			return p
		}
		b.Run(name+"/cold", func(b *testing.B) {
			s := gandivaInstance(b)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := newPolicy().Allocate(s); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/steady", func(b *testing.B) {
			s := gandivaInstance(b)
			p := newPolicy()
			for range 10 {
				a, err := p.Allocate(s)
				if err != nil {
					b.Fatal(err)
				}
				if err := models.Feasible(s, a); err != nil {
					b.Fatal(err)
				}
				advance(s, a)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				a, err := p.Allocate(s)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				advance(s, a)
				b.StartTimer()
			}
			if r := p.(solvers.Reporter).Report().(*gandivafair.Report); name == gandivafair.Name && r.Trades == 0 {
				b.Fatal("no trades at benchmark size")
			}
		})
	}
}
