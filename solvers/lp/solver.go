package lp

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Solver solves a Problem. Implementations keep no state between calls and
// are safe for concurrent use.
type Solver interface {
	// Name is a short identifier of the backend ("coin-or", "pure-go").
	Name() string
	// Solve validates and solves p. The error is nil exactly when
	// Result.Status is Optimal; see the package comment.
	Solve(p *Problem, o Options) (Result, error)
}

// Options tune one Solve call. The zero value means no limits.
type Options struct {
	// TimeLimit bounds the solve's wall-clock time; 0 means none. Reaching
	// it gives LimitReached. The pure-Go backend checks it between
	// branch-and-bound nodes only, so a single LP is never interrupted.
	TimeLimit time.Duration
	// NodeLimit bounds the branch-and-bound nodes of a MIP; 0 means none.
	// Reaching it gives LimitReached.
	NodeLimit int
	// Start is a point to start a MIP's search from (a MIP start), one value
	// per variable: a feasible integral point gives branch and bound an
	// incumbent to prune with from the first node. The answer is still an
	// optimum, though among tied optima not necessarily the one found
	// without it. Ignored for LPs, by the pure-Go backend, and when it has
	// the wrong length.
	Start []float64
	// Warm, when not nil, carries a simplex basis from one LP solve to the
	// next of a problem of the same shape (the same variables and rows,
	// coefficients and bounds free to differ): the Coin backend starts
	// CLP's simplex from the basis it holds, if any, and leaves the final
	// basis of a settled optimum in it. The optimum's value is the same as
	// from a cold start; among tied optimal vertices it may return another
	// one, so use it where only the value (or a unique optimum) matters.
	// Ignored for MIPs and by the pure-Go backend.
	Warm *Basis
	// Plain asks for branch and bound with the LP relaxations' bounds only:
	// the Coin backend switches CBC's cut generators and primal heuristics
	// off (the pure-Go backend has neither). The optimum's value is the
	// same; on small MIPs with a good MIP start (Start) the search is
	// faster, and among tied optima another may be returned.
	Plain bool
	// Work, when not nil, is memory Interior and the Coin backend reuse
	// from one solve to the next (a caller solving many LPs in turn keeps
	// one); it changes no answer. Ignored by the pure-Go backend.
	Work *Work
}

// Basis is a simplex basis kept between solves (Options.Warm); the zero
// value holds none.
type Basis struct {
	status     []byte // CLP's status of every variable, then of every row of the problem
	cols, rows int
}

// Basis statuses in CLP's codes (ClpSimplex::Status).
const (
	basisBasic = 1
	basisLower = 3
)

// Remap carries b to a problem built from b's as a renumbering: its
// variable j is b's variable vars[j] and its row i is b's row rows[i], −1
// for a new one (a new variable starts at its lower bound, a new row's slack
// in the basis). The warm start from it is a guess like any other: the
// solve repairs a basis with too many or too few basic entries, and the
// optimum's value does not depend on it. An empty b gives an empty Basis.
func (b *Basis) Remap(vars, rows []int) *Basis {
	if b == nil || b.status == nil {
		return &Basis{}
	}
	out := &Basis{status: make([]byte, len(vars)+len(rows)), cols: len(vars), rows: len(rows)}
	for j, old := range vars {
		out.status[j] = basisLower
		if old >= 0 && old < b.cols {
			out.status[j] = b.status[old]
		}
	}
	for i, old := range rows {
		out.status[len(vars)+i] = basisBasic
		if old >= 0 && old < b.rows {
			out.status[len(vars)+i] = b.status[b.cols+old]
		}
	}
	return out
}

// Status is the outcome of a solve.
type Status int

const (
	// Error (the zero Status) means the backend failed: numerical trouble or
	// an invalid problem. The error returned with it says why.
	Error Status = iota
	// Optimal means X is an optimal solution.
	Optimal
	// Infeasible means no point satisfies the constraints (for a MIP: no
	// integral one).
	Infeasible
	// Unbounded means the objective improves without limit (for a MIP: the
	// LP relaxation is unbounded).
	Unbounded
	// LimitReached means the time or node limit stopped the solve; X is the
	// best integer solution found so far, or nil.
	LimitReached
)

// String returns the status in lower case ("optimal", "infeasible", ...).
func (s Status) String() string {
	switch s {
	case Error:
		return "error"
	case Optimal:
		return "optimal"
	case Infeasible:
		return "infeasible"
	case Unbounded:
		return "unbounded"
	case LimitReached:
		return "limit reached"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Result is the outcome of Solve.
type Result struct {
	Status Status
	// Objective is Σ Obj_j·X_j in the problem's own sense when X is set;
	// -Inf (Minimize) or +Inf (Maximize) when Unbounded; NaN otherwise.
	Objective float64
	// X is the solution, one value per variable (integer variables exactly
	// integral); nil unless Optimal, or LimitReached with an incumbent.
	X []float64
	// Duals are the row shadow prices ∂Objective/∂(active row bound) of an
	// optimal LP, one per row; nil for MIPs and for backends without duals
	// (Pure). See the package comment for the sign convention.
	Duals []float64
}

// Sentinel errors for the outcomes, matched with errors.Is.
var (
	ErrInfeasible = errors.New("lp: problem is infeasible")
	ErrUnbounded  = errors.New("lp: problem is unbounded")
	ErrLimit      = errors.New("lp: time or node limit reached")
	ErrSolver     = errors.New("lp: solver failed")
	// ErrInterrupted: a Ctrl-C reached the solver's own handler and stopped
	// the solve; the signal is raised again for the process (coin backend).
	ErrInterrupted = errors.New("lp: solve interrupted by SIGINT")
)

// Tolerances shared by the backends.
const (
	// IntegralityTolerance is how far from an integer an integer variable
	// may be and still count as integral (and be rounded onto it).
	IntegralityTolerance = 1e-6
	// FeasibilityTolerance is the absolute violation of a bound or row
	// (scaled by 1 + |bound|) the pure-Go backend accepts in its own checks.
	FeasibilityTolerance = 1e-7
)

// outcome builds the Result and error for a finished solve of p by backend
// name. x is the solution in p's space (nil if none) and duals the row duals
// already in p's own sense.
func outcome(name string, p *Problem, st Status, x, duals []float64, cause error) (Result, error) {
	res := Result{Status: st, Objective: math.NaN()}
	if x != nil && (st == Optimal || st == LimitReached) {
		p.roundIntegers(x)
		res.X = x
		res.Objective = p.objectiveOf(x)
		if st == Optimal {
			res.Duals = duals
		}
	}
	switch st {
	case Optimal:
		return res, nil
	case Infeasible:
		return res, fmt.Errorf("%s: %w", name, ErrInfeasible)
	case Unbounded:
		res.Objective = math.Inf(-int(p.Sense.sign()))
		return res, fmt.Errorf("%s: %w", name, ErrUnbounded)
	case LimitReached:
		return res, fmt.Errorf("%s: %w", name, ErrLimit)
	}
	if cause == nil {
		cause = ErrSolver
	}
	if !errors.Is(cause, ErrSolver) && !errors.Is(cause, ErrInvalid) {
		cause = fmt.Errorf("%w: %w", ErrSolver, cause)
	}
	return res, fmt.Errorf("%s: %w", name, cause)
}

// trivial solves a problem without variables: every row must contain 0.
func trivial(name string, p *Problem) (Result, error) {
	for _, r := range p.Rows {
		if emptyRowInfeasible(r) {
			return outcome(name, p, Infeasible, nil, nil, nil)
		}
	}
	return outcome(name, p, Optimal, []float64{}, nil, nil)
}
