//go:build cgo && !nocoin

package lp

import (
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func TestCoinDuals(t *testing.T) {
	cases := []struct {
		name  string
		p     Problem
		obj   float64
		duals []float64
	}{
		{
			// Hillier & Lieberman's Wyndor Glass: max 3x+5y s.t. x ≤ 4,
			// 2y ≤ 12, 3x+2y ≤ 18: x=2, y=6, obj 36. Shadow prices: row 1
			// is slack (0); raising 2y ≤ 12 by one moves the optimum to
			// y=6.5, x=5/3, obj 37.5 (1.5); raising 3x+2y ≤ 18 by one gives
			// x=7/3, obj 37 (1).
			name: "wyndor max",
			p: Problem{Sense: Maximize, Vars: []Var{nonneg(3), nonneg(5)},
				Rows: []Row{le(4, 1, 0), le(12, 0, 2), le(18, 3, 2)}},
			obj: 36, duals: []float64{0, 1.5, 1},
		},
		{
			// min 2x+3y s.t. x+y ≥ 4, x+3y ≥ 6: optimum x=3, y=1, obj 9.
			// Duals solve y₁+y₂ = 2, y₁+3y₂ = 3: (1.5, 0.5); check
			// 4·1.5 + 6·0.5 = 9 (strong duality).
			name: "diet min",
			p: Problem{Vars: []Var{nonneg(2), nonneg(3)},
				Rows: []Row{ge(4, 1, 1), ge(6, 1, 3)}},
			obj: 9, duals: []float64{1.5, 0.5},
		},
		{
			// min x+2y s.t. x+y = 3, x ≤ 2: x=2, y=1, obj 4. One more unit
			// of the equality costs one more y (+2); one more unit of x's
			// cap swaps a y for an x (−1).
			name: "equality min",
			p: Problem{Vars: []Var{nonneg(1), nonneg(2)},
				Rows: []Row{eq(3, 1, 1), le(2, 1, 0)}},
			obj: 4, duals: []float64{2, -1},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := Coin{}.Solve(&c.p, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(res.Objective-c.obj) > 1e-9 {
				t.Errorf("objective %v, want %v", res.Objective, c.obj)
			}
			if len(res.Duals) != len(c.duals) {
				t.Fatalf("duals %v, want %v", res.Duals, c.duals)
			}
			for i := range c.duals {
				if math.Abs(res.Duals[i]-c.duals[i]) > 1e-9 {
					t.Errorf("duals %v, want %v", res.Duals, c.duals)
					break
				}
			}
		})
	}
}

func TestPureHasNoDuals(t *testing.T) {
	p := knownCases[0].p
	res, err := Pure{}.Solve(&p, Options{})
	if err != nil || res.Duals != nil {
		t.Fatalf("duals %v, err %v; want nil, nil", res.Duals, err)
	}
}

func TestCoinBackendNamesVersions(t *testing.T) {
	b := Backend()
	if !strings.HasPrefix(b, "coin-or clp 1.") || !strings.Contains(b, " / cbc 2.") {
		t.Errorf("Backend() = %q", b)
	}
}

// TestCoinConcurrent solves LPs and MIPs from many goroutines (CLP in
// parallel, CBC behind its mutex); run it with -race.
func TestCoinConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 40 {
				kc := knownCases[(g+i)%len(knownCases)]
				res, _ := Coin{}.Solve(&kc.p, Options{})
				if res.Status != kc.status || (kc.status == Optimal && math.Abs(res.Objective-kc.obj) > 1e-7) {
					errs <- kc.name + ": " + res.Status.String()
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// rss is the resident set size of this process in bytes, from
// /proc/self/statm (Linux).
func rss(t testing.TB) int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skipf("no /proc/self/statm: %v", err)
	}
	f := strings.Fields(string(b))
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return pages * int64(os.Getpagesize())
}

// TestCoinNoLeak solves an LP and a MIP 1,000 times each and checks that the
// resident set grows by less than 50 MB: every C model must be freed. (A
// 20k-solve loop is BenchmarkLeak in microbench.)
func TestCoinNoLeak(t *testing.T) {
	lpP, mipP := knownCases[0].p, knownCases[1].p
	solve := func(n int) {
		for range n {
			if _, err := (Coin{}).Solve(&lpP, Options{}); err != nil {
				t.Fatal(err)
			}
			if _, err := (Coin{}).Solve(&mipP, Options{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	solve(100) // warm up allocators
	runtime.GC()
	before := rss(t)
	solve(1000)
	runtime.GC()
	after := rss(t)
	t.Logf("RSS %d KiB → %d KiB", before>>10, after>>10)
	if after-before > 50<<20 {
		t.Errorf("RSS grew by %d MiB over 2,000 solves", (after-before)>>20)
	}
}
