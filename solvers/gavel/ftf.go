package gavel

import (
	"math"
	"strconv"

	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/lp"
)

// Registered name and summary.
const (
	FTFName    = "gavel-ftf"
	FTFSummary = "Gavel finish-time fairness (Themis ρ): minimise the largest ρ_j, bisection over LP feasibility"
)

// feasibleS is how close to 1 the largest scale s of a feasibility LP must
// come for its ρ to count as feasible (solver noise).
const feasibleS = 1 - 1e-9

// FTF is Gavel's finish-time fairness policy (Narayanan et al., OSDI 2020,
// after Themis, Mahajan et al., NSDI 2020; docs/algorithms/gavel.md):
//
//	minimise   max_j ρ_j(x),   ρ_j(x) = (t_j + R_j / y_j(x)) / (τ_j + R_j / e_j)
//	subject to the shared constraints (model)
//
// over the jobs with steps left, where y_j(x) = Σ_g T[j][g]·x[j][g], t_j is
// the time since the job arrived, R_j its remaining steps, e_j its
// throughput on 1/n of every type (models.Environment.EqualShareThroughput with
// f = 1/n, Themis' independent share) and τ_j the job's cumulative
// isolated time: the sum, over the decisions so far, of the steps it did
// between one decision and the next divided by the e_j of the first (so the
// denominator is the job's whole run time had it always had its isolated
// share, as in Gavel). Job weights do not enter (nor do they in Gavel).
//
// ρ_j(x) ≤ ρ holds exactly when y_j(x) ≥ q_j(ρ) = R_j / (ρ·D_j − t_j), with
// D_j = τ_j + R_j/e_j and ρ·D_j > t_j: for a fixed ρ a linear feasibility
// problem. Gavel hands the convex program to cvxpy; here it is solved by
// bisection on ρ, each step the LP
//
//	maximise s ∈ [0, 2] subject to y_j(x) ≥ s·q_j(ρ) for every job j
//
// ρ is feasible when s ≥ 1; then the LP's allocation x has
// max_j ρ_j(x) ≤ ρ, and that value (not ρ) becomes the new upper bound. The
// bisection starts from lo = max_j (t_j + R_j/max_g T[j][g]) / D_j (no job
// can run faster than alone on its best type) and hi = max_j ρ_j of the
// equal-share allocation (each job on 1/n of every type, fastest first, which
// is always feasible), and stops when hi − lo ≤ tolerance·hi or after
// max_bisections steps.
//
// The allocation returned (solution central, the default) is the central
// solution (lp.Interior) of the feasibility problem y_j(x) ≥ q_j(hi) for
// every job: an interior point of the allocations whose max ρ is at most hi,
// as Gavel's solver returns an interior point of its optimal set; beyond
// lp.Interior's size (maxInterior variables, counted in Tally.Fallbacks) it
// is the bisection's last feasible LP vertex, as it always is with solution
// vertex. Objective
// reports the max ρ_j of the returned allocation, within tolerance of the
// optimum.
//
// Differences from Gavel: Gavel's e_j is the throughput under its isolated
// split (gavel-isolated: x[g] = (N_g/n)/d_j, divided by max(1, Σ_g x[g]));
// fairbench uses Themis' 1/n share, the same isolated throughput as the
// simulator's ρ metric. Gavel minimises max ρ as one convex program; the
// bisection reaches its optimum within tolerance.
//
// The policy keeps τ_j, the last e_j and the steps done per job between
// decisions (dropped when the job leaves), so build one FTF per simulation
// run; it is not safe for concurrent use.
type FTF struct {
	base
	tolerance float64
	maxSteps  int
	hist      map[models.JobID]ftfHist
	carry     *carried // the last decision's bisection LP, for a warm first step
}

// ftfHist is what FTF remembers of a job from the previous decision.
type ftfHist struct {
	done float64 // steps done then
	iso  float64 // e_j then
	tau  float64 // cumulative isolated time up to then
}

// NewFTF builds gavel-ftf from FTFOptions.
func NewFTF(c solvers.Config) (solvers.Policy, error) {
	o := FTFOptions{Options: defaultOptions(), Tolerance: DefaultTolerance, MaxBisections: DefaultMaxBisections}
	b, err := newBase(FTFName, c, &o, false)
	if err != nil {
		return nil, err
	}
	return &FTF{base: b, tolerance: o.Tolerance,
		maxSteps: o.MaxBisections, hist: map[models.JobID]ftfHist{}}, nil
}

// ftfJob is one job's data: ρ_j(y) = b + a/y with a = R/D and b = t/D.
type ftfJob struct {
	a, b float64
}

func (f ftfJob) rho(y float64) float64 {
	if f.a == 0 {
		return f.b
	}
	if y <= 0 {
		return math.Inf(1)
	}
	return f.b + f.a/y
}

