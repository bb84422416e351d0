package nash

import (
	"errors"
	"fmt"
	"math"
	"time"

	"fairbench/solvers/lp"
)

// Solution is an allocation of a Market with its utilities.
type Solution struct {
	// X[c][g] is the total time class c spends on type g.
	X [][]float64
	// U[i] is buyer i's utility.
	U []float64
	// Welfare is Σ_i w_i·log U_i at X.
	Welfare float64
	// Bound is an upper bound on the optimal welfare (the last outer
	// approximation's optimum); Bound − Welfare bounds how far X is from
	// optimal.
	Bound float64
	// Iterations is the number of LP solves of the cutting-plane loop (0
	// when the interior-point method settled the market).
	Iterations int
	// Newton is the number of interior-point iterations (ipm.go).
	Newton int
	// Exact reports that X is the optimum to rounding, found by polishing
	// the cutting-plane point (see polish.go), with a duality gap below
	// 1e-11·Σw; otherwise X is the cutting-plane point.
	Exact bool
	// Cert proves how close X is to the optimum (Certificate).
	Cert *Certificate
}

// Solver computes Eisenberg–Gale allocations (see the package comment).
// The zero value uses lp.Default(), the default tolerance and no deadline.
type Solver struct {
	// LP solves the outer approximations (nil: lp.Default()).
	LP lp.Solver
	// Tol is the absolute gap Bound − Welfare, in units of Σ_i w_i, at which
	// the cutting-plane loop stops (0: DefaultTol).
	Tol float64
	// MaxIterations bounds the LP solves of one Solve (0:
	// DefaultMaxIterations); the best point is then polished, and returned
	// with its certificate's gap if the polish fails.
	MaxIterations int
	// Interior starts a small market's solve (ipmLimit) with the
	// interior-point method (ipm.go), the cutting planes taking over when
	// its point cannot be certified. Its optimum has the same utilities as
	// the cutting planes' (they are unique) but, where the optimal shares
	// are not unique, spreads them (the interior-point method converges to
	// the middle of the optimal face, the cutting planes to a vertex), and
	// the round mechanism realises spread shares worse; and the polish from
	// the middle of a degenerate face takes dense SVD steps, which made it
	// slower than the cutting planes on the leave-one-out markets of
	// Discounts too (measured: docs/algorithms/nash.md). No policy sets it.
	Interior bool
	// Deadline, when set, stops a solve that has not converged by then with
	// an error matching lp.ErrLimit.
	Deadline time.Time
	// values says that only the optimum's utilities will be read (they are
	// unique; the shares need not be): Discounts' leave-one-out solves.
	// Then each LP of the cutting planes starts from the basis of the one
	// before (lp.Options.Warm, its new tangents' rows slack), where a cold
	// start re-solved the whole LP each time (half the CPU of
	// gavel-strategy-proof's leave-one-out solves, measured); among tied
	// optimal vertices it may end at another, which the policies' own
	// allocations must not (the round mechanism realises them).
	values bool
}

// Defaults of Solver.
const (
	// DefaultTol stops the loop when the welfare is within 1e-10·Σw of
	// the optimum.
	DefaultTol = 1e-10
	// DefaultMaxIterations bounds the cutting-plane loop.
	DefaultMaxIterations = 400
)

// polishEvery is how often (in LP solves) the cutting-plane loop tries to
// polish its best point before it converges.
const polishEvery = 10

// kelley is the state of one cutting-plane solve: the LP with its cuts.
// Each buyer's utility is measured in units of top_i, its stand-alone
// bound, inside the LP (t_i approximates log(U_i/top_i)), which keeps the
// cuts' coefficients within a few powers of ten; offset = Σ_i w_i·log top_i
// turns the LP's objective back into welfare.
type kelley struct {
	m      *Market
	p      lp.Problem
	x      [][]int // variable of X[c][g], −1 where unusable
	t      []int   // variable t_i
	top    []float64
	offset float64
	cuts   [][]float64
	lowest []float64
}

