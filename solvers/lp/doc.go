// Package lp solves linear programs (LPs) and mixed-integer linear programs
// (MIPs) for the allocation policies, behind one small, I/O-free API.
//
// # The problem
//
// A Problem is
//
//	minimise or maximise  Σ_j Obj_j·x_j
//	subject to            Row_i.Lower ≤ Σ_k Coef_k·x_{Var_k} ≤ Row_i.Upper   for every row i
//	                      Var_j.Lower ≤ x_j ≤ Var_j.Upper                     for every variable j
//	                      x_j ∈ ℤ where Var_j.Integer
//
// Infinite bounds (math.Inf) mean "no bound"; a row with Lower == Upper is an
// equality; a row with both bounds infinite constrains nothing. Rows are
// sparse: terms naming the same variable twice are summed, zero coefficients
// are dropped. Problem.Validate reports malformed input (NaN, bad indices,
// Lower > Upper) with errors matching ErrInvalid.
//
// # Solving
//
// Every backend implements Solver:
//
//	res, err := lp.Default().Solve(p, lp.Options{TimeLimit: time.Second})
//
// Result.Status says what happened. Solve returns a nil error exactly when
// the status is Optimal; otherwise the error matches one of ErrInfeasible,
// ErrUnbounded, ErrLimit, ErrInvalid or ErrSolver under errors.Is, and the
// Result still carries the status (and, at a limit, the best integer solution
// found, if any). Objective is always in the problem's own sense.
//
// Result.Duals (LPs only, where the backend provides them) are shadow prices
// in the problem's own sense: Duals[i] = ∂Objective/∂b_i, the rate of change
// of the optimal objective per unit increase of whichever bound of row i is
// active; non-binding rows have a zero dual. For "maximise 3x+5y s.t.
// 3x+2y ≤ 18, ..." a binding capacity row has a positive dual (more capacity,
// more objective); for a minimisation a binding ≥ row has a positive dual.
//
// # Backends and selection
//
//   - Coin (built with cgo, the default there): COIN-OR CLP for LPs and CBC
//     for MIPs through their C interfaces (Debian packages
//     coinor-libclp-dev and coinor-libcbc-dev, pkg-config names clp and
//     cbc). Provides duals for LPs. Random cross-checking against Pure
//     caught CLP 1.17.6 and CBC 2.10.8 returning wrong answers (and CBC
//     aborting the process) on small problems, so the backend runs them
//     defensively: CLP without presolve, every CLP optimum checked against
//     the KKT conditions, infeasible/unbounded verdicts confirmed by the
//     primal simplex, empty rows and empty improving columns handled in Go,
//     a MIP's relaxation settled by CLP before CBC runs, and CBC's
//     preprocessing, probing and TwoMIR cuts and node "crunch" switched off
//     (see cbcSafeParams and TestRegressions). CBC's driver (CbcMain1) keeps
//     static state, so CBC solves are serialised by a package mutex; CLP
//     solves run in parallel.
//   - Pure (always compiled; the default when built with CGO_ENABLED=0 or
//     the build tag nocoin): gonum's dense simplex (optimize/convex/lp) on a
//     standard form built here, plus a depth-first branch and bound for
//     integer variables. It returns no duals (Result.Duals is nil: gonum's
//     Simplex does not expose its final basis), cannot interrupt one LP
//     solve (the time limit is checked between branch-and-bound nodes), and
//     is meant for small and medium problems: each simplex iteration costs
//     a dense factorisation, cubic in the number of rows plus the finite
//     variable upper bounds that no row implies (a Gavel LP with 100 jobs ×
//     3 GPU types takes about 0.1 s, CLP under 1 ms).
//
// Default returns the preferred backend of this build and Backend names it
// with library versions, for `fairbench version`.
//
// Solvers keep no state between calls and are safe for concurrent use.
package lp
