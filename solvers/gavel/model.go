package gavel

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"fairbench/models"
	"fairbench/solvers/lp"
)

// zeroShare is the share below which an LP value is taken to be 0 (solver
// noise): far below models.FractionTolerance, so dropping it changes no sum
// that the simulator or models.Feasible can see.
const zeroShare = 1e-9

// model is one LP over the classes of an instance, with the constraints
// every Gavel policy shares. Its variables x[c][g] are the time share of
// each job of class c on type g (a class shares its variables; see class):
//
//	x[c][g] ≥ 0
//	Σ_g x[c][g] ≤ 1                      for every class c   ("time" rows)
//	Σ_c |c|·d_c·x[c][g] ≤ N_g            for every type g    ("capacity" rows)
//
// x has no upper bound of its own (the time row implies x ≤ 1), which keeps
// the pure-Go backend's standard form small. Policies add their own
// variables and rows.
//
// For a central solve (lp.Interior, the default) the model is Gavel's LP
// exactly: a variable for every class and type, also where the class cannot
// run (T[c][g] = 0: its share there enters no objective row, and is dropped
// from the allocation, as Gavel's round mechanism never runs a job there),
// because the interior point depends on every constraint. For a vertex solve
// such variables are left out (x = 0 there). copies records how many jobs
// each variable and row stands for (a class's variables and rows |c|, the
// capacity rows and the policies' scalar variables 1).
type model struct {
	in      *instance
	classes []class
	central bool
	p       lp.Problem
	copies  lp.Copies
	x       [][]int // x[c][g]: variable index, −1 where class c has no variable on g
	timeRow []int   // per class
	capRow  []int   // per type
	shares  []int   // variables that are time shares (x and pair variables)
	packing []int   // rows that cleaning must keep: time and capacity
	// terms, when it has room, is memory for the terms of rows that
	// throughputRow adds (nil: each row gets its own).
	terms []lp.Term
	// mem, when set, is the memory the model's arrays are cut from: a
	// policy's, kept from one decision to the next (newModelIn).
	mem *modelMemory
}

// modelMemory is the memory of a policy's one model a decision, kept for
// the next decision's: the model's arrays, its policy's rows' terms, and
// the names of the rows and variables (the same strings decision after
// decision).
type modelMemory struct {
	m      model
	xs     []int
	terms  []lp.Term
	extra  []lp.Term // throughputRow's terms (model.terms)
	names  *modelNames
	nnames int      // classes names holds
	level  []string // maxmin[c] for every c so far
}

func newModel(in *instance, classes []class, sense lp.Sense, central bool) *model {
	return newModelIn(nil, in, classes, sense, central)
}

// newModelIn is newModel in the memory mem (nil: new memory); the model
// it returns is valid until the next call with the same mem.
func newModelIn(mem *modelMemory, in *instance, classes []class, sense lp.Sense, central bool) *model {
	if mem == nil {
		mem = &modelMemory{}
	}
	old := &mem.m
	m := &model{in: in, classes: classes, central: central, p: lp.Problem{Sense: sense}, mem: mem}
	nt := len(in.types)
	m.x = reuse(old.x, len(classes))[:len(classes)]
	xs := reuse(mem.xs, len(classes)*nt)[:len(classes)*nt] // every class's x[c], one array
	mem.xs = xs
	m.timeRow = reuse(old.timeRow, len(classes))[:len(classes)]
	m.capRow = reuse(old.capRow, len(in.types))[:len(in.types)]
	m.p.Vars = reuse(old.p.Vars, len(classes)*nt+1)
	m.copies.Vars = reuse(old.copies.Vars, len(classes)*nt+1)
	m.p.Rows = reuse(old.p.Rows, len(in.types)+2*len(classes))
	m.copies.Rows = reuse(old.copies.Rows, len(in.types)+2*len(classes))
	m.shares = reuse(old.shares, len(classes)*nt)
	m.packing = reuse(old.packing, len(in.types)+len(classes))
	terms := reuse(mem.terms, 2*len(classes)*nt) // the capacity and time rows' terms, one array
	mem.terms = terms
	mem.extra = reuse(mem.extra, len(classes)*(nt+1)) // a policy's row a class, over its x and one more variable
	m.terms = mem.extra
	if mem.names == nil || mem.nnames < len(classes) || !slices.Equal(mem.names.types, in.types) {
		mem.names, mem.nnames = newModelNames(in.types, len(classes)), len(classes)
	}
	names := mem.names
	names.k = 0
	for g := range in.types {
		m.capRow[g] = m.row(names.next(), math.Inf(-1), in.caps[g], 1)
		m.p.Rows[m.capRow[g]].Coefs = terms[len(terms) : len(terms) : len(terms)+len(classes)]
		terms = terms[:len(terms)+len(classes)]
	}
	for c, cl := range classes {
		r := cl.rep()
		m.timeRow[c] = m.row(names.next(), math.Inf(-1), 1, cl.size())
		m.p.Rows[m.timeRow[c]].Coefs = terms[len(terms) : len(terms) : len(terms)+nt]
		terms = terms[:len(terms)+nt]
		m.x[c] = xs[c*nt : c*nt+nt : c*nt+nt]
		for g := range in.types {
			m.x[c][g] = -1
			name := names.next()
			if in.tput[r][g] <= 0 && !central {
				continue
			}
			v := m.share(name, 0, cl.size())
			m.x[c][g] = v
			m.add(m.timeRow[c], v, 1)
			m.add(m.capRow[g], v, cl.size()*float64(in.gang(r)))
		}
	}
	m.packing = append(append(m.packing, m.capRow...), m.timeRow...)
	return m
}