// Solve maximises Σ_i w_i·log U_i over the allocations of m by Kelley's
// cutting-plane method: each buyer's log U_i is replaced by the minimum of
// its tangents log u + (U_i − u)/u at points u, an LP that over-estimates
// the welfare; after each LP solve a tangent is added at every buyer's new
// utility, until the LP bound and the welfare of its solution differ by at
// most Tol·Σw. Every LP optimum is a Pareto-efficient allocation (the
// tangents increase with U_i), so the result is Pareto efficient up to the
// LP solver's own tolerance whatever the gap. When no class's time cap is
// needed at the optimum (a linear market), Polish replaces the point by the
// exact equilibrium.
func (s Solver) Solve(m *Market) (*Solution, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	backend := s.LP
	if backend == nil {
		backend = lp.Default()
	}
	tol, maxIter := s.Tol, s.MaxIterations
	if tol <= 0 {
		tol = DefaultTol
	}
	if maxIter <= 0 {
		maxIter = DefaultMaxIterations
	}
	totalW := 0.0
	for _, w := range m.Weights {
		totalW += w
	}
	if s.interiorFirst(m) {
		if sol, err := s.interior(m, totalW); err != nil || sol != nil {
			return sol, err
		}
	}
	return s.cuttingPlanes(m, backend, tol*totalW, maxIter)
}

// cuttingPlanes runs Kelley's method on m (see Solve) with the LP backend
// until the gap is at most gap, no tangent tightens or after maxIter LP
// solves, and finishes the best point found.
func (s Solver) cuttingPlanes(m *Market, backend lp.Solver, gap float64, maxIter int) (*Solution, error) {
	k := newKelley(m)
	var best *Solution
	var duals []float64
	var warm *lp.Basis
	if s.values {
		warm = &lp.Basis{}
	}
	for it := 1; ; it++ {
		opt, err := s.outerOptions(warm, it)
		if err != nil {
			return nil, err
		}
		res, err := solveOuter(backend, &k.p, opt)
		if err != nil {
			if best != nil && !errors.Is(err, lp.ErrLimit) {
				break // numerical trouble deep in the loop: polish what we have
			}
			return nil, fmt.Errorf("nash: outer approximation %d: %w", it, err)
		}
		x := k.allocation(res.X)
		u := m.Utilities(x)
		sol := &Solution{X: x, U: u, Welfare: m.Welfare(u), Bound: res.Objective + k.offset, Iterations: it}
		if best == nil || sol.Welfare > best.Welfare {
			best, duals = sol, res.Duals
		}
		best.Bound = math.Min(best.Bound, res.Objective+k.offset)
		best.Iterations = it
		if best.Bound-best.Welfare <= gap {
			break
		}
		if it >= maxIter {
			// Polish what we have; its certificate (or the gap it reports)
			// says how far the point is from the optimum.
			break
		}
		if it%polishEvery == 0 && len(duals) >= len(m.Caps)+len(m.Classes) {
			// Many buyers make the cutting planes slow in the tail; the
			// polish often finds the exact optimum from an early point.
			if sol, cert := polish(m, best.X, capDuals(m, duals), timeDuals(m, duals)); sol != nil {
				sol.Iterations, sol.Cert = it, cert
				return sol, nil
			}
		}
		rowsBefore := len(k.p.Rows)
		if !k.tighten(res.X, u) {
			break // no buyer's tangent can tighten: the LP point is optimal to rounding
		}
		if warm != nil {
			warm = k.grown(warm, rowsBefore)
		}
	}
	return finish(m, best, duals, backend)
}

// outerOptions are the options of the it-th LP solve: the warm start, and
// the time left before the deadline, an error when it has passed.
func (s Solver) outerOptions(warm *lp.Basis, it int) (lp.Options, error) {
	if !s.Deadline.IsZero() && time.Now().After(s.Deadline) {
		return lp.Options{}, fmt.Errorf("nash: %d cutting-plane solves before the deadline: %w", it-1, lp.ErrLimit)
	}
	opt := lp.Options{Warm: warm}
	if !s.Deadline.IsZero() {
		opt.TimeLimit = time.Until(s.Deadline)
		if opt.TimeLimit <= 0 {
			return lp.Options{}, fmt.Errorf("nash: deadline reached: %w", lp.ErrLimit)
		}
	}
	return opt, nil
}

// solveOuter solves the outer approximation p with backend, and again with
// the dense simplex when another backend fails.
func solveOuter(backend lp.Solver, p *lp.Problem, opt lp.Options) (lp.Result, error) {
	res, err := backend.Solve(p, opt)
	if err != nil && errors.Is(err, lp.ErrSolver) && backend.Name() != (lp.Pure{}).Name() {
		// CLP can stop on a badly scaled outer approximation ("optimal
		// with secondary status 3": the unscaled problem keeps dual
		// infeasibilities); the dense simplex settles it.
		res, err = lp.Pure{}.Solve(p, opt)
	}
	return res, err
}

