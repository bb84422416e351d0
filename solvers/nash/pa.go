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
// One market is solved per buyer (one agent removed), with s's settings
// and the interior-point start (Solver.Interior: only their utilities
// enter f, and those are unique); their solutions are returned too (nil
// for a buyer alone).
func (s Solver) Discounts(m *Market, sol *Solution) ([]float64, []*Solution, error) {
	return s.discountsWith(m, sol, true)
}

// discountsWith is Discounts with the interior-point start on or off.
func (s Solver) discountsWith(m *Market, sol *Solution, interior bool) ([]float64, []*Solution, error) {
	s.Interior = interior
	f := make([]float64, len(m.Weights))
	others := make([]*Solution, len(m.Weights))
	for i := range m.Weights {
		rest, back := m.withoutOne(i)
		if len(rest.Weights) == 0 {
			f[i] = 1 // alone: nobody to compensate
			continue
		}
		other, err := s.solveNear(rest, m, sol, i)
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
		f[i] = math.Min(1, math.Max(0, math.Exp(logf/omega)))
	}
	return f, others, nil
}

// warmLimit is the largest market (classes × types) whose leave-one-out
// solves start from the full optimum.
const warmLimit = 300

// solveNear solves rest, the market m without one agent of buyer i, first
// by polishing m's optimum sol restricted to rest (the optimum moves little
// when one agent leaves, and the polish's certificate decides whether it
// found the new one), else from scratch.
func (s Solver) solveNear(rest, m *Market, sol *Solution, i int) (*Solution, error) {
	// Only small markets: on a large one a poor guess costs several dense
	// solves of thousands of unknowns, more than the cutting planes.
	if sol.Cert != nil && len(rest.Classes)*len(rest.Caps) <= warmLimit {
		var x [][]float64
		var rents []float64
		keep := (m.agents(i) - 1) / m.agents(i)
		for c, cl := range m.Classes {
			switch {
			case cl.Buyer != i:
				x = append(x, append([]float64(nil), sol.X[c]...))
				rents = append(rents, sol.Cert.Rents[c])
			case keep > 0:
				row := make([]float64, len(sol.X[c]))
				for g, v := range sol.X[c] {
					row[g] = v * keep
				}
				x = append(x, row)
				rents = append(rents, sol.Cert.Rents[c])
			}
		}
		if len(x) == len(rest.Classes) && rest.Validate() == nil {
			if near, cert := polish(rest, x, sol.Cert.Prices, rents); near != nil {
				near.Cert = cert
				return near, nil
			}
		}
	}
	// Only the utilities of this optimum matter (they are unique), so the
	// interior-point start may serve.
	return s.Solve(rest)
}
