package microbench

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/gavel"
	"fairbench/solvers/lp"
)

// Benchmarks of the Gavel policies' LPs (the family's speed goal):
//
//	GOMAXPROCS=1 go test -run '^$' -bench Gavel -benchtime 1x ./microbench/
//
// BenchmarkGavelLAS2048 is the goal itself: one gavel-las decision for
// 2,048 active jobs on 1,536 GPUs (512 each of V100, P100 and K80), the
// largest point of Gavel's LP scaling figure (Narayanan et al., OSDI
// 2020), in under 1 s on one core: the central solution (lp.Interior, the
// default) on the class-aggregated LP, and the vertex with CLP on the
// aggregated and per-job LPs. BenchmarkGavelScaling prints the scaling
// table: 32, 128, 512 and 2,048 jobs, the cluster growing with them (n/4
// GPUs of each type), for gavel-las and gavel-las-ss, the vertex with CLP
// and with the pure-Go simplex and the central solution, on the policies'
// class-aggregated LPs (the default) and on Gavel's per-job LPs
// (aggregate: false; past 1,000 variables the central solution falls back
// to CLP's vertex, and gavel-las-ss always returns a vertex).

// gavelTypes are the cluster's GPU types.
var gavelTypes = []string{"V100", "P100", "K80"}

// gavelSnapshot is n active Philly-like jobs, not yet started, on n/4 GPUs
// of each of V100, P100 and K80 (4-GPU servers), with the built-in
// catalogue's figures and co-location pairs: gangs 1, 2, 4, 8 with Gavel's
// probabilities 0.7, 0.1, 0.15, 0.05, and job types drawn uniformly from the
// catalogue's types that can run at the gang on some type of the cluster (as
// the Philly generator draws them), from a fixed seed.
func gavelSnapshot(tb testing.TB, n int) *models.Snapshot {
	tb.Helper()
	cat := models.Catalogue()
	var servers []models.Server
	for _, g := range gavelTypes {
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
			for _, g := range gavelTypes {
				if models.ThroughputOn(c, cat.Matrix, types, &j, g) > 0 {
					byGang[gang] = append(byGang[gang], t.Name)
					break
				}
			}
		}
	}
	r := rand.New(rand.NewPCG(2048, 1536))
	s := &models.Snapshot{Cluster: c, Users: []models.User{{Name: "u", Weight: 1}}, Matrix: cat.Matrix, JobTypes: types,
		RoundLength: 360 * time.Second}
	for i := 0; i < n; i++ {
		u, gang := r.Float64(), 8
		switch {
		case u < 0.7:
			gang = 1
		case u < 0.8:
			gang = 2
		case u < 0.95:
			gang = 4
		}
		names := byGang[gang]
		s.Jobs = append(s.Jobs, models.JobState{FirstRun: -1, Job: models.Job{ID: models.JobID(i), User: "u",
			Type: names[r.IntN(len(names))], Gang: gang, Steps: float64(1000 + r.IntN(1_000_000))}})
	}
	return s
}

// benchAllocate times Allocate of the named policy with opts on s.
func benchAllocate(b *testing.B, name string, opts map[string]any, s *models.Snapshot) {
	b.Helper()
	var p solvers.Policy
	for _, e := range gavel.Entries() {
		if e.Name == name {
			var err error
			if p, err = e.New(solvers.Config{Options: opts}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportAllocs()
	var a models.Allocation
	for b.Loop() {
		var err error
		if a, err = p.Allocate(s); err != nil {
			b.Fatal(err)
		}
	}
	if err := models.Feasible(s, a); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(p.(interface{ Objective() float64 }).Objective(), "objective")
	b.ReportMetric(float64(len(a.Shared)), "pairs")
}

func BenchmarkGavelLAS2048(b *testing.B) {
	if lp.Default().Name() == (lp.Pure{}).Name() {
		b.Skip("the goal is for CLP; this build has only the pure-Go backend")
	}
	s := gavelSnapshot(b, 2048)
	b.Run("central/aggregate=true", func(b *testing.B) {
		benchAllocate(b, gavel.LASName, map[string]any{"aggregate": true, "time_limit": 0}, s)
	})
	for _, agg := range []bool{true, false} {
		b.Run(fmt.Sprintf("vertex/aggregate=%v", agg), func(b *testing.B) {
			benchAllocate(b, gavel.LASName, map[string]any{"backend": "coin", "solution": "vertex", "aggregate": agg, "time_limit": 0}, s)
		})
	}
}

// gavelPureCap is the largest job count each pure-Go case runs at; beyond
// it one decision takes over a minute on one core (gavel-las per job: 178 s
// at 512 jobs; gavel-las-ss per job: 4.1 s at 128 jobs, its pair variables
// growing as n², so not tried at 512).
var gavelPureCap = map[string]int{
	"gavel-las/aggregate=true":     2048,
	"gavel-las/aggregate=false":    128,
	"gavel-las-ss/aggregate=true":  2048,
	"gavel-las-ss/aggregate=false": 128,
}

// gavelCoinCap is the same for CLP (gavel-las-ss per job at 2,048 jobs:
// no answer within 10 minutes; at 512, 3.4 s).
var gavelCoinCap = map[string]int{
	"gavel-las/aggregate=true":     2048,
	"gavel-las/aggregate=false":    2048,
	"gavel-las-ss/aggregate=true":  2048,
	"gavel-las-ss/aggregate=false": 512,
}

func BenchmarkGavelScaling(b *testing.B) {
	coin := lp.Default().Name() != (lp.Pure{}).Name()
	for _, name := range []string{gavel.LASName, gavel.SpaceSharingName} {
		for _, agg := range []bool{true, false} {
			for _, backend := range []string{"coin", "pure", "central"} {
				for _, n := range []int{32, 128, 512, 2048} {
					key := fmt.Sprintf("%s/aggregate=%v", name, agg)
					b.Run(fmt.Sprintf("%s/%s/jobs=%d", key, backend, n), func(b *testing.B) {
						switch {
						case backend == "coin" && !coin:
							b.Skip("built without CLP")
						case backend != "pure" && n > gavelCoinCap[key], backend == "pure" && n > gavelPureCap[key]:
							b.Skip("over a minute per decision at this size (see gavelPureCap, gavelCoinCap)")
						}
						opts := map[string]any{"backend": backend, "solution": "vertex", "aggregate": agg, "time_limit": 0}
						if backend == "central" {
							opts = map[string]any{"aggregate": agg, "time_limit": 0}
						}
						benchAllocate(b, name, opts, gavelSnapshot(b, n))
					})
				}
			}
		}
	}
}
