package nash

import (
	"encoding/binary"
	"math"
)

// The policies decide at every round start, and a market reads only what
// the active jobs are (owner, gang, normalised speeds) and the cluster,
// not their progress: between two arrivals or completions every decision
// sees the market of the decision before (on the built-in default
// scenario, 58% of the decisions of its first 450 rounds). Each solve is a
// deterministic function of the market, so the policies remember the last
// decision's market, by its exact content, with what they computed for it,
// and answer the same market again without solving: the same allocation,
// bit for bit, only cheaper. A market seen earlier than the decision
// before is solved again (it was not seen in those rounds).

// recall holds the answer v computed for one market, by its key.
type recall[T any] struct {
	key string
	v   T
	set bool
}

// get returns the answer remembered for key.
func (r *recall[T]) get(key string) (T, bool) {
	if !r.set || r.key != key {
		var zero T
		return zero, false
	}
	return r.v, true
}

// put remembers v as key's answer, forgetting the one before.
func (r *recall[T]) put(key string, v T) { r.key, r.v, r.set = key, v, true }

// key is m's exact content (every figure's bits, in order), which decides
// every solve of m: equal keys, equal markets.
func (m *Market) key() string {
	n := 4 + len(m.Caps) + 2*len(m.Weights) + len(m.Classes)*(3+len(m.Caps))
	b := make([]byte, 0, 8*n)
	put := func(v float64) { b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v)) }
	size := func(n int) { b = binary.LittleEndian.AppendUint64(b, uint64(n)) }
	size(len(m.Caps))
	for _, v := range m.Caps {
		put(v)
	}
	size(len(m.Weights))
	for _, v := range m.Weights {
		put(v)
	}
	if m.Agents == nil {
		size(0)
	} else {
		size(1 + len(m.Agents))
		for _, v := range m.Agents {
			put(v)
		}
	}
	size(len(m.Classes))
	for _, c := range m.Classes {
		size(c.Buyer)
		put(c.Count)
		put(c.Gang)
		size(len(c.Value))
		for _, v := range c.Value {
			put(v)
		}
	}
	return string(b)
}

// clone is a deep copy of sol, so that no caller can change a remembered
// solution.
func (sol *Solution) clone() *Solution {
	out := *sol
	out.X = make([][]float64, len(sol.X))
	for c, row := range sol.X {
		out.X[c] = append([]float64(nil), row...)
	}
	out.U = append([]float64(nil), sol.U...)
	if sol.Cert != nil {
		cert := *sol.Cert
		cert.Prices = append([]float64(nil), cert.Prices...)
		cert.Rents = append([]float64(nil), cert.Rents...)
		out.Cert = &cert
	}
	return &out
}

// clone is a copy of c (nil for nil).
func (c *CECertificate) clone() *CECertificate {
	if c == nil {
		return nil
	}
	return &CECertificate{Prices: append([]float64(nil), c.Prices...), Mu: append([]float64(nil), c.Mu...),
		Rents: append([]float64(nil), c.Rents...)}
}

// partial is one decision of a partial-allocation mechanism: the optimum
// and its discounts.
type partial struct {
	sol   *Solution
	f     []float64
	exact bool // every solve of the decision was exact
}

// Partial computes the decisions of a partial-allocation mechanism
// (nash-pa, gavel-strategy-proof): a market's optimum and its discounts,
// the last one remembered for the decision after.
type Partial struct {
	last recall[partial]
}

// Decide returns the optimum of m (Solver.Solve) and its discounts
// (Solver.Discounts), by sv, and counts the decision in st. When m is the
// market of the last decision (exactly), it returns that decision's answer
// without solving (copies: the caller may keep them), counted as Reused.
func (p *Partial) Decide(sv Solver, m *Market, st *Stats) (*Solution, []float64, error) {
	key := m.key()
	if d, ok := p.last.get(key); ok {
		st.reuse(d.exact)
		return d.sol.clone(), append([]float64(nil), d.f...), nil
	}
	sol, err := sv.Solve(m)
	if err != nil {
		return nil, nil, err
	}
	f, others, err := sv.Discounts(m, sol)
	if err != nil {
		return nil, nil, err
	}
	all := append([]*Solution{sol}, present(others)...)
	st.Add(all...)
	d := partial{sol: sol.clone(), f: append([]float64(nil), f...), exact: true}
	for _, o := range all {
		d.exact = d.exact && o.Exact
	}
	p.last.put(key, d)
	return sol, f, nil
}

// present is sols without its nil entries.
func present(sols []*Solution) []*Solution {
	var out []*Solution
	for _, s := range sols {
		if s != nil {
			out = append(out, s)
		}
	}
	return out
}