// Allocate runs the bisection above.
func (p *FTF) Allocate(s *models.Snapshot) (models.Allocation, error) {
	in, err := p.open(s)
	if in == nil {
		if err == nil {
			clear(p.hist)
			p.carry = nil
		}
		return models.Allocation{}, err
	}
	n := in.n()
	jobs := make([]ftfJob, n)
	next := make(map[models.JobID]ftfHist, n)
	for i := range s.Jobs {
		j := &s.Jobs[i]
		e := equalShare(in.tput[i], in.caps, j.Gang, 1/float64(n))
		h := p.hist[j.ID]
		if h.iso > 0 {
			h.tau += math.Max(0, j.Done-h.done) / h.iso
		}
		next[j.ID] = ftfHist{done: j.Done, iso: e, tau: h.tau}
		r := j.Remaining()
		d := h.tau + r/e
		if r > 0 {
			jobs[i] = ftfJob{a: r / d, b: (s.Now - j.Arrival).Seconds() / d}
		}
	}
	p.hist = next

	classes := group(n, p.opt.Aggregate, func(k keyer, i int) keyer {
		return k.num(float64(in.gang(i))).nums(in.tput[i]).num(jobs[i].a).num(jobs[i].b)
	})
	// The start: lo and the equal-share allocation's hi.
	best := make([][]float64, len(classes))
	lo, hi := 0.0, 0.0
	for c, cl := range classes {
		r := cl.rep()
		best[c] = equalShareX(in.tput[r], in.caps, in.gang(r), 1/float64(n))
		lo = math.Max(lo, jobs[r].rho(maxOf(in.tput[r])))
		hi = math.Max(hi, jobs[r].rho(yield(in.tput[r], best[c])))
	}

	m := newModel(in, classes, lp.Maximize, false)
	sv := m.variable("s", 0, 2, 1)
	rows := make([]int, len(classes)) // −1 for classes without steps left
	for c, cl := range classes {
		rows[c] = -1
		if jobs[cl.rep()].a > 0 {
			rows[c] = m.throughputRow("rho["+strconv.Itoa(c)+"]", c, in.tput[cl.rep()], 0, math.Inf(1))
			m.add(rows[c], sv, -1) // coefficient −q_c(ρ), set per step
		}
	}
	run := p.solver()
	// The steps' LPs differ only in s's coefficients: each starts from the
	// previous one's basis (lp.Options.Warm).
	// The first step starts from the previous decision's last basis,
	// carried over by the job that represents each class (carried: only the
	// vertex reached among tied optima can differ from a cold start, not
	// the optimal value s, which decides each step).
	sh := newShape(m, rows, sv, nil)
	keys := make([]string, len(classes))
	for c, cl := range classes {
		keys[c] = strconv.Itoa(int(in.s.Jobs[cl.rep()].ID))
	}
	warm := &lp.Basis{}
	if p.carry != nil {
		warm = p.carry.start(m, sh, keys)
	}
	defer func() { p.carry = carry(m, sh, keys, *warm) }()
	for step := 0; step < p.maxSteps && hi-lo > p.tolerance*hi; step++ {
		rho := (lo + hi) / 2
		for c, cl := range classes {
			if r := rows[c]; r >= 0 {
				f := jobs[cl.rep()]
				terms := m.p.Rows[r].Coefs
				terms[len(terms)-1].Coef = -f.a / (rho - f.b) // −q_c(ρ); ρ > lo > b
			}
		}
		res, err := run.solveWarm(&m.p, "finish-time fairness ρ = "+strconv.FormatFloat(rho, 'g', 6, 64), warm)
		if err != nil {
			return models.Allocation{}, err
		}
		if res.X[sv] < feasibleS {
			lo = rho
			continue
		}
		x := m.matrix(m.clean(res.X))
		got := 0.0
		for c, cl := range classes {
			got = math.Max(got, jobs[cl.rep()].rho(yield(in.tput[cl.rep()], x[c])))
		}
		if got < hi {
			hi, best = got, x
		} else {
			lo = rho // noise: no progress from this side
		}
	}
	p.objective = hi
	if p.opt.Solution == SolutionVertex {
		return models.Allocation{Fractions: expand(in, classes, best)}, nil
	}
	if len(classes)*len(in.types) > maxInterior {
		// Too large for the central solve: the vertex the simplex would
		// give instead (solveModel's fallback) may as well be the
		// bisection's, which already has max ρ = hi.
		p.tally.Fallbacks++
		return models.Allocation{Fractions: expand(in, classes, best)}, nil
	}
	// The central allocation among those with max_j ρ_j ≤ hi: Gavel's
	// solver returns an interior point of its optimal set.
	f := newModel(in, classes, lp.Maximize, true)
	for c, cl := range classes {
		if j := jobs[cl.rep()]; j.a > 0 {
			f.throughputRow("rho["+strconv.Itoa(c)+"]", c, in.tput[cl.rep()], j.a/(hi-j.b), math.Inf(1))
		}
	}
	fr, err := run.solveModel(f, "finish-time fairness ρ ≤ "+strconv.FormatFloat(hi, 'g', 6, 64))
	if err != nil {
		return models.Allocation{}, err
	}
	x := f.matrix(f.clean(fr.X))
	p.objective = 0
	for c, cl := range classes {
		p.objective = math.Max(p.objective, jobs[cl.rep()].rho(yield(in.tput[cl.rep()], x[c])))
	}
	return models.Allocation{Fractions: expand(in, classes, x)}, nil
}

func maxOf(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		m = math.Max(m, x)
	}
	return m
}
