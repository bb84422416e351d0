package nash

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"gonum.org/v1/gonum/mat"

	"fairbench/solvers/lp"
)

// Competitive equilibrium from equal (or weighted) incomes with time caps.
//
// In a market where buyer i has budget w_i and faces prices p_g, i buys a
// bundle that maximises its utility among those it can afford,
//
//	max Σ_{c∈i,g} a[c][g]·X[c][g]  s.t.  Σ_{c∈i,g} d_c·p_g·X[c][g] ≤ w_i,  Σ_g X[c][g] ≤ k_c,  X ≥ 0,   (B_i)
//
// and an equilibrium is (p, X) where every X_i solves (B_i) and every type
// with p_g > 0 is fully used. Such an allocation is envy-free and gives
// sharing incentive by the usual argument (any other user's bundle, scaled
// by the weights, and the weighted share of every type cost no more than
// w_i, so i could have bought them), and Pareto efficient when every
// satiated buyer's bundle is its cheapest optimal one (the first welfare
// theorem). Without the time caps this is the Eisenberg–Gale optimum; with
// them it is not (a buyer pays the rent of its capped jobs out of its
// budget there), and the market is a generalised Hylland–Zeckhauser
// market, whose equilibria can be irrational and are PPAD-hard to find,
// even approximately (Chen, Chen, Peng, Yannakakis, SODA 2022). So this is
// a numerical method with a certificate, not an exact algorithm.
//
// By LP duality, X_i solves (B_i) iff there are μ_i ≥ 0 (the utility of
// money) and λ_c ≥ 0 (the rent of a class's time, in utility) with
//
//	a[c][g] ≤ μ_i·d_c·p_g + λ_c             for every usable (c, g), = where X[c][g] > 0
//	U_i = μ_i·w_i + Σ_{c∈i} λ_c·k_c          (strong duality)
//
// and complementary slackness. CEEI solves these by continuation from the
// Eisenberg–Gale optimum, which satisfies the same conditions with the
// budget equation replaced by U_i = μ_i·w_i (μ_i = U_i/w_i, rents scaled by
// μ_i): along θ from 0 to 1 it solves
//
//	U_i − μ_i·w_i − θ·Σ_{c∈i} λ_c·k_c = 0
//
// with the other conditions as equations on an active set (tight pairs,
// full types, capped classes, non-satiated buyers), by Gauss–Newton with
// minimum-norm steps, dropping an unknown that turns negative and adding an
// inequality that turns violated, halving the step in θ when that fails. At
// θ = 1 a buyer whose μ_i reaches 0 is satiated: its budget equation is
// dropped (it need not spend all its money) and its spending checked
// instead. The result is kept only when CECertificate.Verify accepts it.

// ErrNoEquilibrium is returned (wrapped) when the continuation does not
// reach a verified equilibrium.
var ErrNoEquilibrium = errors.New("nash: no verified competitive equilibrium found")

// CECertificate proves that X is a competitive equilibrium: prices p_g,
// each buyer's utility of money μ_i and each class's rent λ_c, satisfying
// the conditions Verify checks.
type CECertificate struct {
	Prices []float64
	Mu     []float64
	Rents  []float64
}

