// Package fairness holds the single-allocation fairness predicates of
// fairbench and the search for profitable lies: sharing incentive,
// envy-freeness, Pareto efficiency and strategy-proofness, on a Division
// (the fair-division view of one decision) and an Outcome (an allocation in
// its terms). docs/checker.md states each property as mathematics, with
// its tolerance and the conditions under which papers claim it.
//
// The predicates answer (ok, reason, err): reason carries the numbers of a
// violation; err is a failure of the LP backend (solvers/lp, which solves
// the bundle-value and Pareto LPs), never a violation. Feasibility is not
// checked here: the caller checks models.Feasible first, and an infeasible
// allocation never reaches a predicate (the checker counts it as violating
// every property).
//
// The package imports models and solvers/lp; models imports neither, so
// the predicates could not live there without a second LP solver.
package fairness
