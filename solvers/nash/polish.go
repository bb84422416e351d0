package nash

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// The cutting-plane loop converges in welfare, which is flat at the optimum:
// a welfare within ε of the optimum leaves utilities off by about √ε
// relatively (1e-7 from the LP's feasibility tolerance gives ~3e-4). Polish
// recovers the exact optimum from such a point by solving the
// Karush–Kuhn–Tucker conditions as equations on the active set the point
// suggests, with β_i = w_i/U_i (the price of one unit of buyer i's utility):
//
//	β_i·a[c][g] = d_c·p_g + λ_c            on the tight pairs (c, g)
//	β_i·Σ_{c∈i,g} a[c][g]·X[c][g] = w_i    for every buyer
//	Σ_c d_c·X[c][g] = N_g                  on the priced types
//	Σ_g X[c][g] = k_c                      on the rented (capped) classes
//
// (X only on tight pairs, p only on priced types, λ only on rented
// classes), by Gauss–Newton with minimum-norm steps from the point, at a
// sweep of thresholds for "tight", "priced" and "rented". A candidate is
// kept only if it is feasible, its prices, rents and times are
// non-negative, no other pair is cheaper than its buyer's β_i allows, and
// its certificate's duality gap is below polishGap: then it is the optimum
// to rounding, whatever the guess of the active set.

// polishGap is the duality gap (in units of Σ w) below which a polished
// point is accepted.
const polishGap = 1e-11

// polishRounds bounds the active-set changes of one polish: a guess that
// needs more is too far off to be worth the dense solves.
const polishRounds = 25

// polishTaus are the thresholds tried for the active set, relative.
var polishTaus = []float64{1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2}

// polish tries to turn an approximate optimum (x with prices p and rents
// lam) into the exact one. It returns nil when no threshold gives a
// verified optimum.
func polish(m *Market, x [][]float64, p, lam []float64) (*Solution, *Certificate) {
	u := m.Utilities(x)
	total := 0.0
	for _, w := range m.Weights {
		total += w
	}
	var best *Solution
	var bestCert *Certificate
	tried := map[string]bool{}
	for _, tau := range polishTaus {
		a := guess(m, x, u, p, lam, tau)
		// Neighbouring thresholds often read the same active set, whose
		// polish (a function of the set and the start alone) is already
		// known.
		if key := a.key(); tried[key] {
			continue
		} else {
			tried[key] = true
		}
		sol, cert := polishAt(m, x, u, p, lam, a, total)
		if sol != nil && (bestCert == nil || cert.Gap < bestCert.Gap) {
			best, bestCert = sol, cert
			if cert.Gap <= 1e-14*total {
				break
			}
		}
	}
	return best, bestCert
}

// active is one guess of the active set, with the unknowns' positions.
type active struct {
	edges  [][2]int // tight pairs (c, g)
	priced []int    // type → unknown index of p_g, −1 when p_g = 0
	rented []int    // class → unknown index of λ_c, −1 when λ_c = 0
	nb     int      // buyers; β_i is unknown len(edges)+i
	n      int      // unknowns
}

func polishAt(m *Market, x [][]float64, u, p, lam []float64, a *active, total float64) (*Solution, *Certificate) {
	z := make([]float64, a.n)
	for k, e := range a.edges {
		z[k] = x[e[0]][e[1]]
	}
	for i := range m.Weights {
		z[len(a.edges)+i] = m.Weights[i] / u[i]
	}
	for g, k := range a.priced {
		if k >= 0 {
			z[k] = p[g]
		}
	}
	for c, k := range a.rented {
		if k >= 0 {
			z[k] = lam[c]
		}
	}
	// An active-set loop: a solved unknown that comes out negative (a time
	// share, price or rent) is dropped from the active set and the
	// equations solved again, from the current point.
	for round := 0; round <= min(len(a.edges)+len(m.Caps)+len(m.Classes), polishRounds); round++ {
		if !newton(m, a, z) {
			return nil, nil
		}
		drop := a.mostNegative(z)
		if drop < 0 {
			return a.read(m, z, total)
		}
		z = a.remove(drop, z)
	}
	return nil, nil
}

// key identifies the active set: its pairs, priced types and rented
// classes.
func (a *active) key() string {
	var b strings.Builder
	for _, e := range a.edges {
		fmt.Fprintf(&b, "%d,%d;", e[0], e[1])
	}
	for _, set := range [][]int{a.priced, a.rented} {
		b.WriteByte('|')
		for i, k := range set {
			if k >= 0 {
				fmt.Fprintf(&b, "%d;", i)
			}
		}
	}
	return b.String()
}

