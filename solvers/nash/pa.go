package nash

import (
	"fmt"
	"math"
)

// Discounts returns the partial-allocation fractions of Cole, Gkatzelis
// and Goel ("Mechanism design for fair division: allocating divisible items
// without payments", EC 2013) for the optimum sol of m: each agent keeps
// the fraction
//
//	f_i = ( Π_{j≠i} (Ū_j* / Ū_j^{−i})^{ω_j} )^{1/ω_i}
//
// of its share of sol, where Ū_j* is agent j's utility at the
// Eisenberg–Gale optimum of m, Ū_j^{−i} its utility at the optimum of the
// market without agent i, and ω the agents' weights (the product running
// over agents, identical agents of one buyer included). The withheld
// 1 − f_i is the agent's payment in resources.
//
// Why it is strategy-proof (their Theorem; the argument is short): agent
// i's utility, raised to ω_i, is
//
//	(f_i·Ū_i*)^{ω_i} = Π_j (Ū_j*)^{ω_j} / Π_{j≠i} (Ū_j^{−i})^{ω_j};
//
// the denominator does not depend on i's report, and the numerator, the
// weighted Nash welfare of the chosen allocation measured with i's true
// utility, is largest when the allocation is the optimum for i's true
// utility, i.e. when i reports it. This needs utilities that scale with the
// shares (Ū(f·x) = f·Ū(x), true here: utility is linear in the time
// fractions) and the exact optimum (the polished solution, Solution.Exact).
// The discount never exceeds 1: the others' optimum without i is at least
// as good for them as any allocation that also serves i.
//
// One market per buyer (one agent removed); their solutions are returned
// too (nil for a buyer alone). Only their utilities enter f, and those are
// unique, so each is taken, in this order, from the full optimum's
// certificate where it proves the others' optimum unmoved (unmoved), from
// a polish of the full optimum restricted where one of at least
// nearAgents identical agents leaves (nearby), else from s's cutting
// planes warm-started from LP to LP (Solver.values). The interior-point
// start (Solver.Interior) would polish from the middle of a degenerate
// optimal face, whose singular Newton systems take dense SVD steps: 3–10
// times slower on the default scenario's markets and on the checker's
// (docs/algorithms/nash.md).
func (s Solver) Discounts(m *Market, sol *Solution) ([]float64, []*Solution, error) {
	s.values = true
	f := make([]float64, len(m.Weights))
	others := make([]*Solution, len(m.Weights))
	for i := range m.Weights {
		rest, back := m.withoutOne(i)
		if len(rest.Weights) == 0 {
			f[i] = 1 // alone: nobody to compensate
			continue
		}
		other, ok := unmoved(m, rest, sol, i)
		if !ok && m.agents(i) >= nearAgents && len(rest.Classes)*len(rest.Caps) <= warmLimit {
			other, ok = nearby(m, rest, sol, i)
		}
		var err error
		if !ok {
			other, err = s.Solve(rest)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("nash: leave-one-out market of buyer %d (%d of %d solved): %w", i, i, len(m.Weights), err)
		}
		others[i] = other
		a := m.agents(i)
		omega := m.Weights[i] / a
		logf := 0.0
		for k, b := range back {
			w := m.Weights[b]
			before := sol.U[b] / m.agents(b)
			after := other.U[k] / rest.agents(k)
			if b == i {
				w -= omega // the other agents of i's own buyer
			}
			logf += w * math.Log(before/after)
		}
		f[i] = math.Max(0, math.Exp(logf/omega))
		if f[i] > 1-wholeTol {
			f[i] = 1
		}
	}
	return f, others, nil
}

// unmoved returns the optimum sol of m restricted to rest (m without one
// agent of buyer i: the buyer's classes gone, or scaled by (A_i − 1)/A_i)
// when sol's prices and rents prove it optimal for rest too: when its
// duality gap there (Certificate) is within the polish's bound, 1e-11·Σw.
// That is the case of an agent whose presence costs the others nothing,
// e.g. one that runs only on types left idle (price 0), where the others'
// optimum without it is the one they have; its discount is then 1 without
// a solve. ok is false when the certificate does not prove it.
func unmoved(m, rest *Market, sol *Solution, i int) (*Solution, bool) {
	x, rents, ok := restricted(m, rest, sol, i)
	if !ok {
		return nil, false
	}
	u := rest.Utilities(x)
	w := rest.Welfare(u)
	prices := append([]float64(nil), sol.Cert.Prices...)
	cert := &Certificate{Prices: prices, Rents: rents, Dual: Dual(rest, prices, rents)}
	cert.Gap = cert.Dual - w
	total := 0.0
	for _, v := range rest.Weights {
		total += v
	}
	if math.IsInf(w, -1) || !(cert.Gap <= polishGap*total) {
		return nil, false
	}
	return &Solution{X: x, U: u, Welfare: w, Bound: cert.Dual, Exact: true, Cert: cert}, true
}

// warmLimit is the largest leave-one-out market (classes × types) that
// nearby tries.
const warmLimit = 300

// nearAgents is the fewest agents a buyer stands for whose leave-one-out
// market nearby tries.
const nearAgents = 4

// nearby polishes sol restricted to rest (one agent of a buyer standing
// for several removed) into rest's optimum, certified, or reports false.
// Where a buyer of k identical agents loses one, the optimum moves little
// and its active set mostly stays (one decision at 2,048 jobs in 86
// classes: 0.2 s with it, 7 s by the cutting planes); where a whole buyer
// leaves it rarely stays, and the polish's failing dense steps cost more
// than the cutting planes, so Discounts tries it only for pooled buyers.
func nearby(m, rest *Market, sol *Solution, i int) (*Solution, bool) {
	x, rents, ok := restricted(m, rest, sol, i)
	if !ok || rest.Validate() != nil {
		return nil, false
	}
	near, cert := polish(rest, x, sol.Cert.Prices, rents)
	if near == nil {
		return nil, false
	}
	near.Cert = cert
	return near, true
}

// restricted is sol's allocation and rents restricted to rest, m without
// one agent of buyer i (the buyer's classes gone, or scaled by
// (A_i − 1)/A_i).
func restricted(m, rest *Market, sol *Solution, i int) ([][]float64, []float64, bool) {
	if sol.Cert == nil {
		return nil, nil, false
	}
	keep := (m.agents(i) - 1) / m.agents(i)
	x := make([][]float64, 0, len(rest.Classes))
	rents := make([]float64, 0, len(rest.Classes))
	for c, cl := range m.Classes {
		if cl.Buyer == i && keep == 0 {
			continue
		}
		row := append([]float64(nil), sol.X[c]...)
		if cl.Buyer == i {
			for g := range row {
				row[g] *= keep
			}
		}
		x = append(x, row)
		rents = append(rents, sol.Cert.Rents[c])
	}
	return x, rents, len(x) == len(rest.Classes)
}

// wholeTol is how close to 1 a discount is taken as 1: the agent costs the
// others nothing (its presence leaves their optimum as it was). The
// exact solves' rounding alone leaves such a discount a few 1e-16 below 1,
// differently along different exact solution paths (the cutting planes and
// the interior-point start differ by up to 6e-15 on the default scenario's
// markets), and the round mechanism, which orders jobs by their shares,
// would turn that noise into different schedules.
const wholeTol = 1e-9