// reuse returns v emptied, with room for n entries: v's memory where it has
// the room.
func reuse[T any](v []T, n int) []T {
	if cap(v) < n {
		return make([]T, 0, n)
	}
	return v[:0]
}

// keep hands m's arrays, as they grew, to its memory for the next model.
func (m *model) keep() {
	m.mem.m = *m
}

// levelName is "maxmin[c]", from the memory's names where it has them.
func (m *model) levelName(c int) string {
	mem := m.mem
	for len(mem.level) <= c {
		mem.level = append(mem.level, "maxmin["+strconv.Itoa(len(mem.level))+"]")
	}
	return mem.level[c]
}

// modelNames are the names of newModel's rows and variables in the order
// it adds them — cap[g] for every type, then for every class c time[c] and
// x[c,g] for every type — cut from one string.
type modelNames struct {
	types []string
	all   string
	ends  []int
	k     int
}

func newModelNames(types []string, classes int) *modelNames {
	var b []byte
	ends := make([]int, 0, len(types)+classes*(1+len(types)))
	for _, name := range types {
		b = append(append(append(b, "cap["...), name...), ']')
		ends = append(ends, len(b))
	}
	for c := range classes {
		b = append(strconv.AppendInt(append(b, "time["...), int64(c), 10), ']')
		ends = append(ends, len(b))
		for _, name := range types {
			b = append(append(append(strconv.AppendInt(append(b, "x["...), int64(c), 10), ','), name...), ']')
			ends = append(ends, len(b))
		}
	}
	return &modelNames{types: slices.Clone(types), all: string(b), ends: ends}
}

// next returns the next name.
func (n *modelNames) next() string {
	start := 0
	if n.k > 0 {
		start = n.ends[n.k-1]
	}
	n.k++
	return n.all[start:n.ends[n.k-1]]
}

// variable adds a scalar variable (one copy) and returns its index.
func (m *model) variable(name string, lo, hi, obj float64) int {
	return m.copiedVariable(name, lo, hi, obj, 1)
}

func (m *model) copiedVariable(name string, lo, hi, obj, copies float64) int {
	m.p.Vars = append(m.p.Vars, lp.Var{Name: name, Lower: lo, Upper: hi, Obj: obj})
	m.copies.Vars = append(m.copies.Vars, copies)
	return len(m.p.Vars) - 1
}

// share adds a time-share variable ≥ 0 with objective coefficient obj,
// standing for copies jobs' shares.
func (m *model) share(name string, obj, copies float64) int {
	v := m.copiedVariable(name, 0, math.Inf(1), obj, copies)
	m.shares = append(m.shares, v)
	return v
}

// row adds an empty row lo ≤ · ≤ hi standing for copies jobs' rows and
// returns its index.
func (m *model) row(name string, lo, hi, copies float64) int {
	m.p.Rows = append(m.p.Rows, lp.Row{Name: name, Lower: lo, Upper: hi})
	m.copies.Rows = append(m.copies.Rows, copies)
	return len(m.p.Rows) - 1
}

// add puts coef·x_v into row r.
func (m *model) add(r, v int, coef float64) {
	m.p.Rows[r].Coefs = append(m.p.Rows[r].Coefs, lp.Term{Var: v, Coef: coef})
}