// Verify checks, to a tolerance tol relative to the quantities compared:
//
//  1. X is feasible and p, μ, λ are non-negative;
//  2. every buyer spends at most its budget: Σ d_c·p_g·X[c][g] ≤ w_i;
//  3. dual feasibility of (B_i): a[c][g] ≤ μ_i·d_c·p_g + λ_c on every usable pair;
//  4. optimality of (B_i): U_i ≥ μ_i·w_i + Σ_{c∈i} λ_c·k_c, which with 3 is
//     weak duality's bound: no affordable bundle gives i more;
//  5. clearing: Σ_g p_g·(N_g − load_g) ≤ tol·Σ_i w_i (priced types are full).
//
// 1–5 make X envy-free and sharing-incentive in the sense of the
// predicates in models (each compared bundle costs at most w_i).
func (c *CECertificate) Verify(m *Market, x [][]float64, tol float64) error {
	if v := m.Violation(x, tol); v != "" {
		return fmt.Errorf("nash: CE certificate: allocation infeasible: %s", v)
	}
	if len(c.Prices) != len(m.Caps) || len(c.Mu) != len(m.Weights) || len(c.Rents) != len(m.Classes) {
		return fmt.Errorf("nash: CE certificate: wrong lengths")
	}
	for _, vs := range [][]float64{c.Prices, c.Mu, c.Rents} {
		for _, v := range vs {
			if !finite(v) || v < 0 {
				return fmt.Errorf("nash: CE certificate: negative or non-finite multiplier %v", v)
			}
		}
	}
	u := m.Utilities(x)
	spend := Spending(m, x, c.Prices)
	bound := make([]float64, len(m.Weights))
	total := 0.0
	for i, w := range m.Weights {
		total += w
		if spend[i] > w*(1+tol) {
			return fmt.Errorf("nash: CE certificate: buyer %d spends %g > budget %g", i, spend[i], w)
		}
		bound[i] = c.Mu[i] * w
	}
	for k, cl := range m.Classes {
		bound[cl.Buyer] += c.Rents[k] * cl.Count
		for g := range m.Caps {
			if !m.Usable(k, g) {
				continue
			}
			if lhs, rhs := cl.Value[g], c.Mu[cl.Buyer]*cl.Gang*c.Prices[g]+c.Rents[k]; lhs > rhs*(1+tol)+tol*1e-3 {
				return fmt.Errorf("nash: CE certificate: class %d on type %d: value %g > cost %g (buyer %d would buy more)", k, g, lhs, rhs, cl.Buyer)
			}
		}
	}
	for i := range m.Weights {
		if u[i] < bound[i]*(1-tol) {
			return fmt.Errorf("nash: CE certificate: buyer %d has U = %g below its budget's worth %g", i, u[i], bound[i])
		}
	}
	load := make([]float64, len(m.Caps))
	for k, cl := range m.Classes {
		for g, v := range x[k] {
			load[g] += cl.Gang * v
		}
	}
	idle := 0.0
	for g, p := range c.Prices {
		idle += p * math.Max(0, m.Caps[g]-load[g])
	}
	if idle > tol*total {
		return fmt.Errorf("nash: CE certificate: priced GPUs left idle, worth %g", idle)
	}
	return nil
}

// ceState is the active set of the continuation and the unknowns' places
// in z: the edges' shares first, then μ, p and λ where active (−1: fixed
// at 0).
type ceState struct {
	edges [][2]int
	mu    []int
	price []int
	rent  []int
	n     int
}

func (st *ceState) clone() *ceState {
	return &ceState{edges: append([][2]int(nil), st.edges...), mu: append([]int(nil), st.mu...),
		price: append([]int(nil), st.price...), rent: append([]int(nil), st.rent...), n: st.n}
}

// value reads an unknown, 0 when fixed.
func value(z []float64, k int) float64 {
	if k < 0 {
		return 0
	}
	return z[k]
}

// CEEI computes a competitive equilibrium of m with the buyers' weights as
// budgets (see the comment at the top of this file), starting from the
// Eisenberg–Gale optimum. It returns the allocation with its certificate,
// or an error matching ErrNoEquilibrium.
func (s Solver) CEEI(m *Market) (*Solution, *CECertificate, error) {
	sol, cert, err := s.continuation(m)
	if err == nil || !errors.Is(err, ErrNoEquilibrium) {
		return sol, cert, err
	}
	// A degenerate market (ties in the values, as small integer speeds
	// make) can stop the continuation at a point where the active set must
	// change in several places at once. Breaking the ties by a relative
	// 1e-9 (deterministic) gives a nearby generic market; its equilibrium
	// starts the complementarity system of the original one, or, failing
	// that, is kept if it passes the original's certificate at 1e-7.
	pm := perturbed(m, 1e-9)
	psol, pcert, perr := s.continuation(pm)
	if perr != nil {
		return nil, nil, err
	}
	x := shrink(m, psol.X)
	c := &CECertificate{Prices: append([]float64(nil), pcert.Prices...), Mu: append([]float64(nil), pcert.Mu...),
		Rents: append([]float64(nil), pcert.Rents...)}
	exact := ceComplementarity(m, x, c.Prices, c.Mu, c.Rents, false) && c.Verify(m, x, 1e-9) == nil
	if !exact {
		x = shrink(m, psol.X)
		c = pcert
		if verr := c.Verify(m, x, 1e-7); verr != nil {
			return nil, nil, fmt.Errorf("%w (and the tie-broken market's equilibrium fails: %v)", err, verr)
		}
	}
	u := m.Utilities(x)
	return &Solution{X: x, U: u, Welfare: m.Welfare(u), Iterations: psol.Iterations, Exact: exact}, c, nil
}

