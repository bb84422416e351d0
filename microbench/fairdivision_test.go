package microbench

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/registry"
)

// Benchmarks of the fair-division policies of issue 21 (nash, nash-pa,
// ceei, gavel-strategy-proof, themis): one decision for 2,048 active jobs
// on 1,536 GPUs (512 each of V100, P100 and K80), the size of Gavel's LP
// scaling figure, with the jobs spread round-robin over 16 users of weights
// 1–4:
//
//	GOMAXPROCS=1 go test -run '^$' -bench FairDivision -benchtime 1x ./microbench/
//
// Each reports the policy's own statistics where it has them (LP solves of
// the cutting-plane loops, whether every market solve was exact).

// divisionSnapshot is n Philly-like jobs (gangs 1, 2, 4, 8 with Gavel's
// probabilities, job types of the built-in catalogue that run at the gang
// somewhere), not yet started, on n/4 GPUs of each type in 4-GPU servers,
// owned by 16 users, from a fixed seed.
func divisionSnapshot(tb testing.TB, n int) *models.Snapshot {
	tb.Helper()
	cat := models.Catalogue()
	kinds := []string{"V100", "P100", "K80"}
	var servers []models.Server
	for _, g := range kinds {
		for k := 0; k < n/16; k++ {
			servers = append(servers, models.Server{Type: g, GPUs: 4})
		}
	}
	c, err := models.NewCluster(cat.GPUTypes, servers)
	if err != nil {
		tb.Fatal(err)
	}
	types := map[string]models.JobType{}
	for _, t := range cat.JobTypes {
		types[t.Name] = t
	}
	byGang := map[int][]string{}
	for _, gang := range []int{1, 2, 4, 8} {
		for _, t := range cat.JobTypes {
			j := models.Job{Type: t.Name, Gang: gang}
			for _, g := range kinds {
				if models.ThroughputOn(c, cat.Matrix, types, &j, g) > 0 {
					byGang[gang] = append(byGang[gang], t.Name)
					break
				}
			}
		}
	}
	s := &models.Snapshot{Cluster: c, Matrix: cat.Matrix, JobTypes: types, RoundLength: 360 * time.Second, Trigger: models.AtRound}
	for u := 0; u < 16; u++ {
		s.Users = append(s.Users, models.User{Name: fmt.Sprintf("u%02d", u), Weight: float64(1 + u%4)})
	}
	r := rand.New(rand.NewPCG(2048, 21))
	for i := 0; i < n; i++ {
		x, gang := r.Float64(), 8
		switch {
		case x < 0.7:
			gang = 1
		case x < 0.8:
			gang = 2
		case x < 0.95:
			gang = 4
		}
		names := byGang[gang]
		s.Jobs = append(s.Jobs, models.JobState{FirstRun: -1, Job: models.Job{ID: models.JobID(i), User: s.Users[i%16].Name,
			Type: names[r.IntN(len(names))], Gang: gang, Steps: float64(1000 + r.IntN(1_000_000))}})
	}
	return s
}

func BenchmarkFairDivision2048(b *testing.B) {
	s := divisionSnapshot(b, 2048)
	for _, name := range []string{"nash", "nash-pa", "ceei", "gavel-strategy-proof", "themis"} {
		b.Run(name, func(b *testing.B) {
			var p solvers.Policy
			var a models.Allocation
			for b.Loop() {
				var err error
				// A fresh policy per decision: themis keeps leases.
				if p, err = registry.Default().New(name, solvers.Config{Options: map[string]any{"time_limit": 0}}); err != nil {
					b.Fatal(err)
				}
				if a, err = p.Allocate(s); err != nil {
					b.Fatal(err)
				}
			}
			if err := models.Feasible(s, a); err != nil {
				b.Fatal(err)
			}
			if r, ok := p.(solvers.Reporter); ok {
				b.Logf("%s: %+v", name, r.Report())
			}
		})
	}
}
