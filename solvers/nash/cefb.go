package nash

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// ceComplementarity solves the equilibrium conditions of CEEI (ceei.go) as
// one complementarity system over every unknown at once, with no active
// set to guess: each condition "v ≥ 0, s ≥ 0, v·s = 0" becomes
// φ(v, s) = v + s − √(v² + s²) = 0 (the Fischer–Burmeister function), for
//
//	X[c][g]  with  μ_i·d_c·p_g + λ_c − a[c][g]   (no usable pair is worth more than it costs)
//	p_g      with  N_g − load_g                   (priced types are full)
//	λ_c      with  k_c − Σ_g X[c][g]              (rented classes run all the time)
//	μ_i      with  w_i − spend_i                  (a buyer spends its budget unless satiated)
//
// solved by a semismooth Newton method with minimum-norm steps and a
// backtracking line search on ‖Φ‖. It is the fallback for the last stage
// of the continuation, where the active-set updates can cycle at a
// degenerate equilibrium. With smooth set, it first follows the smoothed
// system φ_ε(v, s) = v + s − √(v² + s² + 2ε) (whose zeros have v·s = ε,
// both positive, like an interior-point method's central path) for ε from
// 1e-2 down by tenfold steps, which carries it through degenerate corners
// where the unsmoothed Newton steps stall. On success it writes the
// solution into x, prices, mu and rents and returns true.
//
// The system is dense, one unknown per usable pair, type, class and buyer;
// above svdLimit unknowns it is refused (false): at the 2,048-job market of
// the benchmarks (3,005 unknowns) one Newton step's LU alone is some 2·10¹⁰
// flops, and a solve takes up to 100 of them per ε.
func ceComplementarity(m *Market, x [][]float64, prices, mu, rents []float64, smooth bool) bool {
	fb := newFBSystem(m, x, prices, mu, rents)
	if len(fb.z) > svdLimit {
		return false
	}
	scale := 1.0
	for _, w := range m.Weights {
		scale = math.Max(scale, w)
	}
	for _, c := range m.Caps {
		scale = math.Max(scale, c)
	}
	if smooth {
		for fb.eps = 1e-2 * scale * scale; fb.eps > 1e-26*scale*scale; fb.eps /= 10 {
			if !fb.solve(math.Max(1e-6*math.Sqrt(fb.eps), 1e-14*scale)) {
				return false
			}
		}
		fb.eps = 0
	}
	if !fb.solve(1e-13 * scale) {
		return false
	}
	fb.write(x, prices, mu, rents)
	return true
}

// fbSystem is the complementarity system of ceComplementarity: the usable
// pairs, and z = (X on the pairs, p, λ, μ).
type fbSystem struct {
	m              *Market
	pairs          [][2]int
	np, ng, nc, nb int
	z              []float64
	eps            float64
}

func newFBSystem(m *Market, x [][]float64, prices, mu, rents []float64) *fbSystem {
	fb := &fbSystem{m: m, ng: len(m.Caps), nc: len(m.Classes), nb: len(m.Weights)}
	for c := range m.Classes {
		for g := range m.Caps {
			if m.Usable(c, g) {
				fb.pairs = append(fb.pairs, [2]int{c, g})
			}
		}
	}
	fb.np = len(fb.pairs)
	fb.z = make([]float64, fb.np+fb.ng+fb.nc+fb.nb)
	for k, e := range fb.pairs {
		fb.z[k] = x[e[0]][e[1]]
	}
	copy(fb.z[fb.np:], prices)
	copy(fb.z[fb.np+fb.ng:], rents)
	copy(fb.z[fb.np+fb.ng+fb.nc:], mu)
	return fb
}

// Positions of p_g, λ_c and μ_i in z.
func (fb *fbSystem) p(g int) int  { return fb.np + g }
func (fb *fbSystem) l(c int) int  { return fb.np + fb.ng + c }
func (fb *fbSystem) mu(b int) int { return fb.np + fb.ng + fb.nc + b }