// perturbed is m with every value scaled by 1 + eps·δ, δ ∈ [−1, 1] drawn
// from a generator seeded by the class and type (the same every time).
func perturbed(m *Market, eps float64) *Market {
	out := *m
	out.Classes = make([]Class, len(m.Classes))
	for c, cl := range m.Classes {
		cl.Value = append([]float64(nil), cl.Value...)
		for g := range cl.Value {
			r := rand.New(rand.NewPCG(uint64(c), uint64(g)))
			cl.Value[g] *= 1 + eps*(2*r.Float64()-1)
		}
		out.Classes[c] = cl
	}
	return &out
}

// continuation is CEEI without the tie-breaking retry.
func (s Solver) continuation(m *Market) (*Solution, *CECertificate, error) {
	eg, err := s.Solve(m)
	if err != nil {
		return nil, nil, err
	}
	st, z := ceStart(m, eg)
	st0, z0 := st.clone(), append([]float64(nil), z...)
	theta, step := 0.0, 1.0
	for tries := 0; theta < ceEnd; tries++ {
		if !s.Deadline.IsZero() && time.Now().After(s.Deadline) {
			return nil, nil, fmt.Errorf("nash: CE continuation at θ = %.3g when the deadline came: %w", theta, lp.ErrLimit)
		}
		if tries > ceMaxSteps || step < 1e-9 {
			// The path turns or pivots where single active-set changes
			// cannot follow it: hand the point to the complementarity
			// system, which needs no active set.
			// From the stalled point, then from the start (θ = 0, the
			// Nash-welfare optimum): which one the semismooth Newton
			// method reaches the equilibrium from depends on the market.
			for _, from := range []struct {
				st *ceState
				z  []float64
			}{{st, z}, {st0, z0}} {
				for _, smooth := range []bool{false, true} {
					x, cert := ceRead(m, from.st, from.z)
					if ceComplementarity(m, x, cert.Prices, cert.Mu, cert.Rents, smooth) && cert.Verify(m, x, 1e-9) == nil {
						u := m.Utilities(x)
						return &Solution{X: x, U: u, Welfare: m.Welfare(u), Iterations: eg.Iterations, Newton: eg.Newton, Exact: true}, cert, nil
					}
				}
			}
			return nil, nil, fmt.Errorf("%w: continuation stalled at θ = %.3g", ErrNoEquilibrium, theta)
		}
		next := math.Min(ceEnd, theta+step)
		st2, z2, ok := ceSolveAt(m, st.clone(), append([]float64(nil), z...), next)
		if !ok {
			step /= 2
			continue
		}
		st, z, theta = st2, z2, next
		step *= 2
	}
	// Below θ = 1 the budget rows and the edges give
	// μ_i·(w_i − spend_i) = (1 − θ)·rent_i, so every buyer spends at most
	// its budget; one that still spends clearly less at ceEnd is satiated
	// (μ_i → 0 as θ → 1): its budget row is dropped. The others' rows turn
	// into spend_i = w_i, which stays informative as μ_i gets small.
	spend := ceSpending(m, st, z)
	for i := len(m.Weights) - 1; i >= 0; i-- {
		if k := st.mu[i]; k >= 0 && spend[i] < m.Weights[i]*(1-1e-4) {
			z = st.remove(k, z)
		}
	}
	x, cert := ceRead(m, st, z)
	if st2, z2, ok := ceSolveAt(m, st.clone(), append([]float64(nil), z...), ceFinal); ok {
		x, cert = ceRead(m, st2, z2)
	} else if !ceComplementarity(m, x, cert.Prices, cert.Mu, cert.Rents, false) &&
		!ceComplementarity(m, x, cert.Prices, cert.Mu, cert.Rents, true) {
		return nil, nil, fmt.Errorf("%w: neither the active-set updates nor the complementarity system settle the budgets", ErrNoEquilibrium)
	}
	if err := cert.Verify(m, x, 1e-9); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrNoEquilibrium, err)
	}
	u := m.Utilities(x)
	return &Solution{X: x, U: u, Welfare: m.Welfare(u), Iterations: eg.Iterations, Exact: true}, cert, nil
}

