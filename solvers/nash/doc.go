// Package nash holds the Nash-social-welfare policies: nash, the
// Eisenberg–Gale allocation over users (the competitive equilibrium from
// equal incomes when the market is linear), and nash-pa, its partial
// allocation mechanism (Cole, Gkatzelis, Goel, EC 2013), which is
// strategy-proof. The solver is exported (Market, Solver, Certificate,
// Discounts) for the other mechanisms built on it (Gavel's strategy-proof
// max-min fairness in solvers/gavelsp). docs/algorithms/nash.md states the
// mechanisms, their proofs and the conditions of every claim.
//
// # The program
//
// With U_i the utility of buyer i (a user; its jobs' progress in units of
// each job's best speed, U_i = Σ_{j∈i} Σ_g x[j][g]·T[j][g]/max_h T[j][h], the
// unit of the fairness predicates in models) and w_i its weight,
//
//	maximise   Σ_i w_i·log U_i                                       (EG)
//	subject to Σ_j d_j·x[j][g] ≤ N_g,  Σ_g x[j][g] ≤ 1,  x ≥ 0,  x[j][g] = 0 where T[j][g] = 0.
//
// Jobs of one user with equal gang and normalised speeds share one class
// (Market, UserMarket).
//
// # Solving it exactly
//
// Solver.Solve runs Kelley's cutting-plane method with the LP backend of
// solvers/lp (CLP): log U_i is replaced by the minimum of tangents, each LP
// solve adds a tangent at every buyer's new utility, until the LP's bound and
// the welfare of its point differ by at most 1e-10·Σw (in practice CLP's
// feasibility tolerance stops it near 1e-7). Each LP point is Pareto
// efficient. Welfare is flat at the optimum, so such a point's utilities can
// be ~1e-4 off; polish.go then solves the Karush–Kuhn–Tucker conditions as
// equations on the active set the point suggests (Gauss–Newton, an
// active-set loop for signs) and keeps the result only when its certificate
// proves a duality gap below 1e-11·Σw. With Solver.Interior (an option,
// on small markets) a primal-dual interior-point method whose Newton
// systems cost O(pairs·k) for k GPU types (ipm.go) comes first, its point
// polished and certified the same way. Discounts' leave-one-out markets
// are first checked with the full optimum's certificate, then solved by
// cutting planes warm-started from one LP to the next (pa.go), and the
// policies answer a market equal to the decision before's from it
// (recall.go).
//
// # The certificate
//
// Certificate holds prices p_g (GPU types) and rents λ_c (the classes' time
// caps) with the duality gap they prove: for every feasible allocation,
// Σ_i w_i·log U_i ≤ D(p, λ). Verify recomputes the gap from scratch. At the
// optimum, p are market-clearing prices and each buyer's budget splits into
// its spending on GPUs and the rent of its time-capped classes.
package nash