// tighten adds a tangent at every buyer's utility u_i whose log lies below
// the LP's t_i (in the LP solution x), and a low one for a buyer left with
// nothing; it reports whether any cut was added.
func (k *kelley) tighten(x, u []float64) bool {
	added := false
	for i := range k.m.Weights {
		ti := x[k.t[i]]
		ui := u[i] / k.top[i]
		switch {
		case ui <= 0:
			k.cut(i, k.lowest[i]/4)
			added = true
		case math.Log(ui) < ti-1e-15*math.Max(1, math.Abs(ti)):
			added = k.cut(i, ui) || added
		}
	}
	return added
}

// ipmLimit is the largest market (usable pairs) that Solve starts with the
// interior-point method when Solver.Interior is set: beyond it the polish
// of its point (dense, cubic in the pairs) fails or costs seconds, and the interior-point method stalls
// near complementarity 1e-9 (the reduced Newton systems lose their
// accuracy at a degenerate optimum), so the cutting planes go first.
const ipmLimit = 120

// interiorFirst reports whether Solve starts m with the interior-point
// method.
func (s Solver) interiorFirst(m *Market) bool {
	if !s.Interior {
		return false
	}
	pairs := 0
	for c := range m.Classes {
		for g := range m.Caps {
			if m.Usable(c, g) {
				pairs++
			}
		}
	}
	return pairs <= ipmLimit
}

// interior solves m by the interior-point method (ipm.go) and polishes its
// point; nil when neither the point nor its polish is certified optimal
// (then the cutting planes take over).
func (s Solver) interior(m *Market, totalW float64) (*Solution, error) {
	ip, err := ipmSolve(m, polishGap, s.Deadline)
	if err != nil || ip == nil {
		return nil, err
	}
	ip.Newton, ip.Iterations = ip.Iterations, 0
	if sol, cert := polish(m, ip.X, ip.Cert.Prices, ip.Cert.Rents); sol != nil {
		sol.Newton, sol.Cert = ip.Newton, cert
		return sol, nil
	}
	if ip.Cert.Gap <= polishGap*totalW {
		ip.Exact = true
		return ip, nil
	}
	return nil, nil
}

// finish polishes the cutting-plane point and attaches a certificate: the
// polished one, else one from the LP's duals (capacity and time rows), else
// one computed by Certify.
func finish(m *Market, best *Solution, duals []float64, backend lp.Solver) (*Solution, error) {
	var p, lam []float64
	if len(duals) >= len(m.Caps)+len(m.Classes) {
		p, lam = capDuals(m, duals), timeDuals(m, duals)
	} else {
		cert, err := Certify(m, best.X, backend)
		if err != nil {
			return nil, err
		}
		p, lam = cert.Prices, cert.Rents
	}
	if sol, cert := polish(m, best.X, p, lam); sol != nil {
		sol.Iterations = best.Iterations
		sol.Cert = cert
		return sol, nil
	}
	cert := &Certificate{Prices: p, Rents: lam, Dual: Dual(m, p, lam)}
	cert.Gap = cert.Dual - best.Welfare
	if len(duals) > 0 {
		// The LP's duals can sit at a degenerate vertex that misleads the
		// active-set guess; Certify's cheapest prices are a second start.
		c2, err := Certify(m, best.X, backend)
		if err != nil {
			return nil, err
		}
		if sol, cert := polish(m, best.X, c2.Prices, c2.Rents); sol != nil {
			sol.Iterations = best.Iterations
			sol.Cert = cert
			return sol, nil
		}
		if c2.Gap < cert.Gap || math.IsNaN(cert.Gap) {
			cert = c2
		}
	}
	best.Cert = cert
	return best, nil
}

// capDuals are the cutting-plane LP's duals of the capacity rows (the
// first rows): the prices p_g of its optimum.
func capDuals(m *Market, duals []float64) []float64 {
	p := make([]float64, len(m.Caps))
	for g := range p {
		p[g] = math.Max(0, duals[g])
	}
	return p
}

// timeDuals are its duals of the time rows (after the capacity rows): the
// rents λ_c.
func timeDuals(m *Market, duals []float64) []float64 {
	lam := make([]float64, len(m.Classes))
	for c := range lam {
		lam[c] = math.Max(0, duals[len(m.Caps)+c])
	}
	return lam
}