// ceStart is the Eisenberg–Gale optimum as a point of the continuation at
// θ = 0, with its active set.
func ceStart(m *Market, eg *Solution) (*ceState, []float64) {
	st := &ceState{mu: make([]int, len(m.Weights)), price: make([]int, len(m.Caps)), rent: make([]int, len(m.Classes))}
	var z []float64
	mu := make([]float64, len(m.Weights))
	for i, w := range m.Weights {
		mu[i] = eg.U[i] / w
	}
	load := make([]float64, len(m.Caps))
	for c, cl := range m.Classes {
		for g := range m.Caps {
			load[g] += cl.Gang * eg.X[c][g]
			if !m.Usable(c, g) {
				continue
			}
			cost := mu[cl.Buyer] * (cl.Gang*eg.Cert.Prices[g] + eg.Cert.Rents[c])
			if eg.X[c][g] > 1e-12 || cl.Value[g] >= cost*(1-1e-9) {
				st.edges = append(st.edges, [2]int{c, g})
				z = append(z, eg.X[c][g])
			}
		}
	}
	for i := range m.Weights {
		st.mu[i] = len(z)
		z = append(z, mu[i])
	}
	for g, c := range m.Caps {
		st.price[g] = -1
		if eg.Cert.Prices[g] > 0 || load[g] >= c*(1-1e-9) {
			st.price[g] = len(z)
			z = append(z, eg.Cert.Prices[g])
		}
	}
	for c, cl := range m.Classes {
		st.rent[c] = -1
		time := 0.0
		for _, v := range eg.X[c] {
			time += v
		}
		if eg.Cert.Rents[c] > 0 || time >= cl.Count*(1-1e-9) {
			st.rent[c] = len(z)
			z = append(z, mu[cl.Buyer]*eg.Cert.Rents[c])
		}
	}
	st.n = len(z)
	return st, z
}

// ceMaxSteps bounds the steps in θ of one continuation, taken or halved.
// The 2,048-job market of the benchmarks (microbench) takes 86, 46 of them
// halved: the path bends at every change of its active set, and a bound of
// 60 (this package's first) handed that market to the complementarity
// system at θ = 0.9. What stops a path that makes no progress is the step
// falling below 1e-9 (30 halvings in a row).
const ceMaxSteps = 10000

// ceFinal is the θ at which the buyers' equations switch to their final
// form, spending = budget (which, unlike U_i − μ_i·w_i − Σ λ_c·k_c = 0,
// stays informative when μ_i reaches 0): any θ above 1.
const ceFinal = 2

// ceEnd is where the continuation in θ stops and the final form takes
// over: close enough to 1 that the satiated buyers show (their μ_i is of
// the order of 1 − θ).
const ceEnd = 1 - 1e-6