// phi is Φ(z) and, with jacobian set, its (generalised) Jacobian (else
// nil: the line search needs only the values).
func (fb *fbSystem) phi(z []float64, jacobian bool) ([]float64, *mat.Dense) {
	m := fb.m
	n := len(z)
	f := make([]float64, n)
	var jac *mat.Dense
	if jacobian {
		jac = mat.NewDense(n, n, nil)
	}
	load := make([]float64, fb.ng)
	time := make([]float64, fb.nc)
	spend := make([]float64, fb.nb)
	for k, e := range fb.pairs {
		cl := &m.Classes[e[0]]
		load[e[1]] += cl.Gang * z[k]
		time[e[0]] += z[k]
		spend[cl.Buyer] += cl.Gang * z[fb.p(e[1])] * z[k]
	}
	// partials builds the ∂s of a row only when the Jacobian is wanted.
	partials := func(build func(ds map[int]float64)) map[int]float64 {
		if !jacobian {
			return nil
		}
		ds := map[int]float64{}
		build(ds)
		return ds
	}
	for k, e := range fb.pairs {
		c, g := e[0], e[1]
		cl := &m.Classes[c]
		b := cl.Buyer
		s := z[fb.mu(b)]*cl.Gang*z[fb.p(g)] + z[fb.l(c)] - cl.Value[g]
		fb.set(f, jac, k, z[k], k, s, partials(func(ds map[int]float64) {
			ds[fb.mu(b)], ds[fb.p(g)], ds[fb.l(c)] = cl.Gang*z[fb.p(g)], cl.Gang*z[fb.mu(b)], 1
		}))
	}
	for g := 0; g < fb.ng; g++ {
		fb.set(f, jac, fb.p(g), z[fb.p(g)], fb.p(g), m.Caps[g]-load[g], partials(func(ds map[int]float64) {
			for k, e := range fb.pairs {
				if e[1] == g {
					ds[k] = -m.Classes[e[0]].Gang
				}
			}
		}))
	}
	for c := 0; c < fb.nc; c++ {
		fb.set(f, jac, fb.l(c), z[fb.l(c)], fb.l(c), m.Classes[c].Count-time[c], partials(func(ds map[int]float64) {
			for k, e := range fb.pairs {
				if e[0] == c {
					ds[k] = -1
				}
			}
		}))
	}
	for b := 0; b < fb.nb; b++ {
		fb.set(f, jac, fb.mu(b), z[fb.mu(b)], fb.mu(b), m.Weights[b]-spend[b], partials(func(ds map[int]float64) {
			for k, e := range fb.pairs {
				if cl := &m.Classes[e[0]]; cl.Buyer == b {
					ds[k] = -cl.Gang * z[fb.p(e[1])]
					ds[fb.p(e[1])] += -cl.Gang * z[k]
				}
			}
		}))
	}
	return f, jac
}

// set writes φ_ε(v, s) into row r of f with its partials, where jac is
// not nil: ∂/∂v at column vcol, and ∂/∂s times the partials ds of s.
func (fb *fbSystem) set(f []float64, jac *mat.Dense, r int, v float64, vcol int, s float64, ds map[int]float64) {
	rho := math.Sqrt(v*v + s*s + 2*fb.eps)
	dv, dsf := 1-1/math.Sqrt2, 1-1/math.Sqrt2 // a generalised gradient at the kink
	if rho > 0 {
		dv, dsf = 1-v/rho, 1-s/rho
	}
	f[r] = v + s - rho
	if jac == nil {
		return
	}
	jac.Set(r, vcol, jac.At(r, vcol)+dv)
	for col, d := range ds {
		jac.Set(r, col, jac.At(r, col)+dsf*d)
	}
}

// solve runs the semismooth Newton method at the current ε until ‖Φ‖ ≤ tol.
func (fb *fbSystem) solve(tol float64) bool {
	trial := make([]float64, len(fb.z))
	for it := 0; it < 100; it++ {
		f, jac := fb.phi(fb.z, true)
		norm := maxAbs(f)
		if norm <= tol {
			return true
		}
		step, ok := newtonStep(jac, f)
		if !ok {
			return false
		}
		moved := false
		for t := 1.0; t >= 1e-8 && !moved; t /= 2 {
			for k := range fb.z {
				trial[k] = fb.z[k] - t*step[k]
			}
			if g, _ := fb.phi(trial, false); maxAbs(g) < norm*(1-1e-4*t) {
				copy(fb.z, trial)
				moved = true
			}
		}
		if !moved {
			return false
		}
	}
	return false
}

// write copies the solution out, negatives at rounding cut to 0.
func (fb *fbSystem) write(x [][]float64, prices, mu, rents []float64) {
	for k, e := range fb.pairs {
		x[e[0]][e[1]] = math.Max(0, fb.z[k])
	}
	for g := range prices {
		prices[g] = math.Max(0, fb.z[fb.p(g)])
	}
	for c := range rents {
		rents[c] = math.Max(0, fb.z[fb.l(c)])
	}
	for b := range mu {
		mu[b] = math.Max(0, fb.z[fb.mu(b)])
	}
}
