package nash

import (
	"errors"
	"fmt"
	"math"
)

// Market is one allocation decision seen as a Fisher market in the
// fractional time-sharing model (see the package comment): GPU types with
// capacities N_g, buyers with budgets (weights) w_i, and classes of
// identical jobs, each class owned by one buyer.
//
// The decision variables are X[c][g] ≥ 0, the total time the jobs of class c
// spend on type g (each job of the class gets X[c][g]/k_c), subject to
//
//	Σ_c d_c·X[c][g] ≤ N_g    for every type g      (capacity)
//	Σ_g X[c][g] ≤ k_c        for every class c     (time: a job runs on one type at a time)
//	X[c][g] = 0              where a[c][g] = 0 or d_c > N_g
//
// and buyer i's utility is U_i = Σ_{c∈i} Σ_g a[c][g]·X[c][g].
type Market struct {
	// Caps are the GPUs N_g of each type.
	Caps []float64
	// Weights are the buyers' budgets w_i (> 0).
	Weights []float64
	// Agents, when set, says that buyer i stands for Agents[i] ≥ 1
	// identical agents of weight w_i/Agents[i] each, sharing the buyer's
	// classes equally (a class of identical jobs, each its own agent, as in
	// Gavel's job-level policies); nil means one agent per buyer. Only
	// Discounts reads it: removing one agent of such a buyer leaves
	// Agents[i] − 1 of them.
	Agents []float64
	// Classes are the classes of identical jobs.
	Classes []Class
}

// Class is k_c identical jobs of one buyer.
type Class struct {
	// Buyer is the index of the owner in Market.Weights.
	Buyer int
	// Count is k_c, the number of jobs (> 0): the class's time cap.
	Count float64
	// Gang is d_c, the GPUs one job holds while it runs (> 0).
	Gang float64
	// Value is a[c][g] ≥ 0, the utility one job gains per unit of time on
	// type g (0: it cannot run there).
	Value []float64
}

// ErrInvalid is matched (errors.Is) by every error of Market.Validate.
var ErrInvalid = errors.New("nash: invalid market")

// Validate reports the first defect of m: mismatched lengths, a negative or
// non-finite figure, a buyer index out of range, a class with no count or
// gang, or a buyer with positive weight whose jobs can run nowhere (its
// utility would be 0 in every allocation and log 0 has no maximum).
func (m *Market) Validate() error {
	for g, c := range m.Caps {
		if !finite(c) || c < 0 {
			return fmt.Errorf("%w: capacity %d is %v", ErrInvalid, g, c)
		}
	}
	for i, w := range m.Weights {
		if !finite(w) || w <= 0 {
			return fmt.Errorf("%w: weight of buyer %d is %v", ErrInvalid, i, w)
		}
	}
	if m.Agents != nil && len(m.Agents) != len(m.Weights) {
		return fmt.Errorf("%w: %d agent counts for %d buyers", ErrInvalid, len(m.Agents), len(m.Weights))
	}
	for i, a := range m.Agents {
		if !finite(a) || a < 1 {
			return fmt.Errorf("%w: buyer %d stands for %v agents", ErrInvalid, i, a)
		}
	}
	runs := make([]bool, len(m.Weights))
	for c, cl := range m.Classes {
		switch {
		case cl.Buyer < 0 || cl.Buyer >= len(m.Weights):
			return fmt.Errorf("%w: class %d: buyer %d out of range", ErrInvalid, c, cl.Buyer)
		case !finite(cl.Count) || cl.Count <= 0:
			return fmt.Errorf("%w: class %d: count %v", ErrInvalid, c, cl.Count)
		case !finite(cl.Gang) || cl.Gang <= 0:
			return fmt.Errorf("%w: class %d: gang %v", ErrInvalid, c, cl.Gang)
		case len(cl.Value) != len(m.Caps):
			return fmt.Errorf("%w: class %d: %d values for %d types", ErrInvalid, c, len(cl.Value), len(m.Caps))
		}
		for g, a := range cl.Value {
			if !finite(a) || a < 0 {
				return fmt.Errorf("%w: class %d: value on type %d is %v", ErrInvalid, c, g, a)
			}
		}
		for g := range m.Caps {
			runs[cl.Buyer] = runs[cl.Buyer] || m.Usable(c, g)
		}
	}
	for i, ok := range runs {
		if !ok {
			return fmt.Errorf("%w: buyer %d has no job that can run on any type", ErrInvalid, i)
		}
	}
	return nil
}