// ceResidual is the equations' left-hand sides at z and θ, in the order:
// edges, non-satiated buyers, priced types, rented classes. At θ = ceFinal
// the buyers' rows are Σ d_c·p_g·X[c][g] − w_i.
func ceResidual(m *Market, st *ceState, z []float64, theta float64) []float64 {
	r := make([]float64, 0, st.n)
	util := make([]float64, len(m.Weights))
	spend := make([]float64, len(m.Weights))
	load := make([]float64, len(m.Caps))
	time := make([]float64, len(m.Classes))
	for k, e := range st.edges {
		c, g := e[0], e[1]
		cl := &m.Classes[c]
		r = append(r, cl.Value[g]-value(z, st.mu[cl.Buyer])*cl.Gang*value(z, st.price[g])-value(z, st.rent[c]))
		util[cl.Buyer] += cl.Value[g] * z[k]
		spend[cl.Buyer] += cl.Gang * value(z, st.price[g]) * z[k]
		load[g] += cl.Gang * z[k]
		time[c] += z[k]
	}
	rent := make([]float64, len(m.Weights))
	for c, cl := range m.Classes {
		rent[cl.Buyer] += value(z, st.rent[c]) * cl.Count
	}
	for i, w := range m.Weights {
		switch {
		case st.mu[i] < 0:
		case theta == ceFinal:
			r = append(r, spend[i]-w)
		default:
			r = append(r, util[i]-z[st.mu[i]]*w-theta*rent[i])
		}
	}
	for g, k := range st.price {
		if k >= 0 {
			r = append(r, load[g]-m.Caps[g])
		}
	}
	for c, k := range st.rent {
		if k >= 0 {
			r = append(r, time[c]-m.Classes[c].Count)
		}
	}
	return r
}

// ceJacobian is ∂ceResidual/∂z.
func ceJacobian(m *Market, st *ceState, z []float64, theta float64, rows int) *mat.Dense {
	j := mat.NewDense(rows, st.n, nil)
	brow, prow, crow, _ := st.rowsFrom(len(st.edges))
	for r, e := range st.edges {
		c, g := e[0], e[1]
		cl := &m.Classes[c]
		mu, p := st.mu[cl.Buyer], st.price[g]
		if mu >= 0 && p >= 0 {
			j.Set(r, mu, -cl.Gang*z[p])
			j.Set(r, p, -cl.Gang*z[mu])
		}
		if k := st.rent[c]; k >= 0 {
			j.Set(r, k, -1)
		}
		if b := brow[cl.Buyer]; b >= 0 {
			if theta == ceFinal {
				if p >= 0 {
					j.Set(b, r, cl.Gang*z[p])
					j.Set(b, p, j.At(b, p)+cl.Gang*z[r])
				}
			} else {
				j.Set(b, r, cl.Value[g])
			}
		}
		if pr := prow[g]; pr >= 0 {
			j.Set(pr, r, cl.Gang)
		}
		if cr := crow[c]; cr >= 0 {
			j.Set(cr, r, 1)
		}
	}
	if theta == ceFinal {
		return j
	}
	for i, w := range m.Weights {
		if b := brow[i]; b >= 0 {
			j.Set(b, st.mu[i], -w)
		}
	}
	for c, cl := range m.Classes {
		if k := st.rent[c]; k >= 0 {
			if b := brow[cl.Buyer]; b >= 0 {
				j.Set(b, k, -theta*cl.Count)
			}
		}
	}
	return j
}

// rowsFrom numbers the rows of ceResidual after the edges', from first:
// each buyer's, type's and class's row, or −1 where it has none (its μ,
// price or rent is fixed at 0), and the number after the last.
func (st *ceState) rowsFrom(first int) (buyer, price, rent []int, next int) {
	next = first
	number := func(idx []int) []int {
		out := make([]int, len(idx))
		for i, k := range idx {
			out[i] = -1
			if k >= 0 {
				out[i] = next
				next++
			}
		}
		return out
	}
	buyer = number(st.mu)
	price = number(st.price)
	rent = number(st.rent)
	return buyer, price, rent, next
}