// mostNegative is the unknown (a time share, price or rent) with the most
// negative value below rounding, or −1 when there is none.
func (a *active) mostNegative(z []float64) int {
	return mostNegative(z, -1e-10, len(a.edges), a.priced, a.rented)
}

// remove drops unknown k from the active set (an edge's share, a price or
// a rent, which then stays 0) and returns z without it.
func (a *active) remove(k int, z []float64) []float64 {
	a.n--
	return dropUnknown(k, z, &a.edges, a.priced, a.rented)
}

// guess builds the active set at threshold tau.
func guess(m *Market, x [][]float64, u, p, lam []float64, tau float64) *active {
	a := &active{nb: len(m.Weights), priced: make([]int, len(m.Caps)), rented: make([]int, len(m.Classes))}
	load := make([]float64, len(m.Caps))
	xmax := 0.0
	for c, cl := range m.Classes {
		for g, v := range x[c] {
			load[g] += cl.Gang * v
			xmax = math.Max(xmax, v)
		}
	}
	for c, cl := range m.Classes {
		beta := m.Weights[cl.Buyer] / u[cl.Buyer]
		for g := range m.Caps {
			if !m.Usable(c, g) {
				continue
			}
			cost := cl.Gang*p[g] + lam[c]
			if x[c][g] > tau*xmax || beta*cl.Value[g] >= cost*(1-tau) {
				a.edges = append(a.edges, [2]int{c, g})
			}
		}
	}
	a.n = len(a.edges) + a.nb
	pmax, lmax := 0.0, 0.0
	for _, v := range p {
		pmax = math.Max(pmax, v)
	}
	for _, v := range lam {
		lmax = math.Max(lmax, v)
	}
	scale := math.Max(pmax, lmax)
	for g := range m.Caps {
		a.priced[g] = -1
		if p[g] > tau*scale || load[g] >= m.Caps[g]*(1-tau) {
			a.priced[g] = a.n
			a.n++
		}
	}
	for c, cl := range m.Classes {
		a.rented[c] = -1
		time := 0.0
		for _, v := range x[c] {
			time += v
		}
		if lam[c] > tau*scale || time >= cl.Count*(1-tau) {
			a.rented[c] = a.n
			a.n++
		}
	}
	return a
}

// residual is the left-hand sides of the equations at z (the order: edges,
// buyers, priced types, rented classes).
func (a *active) residual(m *Market, z []float64) []float64 {
	var r []float64
	beta := func(c int) float64 { return z[len(a.edges)+m.Classes[c].Buyer] }
	for _, e := range a.edges {
		c, g := e[0], e[1]
		cl := &m.Classes[c]
		v := beta(c) * cl.Value[g]
		if k := a.priced[g]; k >= 0 {
			v -= cl.Gang * z[k]
		}
		if k := a.rented[c]; k >= 0 {
			v -= z[k]
		}
		r = append(r, v)
	}
	util := make([]float64, a.nb)
	load := make([]float64, len(m.Caps))
	time := make([]float64, len(m.Classes))
	for k, e := range a.edges {
		cl := &m.Classes[e[0]]
		util[cl.Buyer] += cl.Value[e[1]] * z[k]
		load[e[1]] += cl.Gang * z[k]
		time[e[0]] += z[k]
	}
	for i, w := range m.Weights {
		r = append(r, z[len(a.edges)+i]*util[i]-w)
	}
	for g, k := range a.priced {
		if k >= 0 {
			r = append(r, load[g]-m.Caps[g])
		}
	}
	for c, k := range a.rented {
		if k >= 0 {
			r = append(r, time[c]-m.Classes[c].Count)
		}
	}
	return r
}

