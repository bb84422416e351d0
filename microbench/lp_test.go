package microbench

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"fairbench/solvers/lp"
)

// Benchmarks of the LP/MIP backends on Gavel-shaped problems:
//
//	go test -bench 'LP|MIP' -benchmem ./microbench/
//
// and the leak check, 20,000 solves of one problem with the resident set's
// growth reported as rss-MiB:
//
//	go test -run '^$' -bench LPLeak -benchtime 20000x ./microbench/

// gavelLP is Gavel's max-throughput LP (Narayanan et al., OSDI 2020) for
// jobs × types: maximise Σ_j Σ_g T[j][g]·x[j][g] subject to Σ_g x[j][g] ≤ 1
// per job, Σ_j d_j·x[j][g] ≤ N_g per type, 0 ≤ x ≤ 1. With integer, x is
// binary (one type per job per round, FFT-style).
func gavelLP(jobs, types int, integer bool, seed int64) *lp.Problem {
	r := rand.New(rand.NewSource(seed))
	p := &lp.Problem{Sense: lp.Maximize}
	caps := make([]lp.Row, types)
	for g := range caps {
		caps[g] = lp.Row{Name: fmt.Sprintf("cap%d", g), Lower: math.Inf(-1), Upper: float64(4 + r.Intn(2*jobs/types+1))}
	}
	for j := range jobs {
		gang := float64(int(1) << r.Intn(3))
		row := lp.Row{Name: fmt.Sprintf("job%d", j), Lower: math.Inf(-1), Upper: 1}
		for g := range types {
			k := len(p.Vars)
			p.Vars = append(p.Vars, lp.Var{
				Name: fmt.Sprintf("x%d_%d", j, g), Upper: 1, Integer: integer,
				Obj: (1 + float64(g)) * (0.5 + r.Float64()),
			})
			row.Coefs = append(row.Coefs, lp.Term{Var: k, Coef: 1})
			caps[g].Coefs = append(caps[g].Coefs, lp.Term{Var: k, Coef: gang})
		}
		p.Rows = append(p.Rows, row)
	}
	p.Rows = append(p.Rows, caps...)
	return p
}

func benchSolve(b *testing.B, s lp.Solver, p *lp.Problem) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Solve(p, lp.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLPDefault(b *testing.B) {
	for _, n := range []int{20, 100, 400} {
		b.Run(fmt.Sprintf("jobs=%d", n), func(b *testing.B) {
			benchSolve(b, lp.Default(), gavelLP(n, 3, false, 1))
		})
	}
}

func BenchmarkLPPure(b *testing.B) {
	for _, n := range []int{20, 100} {
		b.Run(fmt.Sprintf("jobs=%d", n), func(b *testing.B) {
			benchSolve(b, lp.Pure{}, gavelLP(n, 3, false, 1))
		})
	}
}

func BenchmarkMIPDefault(b *testing.B) {
	for _, n := range []int{10, 40} {
		b.Run(fmt.Sprintf("jobs=%d", n), func(b *testing.B) {
			benchSolve(b, lp.Default(), gavelLP(n, 3, true, 1))
		})
	}
}

func BenchmarkMIPPure(b *testing.B) {
	b.Run("jobs=10", func(b *testing.B) {
		benchSolve(b, lp.Pure{}, gavelLP(10, 3, true, 1))
	})
}

// rssBytes is the process's resident set size from /proc/self/statm, or -1
// where that file does not exist.
func rssBytes() int64 {
	buf, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(buf))
	if len(f) < 2 {
		return -1
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return -1
	}
	return pages * int64(os.Getpagesize())
}

// BenchmarkLPLeak solves one LP and one MIP with the default backend b.N
// times each, after 200 warm-up solves (the C allocator's arenas and CBC's
// static tables grow once, by about 10 MiB), and reports how much the
// resident set grew (rss-MiB): with every C model freed it stays flat
// whatever b.N. Run with -benchtime 20000x.
func BenchmarkLPLeak(b *testing.B) {
	lpP, mipP := gavelLP(20, 3, false, 2), gavelLP(8, 3, true, 2)
	s := lp.Default()
	solve := func() {
		if _, err := s.Solve(lpP, lp.Options{}); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Solve(mipP, lp.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	for range 100 {
		solve()
	}
	b.ReportAllocs()
	runtime.GC()
	before := rssBytes()
	for b.Loop() {
		solve()
	}
	runtime.GC()
	if before >= 0 {
		b.ReportMetric(float64(rssBytes()-before)/(1<<20), "rss-MiB")
	}
}