// ceNewton runs Gauss–Newton at θ; it reports whether the residual
// vanished.
func ceNewton(m *Market, st *ceState, z []float64, theta float64) bool {
	scale := 1.0
	for _, w := range m.Weights {
		scale = math.Max(scale, w)
	}
	for _, c := range m.Caps {
		scale = math.Max(scale, c)
	}
	for it := 0; it < 40; it++ {
		r := ceResidual(m, st, z, theta)
		norm := 0.0
		for _, v := range r {
			norm = math.Max(norm, math.Abs(v))
		}
		if norm <= 1e-13*scale {
			return true
		}
		if len(r) == 0 || st.n == 0 {
			return false
		}
		step, ok := ceStep(m, st, z, theta, r)
		if !ok && st.n <= svdLimit {
			// Singular or nearly so: the minimum-norm step of the dense
			// Jacobian, where its SVD is affordable. Above that size the
			// dense LU would meet the same singular system.
			step, ok = newtonStep(ceJacobian(m, st, z, theta, len(r)), r)
		}
		if !ok {
			return false
		}
		// Backtrack until the residual shrinks: a full step from a point
		// far from the solution can run off along a near-singular direction.
		trial := make([]float64, len(z))
		for t := 1.0; ; t /= 2 {
			if t < 1e-6 {
				return false
			}
			for k := range z {
				trial[k] = z[k] - t*step[k]
			}
			if maxAbs(ceResidual(m, st, trial, theta)) < norm {
				copy(z, trial)
				break
			}
		}
	}
	return false
}

func maxAbs(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s = math.Max(s, math.Abs(x))
	}
	return s
}

// ceSolveAt solves the equations at θ from z, updating the active set
// until every sign and inequality holds; ok is false when it cannot.
func ceSolveAt(m *Market, st *ceState, z []float64, theta float64) (*ceState, []float64, bool) {
	limit := 4 * (len(m.Classes)*len(m.Caps) + len(m.Caps) + len(m.Classes) + len(m.Weights))
	seen := map[string]int{}
	for round := 0; round <= limit; round++ {
		key := st.key()
		if seen[key] >= ceCycle {
			return nil, nil, false
		}
		seen[key]++
		if !ceNewton(m, st, z, theta) {
			return nil, nil, false
		}
		if theta < 1 {
			for _, k := range st.mu {
				if k >= 0 && z[k] < -1e-11 {
					return nil, nil, false // off the path: a shorter step in θ
				}
			}
		}
		if k := ceMostNegative(m, st, z, theta); k >= 0 {
			z = st.remove(k, z)
			continue
		}
		if add := ceViolated(m, st, z, theta); add != nil {
			z = add(z)
			continue
		}
		return st, z, true
	}
	return nil, nil, false
}

// ceMostNegative is the unknown that is most negative below rounding (a
// share, μ, price or rent), or −1. μ_i may reach 0 only at θ = 1, where the
// buyer is then satiated.
func ceMostNegative(m *Market, st *ceState, z []float64, theta float64) int {
	if theta >= 1 {
		return mostNegative(z, -1e-11, len(st.edges), st.price, st.rent, st.mu)
	}
	return mostNegative(z, -1e-11, len(st.edges), st.price, st.rent)
}

// ceCycle is how often ceSolveAt may enter one active set before it
// gives up on the step in θ: removing the most negative unknown and adding
// the most violated inequality can cycle at a degenerate point (on a
// market of the checker's starvation workload, 83 classes, the same few
// sets came round until the round limit, 1,352 rounds, in 19 steps of θ,
// 55 s of one decision).
const ceCycle = 3