// jacobian is ∂residual/∂z at z.
func (a *active) jacobian(m *Market, z []float64) *mat.Dense {
	rows := len(a.edges) + a.nb
	for _, k := range a.priced {
		if k >= 0 {
			rows++
		}
	}
	for _, k := range a.rented {
		if k >= 0 {
			rows++
		}
	}
	j := mat.NewDense(rows, a.n, nil)
	ne := len(a.edges)
	util := make([]float64, a.nb)
	for k, e := range a.edges {
		cl := &m.Classes[e[0]]
		util[cl.Buyer] += cl.Value[e[1]] * z[k]
	}
	for r, e := range a.edges {
		c, g := e[0], e[1]
		cl := &m.Classes[c]
		j.Set(r, ne+cl.Buyer, cl.Value[g])
		if k := a.priced[g]; k >= 0 {
			j.Set(r, k, -cl.Gang)
		}
		if k := a.rented[c]; k >= 0 {
			j.Set(r, k, -1)
		}
		// buyer row: β_i·Σ a·X − w_i
		j.Set(ne+cl.Buyer, r, z[ne+cl.Buyer]*cl.Value[g])
	}
	for i := 0; i < a.nb; i++ {
		j.Set(ne+i, ne+i, util[i])
	}
	row := ne + a.nb
	for g, k := range a.priced {
		if k < 0 {
			continue
		}
		for e, edge := range a.edges {
			if edge[1] == g {
				j.Set(row, e, m.Classes[edge[0]].Gang)
			}
		}
		row++
	}
	for c, k := range a.rented {
		if k < 0 {
			continue
		}
		for e, edge := range a.edges {
			if edge[0] == c {
				j.Set(row, e, 1)
			}
		}
		row++
	}
	return j
}

// newton runs Gauss–Newton with minimum-norm steps on the equations; it
// reports whether the residual vanished (to rounding).
func newton(m *Market, a *active, z []float64) bool {
	scale := 1.0
	for _, w := range m.Weights {
		scale = math.Max(scale, w)
	}
	for _, c := range m.Caps {
		scale = math.Max(scale, c)
	}
	for it := 0; it < 30; it++ {
		r := a.residual(m, z)
		norm := 0.0
		for _, v := range r {
			norm = math.Max(norm, math.Abs(v))
		}
		if norm <= 1e-13*scale {
			return true
		}
		step, ok := newtonStep(a.jacobian(m, z), r)
		if !ok {
			return false
		}
		for k := range z {
			z[k] -= step[k]
		}
	}
	return false
}

// read turns a solved z into a solution and its certificate, or nil when an
// inequality of the KKT conditions fails.
func (a *active) read(m *Market, z []float64, total float64) (*Solution, *Certificate) {
	const slack = 1e-9
	x := make([][]float64, len(m.Classes))
	for c := range x {
		x[c] = make([]float64, len(m.Caps))
	}
	xmax := 1.0
	for k, e := range a.edges {
		if z[k] < -slack*xmax {
			return nil, nil
		}
		x[e[0]][e[1]] = math.Max(0, z[k])
	}
	cert := &Certificate{Prices: make([]float64, len(m.Caps)), Rents: make([]float64, len(m.Classes))}
	for g, k := range a.priced {
		if k >= 0 {
			if z[k] < -slack {
				return nil, nil
			}
			cert.Prices[g] = math.Max(0, z[k])
		}
	}
	for c, k := range a.rented {
		if k >= 0 {
			if z[k] < -slack {
				return nil, nil
			}
			cert.Rents[c] = math.Max(0, z[k])
		}
	}
	if m.Violation(x, 1e-12) != "" {
		x = shrink(m, x)
		if m.Violation(x, 1e-12) != "" {
			return nil, nil
		}
	}
	u := m.Utilities(x)
	w := m.Welfare(u)
	if math.IsInf(w, -1) {
		return nil, nil
	}
	cert.Dual = Dual(m, cert.Prices, cert.Rents)
	cert.Gap = cert.Dual - w
	if !(cert.Gap <= polishGap*total) {
		return nil, nil
	}
	return &Solution{X: x, U: u, Welfare: w, Bound: cert.Dual, Exact: true}, cert
}

// shrink scales x down by the one factor that removes rounding excess over
// any capacity or time cap.
func shrink(m *Market, x [][]float64) [][]float64 {
	f := 1.0
	load := make([]float64, len(m.Caps))
	for c, cl := range m.Classes {
		time := 0.0
		for g, v := range x[c] {
			time += v
			load[g] += cl.Gang * v
		}
		if time > cl.Count {
			f = math.Min(f, cl.Count/time)
		}
	}
	for g, l := range load {
		if l > m.Caps[g] {
			f = math.Min(f, m.Caps[g]/l)
		}
	}
	out := make([][]float64, len(x))
	for c := range x {
		out[c] = make([]float64, len(x[c]))
		for g, v := range x[c] {
			out[c][g] = v * f
		}
	}
	return out
}
