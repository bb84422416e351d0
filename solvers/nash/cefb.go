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
// where the unsmoothed Newton steps stall. It returns false when ‖Φ‖ does
// not vanish.
func ceComplementarity(m *Market, x [][]float64, prices, mu, rents []float64, smooth bool) bool {
	var pairs [][2]int
	for c := range m.Classes {
		for g := range m.Caps {
			if m.Usable(c, g) {
				pairs = append(pairs, [2]int{c, g})
			}
		}
	}
	np, ng, nc, nb := len(pairs), len(m.Caps), len(m.Classes), len(m.Weights)
	n := np + ng + nc + nb
	z := make([]float64, n)
	for k, e := range pairs {
		z[k] = x[e[0]][e[1]]
	}
	copy(z[np:], prices)
	copy(z[np+ng:], rents)
	copy(z[np+ng+nc:], mu)
	eps := 0.0
	phi := func(z []float64) ([]float64, *mat.Dense) {
		f := make([]float64, n)
		jac := mat.NewDense(n, n, nil)
		load := make([]float64, ng)
		time := make([]float64, nc)
		spend := make([]float64, nb)
		for k, e := range pairs {
			c, g := e[0], e[1]
			cl := &m.Classes[c]
			load[g] += cl.Gang * z[k]
			time[c] += z[k]
			spend[cl.Buyer] += cl.Gang * z[np+g] * z[k]
		}
		// set writes φ(v, s) into row r with the partials of s given by ds.
		set := func(r int, v float64, vcol int, s float64, ds map[int]float64) {
			rho := math.Sqrt(v*v + s*s + 2*eps)
			dv, dsf := 1-1/math.Sqrt2, 1-1/math.Sqrt2
			if rho > 0 {
				dv, dsf = 1-v/rho, 1-s/rho
			}
			f[r] = v + s - rho
			jac.Set(r, vcol, jac.At(r, vcol)+dv)
			for col, d := range ds {
				jac.Set(r, col, jac.At(r, col)+dsf*d)
			}
		}
		for k, e := range pairs {
			c, g := e[0], e[1]
			cl := &m.Classes[c]
			b := cl.Buyer
			s := z[np+ng+nc+b]*cl.Gang*z[np+g] + z[np+ng+c] - cl.Value[g]
			set(k, z[k], k, s, map[int]float64{np + ng + nc + b: cl.Gang * z[np+g], np + g: cl.Gang * z[np+ng+nc+b], np + ng + c: 1})
		}
		for g := 0; g < ng; g++ {
			ds := map[int]float64{}
			for k, e := range pairs {
				if e[1] == g {
					ds[k] = -m.Classes[e[0]].Gang
				}
			}
			set(np+g, z[np+g], np+g, m.Caps[g]-load[g], ds)
		}
		for c := 0; c < nc; c++ {
			ds := map[int]float64{}
			for k, e := range pairs {
				if e[0] == c {
					ds[k] = -1
				}
			}
			set(np+ng+c, z[np+ng+c], np+ng+c, m.Classes[c].Count-time[c], ds)
		}
		for b := 0; b < nb; b++ {
			ds := map[int]float64{}
			for k, e := range pairs {
				cl := &m.Classes[e[0]]
				if cl.Buyer == b {
					ds[k] = -cl.Gang * z[np+e[1]]
					ds[np+e[1]] += -cl.Gang * z[k]
				}
			}
			set(np+ng+nc+b, z[np+ng+nc+b], np+ng+nc+b, m.Weights[b]-spend[b], ds)
		}
		return f, jac
	}
	scale := 1.0
	for _, w := range m.Weights {
		scale = math.Max(scale, w)
	}
	for _, c := range m.Caps {
		scale = math.Max(scale, c)
	}
	trial := make([]float64, n)
	// solve runs the semismooth Newton method at the current ε.
	solve := func(tol float64) bool {
		for it := 0; it < 100; it++ {
			f, jac := phi(z)
			norm := maxAbs(f)
			if norm <= tol {
				return true
			}
			step, ok := newtonStep(jac, f)
			if !ok {
				return false
			}
			moved := false
			for t := 1.0; t >= 1e-8; t /= 2 {
				for k := range z {
					trial[k] = z[k] - t*step[k]
				}
				if g, _ := phi(trial); maxAbs(g) < norm*(1-1e-4*t) {
					copy(z, trial)
					moved = true
					break
				}
			}
			if !moved {
				return false
			}
		}
		return false
	}
	if smooth {
		for eps = 1e-2 * scale * scale; eps > 1e-26*scale*scale; eps /= 10 {
			if !solve(math.Max(1e-6*math.Sqrt(eps), 1e-14*scale)) {
				return false
			}
		}
		eps = 0
	}
	if !solve(1e-13 * scale) {
		return false
	}
	for k, e := range pairs {
		x[e[0]][e[1]] = math.Max(0, z[k])
	}
	for g := range prices {
		prices[g] = math.Max(0, z[np+g])
	}
	for c := range rents {
		rents[c] = math.Max(0, z[np+ng+c])
	}
	for b := range mu {
		mu[b] = math.Max(0, z[np+ng+nc+b])
	}
	return true
}