// key names the active set: its pairs and which μ, prices and rents are
// unknowns.
func (st *ceState) key() string {
	edges := slices.Clone(st.edges)
	slices.SortFunc(edges, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	b := make([]byte, 0, 8*len(edges)+len(st.mu)+len(st.price)+len(st.rent))
	for _, e := range edges {
		b = binary.LittleEndian.AppendUint32(b, uint32(e[0]))
		b = binary.LittleEndian.AppendUint32(b, uint32(e[1]))
	}
	for _, idx := range [][]int{st.mu, st.price, st.rent} {
		for _, k := range idx {
			if k >= 0 {
				b = append(b, 1)
			} else {
				b = append(b, 0)
			}
		}
	}
	return string(b)
}

// remove fixes unknown k at 0 (dropping an edge's share, a price, a rent,
// or a buyer's μ) and returns z without it.
func (st *ceState) remove(k int, z []float64) []float64 {
	st.n--
	return dropUnknown(k, z, &st.edges, st.mu, st.price, st.rent)
}

// ceViolated finds the most violated inequality outside the active set and
// returns the function that adds it (its unknown starting at 0), or nil.
func ceViolated(m *Market, st *ceState, z []float64, theta float64) func([]float64) []float64 {
	best := 1e-10
	var fix func([]float64) []float64
	consider := func(v float64, f func([]float64) []float64) {
		if v > best {
			best, fix = v, f
		}
	}
	in := map[[2]int]bool{}
	load := make([]float64, len(m.Caps))
	time := make([]float64, len(m.Classes))
	spend := make([]float64, len(m.Weights))
	for k, e := range st.edges {
		in[e] = true
		cl := &m.Classes[e[0]]
		load[e[1]] += cl.Gang * z[k]
		time[e[0]] += z[k]
		spend[cl.Buyer] += cl.Gang * value(z, st.price[e[1]]) * z[k]
	}
	for c, cl := range m.Classes {
		for g := range m.Caps {
			if !m.Usable(c, g) || in[[2]int{c, g}] {
				continue
			}
			cost := value(z, st.mu[cl.Buyer])*cl.Gang*value(z, st.price[g]) + value(z, st.rent[c])
			e := [2]int{c, g}
			consider((cl.Value[g]-cost)/cl.Value[g], func(z []float64) []float64 {
				return st.insert(len(st.edges), z, func(int) { st.edges = append(st.edges, e) })
			})
		}
	}
	for g, k := range st.price {
		if k < 0 {
			g := g
			consider((load[g]-m.Caps[g])/math.Max(1, m.Caps[g]), func(z []float64) []float64 {
				return st.insert(st.n, z, func(k int) { st.price[g] = k })
			})
		}
	}
	for c, k := range st.rent {
		if k < 0 {
			c := c
			consider((time[c]-m.Classes[c].Count)/math.Max(1, m.Classes[c].Count), func(z []float64) []float64 {
				return st.insert(st.n, z, func(k int) { st.rent[c] = k })
			})
		}
	}
	if theta >= 1 {
		for i, k := range st.mu {
			if k < 0 {
				i := i
				consider((spend[i]-m.Weights[i])/m.Weights[i], func(z []float64) []float64 {
					return st.insert(st.n, z, func(k int) { st.mu[i] = k })
				})
			}
		}
	}
	return fix
}

// insert adds an unknown at position at (0-valued), shifting the indices
// above it, and lets set record it.
func (st *ceState) insert(at int, z []float64, set func(k int)) []float64 {
	out := append(append(append([]float64(nil), z[:at]...), 0), z[at:]...)
	for _, idx := range [][]int{st.mu, st.price, st.rent} {
		for i, v := range idx {
			if v >= at {
				idx[i] = v + 1
			}
		}
	}
	st.n++
	set(at)
	return out
}

// ceSpending is every buyer's spending at z.
func ceSpending(m *Market, st *ceState, z []float64) []float64 {
	spend := make([]float64, len(m.Weights))
	for k, e := range st.edges {
		cl := &m.Classes[e[0]]
		spend[cl.Buyer] += cl.Gang * value(z, st.price[e[1]]) * z[k]
	}
	return spend
}

// ceRead is the allocation and certificate at a solved point.
func ceRead(m *Market, st *ceState, z []float64) ([][]float64, *CECertificate) {
	x := make([][]float64, len(m.Classes))
	for c := range x {
		x[c] = make([]float64, len(m.Caps))
	}
	for k, e := range st.edges {
		x[e[0]][e[1]] = math.Max(0, z[k])
	}
	x = shrink(m, x)
	cert := &CECertificate{Prices: make([]float64, len(m.Caps)), Mu: make([]float64, len(m.Weights)), Rents: make([]float64, len(m.Classes))}
	for g, k := range st.price {
		cert.Prices[g] = math.Max(0, value(z, k))
	}
	for i, k := range st.mu {
		cert.Mu[i] = math.Max(0, value(z, k))
	}
	for c, k := range st.rent {
		cert.Rents[c] = math.Max(0, value(z, k))
	}
	return x, cert
}
