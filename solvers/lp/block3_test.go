package lp

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The written-out 3×3 paths (a Gavel class on three GPU types makes every
// block of its LPs 3×3) are the loops' operations in the loops' order: on
// random positive definite blocks, some nearly singular and some with zero
// couplings (±0 entries), the factor, the inverse and the strided solve
// equal the loops' to the last bit, and chol3 refuses what cholLoop
// refuses (arrowSolve1of3 has its own test below).
func TestBlock3MatchesLoopsBitwise(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(50, 3))
	refused := 0
	for trial := range 2000 {
		// A = GᵀG + ridge over a random 3-column G; every fifth has a zero
		// column pair (no coupling), every seventh is nearly singular, every
		// eleventh indefinite.
		var g [4][3]float64
		for i := range g {
			for j := range g[i] {
				g[i][j] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(7)-3))
			}
		}
		a := make([]float64, 9)
		for i := range 3 {
			for j := i; j < 3; j++ {
				for r := range g {
					a[i*3+j] += g[r][i] * g[r][j]
				}
			}
		}
		switch {
		case trial%5 == 0:
			a[1], a[2] = 0, math.Copysign(0, -1)
		case trial%7 == 0:
			a[8] = a[2]*a[2]/a[0] + 1e-14*a[8]
		case trial%11 == 0:
			a[4] = -a[4]
		}
		want, got := slices.Clone(a), slices.Clone(a)
		okWant, okGot := cholLoop(want, 3), chol3(got)
		if okWant != okGot {
			t.Fatalf("trial %d: chol3 says %v, cholLoop %v", trial, okGot, okWant)
		}
		if !okWant {
			refused++
			continue
		}
		sameBits(t, trial, "factor", got, want)

		inv := make([]float64, 9)
		for i := range 3 {
			inv[i*3+i] = 1
			solveUnitStrided(want, 3, inv[i:], 3, i)
		}
		inv3 := make([]float64, 9)
		inverse3(got, inv3)
		sameBits(t, trial, "inverse", inv3, inv)

		inc := 1 + trial%3
		x := make([]float64, 3*inc)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		xl, x3 := slices.Clone(x), slices.Clone(x)
		solveLoopStrided(want, 3, xl, inc)
		solve3Strided(got, x3, inc)
		sameBits(t, trial, "solve", x3, xl)

	}
	if refused == 0 || refused == 2000 {
		t.Errorf("%d of 2000 blocks refused: both verdicts must occur", refused)
	}
}

func sameBits(t *testing.T, trial int, what string, got, want []float64) {
	t.Helper()
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("trial %d, %s entry %d: %v (bits %x), loops give %v (bits %x)",
				trial, what, i, got[i], math.Float64bits(got[i]), want[i], math.Float64bits(want[i]))
		}
	}
}

// oddValues draws values for the bitwise tests: zeros of both signs and
// magnitudes far apart.
func oddValues(rng *rand.Rand) func() float64 {
	return func() float64 {
		switch rng.IntN(8) {
		case 0:
			return 0
		case 1:
			return math.Copysign(0, -1)
		}
		return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(17)-8))
	}
}

// rowDot, rowsAddScaled and rowsDotAdd, written out for rows of three and
// four terms, are the loops over a row's terms bit for bit, on rows of 0-6
// terms with repeated variables, signed zeros and magnitudes far apart.
func TestRowProductsMatchLoopsBitwise(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(50, 4))
	val := oddValues(rng)
	for trial := range 3000 {
		x := make([]float64, 5)
		for i := range x {
			x[i] = val()
		}
		r := make([]Term, trial%7)
		for i := range r {
			r[i] = Term{Var: rng.IntN(len(x)), Coef: val()}
		}
		want := 0.0
		for _, t := range r {
			want += t.Coef * x[t.Var]
		}
		sameBits(t, trial, "rowDot", []float64{rowDot(r, x)}, []float64{want})
		// rowsAddScaled on one row, with w·(b/d) and with w·b.
		sw, sb, sd := val(), val(), val()
		outWant, outGot := slices.Clone(x), slices.Clone(x)
		for _, t := range r {
			outWant[t.Var] += t.Coef * (sw * (sb / sd))
		}
		rowsAddScaled(outGot, [][]Term{r}, []float64{sw}, []float64{sb}, []float64{sd})
		sameBits(t, trial, "rowsAddScaled", outGot, outWant)
		outWant, outGot = slices.Clone(x), slices.Clone(x)
		for _, t := range r {
			outWant[t.Var] += t.Coef * (sw * sb)
		}
		rowsAddScaled(outGot, [][]Term{r}, []float64{sw}, []float64{sb}, nil)
		sameBits(t, trial, "rowsAddScaled without d", outGot, outWant)
		// rowsDotAdd on one row: rowDot, and the row times w·(rowDot/d).
		w, d := val(), val()
		outWant, outGot = slices.Clone(x), slices.Clone(x)
		g := w * (want / d)
		for _, t := range r {
			outWant[t.Var] += t.Coef * g
		}
		dot := make([]float64, 1)
		rowsDotAdd(outGot, dot, [][]Term{r}, x, []float64{w}, []float64{d})
		sameBits(t, trial, "rowsDotAdd", append(outGot, dot[0]), append(outWant, want))
	}
}