func newKelley(m *Market) *kelley {
	k := &kelley{m: m, p: lp.Problem{Sense: lp.Maximize}}
	nb := len(m.Weights)
	k.t = make([]int, nb)
	k.cuts = make([][]float64, nb)
	k.lowest = make([]float64, nb)
	for i, w := range m.Weights {
		k.t[i] = len(k.p.Vars)
		k.p.Vars = append(k.p.Vars, lp.Var{Name: fmt.Sprintf("t[%d]", i), Lower: math.Inf(-1), Upper: math.Inf(1), Obj: w})
	}
	for g, c := range m.Caps {
		k.p.Rows = append(k.p.Rows, lp.Row{Name: fmt.Sprintf("cap[%d]", g), Lower: math.Inf(-1), Upper: c})
	}
	k.x = make([][]int, len(m.Classes))
	top := make([]float64, nb)
	for c, cl := range m.Classes {
		row := len(k.p.Rows)
		k.p.Rows = append(k.p.Rows, lp.Row{Name: fmt.Sprintf("time[%d]", c), Lower: math.Inf(-1), Upper: cl.Count})
		k.x[c] = make([]int, len(m.Caps))
		best, room := 0.0, 0.0
		for g := range m.Caps {
			k.x[c][g] = -1
			if !m.Usable(c, g) {
				continue
			}
			v := len(k.p.Vars)
			k.x[c][g] = v
			k.p.Vars = append(k.p.Vars, lp.Var{Name: fmt.Sprintf("X[%d][%d]", c, g), Upper: math.Inf(1)})
			k.p.Rows[row].Coefs = append(k.p.Rows[row].Coefs, lp.Term{Var: v, Coef: 1})
			k.p.Rows[g].Coefs = append(k.p.Rows[g].Coefs, lp.Term{Var: v, Coef: cl.Gang})
			best = math.Max(best, cl.Value[g])
			room += m.Caps[g] / cl.Gang
		}
		top[cl.Buyer] += best * math.Min(cl.Count, room)
	}
	// Initial tangents on a geometric grid below each buyer's stand-alone
	// bound, so that every t_i is bounded and U_i = 0 is never attractive;
	// the loop adds lower ones if a buyer's utility falls below them.
	k.top = top
	for i, w := range m.Weights {
		k.offset += w * math.Log(top[i])
		for u, n := 1.0, 0; n < 6; u, n = u/4, n+1 {
			k.cut(i, u)
		}
	}
	return k
}

// grown carries warm, the basis of the LP before the tangents from row
// before on were added, to the LP with them (the new rows' slacks basic).
func (k *kelley) grown(warm *lp.Basis, before int) *lp.Basis {
	vars := make([]int, len(k.p.Vars))
	for j := range vars {
		vars[j] = j
	}
	rows := make([]int, len(k.p.Rows))
	for r := range rows {
		rows[r] = r
		if r >= before {
			rows[r] = -1
		}
	}
	return warm.Remap(vars, rows)
}

// cut adds the tangent t_i ≤ log u − 1 + (U_i/top_i)/u; it reports false
// when a tangent at (nearly) the same point is already there.
func (k *kelley) cut(i int, u float64) bool {
	if !(u > 0) || math.IsInf(u, 0) {
		return false
	}
	for _, v := range k.cuts[i] {
		if math.Abs(v-u) <= 1e-13*u {
			return false
		}
	}
	k.cuts[i] = append(k.cuts[i], u)
	if k.lowest[i] == 0 || u < k.lowest[i] {
		k.lowest[i] = u
	}
	row := lp.Row{Name: fmt.Sprintf("cut[%d,%d]", i, len(k.cuts[i])), Lower: math.Inf(-1), Upper: math.Log(u) - 1}
	row.Coefs = append(row.Coefs, lp.Term{Var: k.t[i], Coef: 1})
	for c, cl := range k.m.Classes {
		if cl.Buyer != i {
			continue
		}
		for g, v := range k.x[c] {
			if v >= 0 {
				row.Coefs = append(row.Coefs, lp.Term{Var: v, Coef: -cl.Value[g] / (k.top[i] * u)})
			}
		}
	}
	k.p.Rows = append(k.p.Rows, row)
	return true
}

// allocation reads X from an LP solution, with negative noise cut to 0.
func (k *kelley) allocation(v []float64) [][]float64 {
	x := make([][]float64, len(k.m.Classes))
	for c := range x {
		x[c] = make([]float64, len(k.m.Caps))
		for g, idx := range k.x[c] {
			if idx >= 0 && v[idx] > 0 {
				x[c][g] = v[idx]
			}
		}
	}
	return x
}
