//go:build cgo && !nocoin

package lp

/*
#cgo pkg-config: clp cbc
#define _GNU_SOURCE
#include <stdlib.h>
#include <dlfcn.h>
#include <signal.h>
#include "Clp_C_Interface.h"
#include "Cbc_C_Interface.h"

// CBC's driver and the CLP it runs inside install their own SIGINT handlers
// with signal() for parts of a solve, and those drop a SIGINT that comes
// while no branch-and-bound model is current (presolve, the first LP, the
// end of a solve): the Ctrl-C was lost and the run went on. So during
// Cbc_solve the Go side installs a handler that notes a SIGINT and passes it
// on to whatever handler CBC or CLP asked for, and this file's signal()
// keeps what they ask for (a stack: each call returns the one before)
// instead of installing it. After the solve Go's handler is restored and a
// noted SIGINT, or one that stopped CBC ("user event"), is raised again for
// Go to see (CBC solves are serialised, so one saved copy suffices).
// Outside a solve signal() is libc's.
typedef void (*fairbench_handler)(int);
static struct sigaction fairbench_sigint;
static volatile sig_atomic_t fairbench_sigint_seen;
static volatile sig_atomic_t fairbench_in_solve;
static volatile fairbench_handler fairbench_coin_handler;
static void fairbench_note_sigint(int sig) {
	fairbench_handler h = fairbench_coin_handler;
	fairbench_sigint_seen = 1;
	if (h != NULL && h != SIG_DFL && h != SIG_IGN && h != SIG_ERR) {
		h(sig);
	}
}
__sighandler_t signal(int sig, __sighandler_t h) {
	static __sighandler_t (*real)(int, __sighandler_t);
	if (sig == SIGINT && fairbench_in_solve) {
		fairbench_handler old = fairbench_coin_handler;
		fairbench_coin_handler = h;
		return old != NULL ? old : SIG_DFL;
	}
	if (real == NULL) {
		real = (__sighandler_t (*)(int, __sighandler_t))dlsym(RTLD_NEXT, "signal");
	}
	return real(sig, h);
}
static void fairbench_save_sigint(void) {
	struct sigaction note;
	fairbench_sigint_seen = 0;
	fairbench_coin_handler = NULL;
	sigaction(SIGINT, NULL, &fairbench_sigint);
	note = fairbench_sigint;
	note.sa_handler = fairbench_note_sigint;
	note.sa_flags = (fairbench_sigint.sa_flags | SA_ONSTACK | SA_RESTART) & ~SA_SIGINFO;
	sigaction(SIGINT, &note, NULL);
	fairbench_in_solve = 1;
}
static int fairbench_restore_sigint(void) {
	fairbench_in_solve = 0;
	sigaction(SIGINT, &fairbench_sigint, NULL);
	fairbench_coin_handler = NULL;
	return fairbench_sigint_seen;
}
*/
import "C"

