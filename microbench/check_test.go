package microbench

import (
	"math/rand/v2"
	"syscall"
	"testing"

	"fairbench/check"
	"fairbench/fairness"
	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/gavel"
	"fairbench/solvers/isolated"
	"fairbench/solvers/registry"
)

// Benchmarks of the checker:
//
//	go test -run '^$' -bench Check -benchmem ./microbench/
//
// The single-allocation predicates on 3 users × 3 GPU types (one job per
// user, random speeds, gangs and weights) report instances/s per predicate
// and for all of them together; the goal is ≥ 100,000 instances per second
// on one core (run with -cpu 1). The allocations are, in turn, random
// feasible time shares (most of them violate something, so the reasons are
// formatted and the Pareto LP pivots), the isolated partition's and
// gavel-las's: what the checker meets.
// BenchmarkCheckGavelLAS times the default `fairbench check --policy
// gavel-las` (every property, bound 2, 100 random cases, 2 workers); the
// goal is under 60 s on two cores.

type predicateCase struct {
	snap *models.Snapshot
	a    models.Allocation
	d    *fairness.Division
	o    *fairness.Outcome
}

func predicateCases(b *testing.B) []predicateCase {
	r := rand.New(rand.NewPCG(1, 2))
	l := check.DefaultLimits()
	l.MaxUsers, l.MaxTypes = 3, 3
	var out []predicateCase
	for len(out) < 512 {
		s := l.Random(r)
		if len(s.Users) != 3 || len(s.GPUs) != 3 {
			continue
		}
		snap, err := s.Instance().Snapshot(nil)
		if err != nil {
			b.Fatal(err)
		}
		d, err := fairness.NewDivision(snap)
		if err != nil {
			b.Fatal(err)
		}
		var a models.Allocation
		switch len(out) % 3 {
		case 1:
			if a, err = (&isolated.Isolated{}).Allocate(snap); err != nil {
				b.Fatal(err)
			}
		case 2:
			p, err := gavel.NewLAS(solvers.Config{})
			if err != nil {
				b.Fatal(err)
			}
			if a, err = p.Allocate(snap); err != nil {
				b.Fatal(err)
			}
		default:
			a = randomShares(r, snap)
		}
		if err := models.Feasible(snap, a); err != nil {
			b.Fatal(err)
		}
		o, err := fairness.OutcomeOf(snap, d, a, 2)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, predicateCase{snap, a, d, o})
	}
	return out
}

// randomShares draws time shares and scales them into the capacities.
func randomShares(r *rand.Rand, snap *models.Snapshot) models.Allocation {
	a := models.Allocation{Fractions: map[models.JobID]map[string]float64{}}
	load := map[string]float64{}
	for i := range snap.Jobs {
		j := &snap.Jobs[i]
		x := map[string]float64{}
		left := 1.0
		for _, g := range snap.Cluster.TypeNames() {
			if snap.Throughput(&j.Job, g) > 0 {
				v := left * r.Float64()
				x[g] = v
				left -= v
				load[g] += v * float64(j.Gang)
			}
		}
		a.Fractions[j.ID] = x
	}
	scale := 1.0
	for g, l := range load {
		if c := float64(snap.Cluster.Capacity(g)); l > c {
			scale = min(scale, c/l)
		}
	}
	for _, x := range a.Fractions {
		for g := range x {
			x[g] *= scale
		}
	}
	return a
}

func benchPredicate(b *testing.B, f func(c *predicateCase)) {
	cases := predicateCases(b)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := checkCPU()
	n := 0
	for b.Loop() {
		f(&cases[n%len(cases)])
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "instances/s")
	// On a shared machine wall time overstates the cost; the process's CPU
	// time (with -cpu 1, one thread does the work) does not.
	if cpu := checkCPU() - cpu0; cpu > 0 {
		b.ReportMetric(float64(n)/cpu, "instances/cpu-s")
	}
}

// checkCPU is the process's user + system CPU time.
func checkCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

var tol = fairness.Tolerance{Rel: 1e-6}

func BenchmarkCheckFeasible(b *testing.B) {
	benchPredicate(b, func(c *predicateCase) { _ = models.Feasible(c.snap, c.a) })
}

func BenchmarkCheckSharingIncentive(b *testing.B) {
	benchPredicate(b, func(c *predicateCase) { fairness.SharingIncentive(c.d, c.o, tol) })
}

func BenchmarkCheckEnvyFree(b *testing.B) {
	benchPredicate(b, func(c *predicateCase) { fairness.EnvyFree(c.d, c.o, tol) })
}

func BenchmarkCheckParetoEfficient(b *testing.B) {
	benchPredicate(b, func(c *predicateCase) {
		if _, _, err := fairness.ParetoEfficient(c.d, c.o, tol); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkCheckPredicates runs feasibility, sharing incentive,
// envy-freeness and Pareto efficiency on each instance: the cost of judging
// one decision.
func BenchmarkCheckPredicates(b *testing.B) {
	benchPredicate(b, func(c *predicateCase) {
		_ = models.Feasible(c.snap, c.a)
		fairness.SharingIncentive(c.d, c.o, tol)
		fairness.EnvyFree(c.d, c.o, tol)
		if _, _, err := fairness.ParetoEfficient(c.d, c.o, tol); err != nil {
			b.Fatal(err)
		}
	})
}

func BenchmarkCheckGavelLAS(b *testing.B) {
	reg := registry.Default()
	if _, ok := reg.Lookup(gavel.LASName); !ok {
		for _, e := range gavel.Entries() {
			if err := reg.Register(e); err != nil {
				b.Fatal(err)
			}
		}
	}
	subj, err := check.SubjectOf(reg, gavel.LASName, nil)
	if err != nil {
		b.Fatal(err)
	}
	cfg := check.DefaultConfig()
	cfg.Seed = 1
	for b.Loop() {
		if _, err := check.Run(subj, cfg); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/check")
}

// BenchmarkCheckBound3 times the exhaustive search of bound 3 (3 users ×
// 2 types × 3 GPUs per type, up to 2 jobs per user; 181,180 instances) for
// a cheap policy (isolated) on the single-allocation properties, with no
// random case: the goal is under a minute on two cores. It reports
// instances per second of wall time and per CPU-second.
func BenchmarkCheckBound3(b *testing.B) {
	subj, err := check.SubjectOf(registry.Default(), "static-partition", nil)
	if err != nil {
		b.Fatal(err)
	}
	cfg := check.Config{Seed: 1, Bound: 3, Workers: 2,
		Props: []string{check.Feasible, check.SharingIncentive, check.EnvyFree, check.ParetoEfficient, check.StrategyProof}}
	cpu0 := checkCPU()
	n := 0
	for b.Loop() {
		rep, err := check.Run(subj, cfg)
		if err != nil {
			b.Fatal(err)
		}
		n += rep.Instances
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/check")
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "instances/s")
	if cpu := checkCPU() - cpu0; cpu > 0 {
		b.ReportMetric(float64(n)/cpu, "instances/cpu-s")
	}
}