// throughputRow adds the row Σ_g coef[g]·x[c][g] (the caller adds more
// terms) with bounds lo and hi.
func (m *model) throughputRow(name string, c int, coef []float64, lo, hi float64) int {
	r := m.row(name, lo, hi, m.classes[c].size())
	m.p.Rows[r].Coefs = m.termsFor(len(m.x[c]) + 1) // the caller's terms: usually one
	for g, v := range m.x[c] {
		if v >= 0 && coef[g] != 0 {
			m.add(r, v, coef[g])
		}
	}
	return r
}

// termsFor is an empty slice with room for n terms, cut from m.terms where
// it has room (so that appending beyond n moves it elsewhere).
func (m *model) termsFor(n int) []lp.Term {
	k := len(m.terms)
	if cap(m.terms)-k < n {
		return make([]lp.Term, 0, n)
	}
	m.terms = m.terms[:k+n]
	return m.terms[k : k : k+n]
}

// clean turns an LP solution into shares models.Feasible accepts: values
// below zeroShare (negative noise included) become 0, and if any time or
// capacity row is exceeded (solver tolerance), every share is scaled down by
// the one factor min over those rows of bound / activity, which keeps every
// row (all have non-negative coefficients and only an upper bound).
func (m *model) clean(x []float64) []float64 {
	v := append([]float64(nil), x...)
	for _, i := range m.shares {
		if v[i] < zeroShare {
			v[i] = 0
		}
	}
	f := 1.0
	for _, r := range m.packing {
		row := m.p.Rows[r]
		act := 0.0
		for _, t := range row.Coefs {
			act += t.Coef * v[t.Var]
		}
		if act > row.Upper {
			f = math.Min(f, row.Upper/act)
		}
	}
	if f < 1 {
		for _, i := range m.shares {
			v[i] *= f
		}
	}
	return v
}

// matrix is the per-job share of each class on each type under v.
func (m *model) matrix(v []float64) [][]float64 {
	out := make([][]float64, len(m.classes))
	for c := range m.classes {
		out[c] = make([]float64, len(m.in.types))
		for g, idx := range m.x[c] {
			if idx >= 0 {
				out[c][g] = v[idx]
			}
		}
	}
	return out
}

// fractions expands the class shares of a cleaned solution to the jobs.
func (m *model) fractions(v []float64) map[models.JobID]map[string]float64 {
	return expand(m.in, m.classes, m.matrix(v))
}

// expand gives every job of class c the shares x[c], clipped to [0, 1] (as
// Gavel clips its solver's answer); zero shares and shares on types where
// the job cannot run are left out. The maps are those of the policy's
// previous allocation, emptied, where in has them: an allocation is the
// caller's only until the policy's next decision (solvers.Policy).
func expand(in *instance, classes []class, x [][]float64) map[models.JobID]map[string]float64 {
	n := 0
	for _, cl := range classes {
		n += len(cl.jobs)
	}
	fm := in.fractions
	if fm == nil {
		fm = &fractionMaps{}
	}
	fr := fm.start(n)
	for c, cl := range classes {
		any := false
		for g, v := range x[c] {
			any = any || (math.Min(v, 1) > 0 && in.runs(cl.rep(), g))
		}
		if !any {
			continue
		}
		for _, i := range cl.jobs { // each job's map filled at once
			m := fm.inner(len(in.types))
			for g, v := range x[c] {
				if v = math.Min(v, 1); v > 0 && in.runs(cl.rep(), g) {
					m[in.types[g]] = v
				}
			}
			fr[in.s.Jobs[i].ID] = m
		}
	}
	return fr
}

// fractionMaps keeps an allocation's maps for the next one: the map by job
// and the per-job maps, emptied.
type fractionMaps struct {
	outer map[models.JobID]map[string]float64
	free  []map[string]float64
}

// start empties the last allocation's maps and returns the map by job, for
// n jobs.
func (fm *fractionMaps) start(n int) map[models.JobID]map[string]float64 {
	if fm.outer == nil {
		fm.outer = make(map[models.JobID]map[string]float64, n) // sized ahead: growing them was a third of a run's allocation
		return fm.outer
	}
	for _, m := range fm.outer {
		clear(m)
		fm.free = append(fm.free, m)
	}
	clear(fm.outer)
	return fm.outer
}

