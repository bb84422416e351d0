package microbench

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"
	"time"

	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/fft"
	"fairbench/solvers/lp"
)

// FFT's scalability point (Mo et al., ICS 2025, §6: 1.53 s per round with
// cvxpy at 4,000 jobs on 1,000 GPUs of 8 types); the fast path's goal is
// under 50 ms on one core:
//
//	GOMAXPROCS=1 go test -run '^$' -bench FFT -benchtime 1x ./microbench/
//
// The catalogue has measured figures for fewer than 8 GPU types, so the
// cluster and matrix here are synthetic (fftScale): 8 GPU types G0…G7 with
// 16–80 GB of memory, 125 GPUs each (15 servers of 8 and one of 5); 20 job
// types M0…M19 with a per-type base speed, a speedup per GPU type drawn in
// [0.3, 3] (not monotonic in the type, as Gavel's measurements are not),
// spread figures at 80% of consolidated, and memory needs of 4–40 GB so
// that some types cannot hold some jobs; 4,000 active jobs with Philly's
// gang mix (1/2/4/8 at 0.7/0.1/0.15/0.05) and Philly-like durations, having
// arrived over the previous two days, with the fast path's previous
// decision running.

const (
	fftTypes   = 8
	fftPerType = 125
	fftJobs    = 4000
	fftModels  = 20
)

// fftScale builds the synthetic snapshot at one round after an initial
// decision by p0 (so that jobs run and have history).
func fftScale(b *testing.B) *models.Snapshot {
	b.Helper()
	r := rand.New(rand.NewSource(1))
	var types []models.GPUType
	var servers []models.Server
	for i := range fftTypes {
		name := fmt.Sprintf("G%d", i)
		types = append(types, models.GPUType{Name: name, MemoryGB: 16 + float64(i)*64/7, Rank: i})
		for k := 0; k < fftPerType; k += 8 {
			servers = append(servers, models.Server{Type: name, GPUs: min(8, fftPerType-k)})
		}
	}
	c, err := models.NewCluster(types, servers)
	if err != nil {
		b.Fatal(err)
	}
	m := models.NewMatrix()
	jts := map[string]models.JobType{}
	for k := range fftModels {
		name := fmt.Sprintf("M%d", k)
		jts[name] = models.JobType{Name: name, MemoryGB: 4 + 36*r.Float64(), StateGB: 0.1 + 2*r.Float64()}
		base := 1 + 9*r.Float64()
		for _, g := range types {
			sp := 0.3 + 2.7*r.Float64()
			for gang := 1; gang <= 8; gang *= 2 {
				v := base * sp * float64(gang) * 0.9
				_ = m.Set(models.Key{Job: name, GPU: g.Name, Gang: gang, Placement: models.Consolidated}, v, "synthetic")
				_ = m.Set(models.Key{Job: name, GPU: g.Name, Gang: gang, Placement: models.Spread}, 0.8*v, "synthetic")
			}
		}
	}
	now := 48 * time.Hour
	jobs := make([]models.JobState, fftJobs)
	for i := range jobs {
		gang := 1
		switch u := r.Float64(); {
		case u < 0.05:
			gang = 8
		case u < 0.2:
			gang = 4
		case u < 0.3:
			gang = 2
		}
		minutes := math.Pow(10, 1.5+1.5*r.Float64())
		if r.Float64() < 0.2 {
			minutes = math.Pow(10, 3+r.Float64())
		}
		jt := fmt.Sprintf("M%d", r.Intn(fftModels))
		jobs[i] = models.JobState{Job: models.Job{ID: models.JobID(i), User: "u", Type: jt, Gang: gang,
			Steps: minutes * 60 * 5 * float64(gang), Arrival: time.Duration(float64(now) * float64(i) / fftJobs)},
			FirstRun: -1}
	}
	s := &models.Snapshot{Now: now, RoundLength: 300 * time.Second, Environment: models.Environment{Cluster: c, Matrix: m, JobTypes: jts}, Users: []models.User{{Name: "u", Weight: 1}},
		Jobs: jobs}
	// A first decision sets who is running, then one round passes.
	p, err := fft.New(solvers.Config{})
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
	next := *s
	next.Now += s.RoundLength
	next.Round++
	next.Jobs = slices.Clone(s.Jobs)
	for _, x := range a.Run {
		j, _ := next.Job(x.Job)
		j.FirstRun, j.LastType, j.LastGPUs = s.Now, x.Type, x.GPUs
		j.Done = 0.01 * j.Steps
		j.Executed = s.RoundLength
	}
	return &next
}