// arrowSolve1of3, which walks blocks of three by stride, is arrowSolve1's
// walk by the blocks' starts bit for bit, on the structured factors of
// random max-min LPs (a block of three per job, the level t on the border)
// under random scalings and right-hand sides.
func TestArrowSolveOf3MatchesWalkBitwise(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(50, 5))
	for trial := range 6 {
		k := 20 + 15*trial
		p := randomSingles(rng, k)
		q, err := newIPMProblem(p, Copies{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		l := newArrowLayout(q)
		if l == nil || len(l.border) != 1 {
			t.Fatalf("trial %d: layout %+v, want one border variable", trial, l)
		}
		d2 := make([]float64, len(q.rows))
		for i := range d2 {
			d2[i] = math.Pow(10, 8*rng.Float64()-4)
		}
		f, err := factorArrow(q, l, d2, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !f.of3 {
			t.Fatalf("trial %d: blocks %v: want every block of three", trial, l.blocks)
		}
		for range 20 {
			rhs := make([]float64, f.n)
			for j := range rhs {
				rhs[j] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4))
			}
			got, want := make([]float64, f.n), make([]float64, f.n)
			okGot := f.arrowSolve1of3(got, rhs)
			f.of3 = false
			okWant := f.arrowSolve1(want, rhs)
			f.of3 = true
			if okGot != okWant {
				t.Fatalf("trial %d: verdicts %v and %v", trial, okGot, okWant)
			}
			sameBits(t, trial, "arrowSolve1", got, want)
		}
	}
}

// subtractColumns' one pass over three columns is the column-by-column
// loops bit for bit, on values with signed zeros and magnitudes far apart.
func TestSubtractColumnsMatchesLoopsBitwise(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(50, 6))
	val := oddValues(rng)
	for trial := range 500 {
		n := 1 + trial%9
		y, h, c := make([]float64, n), make([][]float64, 3), make([]float64, 3)
		for j := range y {
			y[j] = val()
		}
		for k := range h {
			c[k] = val()
			h[k] = make([]float64, n)
			for j := range h[k] {
				h[k][j] = val()
			}
		}
		want := slices.Clone(y)
		for k := range h {
			for j := range want {
				want[j] -= h[k][j] * c[k]
			}
		}
		subtractColumns(y, h, c)
		sameBits(t, trial, "subtractColumns", y, want)
	}
}

// coupling1of3, the coupling term of a block of three with one coupling row
// and a border of one written out, is couplings' loops bit for bit: the
// factors of random max-min LPs (a block of three per job, the level t on
// the border) under random scalings agree in every entry of B⁻¹E and the
// border, and so in every solve.
func TestCoupling1of3MatchesLoopsBitwise(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(50, 7))
	for trial := range 6 {
		p := randomSingles(rng, 20+15*trial)
		q, err := newIPMProblem(p, Copies{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		l := newArrowLayout(q)
		d2 := make([]float64, len(q.rows))
		for i := range d2 {
			d2[i] = math.Pow(10, 8*rng.Float64()-4)
		}
		got, err := factorArrow(q, l, d2, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := newArrowFactor(q, l, nil)
		want.loops = true
		if want, err = factorArrow(q, l, d2, want); err != nil {
			t.Fatal(err)
		}
		if got.nb != 1 || !got.of3 {
			t.Fatalf("trial %d: border %d, of3 %v: want one border variable and blocks of three", trial, got.nb, got.of3)
		}
		sameBits(t, trial, "B⁻¹E", got.binvE, want.binvE)
		sameBits(t, trial, "border", got.border, want.border)
		rhs := make([]float64, got.n)
		for j := range rhs {
			rhs[j] = rng.NormFloat64()
		}
		a, okA := got.solve(rhs)
		a = slices.Clone(a)
		b, okB := want.solve(rhs)
		if okA != okB {
			t.Fatalf("trial %d: verdicts %v and %v", trial, okA, okB)
		}
		sameBits(t, trial, "solve", a, b)
	}
}

// rowDots3 and wdot2, which sum independent products in one loop, are
// rowDot and wdot bit for bit, each sum on its own.
func TestInterleavedSumsMatchLoopsBitwise(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(50, 8))
	val := oddValues(rng)
	vec := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = val()
		}
		return v
	}
	for trial := range 1000 {
		x := vec(9)
		k := trial % 12
		var rows [3][]Term
		for r := range rows {
			rows[r] = make([]Term, k)
			for i := range rows[r] {
				rows[r][i] = Term{Var: rng.IntN(len(x)), Coef: val()}
			}
		}
		s0, s1, s2 := rowDots3(rows[0], rows[1], rows[2], x)
		sameBits(t, trial, "rowDots3", []float64{s0, s1, s2}, []float64{rowDot(rows[0], x), rowDot(rows[1], x), rowDot(rows[2], x)})
		n1, n2 := trial%7, (trial/7)%7
		a1, b1, w1, a2, b2, w2 := vec(n1), vec(n1), vec(n1), vec(n2), vec(n2), vec(n2)
		d1, d2 := wdot2(a1, b1, w1, a2, b2, w2)
		sameBits(t, trial, "wdot2", []float64{d1, d2}, []float64{wdot(a1, b1, w1), wdot(a2, b2, w2)})
	}
}
