package microbench

import (
	"math/rand/v2"
	"testing"
	"time"

	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/sjfbsbf"
)

// sjfbsbfSnapshot is one busy decision at SJF-BSBF's benchmark size: 1,024 GPUs (128
// servers of 8: 43 V100, 43 P100, 42 K80), the built-in catalogue (Gavel's
// figures and measured pairs), every GPU busy with Philly-like gangs
// (1/2/4/8 at 0.7/0.1/0.15/0.05) — about 540 running jobs, of which gang-1
// jobs share a GPU in pairs where the catalogue allows it (about 100 pairs) —
// and 2,000 pending jobs of random Gavel types and gangs. The pending jobs
// find no idle GPU, so each goes through the pairwise test against the lone
// running jobs: the decision's worst case.
func sjfbsbfSnapshot(b *testing.B) *models.Snapshot {
	b.Helper()
	cat := models.Catalogue()
	types := []string{}
	jt := map[string]models.JobType{}
	for _, t := range cat.JobTypes {
		jt[t.Name] = t
	}
	var servers []models.Server
	for i := 0; i < 128; i++ {
		servers = append(servers, models.Server{Type: []string{"V100", "P100", "K80"}[i*3/128], GPUs: 8})
	}
	c, err := models.NewCluster(cat.GPUTypes, servers)
	if err != nil {
		b.Fatal(err)
	}
	for _, t := range cat.Matrix.JobTypes() {
		if cat.Matrix.Runnable(models.Key{Job: t, GPU: "K80", Gang: 1}) && len(t) < 40 { // Gavel's types
			types = append(types, t)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	gang := func() int { return []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 4, 4, 4, 8}[rng.IntN(20)] }
	runnable := func(j *models.Job, gpu string) bool { return models.ThroughputOn(c, cat.Matrix, jt, j, gpu) > 0 }
	s := &models.Snapshot{Now: 100 * time.Hour, Cluster: c, Users: []models.User{{Name: "u", Weight: 1}},
		Matrix: cat.Matrix, JobTypes: jt, RoundLength: 360 * time.Second, Trigger: models.AtArrival}
	id := 0
	newJob := func(g int) models.JobState {
		for {
			j := models.JobState{Job: models.Job{ID: models.JobID(id), User: "u", Type: types[rng.IntN(len(types))], Gang: g,
				Steps: 60 * 10 * float64(1+rng.IntN(10000)), Arrival: time.Duration(id) * time.Second}, FirstRun: -1}
			if runnable(&j.Job, "K80") && runnable(&j.Job, "V100") && runnable(&j.Job, "P100") {
				id++
				return j
			}
		}
	}
	// Fill every server with running gangs.
	for srv := range servers {
		first, free := c.FirstGPU(srv), 8
		var lone []int // indices into s.Jobs of gang-1 jobs alone on their GPU
		for free > 0 {
			g := gang()
			for g > free {
				g /= 2 // measured gangs are powers of two
			}
			j := newJob(g)
			j.FirstRun, j.Done = time.Hour, j.Steps*rng.Float64()
			j.LastType = servers[srv].Type
			for k := 0; k < g; k++ {
				j.LastGPUs = append(j.LastGPUs, first+8-free+k)
			}
			free -= g
			s.Jobs = append(s.Jobs, j)
			if g == 1 {
				lone = append(lone, len(s.Jobs)-1)
			}
		}
		// A third of the lone gang-1 jobs get a partner where the pair is allowed.
		for _, i := range lone {
			if rng.IntN(3) != 0 {
				continue
			}
			p := newJob(1)
			p.FirstRun, p.Done = time.Hour, p.Steps*rng.Float64()
			p.LastType, p.LastGPUs = s.Jobs[i].LastType, s.Jobs[i].LastGPUs
			k := models.PairKey{Key: models.Key{Job: p.Type, GPU: p.LastType, Gang: 1}, Other: s.Jobs[i].Type}
			if v, ok := cat.Matrix.Pair(k); ok && v[0] > 0 {
				s.Jobs = append(s.Jobs, p)
			}
		}
	}
	for i := 0; i < 2000; i++ {
		s.Jobs = append(s.Jobs, newJob(gang()))
	}
	// Snapshot jobs are in arrival (= ID) order.
	slicesSortByID(s.Jobs)
	return s
}

func slicesSortByID(js []models.JobState) {
	// IDs were handed out in order except for partners appended after a
	// server's jobs; a stable insertion sort keeps it simple.
	for i := 1; i < len(js); i++ {
		for k := i; k > 0 && js[k].ID < js[k-1].ID; k-- {
			js[k], js[k-1] = js[k-1], js[k]
		}
	}
}

// BenchmarkSJFBSBFDecision: one scheduling decision with 2,000 pending jobs
// on 1,024 GPUs (goal: under 20 ms on one core:
// GOMAXPROCS=1 go test -run '^$' -bench SJFBSBF ./microbench/).
func BenchmarkSJFBSBFDecision(b *testing.B) {
	for _, f := range []struct {
		name string
		new  solvers.Factory
	}{
		{sjfbsbf.Name, sjfbsbf.New}, {sjfbsbf.ConsolidatedName, sjfbsbf.NewConsolidated},
		{sjfbsbf.FFSName, sjfbsbf.NewFFS}, {sjfbsbf.FFSConsolidatedName, sjfbsbf.NewFFSConsolidated},
	} {
		b.Run(f.name, func(b *testing.B) {
			s := sjfbsbfSnapshot(b)
			p, err := f.new(solvers.Config{})
			if err != nil {
				b.Fatal(err)
			}
			a, err := p.Allocate(s)
			if err != nil {
				b.Fatal(err)
			}
			if err := models.Feasible(s, a); err != nil {
				b.Fatal(err)
			}
			running := len(s.Jobs) - 2000
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := p.Allocate(s); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(running), "running")
			b.ReportMetric(float64(len(a.Run)-running), "started")
		})
	}
}