// BenchmarkFFTFastScale: one fast-path decision of a policy that has seen
// the previous round (ρ updated by Eq. 5, costs, relaxation, rounding,
// placement). Alternate decisions see one job fewer, so that every decision
// re-estimates τ (an arrival or completion each round, the worst case).
func BenchmarkFFTFastScale(b *testing.B) {
	s := fftScale(b)
	fewer := *s
	fewer.Jobs = s.Jobs[:len(s.Jobs)-1]
	p, _ := fft.New(solvers.Config{})
	if _, err := p.Allocate(s); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		snap := s
		if i%2 == 0 {
			snap = &fewer
		}
		if _, err := p.Allocate(snap); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	rep := p.(solvers.Reporter).Report().(*fft.Report)
	last := rep.Series[len(rep.Series)-1]
	b.ReportMetric(last.Fill, "gpus-filled")
	b.ReportMetric(float64(rep.SplitJobs)/float64(rep.Rounds), "split/round")
	b.ReportMetric(rep.MaxBoundGap, "max-bound-gap")
}

// BenchmarkFFTExactScale: the same decision solved exactly (CBC where built
// with cgo) under a 60 s time limit; it reports whether the limit stopped it
// and the relative gap of the fast path's objective to the exact one.
func BenchmarkFFTExactScale(b *testing.B) {
	s := fftScale(b)
	for i := 0; i < b.N; i++ {
		p, _ := fft.NewExact(solvers.Config{Options: map[string]any{"time_limit_seconds": 60, "audit_every": 1}})
		if _, err := p.Allocate(s); err != nil {
			b.Fatal(err)
		}
		rep := p.(solvers.Reporter).Report().(*fft.Report)
		b.ReportMetric(float64(rep.ExactLimited+rep.ExactFailed), "limited")
		b.ReportMetric(rep.Audit.MaxGap, "fast-gap")
	}
}

// gapInstance draws a round's program with FFT-like costs: c = d·W/θ −
// ρ·θ with W spanning two decades, θ in [0.2, 1.2], ρ > 0 for a third of
// the jobs; gangs 1/2/4/8 (Philly); capacities in whole 4-GPU servers;
// one pair in six unrunnable (memory).
func gapInstance(r *rand.Rand, jobs, types int) *fft.Instance {
	in := &fft.Instance{Types: types, Cap: make([]int, types), Gang: make([]int, jobs),
		Cost: make([]float64, jobs*types), OK: make([]bool, jobs*types)}
	total := 0
	for i := range in.Cap {
		in.Cap[i] = 4 * (1 + r.Intn(max(1, jobs/(4*types))))
		total += in.Cap[i]
	}
	for j := range in.Gang {
		switch u := r.Float64(); {
		case u < 0.05:
			in.Gang[j] = 8
		case u < 0.2:
			in.Gang[j] = 4
		case u < 0.3:
			in.Gang[j] = 2
		default:
			in.Gang[j] = 1
		}
		w := math.Pow(10, 1+2*r.Float64())
		rho := 0.0
		if r.Intn(3) == 0 {
			rho = w * r.Float64()
		}
		for i := range types {
			k := j*types + i
			theta := 0.2 + r.Float64()
			in.OK[k] = r.Intn(6) != 0 && in.Gang[j] <= in.Cap[i]
			in.Cost[k] = float64(in.Gang[j])*w/theta - rho*theta
		}
	}
	return in
}

// BenchmarkFFTGap measures the fast path against the exact solve on random
// programs of several sizes (3 types), 40 each: equal-% (same objective),
// short-% (fast fills fewer GPUs than K(t)), and the mean and max of
// (fast − exact)/Σ|c| over the exact x on the others.
//
//	go test -run '^$' -bench FFTGap -benchtime 1x ./microbench/
func BenchmarkFFTGap(b *testing.B) {
	for _, n := range []int{10, 40, 150, 400} {
		b.Run(fmt.Sprintf("jobs=%d", n), func(b *testing.B) {
			for range b.N {
				r := rand.New(rand.NewSource(int64(n)))
				var equal, short, cnt int
				var sum, worst float64
				for range 40 {
					in := gapInstance(r, n, 3)
					fast := fft.SolveFast(in)
					ex, err := fft.SolveExact(in, lp.Default(), lp.Options{TimeLimit: 30 * time.Second}, -1)
					if err != nil {
						b.Fatal(err)
					}
					if fast.Fill < ex.K {
						short++
						continue
					}
					mass := 0.0
					for j, i := range ex.Type {
						if i >= 0 {
							mass += math.Abs(in.Cost[j*in.Types+i])
						}
					}
					g := math.Max(0, fast.Objective-ex.Objective) / mass
					if g < 1e-9 {
						equal++
					}
					sum += g
					worst = math.Max(worst, g)
					cnt++
				}
				b.ReportMetric(100*float64(equal)/40, "equal-%")
				b.ReportMetric(100*float64(short)/40, "short-%")
				b.ReportMetric(sum/float64(max(cnt, 1)), "mean-gap")
				b.ReportMetric(worst, "max-gap")
			}
		})
	}
}
