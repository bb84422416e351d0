//go:build cgo && !nocoin

package lp

import (
	"bufio"
	"errors"
	"math"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// readLPText reads the plain format of testdata/clp-secondary-status-2.txt:
// "sense N", then "var LOWER UPPER OBJ" lines, then "row LOWER UPPER
// VAR:COEF..." lines (see testdata/README.md).
func readLPText(t *testing.T, path string) *Problem {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return v
	}
	p := &Problem{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		switch fs[0] {
		case "sense":
			p.Sense = Sense(num(fs[1]))
		case "var":
			p.Vars = append(p.Vars, Var{Lower: num(fs[1]), Upper: num(fs[2]), Obj: num(fs[3])})
		case "row":
			r := Row{Lower: num(fs[1]), Upper: num(fs[2])}
			for _, term := range fs[3:] {
				v, c, _ := strings.Cut(term, ":")
				r.Coefs = append(r.Coefs, Term{Var: int(num(v)), Coef: num(c)})
			}
			p.Rows = append(p.Rows, r)
		}
	}
	return p
}

// The LP that stopped BenchmarkSimulatePolicies/gavel-ftf at round 458
// (2,000 Philly-like jobs at 1.5 jobs/h on the default cluster, before the
// round mechanism changed): a gavel-ftf bisection LP on which CLP's default
// method ends "optimal with secondary status 2" (the scaled problem optimal,
// the unscaled one not). Coin recovers (the unscaled primal simplex from
// that run's basis, repairCLP, which settles it) and returns the optimum
// that CLP without scaling from scratch and the pure-Go backend find.
func TestCLPSecondaryStatus(t *testing.T) {
	p := readLPText(t, "testdata/clp-secondary-status-2.txt")
	a, ok := newCoinArrays(p, &coinWork{})
	if !ok {
		t.Fatal("infeasible empty row")
	}
	r := runCLP(p, a, time.Time{}, clpAttempts[0])
	if r.status != clpOptimal || r.secondary != 2 {
		t.Fatalf("CLP's default method: status %d, secondary %d; the fixture no longer shows the hiccup", r.status, r.secondary)
	}
	fixed := repairCLP(p, a, time.Time{}, r)
	unscaled := runCLP(p, a, time.Time{}, clpAttempt{noScale: true})
	if !fixed.settled() || !unscaled.settled() {
		t.Fatalf("repaired: status %d (%v); unscaled from scratch: status %d (%v); want both settled",
			fixed.status, fixed.err, unscaled.status, unscaled.err)
	}
	if f, u := p.objectiveOf(fixed.x), p.objectiveOf(unscaled.x); math.Abs(f-u) > 1e-9*math.Max(1, math.Abs(u)) {
		t.Errorf("repaired objective %v, unscaled from scratch %v", f, u)
	}
	got, err := Coin{}.Solve(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := Pure{}.Solve(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got.Objective-want.Objective) > 1e-6*math.Max(1, math.Abs(want.Objective)) {
		t.Errorf("objective %v, pure-Go %v", got.Objective, want.Objective)
	}
	if err := checkFeasible(p, p.mergedRows(), got.X); err != nil {
		t.Error(err)
	}
}

// Coefficients beyond CLP's range never reach it: CLP aborts the process on
// an objective coefficient of 1e25 or more, fails on row coefficients of
// 1e26 and takes bounds of 1e26 for infinity. Objectives and rows are scaled
// by powers of two (same optimum, same duals); finite bounds beyond the range
// are refused, naming the variable or row.
//
//	max 3e26·x + 1e26·y s.t. x + y ≤ 2, x ≤ 1: x = 1, y = 1, objective 4e26;
//	  one more unit of the cap row is worth 1e26 (its dual, y's objective).
//	max x + y s.t. 1e26·x + y ≤ 2e26, x ≤ 1, y ≤ 5: x = 1, y = 5.
func TestCoinRange(t *testing.T) {
	p := &Problem{Sense: Maximize, Vars: []Var{{Lower: 0, Upper: 1, Obj: 3e26}, {Lower: 0, Upper: math.Inf(1), Obj: 1e26}},
		Rows: []Row{{Name: "cap", Coefs: []Term{{0, 1}, {1, 1}}, Lower: math.Inf(-1), Upper: 2}}}
	res, err := Coin{}.Solve(p, Options{})
	if err != nil || res.X[0] != 1 || math.Abs(res.X[1]-1) > 1e-9 || math.Abs(res.Objective/4e26-1) > 1e-12 {
		t.Errorf("objective 3e26: %v %v (objective %v), want (1, 1) and 4e26", res.X, err, res.Objective)
	}
	if res.Duals == nil || math.Abs(res.Duals[0]/1e26-1) > 1e-9 {
		t.Errorf("objective 3e26: duals %v, want 1e26 for the cap row", res.Duals)
	}
	q := &Problem{Sense: Maximize, Vars: []Var{{Lower: 0, Upper: 1, Obj: 1}, {Lower: 0, Upper: 5, Obj: 1}},
		Rows: []Row{{Name: "big", Coefs: []Term{{0, 1e26}, {1, 1}}, Lower: math.Inf(-1), Upper: 2e26}}}
	res, err = Coin{}.Solve(q, Options{})
	if err != nil || math.Abs(res.X[0]-1) > 1e-9 || math.Abs(res.X[1]-5) > 1e-9 {
		t.Errorf("row coefficient 1e26: %v %v, want (1, 5)", res.X, err)
	}
	for _, bad := range []*Problem{
		{Vars: []Var{{Name: "x", Lower: 0, Upper: 1e26}}},
		{Vars: []Var{{Lower: 0, Upper: 1}}, Rows: []Row{{Name: "r", Coefs: []Term{{0, 1}}, Lower: -1e26, Upper: 1}}},
	} {
		_, err := Coin{}.Solve(bad, Options{})
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "1e+26") {
			t.Errorf("bound 1e26: %v, want ErrInvalid naming the value", err)
		}
	}
}

// CLP leaves SIGINT to Go: while LPs are solved on every core, each Ctrl-C
// sent to the process reaches signal.Notify, and no solve is cut short (CLP's
// own handler, which the default method installed and parallel solves could
// leave behind, stopped the solve underway and hid the signal from Go: a
// run then failed with a false "time limit reached").
func TestCLPLeavesSIGINTToGo(t *testing.T) {
	p := readLPText(t, "testdata/clp-secondary-status-2.txt")
	p.Rows = p.Rows[:len(p.Rows)-1] // an LP CLP settles at once, solved again and again
	sig := make(chan os.Signal, 100)
	signal.Notify(sig, syscall.SIGINT)
	defer signal.Stop(sig)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []error
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := (Coin{}).Solve(p, Options{}); err != nil && !errors.Is(err, ErrInfeasible) && !errors.Is(err, ErrUnbounded) {
					mu.Lock()
					failures = append(failures, err)
					mu.Unlock()
				}
			}
		}()
	}
	const sent = 20
	got := 0
	for range sent {
		time.Sleep(30 * time.Millisecond)
		if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		select {
		case <-sig:
			got++
		case <-time.After(2 * time.Second):
		}
	}
	close(stop)
	wg.Wait()
	if got != sent {
		t.Errorf("signal.Notify saw %d of %d SIGINTs", got, sent)
	}
	for _, err := range failures {
		if errors.Is(err, ErrLimit) {
			t.Fatalf("a solve was cut short: %v", err)
		}
	}
}