import (
	"fmt"
	"math"
	"strconv"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// Coin is the cgo backend: COIN-OR CLP for LPs (with duals) and CBC for
// MIPs, through their C interfaces. Each Solve builds a fresh model and frees
// it before returning; no Go pointer is kept by C. The zero value is ready.
type Coin struct{}

var _ Solver = Coin{}

const coinName = "coin-or"

// cbcMu serialises Cbc_solve: CBC's driver CbcMain1 keeps static state and
// is not reentrant. CLP needs no lock.
var cbcMu sync.Mutex

// Name returns "coin-or".
func (Coin) Name() string { return coinName }

// coinBackend names the linked libraries with the versions they report.
func coinBackend() string {
	return fmt.Sprintf("coin-or clp %s / cbc %s (cgo)", C.GoString(C.Clp_Version()), C.GoString(C.Cbc_getVersion()))
}

// Solve solves p with CLP when it has no integer variable, else with CBC.
// Coefficients beyond the C library's range are scaled into it, or refused
// (fitCoinRange). An LP that CLP cannot settle however it is run (clpSolve)
// is handed to the pure-Go backend, so that a solver hiccup costs time, not
// the run.
func (Coin) Solve(p *Problem, o Options) (Result, error) {
	if err := p.Validate(); err != nil {
		return outcome(coinName, p, Error, nil, nil, err)
	}
	if len(p.Vars) == 0 {
		return trivial(coinName, p)
	}
	q, sc, err := fitCoinRange(p)
	if err != nil {
		return outcome(coinName, p, Error, nil, nil, err)
	}
	w := &coinWork{}
	if o.Work != nil {
		w = &o.Work.coin
	}
	a, ok := newCoinArrays(q, w)
	if !ok {
		return outcome(coinName, p, Infeasible, nil, nil, nil)
	}
	var deadline time.Time
	if o.TimeLimit > 0 {
		deadline = time.Now().Add(o.TimeLimit)
	}
	var res Result
	if p.HasInteger() {
		res, err = solveCBC(q, a, deadline, o)
	} else {
		res, err = solveCLP(q, a, deadline, o.Warm)
	}
	if a.rays && res.Status == Optimal {
		// Feasible with its empty ray columns pinned, so unbounded.
		return outcome(coinName, p, Unbounded, nil, nil, nil)
	}
	if res.Status == Error && !p.HasInteger() {
		left := o
		if !deadline.IsZero() {
			if left.TimeLimit = time.Until(deadline); left.TimeLimit <= 0 {
				return outcome(coinName, p, LimitReached, nil, nil, nil)
			}
		}
		return Pure{}.Solve(p, left)
	}
	if q != p && res.X != nil {
		res.Objective = p.objectiveOf(res.X)
		sc.unscale(res.Duals)
	}
	return res, err
}

// coinArrays is p in the form Clp_loadProblem and Cbc_loadProblem take:
// column-major matrix, minimisation costs (negated for Maximize), infinite
// bounds as ±DBL_MAX (COIN's infinity). Every slice has at least one
// element so that no pointer passed to C is NULL.
//
// Two quirks of COIN 1.17/2.10 are worked around here. Rows without
// non-zeros make CBC abort (an assertion in OsiClpSolverInterface::crunch),
// so such rows, and rows with both bounds infinite, are not loaded: rows
// lists the rows of p that are. And variables in no row that would make the
// objective unbounded make CLP report infeasibility, so they are pinned to a
// finite value (Problem.emptyRays) and rays is set: an optimal answer then
// means Unbounded.
type coinArrays struct {
	ncols, nrows      C.int
	start             []C.CoinBigIndex
	index             []C.int
	value             []C.double
	collb, colub, obj []C.double
	rowlb, rowub      []C.double
	rows              []int
	loaded            [][]Term // the rows of merged that are loaded
	rays              bool
	merged            [][]Term  // p.mergedRows()
	lo, hi            []float64 // the column bounds loaded, for the KKT check
	y, d              []float64 // the KKT check's duals per row of p and reduced costs
}

// coinWork is the memory of a Coin solve's arrays (Options.Work), kept from
// one solve to the next; every array is written before it is read. Nothing
// of it reaches a Result or a Basis.
type coinWork struct {
	a     coinArrays
	terms []Term
	cols  cscBuf
}

// newCoinArrays converts p in the memory of w (the arrays are w's until
// its next use); ok is false when a row without non-zeros excludes 0, which
// makes p infeasible.
func newCoinArrays(p *Problem, w *coinWork) (a *coinArrays, ok bool) {
	a = &w.a
	merged := p.mergedRowsIn(&a.merged, &w.terms)
	rows := a.rows[:0]
	loaded := a.loaded[:0]
	for i, r := range merged {
		switch {
		case len(r) == 0:
			if emptyRowInfeasible(p.Rows[i]) {
				return nil, false
			}
		case math.IsInf(p.Rows[i].Lower, -1) && math.IsInf(p.Rows[i].Upper, 1):
		default:
			rows = append(rows, i)
			loaded = append(loaded, r)
		}
	}
	a.rows, a.loaded = rows, loaded
	m := columnsIn(len(p.Vars), loaded, &w.cols)
	n := len(p.Vars)
	a.ncols, a.nrows = C.int(n), C.int(len(rows))
	a.start = take(&a.start, len(m.start))
	a.index = take(&a.index, max(1, len(m.index)))
	a.value = take(&a.value, max(1, len(m.value)))
	a.collb, a.colub, a.obj = take(&a.collb, n), take(&a.colub, n), take(&a.obj, n)
	a.rowlb, a.rowub = take(&a.rowlb, max(1, len(rows))), take(&a.rowub, max(1, len(rows)))
	a.merged = merged
	a.lo, a.hi = take(&a.lo, n), take(&a.hi, n)
	a.y, a.d = take(&a.y, len(p.Rows)), take(&a.d, n)
	for k, s := range m.start {
		a.start[k] = C.CoinBigIndex(s)
	}
	for k := range m.index {
		a.index[k] = C.int(m.index[k])
		a.value[k] = C.double(m.value[k])
	}
	for j, v := range p.Vars {
		a.lo[j], a.hi[j] = v.Lower, v.Upper
		a.obj[j] = C.double(p.Sense.sign() * v.Obj)
	}
	for k, i := range rows {
		a.rowlb[k] = coinBound(p.Rows[i].Lower)
		a.rowub[k] = coinBound(p.Rows[i].Upper)
	}
	idx, at := p.emptyRays(m)
	for k, j := range idx {
		a.lo[j], a.hi[j] = at[k], at[k]
	}
	a.rays = len(idx) > 0
	for j := range p.Vars {
		a.collb[j], a.colub[j] = coinBound(a.lo[j]), coinBound(a.hi[j])
	}
	return a, true
}

// coinBound maps ±Inf to ±DBL_MAX, which COIN treats as infinite.
func coinBound(v float64) C.double {
	switch {
	case math.IsInf(v, 1):
		return C.double(math.MaxFloat64)
	case math.IsInf(v, -1):
		return C.double(-math.MaxFloat64)
	}
	return C.double(v)
}

// copyOut copies n doubles from C memory into a new Go slice; nil for NULL.
func copyOut(ptr *C.double, n int) []float64 {
	if ptr == nil {
		return nil
	}
	out := make([]float64, n)
	copy(out, unsafe.Slice((*float64)(unsafe.Pointer(ptr)), n))
	return out
}

// Clp_status values (ClpModel::status), ClpSolve's presolveOff, and its
// special option 2 ("interrupt handling": 1 = none, for thread safety).
const (
	clpInterruptOption  = 2
	clpNoInterrupt      = 1
	clpPresolveOff      = 1
	clpOptimal          = 0
	clpPrimalInfeasible = 1
	clpDualInfeasible   = 2
	clpStopped          = 3
)

func solveCLP(p *Problem, a *coinArrays, deadline time.Time, warm *Basis) (Result, error) {
	r := clpSolve(p, a, deadline, warm)
	switch r.status {
	case clpOptimal:
		duals := make([]float64, len(p.Rows))
		for k, y := range r.duals {
			duals[a.rows[k]] = p.Sense.sign() * y
		}
		return outcome(coinName, p, Optimal, r.x, duals, nil)
	case clpPrimalInfeasible:
		return outcome(coinName, p, Infeasible, nil, nil, nil)
	case clpDualInfeasible:
		return outcome(coinName, p, Unbounded, nil, nil, nil)
	case clpStopped:
		return outcome(coinName, p, LimitReached, nil, nil, nil)
	default:
		return outcome(coinName, p, Error, nil, nil, r.failure())
	}
}

// failure describes a run that ended in no verdict.
func (r clpRun) failure() error {
	if r.err != nil {
		return r.err
	}
	return fmt.Errorf("clp status %d, secondary status %d", r.status, r.secondary)
}

// clpSolve solves the LP (relaxation) in a with CLP and returns a settled
// run, or one whose status says infeasible, unbounded, stopped or error
// (-1, with the reason in err).
//
// CLP 1.17.6 was caught (TestRandomUnbounded, TestRegressions) calling
// unbounded problems optimal, once with a clean status after presolve and
// once with secondary status 3 ("unscaled problem has dual
// infeasibilities"), and calling unbounded problems with free columns in
// equality rows infeasible; and (TestCLPSecondaryStatus) ending a Gavel LP
// "optimal with secondary status 2" (the scaled problem optimal, the
// unscaled one primal infeasible). So presolve is off, every optimum is
// checked against the KKT conditions (optimalityViolation), and a run
// without a trusted verdict is retried: an optimum under scaling first by
// the unscaled primal simplex from its own basis (repairCLP), then the
// primal simplex from scratch, then both methods without scaling
// (clpAttempts). An infeasible or
// unbounded verdict of a retry is taken; when no attempt settles, the
// caller falls back to the pure-Go backend (Coin.Solve).
//
// A basis in warm of the problem's shape is tried first, by the primal
// simplex from it; a run it does not settle goes on as above, from scratch.
// A settled optimum's basis is left in warm (when not nil).
func clpSolve(p *Problem, a *coinArrays, deadline time.Time, warm *Basis) clpRun {
	var r clpRun
	fits := warm.fits(p)
	if fits {
		r = runCLP(p, a, deadline, clpAttempt{primal: true, warm: warm.loaded(a)})
	}
	r = repairCLP(p, a, deadline, r)
	if !fits || !r.settled() {
		r = repairCLP(p, a, deadline, runCLP(p, a, deadline, clpAttempts[0]))
	}
	for _, at := range clpAttempts[1:] {
		if r.settled() {
			break
		}
		r2 := runCLP(p, a, deadline, at)
		if r2.settled() || r2.status == clpPrimalInfeasible || r2.status == clpDualInfeasible {
			r = r2
			break
		}
	}
	if r.status == clpOptimal && r.err != nil {
		r.status = -1
	}
	if warm != nil && r.status == clpOptimal {
		warm.keep(p, a, r.basis)
	}
	return r
}

// keep stores st, CLP's status array for the problem loaded from a, in b
// in p's terms: rows not loaded count as basic.
func (b *Basis) keep(p *Problem, a *coinArrays, st []byte) {
	n := int(a.ncols)
	b.status = make([]byte, n+len(p.Rows))
	copy(b.status, st[:n])
	for i := range p.Rows {
		b.status[n+i] = basisBasic
	}
	for k, i := range a.rows {
		b.status[n+i] = st[n+k]
	}
	b.cols, b.rows = n, len(p.Rows)
}

// loaded is b as the status array of the problem loaded from a.
func (b *Basis) loaded(a *coinArrays) *Basis {
	n := int(a.ncols)
	st := make([]byte, n+len(a.rows))
	copy(st, b.status[:n])
	for k, i := range a.rows {
		st[n+k] = b.status[n+i]
	}
	return &Basis{status: st, cols: n, rows: len(a.rows)}
}

// repairCLP settles, where it can, a run that ended optimal under scaling
// but not optimal for the unscaled problem (secondary status 2–4, or a
// failed KKT check): the primal simplex without scaling, started from the
// run's own final basis, usually needs a few pivots where the retries from
// scratch (clpAttempts) cost a full solve each. The repaired optimum passes
// the same checks as any other; a run it does not settle is returned as it
// was, for the retries.
func repairCLP(p *Problem, a *coinArrays, deadline time.Time, r clpRun) clpRun {
	if r.status != clpOptimal || r.settled() || r.basis == nil {
		return r
	}
	b := &Basis{status: r.basis, cols: int(a.ncols), rows: int(a.nrows)}
	if r2 := runCLP(p, a, deadline, clpAttempt{primal: true, noScale: true, warm: b}); r2.settled() {
		return r2
	}
	return r
}

// fits reports whether b holds a basis for a problem of p's shape.
func (b *Basis) fits(p *Problem) bool {
	return b != nil && b.status != nil && b.cols == len(p.Vars) && b.rows == len(p.Rows)
}

// clpAttempt is one way of running CLP.
type clpAttempt struct {
	primal  bool   // the primal simplex (from scratch, or from warm), else CLP's default method (without presolve)
	noScale bool   // switch CLP's scaling off
	warm    *Basis // the basis to start from, nil for none
}

// clpAttempts are the ways clpSolve tries, in order.
var clpAttempts = []clpAttempt{{}, {primal: true}, {noScale: true}, {primal: true, noScale: true}}

// clpRun is what one CLP solve leaves behind.
type clpRun struct {
	status, secondary int
	x, duals          []float64 // when status is clpOptimal; duals per loaded row
	basis             []byte    // when status is clpOptimal: CLP's status array
	err               error     // why an optimum is not trusted
}

// settled reports whether a CLP run's verdict needs no second opinion: a
// limit, or a trusted optimum.
func (r clpRun) settled() bool {
	switch r.status {
	case clpStopped:
		return true
	case clpOptimal:
		return r.err == nil
	}
	return false
}

// runCLP loads a into a fresh CLP model, solves it as at says (CLP's default
// method without presolve, or the primal simplex; with or without scaling),
// copies the answer out and frees the model. CLP's default method is told
// not to install its own SIGINT handler (ClpSolve special option 2): it
// would take Ctrl-C away from Go, and, installed and restored by parallel
// solves, replace Go's handler for good.
func runCLP(p *Problem, a *coinArrays, deadline time.Time, at clpAttempt) clpRun {
	m := C.Clp_newModel()
	defer C.Clp_deleteModel(m)
	C.Clp_setLogLevel(m, 0)
	C.Clp_loadProblem(m, a.ncols, a.nrows, &a.start[0], &a.index[0], &a.value[0],
		&a.collb[0], &a.colub[0], &a.obj[0], &a.rowlb[0], &a.rowub[0])
	if !deadline.IsZero() {
		left := time.Until(deadline)
		if left <= 0 {
			return clpRun{status: clpStopped}
		}
		C.Clp_setMaximumSeconds(m, C.double(left.Seconds()))
	}
	if at.noScale {
		C.Clp_scaling(m, 0)
	}
	if at.warm != nil {
		C.Clp_copyinStatus(m, (*C.uchar)(unsafe.Pointer(&at.warm.status[0])))
	}
	if at.primal {
		C.Clp_primal(m, 0)
	} else {
		opts := C.ClpSolve_new()
		defer C.ClpSolve_delete(opts)
		C.ClpSolve_setPresolveType(opts, clpPresolveOff, -1)
		C.ClpSolve_setSpecialOption(opts, clpInterruptOption, clpNoInterrupt, -1)
		C.Clp_initialSolveWithOptions(m, opts)
	}
	r := clpRun{status: int(C.Clp_status(m)), secondary: int(C.Clp_secondaryStatus(m))}
	if r.status != clpOptimal {
		return r
	}
	r.x = copyOut(C.Clp_getColSolution(m), len(p.Vars))
	r.duals = copyOut(C.Clp_getRowPrice(m), len(a.rows))
	if st := C.Clp_statusArray(m); st != nil {
		r.basis = append([]byte(nil), unsafe.Slice((*byte)(unsafe.Pointer(st)), len(p.Vars)+len(a.rows))...)
	}
	switch r.secondary {
	case 2, 3, 4, 5, 7:
		// The scaled problem is optimal but the unscaled one has primal
		// and/or dual infeasibilities (2–4), primal gave up with flagged
		// variables (5), postsolve says not optimal (7). (6, the
		// empty-problem check for problems without rows, is fine.)
		r.err = fmt.Errorf("clp: optimal with secondary status %d", r.secondary)
		return r
	}
	y := a.y
	clear(y)
	for k, v := range r.duals {
		y[a.rows[k]] = v
	}
	if why := optimalityViolation(p, a.merged, a.lo, a.hi, r.x, y, a.d); why != "" {
		r.err = fmt.Errorf("clp: optimum fails the KKT check: %s", why)
	}
	return r
}

// solveCBC solves the MIP in a with CBC, after settling its LP relaxation
// with clpSolve: CBC's own root solve has called feasible MIPs with an
// unbounded relaxation infeasible (TestRandomUnbounded), and an infeasible
// or unbounded relaxation decides the MIP (Unbounded meaning, as for Pure,
// that the relaxation is unbounded).
//
// start, when it has one value per variable, is handed to CBC as its MIP
// start.
func solveCBC(p *Problem, a *coinArrays, deadline time.Time, o Options) (Result, error) {
	nodeLimit, start := o.NodeLimit, o.Start
	switch r := clpSolve(p, a, deadline, nil); r.status {
	case clpOptimal:
	case clpPrimalInfeasible:
		return outcome(coinName, p, Infeasible, nil, nil, nil)
	case clpDualInfeasible:
		return outcome(coinName, p, Unbounded, nil, nil, nil)
	case clpStopped:
		return outcome(coinName, p, LimitReached, nil, nil, nil)
	default:
		return outcome(coinName, p, Error, nil, nil, fmt.Errorf("LP relaxation: %w", r.failure()))
	}
	m := C.Cbc_newModel()
	defer C.Cbc_deleteModel(m)
	C.Cbc_loadProblem(m, a.ncols, a.nrows, &a.start[0], &a.index[0], &a.value[0],
		&a.collb[0], &a.colub[0], &a.obj[0], &a.rowlb[0], &a.rowub[0])
	for j, v := range p.Vars {
		if v.Integer {
			C.Cbc_setInteger(m, C.int(j))
		}
	}
	C.Cbc_setLogLevel(m, 0)
	cbcParam(m, "logLevel", "0")
	for _, kv := range cbcSafeParams {
		cbcParam(m, kv[0], kv[1])
	}
	if o.Plain {
		cbcParam(m, "cutsOnOff", "off")
		cbcParam(m, "heuristicsOnOff", "off")
	}
	if !deadline.IsZero() {
		left := time.Until(deadline)
		if left <= 0 {
			return outcome(coinName, p, LimitReached, nil, nil, nil)
		}
		cbcParam(m, "timeMode", "elapsed")
		cbcParam(m, "seconds", strconv.FormatFloat(left.Seconds(), 'g', -1, 64))
	}
	if nodeLimit > 0 {
		cbcParam(m, "maxNodes", strconv.Itoa(nodeLimit))
	}
	if len(start) == len(p.Vars) {
		idx := make([]C.int, len(start))
		val := make([]C.double, len(start))
		for j, v := range start {
			idx[j], val[j] = C.int(j), C.double(v)
		}
		C.Cbc_setMIPStartI(m, C.int(len(start)), &idx[0], &val[0])
	}
	cbcMu.Lock()
	C.fairbench_save_sigint()
	C.Cbc_solve(m)
	interrupted := C.fairbench_restore_sigint() != 0 || C.Cbc_status(m) == cbcUserEvent
	cbcMu.Unlock()
	if interrupted {
		// Go never saw the Ctrl-C: raise it again, now that its handler is
		// back, and report the solve as stopped.
		_ = syscall.Kill(syscall.Getpid(), syscall.SIGINT)
		return outcome(coinName, p, Error, nil, nil, ErrInterrupted)
	}
	n := len(p.Vars)
	switch {
	case C.Cbc_isProvenOptimal(m) != 0:
		return outcome(coinName, p, Optimal, copyOut(C.Cbc_getColSolution(m), n), nil, nil)
	case C.Cbc_isContinuousUnbounded(m) != 0:
		return outcome(coinName, p, Unbounded, nil, nil, nil)
	case C.Cbc_isProvenInfeasible(m) != 0:
		return outcome(coinName, p, Infeasible, nil, nil, nil)
	case C.Cbc_isSecondsLimitReached(m) != 0 || C.Cbc_isNodeLimitReached(m) != 0 || C.Cbc_status(m) == 1:
		return outcome(coinName, p, LimitReached, copyOut(C.Cbc_bestSolution(m), n), nil, nil)
	default:
		return outcome(coinName, p, Error, nil, nil,
			fmt.Errorf("cbc status %d, secondary status %d", int(C.Cbc_status(m)), int(C.Cbc_secondaryStatus(m))))
	}
}

// cbcUserEvent is Cbc_status's "stopped on a user event": CBC's own SIGINT
// handler stopped the search.
const cbcUserEvent = 5

// cbcSafeParams switch off the parts of CBC 2.10.8 (with Cgl 0.60.3 and
// Clp 1.17.6) that the random cross-checks caught returning wrong answers or
// aborting the process on small general-integer problems (with CBC's
// defaults, 65 of 30,000 random MIPs got a wrong answer; with these, none of
// 120,000):
//
//   - preprocessing (CglPreProcess, which probes) fixes variables wrongly and
//     a suboptimal point is reported as proven optimal;
//   - the probing cut generator (CglProbing) cuts off optimal points of
//     general-integer problems (coin-or/Cbc issue #293);
//   - without preprocessing, the "crunch" of node LPs (a mipOptions bit)
//     fails an assertion in OsiClpSolverInterface::crunch and aborts;
//   - the TwoMIR cut generator cuts off optimal points.
//
// The cost is speed on hard MIPs (Gomory, knapsack, clique, MIR and flow
// cuts and the heuristics stay on). The cases are kept in TestRegressions.
var cbcSafeParams = [][2]string{
	{"preprocess", "off"},
	{"probingCuts", "off"},
	{"mipOptions", "0"},
	{"twoMirCuts", "off"},
}

// cbcParam passes "-name value" to CBC's driver.
func cbcParam(m unsafe.Pointer, name, value string) {
	cn, cv := C.CString(name), C.CString(value)
	defer C.free(unsafe.Pointer(cn))
	defer C.free(unsafe.Pointer(cv))
	C.Cbc_setParameter(m, cn, cv)
}
