package lp

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"testing"
	"time"
)

func nonnegVars(n int, obj ...float64) []Var {
	vs := make([]Var, n)
	for j := range vs {
		vs[j] = Var{Lower: 0, Upper: inf}
		if j < len(obj) {
			vs[j].Obj = obj[j]
		}
	}
	return vs
}

// A problem with a unique optimum: max 3x + 5y s.t. x ≤ 4, 2y ≤ 12,
// 3x + 2y ≤ 18, x, y ≥ 0 → (2, 6), objective 36 (the textbook Wyndor
// problem).
func TestInteriorUniqueOptimum(t *testing.T) {
	p := &Problem{Sense: Maximize, Vars: nonnegVars(2, 3, 5), Rows: []Row{
		{Coefs: []Term{{0, 1}}, Lower: -inf, Upper: 4},
		{Coefs: []Term{{1, 2}}, Lower: -inf, Upper: 12},
		{Coefs: []Term{{0, 3}, {1, 2}}, Lower: -inf, Upper: 18},
	}}
	res, err := Interior(p, Copies{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(res.X[0]-2) > 1e-6 || math.Abs(res.X[1]-6) > 1e-6 || math.Abs(res.Objective-36) > 1e-6 {
		t.Fatalf("x = %v, objective %v, want (2, 6) and 36", res.X, res.Objective)
	}
}

// A degenerate LP: max x1 + x2 s.t. x1 + x2 ≤ 1, x ≥ 0. Every point of the
// segment is optimal; the method treats x1 and x2 alike, so it returns the
// middle, (1/2, 1/2), where a simplex method returns an end.
func TestInteriorCentral(t *testing.T) {
	p := &Problem{Sense: Maximize, Vars: nonnegVars(2, 1, 1), Rows: []Row{{Coefs: []Term{{0, 1}, {1, 1}}, Lower: -inf, Upper: 1}}}
	res, err := Interior(p, Copies{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(res.X[0]-0.5) > 1e-7 || math.Abs(res.X[1]-0.5) > 1e-7 {
		t.Fatalf("x = %v, want (1/2, 1/2)", res.X)
	}
}

func TestInteriorVerdicts(t *testing.T) {
	infeasible := &Problem{Vars: []Var{{Lower: 1, Upper: inf}}, Rows: []Row{{Coefs: []Term{{0, 1}}, Lower: -inf, Upper: 0}}}
	if _, err := Interior(infeasible, Copies{}, Options{}); !errors.Is(err, ErrInfeasible) {
		t.Errorf("infeasible: %v", err)
	}
	unbounded := &Problem{Sense: Maximize, Vars: nonnegVars(2, 1, 0), Rows: []Row{{Coefs: []Term{{0, 1}, {1, -1}}, Lower: -inf, Upper: 1}}}
	if _, err := Interior(unbounded, Copies{}, Options{}); !errors.Is(err, ErrUnbounded) {
		t.Errorf("unbounded: %v", err)
	}
	eq := &Problem{Vars: nonnegVars(1, 1), Rows: []Row{{Coefs: []Term{{0, 1}}, Lower: 1, Upper: 1}}}
	if _, err := Interior(eq, Copies{}, Options{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("equality row: %v, want ErrInvalid", err)
	}
	mip := &Problem{Vars: []Var{{Lower: 0, Upper: 1, Integer: true}}}
	if _, err := Interior(mip, Copies{}, Options{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("integer variable: %v, want ErrInvalid", err)
	}
	if _, err := Interior(eq, Copies{Vars: []float64{0}}, Options{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("zero copies: %v, want ErrInvalid", err)
	}
	// A fixed variable is substituted: max y s.t. x + y ≤ 3, x = 1 → y = 2.
	fixed := &Problem{Sense: Maximize, Vars: []Var{{Lower: 1, Upper: 1}, {Lower: 0, Upper: inf, Obj: 1}},
		Rows: []Row{{Coefs: []Term{{0, 1}, {1, 1}}, Lower: -inf, Upper: 3}}}
	res, err := Interior(fixed, Copies{}, Options{})
	if err != nil || res.X[0] != 1 || math.Abs(res.X[1]-2) > 1e-6 {
		t.Errorf("fixed variable: %v %v, want (1, 2)", res.X, err)
	}
}

// maxMin is a Gavel-like max-min LP: jobs with throughputs tput[j] on the
// types (capacities caps), gangs gang[j], shares x[j][g] ≥ 0, time rows,
// capacity rows, and max t with Σ_g c[j][g]·x[j][g] ≥ t. With copies,
// job j stands for copies[j] identical jobs.
func maxMin(tput [][]float64, gang, caps, copies []float64) (*Problem, Copies) {
	n := len(caps)
	p := &Problem{Sense: Maximize}
	var cp Copies
	for j := range tput {
		for range caps {
			p.Vars = append(p.Vars, Var{Lower: 0, Upper: inf})
			cp.Vars = append(cp.Vars, copies[j])
		}
	}
	tv := len(p.Vars)
	p.Vars = append(p.Vars, Var{Lower: -inf, Upper: inf, Obj: 1})
	cp.Vars = append(cp.Vars, 1)
	for g, c := range caps {
		r := Row{Lower: -inf, Upper: c}
		for j := range tput {
			r.Coefs = append(r.Coefs, Term{Var: j*n + g, Coef: copies[j] * gang[j]})
		}
		p.Rows = append(p.Rows, r)
		cp.Rows = append(cp.Rows, 1)
	}
	for j := range tput {
		r := Row{Lower: -inf, Upper: 1}
		m := Row{Lower: 0, Upper: inf, Coefs: []Term{{Var: tv, Coef: -1}}}
		for g := range caps {
			r.Coefs = append(r.Coefs, Term{Var: j*n + g, Coef: 1})
			if tput[j][g] > 0 {
				m.Coefs = append(m.Coefs, Term{Var: j*n + g, Coef: gang[j] * tput[j][g]})
			}
		}
		p.Rows = append(p.Rows, r, m)
		cp.Rows = append(cp.Rows, copies[j], copies[j])
	}
	return p, cp
}

// randomSingles is the max-min LP of k random jobs, one of each kind, with
// caps of k/4, k/4 and k/3 GPUs on the three types.
func randomSingles(r *rand.Rand, k int) *Problem {
	tput, gang, _ := randomMaxMin(r, k)
	ones := make([]float64, k)
	for i := range ones {
		ones[i] = 1
	}
	p, _ := maxMin(tput, gang, []float64{float64(k) / 4, float64(k) / 4, float64(k) / 3}, ones)
	return p
}

// randomMaxMin draws k distinct kinds of job (gang, throughputs) and how
// many jobs of each kind.
func randomMaxMin(r *rand.Rand, k int) (tput [][]float64, gang, count []float64) {
	for range k {
		row := make([]float64, 3)
		for g := range row {
			if r.IntN(6) > 0 {
				row[g] = 0.5 + 10*r.Float64()
			}
		}
		row[r.IntN(3)] = 1 + r.Float64()
		tput = append(tput, row)
		gang = append(gang, []float64{1, 1, 2, 4}[r.IntN(4)])
		count = append(count, float64(1+r.IntN(3)))
	}
	return tput, gang, count
}

// Aggregation and permutation do not change the answer, up to the
// iterates' accuracy (1e-5 here; see Interior): a class of k identical jobs
// written once with Copies gives every job the share each of the k jobs
// gets when they are written out, and listing the jobs in another order
// gives the same shares.
func TestInteriorCopiesAndPermutations(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	caps := []float64{4, 4, 6}
	for trial := 0; trial < 25; trial++ {
		tput, gang, count := randomMaxMin(r, 2+r.IntN(4))
		agg, cp := maxMin(tput, gang, caps, count)
		ra, err := Interior(agg, cp, Options{})
		if err != nil {
			t.Fatalf("trial %d aggregated: %v", trial, err)
		}
		// Written out, in a random order.
		var ft [][]float64
		var fg, ones []float64
		var kind []int
		for j := range tput {
			for range int(count[j]) {
				ft, fg, ones, kind = append(ft, tput[j]), append(fg, gang[j]), append(ones, 1), append(kind, j)
			}
		}
		perm := r.Perm(len(ft))
		pt, pg, pk := make([][]float64, len(ft)), make([]float64, len(ft)), make([]int, len(ft))
		for i, k := range perm {
			pt[i], pg[i], pk[i] = ft[k], fg[k], kind[k]
		}
		full, _ := maxMin(pt, pg, caps, ones)
		rf, err := Interior(full, Copies{}, Options{})
		if err != nil {
			t.Fatalf("trial %d written out: %v", trial, err)
		}
		if math.Abs(ra.Objective-rf.Objective) > 1e-7*math.Max(1, math.Abs(rf.Objective)) {
			t.Fatalf("trial %d: objective %v aggregated, %v written out", trial, ra.Objective, rf.Objective)
		}
		for i, j := range pk {
			for g := range caps {
				a, f := ra.X[j*3+g], rf.X[i*3+g]
				if math.Abs(a-f) > 1e-5 {
					t.Fatalf("trial %d: job %d (kind %d) on type %d: %v aggregated, %v written out", trial, i, j, g, a, f)
				}
			}
		}
	}
}

// On random feasible LPs the interior point reaches the simplex's optimal
// value and satisfies every row and bound.
func TestInteriorMatchesSimplexValue(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 1))
	for trial := 0; trial < 40; trial++ {
		n, m := 2+r.IntN(6), 1+r.IntN(6)
		p := &Problem{Sense: Sense(r.IntN(2))}
		for j := 0; j < n; j++ {
			v := Var{Lower: 0, Upper: inf, Obj: r.NormFloat64()}
			if r.IntN(3) == 0 {
				v.Upper = 1 + 5*r.Float64()
			}
			if p.Sense == Minimize {
				v.Obj = math.Abs(v.Obj)
			}
			p.Vars = append(p.Vars, v)
		}
		for i := 0; i < m; i++ {
			row := Row{Lower: -inf, Upper: 1 + 10*r.Float64()}
			for j := 0; j < n; j++ {
				if r.IntN(2) == 0 {
					row.Coefs = append(row.Coefs, Term{Var: j, Coef: 0.1 + r.Float64()})
				}
			}
			p.Rows = append(p.Rows, row)
		}
		want, err := Default().Solve(p, Options{})
		got, ierr := Interior(p, Copies{}, Options{})
		if err != nil {
			if errors.Is(err, ErrUnbounded) && errors.Is(ierr, ErrUnbounded) {
				continue
			}
			t.Fatalf("trial %d: simplex %v, interior %v", trial, err, ierr)
		}
		if ierr != nil {
			t.Fatalf("trial %d: interior: %v", trial, ierr)
		}
		if math.Abs(got.Objective-want.Objective) > 1e-6*math.Max(1, math.Abs(want.Objective)) {
			t.Fatalf("trial %d: objective %v, simplex %v", trial, got.Objective, want.Objective)
		}
		if err := checkFeasible(p, p.mergedRows(), got.X); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
	}
}

// ECOS's own answer to a Gavel max-min LP (testdata/ecos-maxmin.json; see
// testdata/README.md): the method returns the same point, not merely the
// same optimal value — the LP is degenerate, and its vertices are far from
// this point (0.6). Same means within 2e-5, the iterates' accuracy along the
// optimal face: two exact factorisations of the normal equations (relative
// residuals below 1e-14) end 6.9e-6 (dense) and 1.6e-5 (structured, which
// the method uses) from ECOS's point, which solves a third system, its
// regularised KKT matrix.
func TestInteriorMatchesECOS(t *testing.T) {
	b, err := os.ReadFile("testdata/ecos-maxmin.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Vars []struct {
			Lower *float64
			Obj   float64
		}
		Rows []struct {
			Lower, Upper *float64
			Terms        [][2]float64
		}
		X []float64 `json:"ecos_x"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	p := &Problem{Sense: Maximize}
	for _, v := range f.Vars {
		lo := math.Inf(-1)
		if v.Lower != nil {
			lo = *v.Lower
		}
		p.Vars = append(p.Vars, Var{Lower: lo, Upper: inf, Obj: v.Obj})
	}
	for _, r := range f.Rows {
		row := Row{Lower: math.Inf(-1), Upper: inf}
		if r.Lower != nil {
			row.Lower = *r.Lower
		}
		if r.Upper != nil {
			row.Upper = *r.Upper
		}
		for _, t := range r.Terms {
			row.Coefs = append(row.Coefs, Term{Var: int(t[0]), Coef: t[1]})
		}
		p.Rows = append(p.Rows, row)
	}
	res, err := Interior(p, Copies{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for j := range res.X {
		worst = math.Max(worst, math.Abs(res.X[j]-f.X[j]))
	}
	if worst > 2e-5 {
		t.Errorf("largest difference from ECOS's point %g", worst)
	}
	vertex, err := Default().Solve(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	far := 0.0
	for j := range vertex.X {
		far = math.Max(far, math.Abs(vertex.X[j]-f.X[j]))
	}
	t.Logf("interior vs ECOS: %.2g; simplex vertex vs ECOS: %.2g", worst, far)
	if far < 1e-3 {
		t.Errorf("the simplex vertex is %g from ECOS's point: the fixture does not tell the methods apart", far)
	}
}

// The structured factorisation of the normal equations (normal.go) gives the
// dense one's answer on max-min LPs large enough to use it (40 to 100 jobs,
// 121 to 301 variables), up to the iterates' accuracy along the optimal face
// (1e-4 here; see Interior), and the layout it finds is the one intended: a
// block per job, the level t on the border, the capacity rows wide.
func TestInteriorArrowMatchesDense(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 8))
	for trial := 0; trial < 4; trial++ {
		k := 40 + 20*trial
		p := randomSingles(r, k)
		solve := func(dense bool) []float64 {
			q, err := newIPMProblem(p, Copies{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			q.dense = dense
			st, x, err := q.solve(time.Time{}, nil)
			if st != Optimal {
				t.Fatalf("trial %d dense %v: %v %v", trial, dense, st, err)
			}
			return x
		}
		q, _ := newIPMProblem(p, Copies{}, nil)
		l := newArrowLayout(q)
		if l == nil || len(l.blocks) != k || len(l.border) != 1 || len(l.wide) != 3 {
			t.Fatalf("trial %d: layout %+v, want %d blocks, 1 border variable, 3 wide rows", trial, l, k)
		}
		a, d := solve(false), solve(true)
		for j := range a {
			if math.Abs(a[j]-d[j]) > 1e-4 {
				t.Fatalf("trial %d: variable %d: %v structured, %v dense", trial, j, a[j], d[j])
			}
		}
	}
}

// Memory kept between solves (Options.Work) changes no answer: a sequence of
// max-min LPs of many sizes (dense and structured factorisations, with and
// without aggregation, a few with a capacity row fewer), solved with one
// Work and each without, gives the same answers bit for bit.
func TestInteriorWorkChangesNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 4))
	w := &Work{}
	for trial := 0; trial < 30; trial++ {
		k := 2 + r.IntN(60)
		tput, gang, count := randomMaxMin(r, k)
		caps := []float64{float64(k) / 4, float64(k) / 4, float64(k) / 3}
		if trial%5 == 4 {
			caps = caps[:2]
			for j := range tput {
				tput[j] = tput[j][:2]
			}
		}
		if trial%2 == 0 { // written out: one job a kind
			for j := range count {
				count[j] = 1
			}
		}
		p, cp := maxMin(tput, gang, caps, count)
		want, err := Interior(p, cp, Options{})
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		got, err := Interior(p, cp, Options{Work: w})
		if err != nil {
			t.Fatalf("trial %d with Work: %v", trial, err)
		}
		for j := range want.X {
			if math.Float64bits(got.X[j]) != math.Float64bits(want.X[j]) {
				t.Fatalf("trial %d (%d jobs): variable %d: %v with Work, %v without", trial, k, j, got.X[j], want.X[j])
			}
		}
	}
}

// The structured factorisation carries random max-min LPs of 30 to 90
// jobs to their optimum without being given up for the dense one
// (normalSolve): the level t's Schur complement, formed as F − EᵀB⁻¹E, was
// a difference of nearly equal terms where the max-min rows are tight, and
// lost all its digits on some of them.
func TestArrowKeptToTheOptimum(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 2))
	w := &Work{}
	given := 0
	for trial := 0; trial < 40; trial++ {
		k := 30 + r.IntN(60)
		tput, gang, count := randomMaxMin(r, k)
		c := float64(k) / 5
		p, cp := maxMin(tput, gang, []float64{c, c, c}, count)
		if _, err := Interior(p, cp, Options{Work: w}); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if w.kkt.layout == nil {
			given++
		}
	}
	if given > 0 {
		t.Errorf("the structured factorisation was given up on %d of 40 LPs", given)
	}
}

// The guard on a claimed optimum: x ≥ 0, x + y ≤ 1. (0.5, 0.5) lies on the
// row (activity 1); (0.6, 0.6) exceeds it by 0.2, far above 1e-6·(1 + 1 +
// 1.2); y = −0.1 breaks y's bound by 0.1 > 1e-6·(1 + 0).
func TestInteriorInfeasibilityGuard(t *testing.T) {
	p := &Problem{Sense: Maximize, Vars: nonnegVars(2, 1, 1), Rows: []Row{{Name: "cap", Coefs: []Term{{0, 1}, {1, 1}}, Lower: -inf, Upper: 1}}}
	if v := infeasibility(p, []float64{0.5, 0.5}); v != "" {
		t.Errorf("(0.5, 0.5): %s", v)
	}
	if v := infeasibility(p, []float64{0.5, 0.5 + 1e-7}); v != "" {
		t.Errorf("(0.5, 0.5+1e-7), within the tolerance: %s", v)
	}
	if v := infeasibility(p, []float64{0.6, 0.6}); v == "" {
		t.Error("(0.6, 0.6) passes")
	}
	if v := infeasibility(p, []float64{0.5, -0.1}); v == "" {
		t.Error("(0.5, -0.1) passes")
	}
	if v := infeasibility(p, []float64{math.NaN(), 0}); v == "" {
		t.Error("NaN passes")
	}
}

// When the structured factorisation answers wrongly (here its blocks'
// inverses are spoilt, as a Sherman–Morrison–Woodbury cancellation spoils
// its answers on some LPs), normalSolve notices the residual, factors the
// matrix densely and still solves the system; the solve then stays dense.
func TestInteriorArrowFallsBackToDense(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	tput, gang, _ := randomMaxMin(r, 40)
	ones := make([]float64, 40)
	for i := range ones {
		ones[i] = 1
	}
	p, _ := maxMin(tput, gang, []float64{10, 10, 13}, ones)
	q, err := newIPMProblem(p, Copies{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	q.equilibrate()
	k, err := q.start(nil)
	if err != nil {
		t.Fatal(err)
	}
	if k.layout == nil {
		t.Fatal("the test LP does not use the structured factorisation")
	}
	d2 := make([]float64, len(q.rows))
	for i := range d2 {
		d2[i] = 1 + float64(i%7)
	}
	if err := k.factor(q, d2); err != nil {
		t.Fatal(err)
	}
	for i := range k.arrow.inv {
		k.arrow.inv[i] *= 3
	}
	rhs := make([]float64, len(q.c))
	for j := range rhs {
		rhs[j] = r.NormFloat64()
	}
	x := k.normalSolve(q, rhs, make([]float64, len(q.c)))
	if k.layout != nil || k.fact != normalFactor(k.dense) {
		t.Fatal("normalSolve kept the spoilt factorisation")
	}
	// N·x = GᵀΩD⁻²G·x must give rhs back.
	gx := q.g(x)
	for i := range gx {
		gx[i] /= d2[i]
	}
	for j, v := range q.gtOmega(gx) {
		if math.Abs(v-rhs[j]) > 1e-9*(1+math.Abs(rhs[j])) {
			t.Fatalf("entry %d: N·x = %v, rhs %v", j, v, rhs[j])
		}
	}
}
