package models

import (
	"errors"
	"math"
)

// denseLP is a small dense two-phase simplex for the predicates' own linear
// programs (the value of a bundle to a user with several jobs, the Pareto
// improvement LP): maximise c·x subject to A·x ≤ b and x ≥ 0, b of any sign,
// with Bland's rule against cycling. It exists so that the predicates stay
// in models (which imports no other package of the project) and run in
// microseconds on the small instances the checker searches; the checker
// cross-checks it against solvers/lp. It is exact up to denseEps and meant
// for a few dozen rows and columns. The zero value is ready; it reuses its
// buffers and is not safe for concurrent use.
type denseLP struct {
	m, n  int       // constraints, structural variables
	a     []float64 // m × n constraint matrix, row-major
	b     []float64
	t     []float64 // tableau, (m+1) × w
	w     int       // tableau width
	basis []int
	x     []float64
}

// denseEps is the pivot and optimality tolerance of denseLP.
const denseEps = 1e-10

var (
	errDenseInfeasible = errors.New("models: dense LP: infeasible")
	errDenseUnbounded  = errors.New("models: dense LP: unbounded")
	errDenseCycle      = errors.New("models: dense LP: iteration limit")
)

// reset prepares an m × n problem with all coefficients zero.
func (lp *denseLP) reset(m, n int) {
	lp.m, lp.n = m, n
	lp.a = grow(lp.a, m*n)
	lp.b = grow(lp.b, m)
}

// set puts coefficient v at row i, column j.
func (lp *denseLP) set(i, j int, v float64) { lp.a[i*lp.n+j] = v }

// solve maximises c·x. It returns the optimum and x (a view of an internal
// buffer, valid until the next call).
func (lp *denseLP) solve(c []float64) (float64, []float64, error) {
	m, n := lp.m, lp.n
	art := 0
	for i := 0; i < m; i++ {
		if lp.b[i] < 0 {
			art++
		}
	}
	lp.w = n + m + art + 1
	w := lp.w
	lp.t = grow(lp.t, (m+1)*w)
	if cap(lp.basis) < m {
		lp.basis = make([]int, m)
	}
	lp.basis = lp.basis[:m]
	t := lp.t
	k := 0
	for i := 0; i < m; i++ {
		row := t[i*w : (i+1)*w]
		sign := 1.0
		if lp.b[i] < 0 {
			sign = -1
		}
		for j := 0; j < n; j++ {
			row[j] = sign * lp.a[i*n+j]
		}
		row[n+i] = sign
		row[w-1] = sign * lp.b[i]
		if sign < 0 {
			row[n+m+k] = 1
			lp.basis[i] = n + m + k
			k++
		} else {
			lp.basis[i] = n + i
		}
	}
	obj := t[m*w : (m+1)*w]
	if art > 0 {
		// Phase 1: maximise −Σ artificials.
		for j := n + m; j < n+m+art; j++ {
			obj[j] = 1
		}
		for i := 0; i < m; i++ {
			if lp.basis[i] >= n+m {
				row := t[i*w : (i+1)*w]
				for j := range obj {
					obj[j] -= row[j]
				}
			}
		}
		if err := lp.iterate(w - 1); err != nil {
			return 0, nil, err
		}
		if obj[w-1] < -1e-9*(1+lp.bnorm()) {
			return 0, nil, errDenseInfeasible
		}
		// Drive zero-level artificials out of the basis where possible.
		for i := 0; i < m; i++ {
			if lp.basis[i] < n+m {
				continue
			}
			row := t[i*w : (i+1)*w]
			for j := 0; j < n+m; j++ {
				if math.Abs(row[j]) > 1e-9 {
					lp.pivot(i, j)
					break
				}
			}
		}
	}
	// Phase 2: the true objective, artificials barred from entering.
	clear(obj)
	for j := 0; j < n; j++ {
		obj[j] = -c[j]
	}
	for i := 0; i < m; i++ {
		if bj := lp.basis[i]; bj < n && c[bj] != 0 {
			row := t[i*w : (i+1)*w]
			for j := range obj {
				obj[j] += c[bj] * row[j]
			}
		}
	}
	if err := lp.iterate(n + m); err != nil {
		return 0, nil, err
	}
	lp.x = grow(lp.x, n)
	for i := 0; i < m; i++ {
		if bj := lp.basis[i]; bj < n {
			lp.x[bj] = t[i*w+w-1]
		}
	}
	return obj[w-1], lp.x, nil
}