// Usable reports whether class c can run on type g: a positive value and a
// gang no larger than the type's GPUs.
func (m *Market) Usable(c, g int) bool {
	cl := &m.Classes[c]
	return cl.Value[g] > 0 && cl.Gang <= m.Caps[g]
}

// Utilities are U_i(X) for every buyer.
func (m *Market) Utilities(x [][]float64) []float64 {
	u := make([]float64, len(m.Weights))
	for c, cl := range m.Classes {
		for g, v := range x[c] {
			u[cl.Buyer] += cl.Value[g] * v
		}
	}
	return u
}

// Welfare is Σ_i w_i·log U_i, −Inf when some buyer has nothing.
func (m *Market) Welfare(u []float64) float64 {
	s := 0.0
	for i, w := range m.Weights {
		if u[i] <= 0 {
			return math.Inf(-1)
		}
		s += w * math.Log(u[i])
	}
	return s
}

// Violation describes the first constraint X breaks by more than tol
// (relative to the bound), or returns "".
func (m *Market) Violation(x [][]float64, tol float64) string {
	load := make([]float64, len(m.Caps))
	for c, cl := range m.Classes {
		time := 0.0
		for g, v := range x[c] {
			switch {
			case v < -tol:
				return fmt.Sprintf("X[%d][%d] = %g < 0", c, g, v)
			case v > tol && !m.Usable(c, g):
				return fmt.Sprintf("X[%d][%d] = %g on a type the class cannot use", c, g, v)
			}
			time += v
			load[g] += cl.Gang * v
		}
		if time > cl.Count*(1+tol)+tol {
			return fmt.Sprintf("class %d runs %g > %g", c, time, cl.Count)
		}
	}
	for g, l := range load {
		if l > m.Caps[g]*(1+tol)+tol {
			return fmt.Sprintf("type %d is loaded %g > %g GPUs", g, l, m.Caps[g])
		}
	}
	return ""
}

// agents is the number of agents buyer i stands for.
func (m *Market) agents(i int) float64 {
	if m.Agents == nil {
		return 1
	}
	return m.Agents[i]
}

// withoutOne returns the market with one agent of buyer i removed: the
// buyer itself when it stands for one agent (the remaining buyers
// renumbered, in order), else the buyer with one agent fewer, its weight and
// its classes' job counts scaled by (A_i − 1)/A_i. back maps the new buyer
// indices to the old ones.
func (m *Market) withoutOne(i int) (out *Market, back []int) {
	out = &Market{Caps: m.Caps}
	a := m.agents(i)
	keep := a > 1
	idx := make([]int, len(m.Weights))
	for b, w := range m.Weights {
		if b == i && !keep {
			idx[b] = -1
			continue
		}
		idx[b] = len(out.Weights)
		back = append(back, b)
		ab := m.agents(b)
		if b == i {
			w *= (a - 1) / a
			ab = a - 1
		}
		out.Weights = append(out.Weights, w)
		if m.Agents != nil {
			out.Agents = append(out.Agents, ab)
		}
	}
	for _, cl := range m.Classes {
		if idx[cl.Buyer] < 0 {
			continue
		}
		if cl.Buyer == i {
			cl.Count *= (a - 1) / a
		}
		cl.Buyer = idx[cl.Buyer]
		out.Classes = append(out.Classes, cl)
	}
	return out, back
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