// inner returns an empty per-job map, one of the last allocation's where
// one is left.
func (fm *fractionMaps) inner(types int) map[string]float64 {
	if k := len(fm.free); k > 0 {
		m := fm.free[k-1]
		fm.free = fm.free[:k-1]
		return m
	}
	return make(map[string]float64, types)
}

// yield is Σ_g T[g]·x[g]: a job's throughput under shares x.
func yield(t, x []float64) float64 {
	y := 0.0
	for g := range t {
		y += t[g] * x[g]
	}
	return y
}

// solver runs the LP solves of one decision against one deadline, and counts
// them into the policy's tally.
type solver struct {
	policy   string
	backend  lp.Solver
	limit    time.Duration
	deadline time.Time
	solves   int
	tally    *Tally
	memo     *memo
	work     *lp.Work
}

// solver starts a decision's solves.
func (b *base) solver() *solver {
	sv := &solver{policy: b.name, backend: b.backend, limit: b.opt.TimeLimit, tally: &b.tally, memo: &b.memo, work: &b.work}
	if b.opt.TimeLimit > 0 {
		sv.deadline = time.Now().Add(b.opt.TimeLimit)
	}
	b.tally.Decisions++
	return sv
}

// maxInterior is the most variables a central solve takes: lp.Interior's
// dense algebra costs O(n³) per iteration, about 0.1 s at this size. Larger
// LPs (hundreds of jobs the LP must tell apart, or aggregate: false) get a
// vertex, counted in Tally.Fallbacks.
const maxInterior = 1000

// solveModel solves m: with lp.Interior when m is central, falling back to
// the backend's simplex (a vertex of the same LP, counted in
// Tally.Fallbacks) should the interior-point method fail or the LP be too
// large for it; else with the backend.
func (sv *solver) solveModel(m *model, what string) (lp.Result, error) {
	if !m.central {
		return sv.solve(&m.p, what)
	}
	if len(m.p.Vars) > maxInterior {
		sv.tally.Fallbacks++
		return sv.solve(&m.p, what)
	}
	key := sv.memo.key(&m.p, m.copies)
	if res, ok := sv.memo.get(key); ok {
		sv.tally.Reused++
		return res, nil
	}
	o, err := sv.begin(what)
	if err != nil {
		return lp.Result{}, err
	}
	o.Work = sv.work
	res, err := lp.Interior(&m.p, m.copies, o)
	switch {
	case err == nil:
		sv.memo.put(key, res)
		return res, nil
	case errors.Is(err, lp.ErrLimit):
		return lp.Result{}, &LimitError{Policy: sv.policy, Limit: sv.limit, Solves: sv.solves, Err: err}
	}
	sv.tally.Fallbacks++
	return sv.solve(&m.p, what)
}

// begin counts one more LP solve and gives it what is left of the time
// limit; none left is a *LimitError.
func (sv *solver) begin(what string) (lp.Options, error) {
	sv.solves++
	sv.tally.LPs++
	var o lp.Options
	if sv.limit > 0 {
		o.TimeLimit = time.Until(sv.deadline)
		if o.TimeLimit <= 0 {
			return o, &LimitError{Policy: sv.policy, Limit: sv.limit, Solves: sv.solves,
				Err: fmt.Errorf("%w before the %s LP", lp.ErrLimit, what)}
		}
	}
	return o, nil
}

// solve solves p to optimality within what is left of the time limit. The
// limit reached (before or during the solve) is a *LimitError; any other
// failure is an error naming the policy and the LP (what).
func (sv *solver) solve(p *lp.Problem, what string) (lp.Result, error) {
	return sv.solveWarm(p, what, nil)
}

// solveWarm is solve with a basis carried between solves (lp.Options.Warm;
// nil: a cold start).
func (sv *solver) solveWarm(p *lp.Problem, what string, warm *lp.Basis) (lp.Result, error) {
	o, err := sv.begin(what)
	if err != nil {
		return lp.Result{}, err
	}
	o.Warm, o.Work = warm, sv.work
	res, err := sv.backend.Solve(p, o)
	switch {
	case errors.Is(err, lp.ErrLimit):
		return lp.Result{}, &LimitError{Policy: sv.policy, Limit: sv.limit, Solves: sv.solves, Err: err}
	case err != nil:
		return lp.Result{}, fmt.Errorf("%s: %s LP (%d variables, %d rows): %w", sv.policy, what, len(p.Vars), len(p.Rows), err)
	}
	return res, nil
}