// iterate pivots until no column below limit has a negative reduced cost.
// The column with the most negative reduced cost enters (Dantzig's rule)
// until a run of degenerate pivots, then the lowest such column (Bland's
// rule, which cannot cycle); the lowest basic index leaves among ties of the
// ratio test.
func (lp *denseLP) iterate(limit int) error {
	m, w, t := lp.m, lp.w, lp.t
	obj := t[m*w : (m+1)*w]
	degenerate := 0
	for it := 0; it < 50*(m+w); it++ {
		e := -1
		bland := degenerate > 8
		for j := 0; j < limit; j++ {
			if obj[j] < -denseEps && (e < 0 || !bland && obj[j] < obj[e]) {
				e = j
				if bland {
					break
				}
			}
		}
		if e < 0 {
			return nil
		}
		r, best := -1, math.Inf(1)
		for i := 0; i < m; i++ {
			if v := t[i*w+e]; v > denseEps {
				ratio := t[i*w+w-1] / v
				if ratio < best-denseEps || (ratio < best+denseEps && r >= 0 && lp.basis[i] < lp.basis[r]) {
					r, best = i, ratio
				}
			}
		}
		if r < 0 {
			return errDenseUnbounded
		}
		if best <= denseEps {
			degenerate++
		} else {
			degenerate = 0
		}
		lp.pivot(r, e)
	}
	return errDenseCycle
}

// pivot makes column e basic in row r.
func (lp *denseLP) pivot(r, e int) {
	m, w, t := lp.m, lp.w, lp.t
	pr := t[r*w : (r+1)*w]
	inv := 1 / pr[e]
	for j := range pr {
		pr[j] *= inv
	}
	pr[e] = 1
	for i := 0; i <= m; i++ {
		if i == r {
			continue
		}
		row := t[i*w : (i+1)*w]
		f := row[e]
		if f == 0 {
			continue
		}
		for j := range row {
			row[j] -= f * pr[j]
		}
		row[e] = 0
	}
	lp.basis[r] = e
}

func (lp *denseLP) bnorm() float64 {
	s := 0.0
	for _, v := range lp.b[:lp.m] {
		s = math.Max(s, math.Abs(v))
	}
	return s
}

// grow returns buf resized to n and zeroed.
func grow(buf []float64, n int) []float64 {
	if cap(buf) < n {
		return make([]float64, n)
	}
	buf = buf[:n]
	clear(buf)
	return buf
}

// bundle is V_u(f·b) for a user with several jobs: the transportation LP
// max Σ a[j][g]·y[j][g] s.t. Σ_g y[j][g] ≤ 1, Σ_j d_j·y[j][g] ≤ f·b[g].
func (lp *denseLP) bundle(d *Division, jobs []int, b []float64, f float64) float64 {
	m := len(d.Types)
	n := len(jobs) * m
	lp.reset(len(jobs)+m, n)
	c := make([]float64, n)
	for k, j := range jobs {
		for g := 0; g < m; g++ {
			v := k*m + g
			if d.a[j][g] <= 0 || b[g] <= 0 {
				continue // y stays 0: no column entry
			}
			c[v] = d.a[j][g]
			lp.set(k, v, 1)
			lp.set(len(jobs)+g, v, d.Jobs[j].Gang)
		}
		lp.b[k] = 1
	}
	for g := 0; g < m; g++ {
		lp.b[len(jobs)+g] = math.Max(0, f*b[g])
	}
	val, _, err := lp.solve(c)
	if err != nil {
		// Cannot happen: the origin is feasible and y is bounded.
		return 0
	}
	return val
}
