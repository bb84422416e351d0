// Package gavel holds the Gavel family of allocation policies (Narayanan,
// Santhanam, Kazhamiaka, Phanishayee, Zaharia, "Heterogeneity-Aware Cluster
// Scheduling Policies for Deep Learning Workloads", OSDI 2020; specification
// in docs/algorithms/gavel.md), each a linear program over time fractions
// solved through solvers/lp:
//
//	gavel-las              max-min fairness, heterogeneity-aware   (LAS, las.go)
//	gavel-las-agnostic     the same with every throughput 1        (LAS, las.go)
//	gavel-ftf              finish-time fairness                    (FTF, ftf.go)
//	gavel-makespan         minimum makespan                        (Makespan, makespan.go)
//	gavel-max-throughput   maximum total throughput                (MaxThroughput, maxthroughput.go)
//	gavel-hierarchical     users, then jobs, by water filling      (Hierarchical, hierarchical.go)
//	gavel-las-ss           max-min fairness with space sharing     (SpaceSharing, spacesharing.go)
//
// Gavel's isolated and FIFO baselines are gavel-isolated (solvers/isolated)
// and gavel-fifo (solvers/fifo).
//
// # The shared LP
//
// Every policy decides x[j][g], the fraction of time active job j should
// spend on GPU type g, subject to
//
//	x[j][g] ≥ 0
//	Σ_g x[j][g] ≤ 1                  (a job runs on one type at a time)
//	Σ_j d_j·x[j][g] ≤ N_g            (d_j the gang, N_g the GPUs of type g)
//
// where T[j][g] = models.Snapshot.Throughput: the job's steps per second
// with its whole gang on type g, consolidated when the gang fits one server
// of g and spread otherwise; 0 when the matrix has no figure for that key,
// the figure is 0, the job does not fit the type's memory, or the type has
// fewer GPUs than the gang. A job never gets time on a type where T is 0
// (the allocation leaves such shares out).
//
// # Which optimum
//
// The LPs are degenerate: many allocations reach the optimal value. With
// the option solution central (the default) a policy returns the point
// Gavel's own solver (ECOS, an interior-point method) returns:
// lp.Interior, run on Gavel's LP exactly (a variable for every job and type,
// Gavel's normaliser, a free level variable), which matches ECOS's answer
// to about 1e-5. Solution vertex returns a simplex vertex (CLP, or the
// pure-Go simplex). gavel-las-ss always returns a vertex, and so does an LP
// of more than 1,000 variables (counted in the policy report, Tally).
// docs/algorithms/gavel.md says why this rule, and what each choice does to
// mean JCT.
//
// # Rounds
//
// The allocation is returned as fractions (gavel-las-ss adds pairs in
// Allocation.Shared); the simulator's round mechanism (sim.PlanRound) turns
// them into one round's placements with Gavel's priorities and fills GPUs
// left over with any runnable job, as Gavel's simulator does: fractions are
// a priority order, not caps. LP noise is cleaned before returning: values
// under 1e-9 become 0 and, should a time or capacity row be exceeded by the
// solver's tolerance, all shares are scaled down by one common factor, so
// every allocation passes models.Feasible.
//
// Policies decide at round starts only (Triggers), and only on Gavel's
// re-solve cadence (RoundRules): after jobs arrived or finished, at least
// resolve_seconds (default 1920) after the last allocation.
//
// # Classes of jobs
//
// With the option aggregate (default true) jobs that the LP cannot tell
// apart — same gang, throughputs and policy data (weight, normaliser,
// remaining steps, user, job type and memory where these enter) — share one
// set of variables: each of the jobs gets the same shares. The LPs are convex
// and symmetric in such jobs, so averaging any optimum over their
// permutations gives an optimum with equal shares: the optimal value is
// unchanged (Objective is the same with aggregate false). The central
// solution is the same too: lp.Interior solves the class LP as the LP with
// every job written out (lp.Copies), to its accuracy. With 2,048 Philly-like
// jobs of the built-in catalogue the LP of gavel-las has 106 classes instead
// of 2,048 jobs. Set aggregate: false for Gavel's per-job LPs (the
// benchmarks in microbench/gavel_test.go time both).
//
// # Options
//
// Every policy takes backend (auto | coin | pure, default auto: CLP when
// built with cgo, else the pure-Go simplex; coin in a build without it is an
// error; it solves the vertex LPs), time_limit (default 1m, 0 for none: the
// wall-clock time all the LP solves of one decision may take together),
// aggregate (default true), solution (central | vertex, default central),
// resolve_seconds (default 1920) and arrivals (fill | wait | block, default
// fill: what the round mechanism does with jobs that arrived after the
// allocation; block is Gavel's simulator, see docs/algorithms/gavel.md).
// The max-min policies (gavel-las, gavel-las-agnostic, gavel-las-ss,
// gavel-hierarchical) take normaliser (proportional | equal-share, default
// proportional, Gavel's). gavel-ftf takes tolerance (default 0.001) and
// max_bisections (default 60); gavel-hierarchical takes slack (default
// 0.0001); gavel-makespan takes target (bisection | optimum, default
// bisection, Gavel's). Unknown keys and bad values are refused when the policy is
// built.
//
// # Weights
//
// gavel-las, gavel-las-agnostic and gavel-las-ss weigh jobs by their
// priority (models.Job.PriorityWeight), as Gavel does; gavel-hierarchical
// uses the users' weights between users and the priorities within a user;
// gavel-ftf, gavel-makespan and gavel-max-throughput use no weights (Gavel's
// leave them unused too).
//
// # Errors
//
// A job that no GPU type of the cluster can run (no positive T[j][g]
// anywhere: typically the matrix lacks the job type's figures at its gang on
// every type) makes Allocate fail with an *UnrunnableError that names the
// job, its type and gang, and, per GPU type, why it cannot run there (for a
// missing figure: the matrix key with job type, GPU type, gang and
// placement); it matches ErrUnrunnable. A figure missing on some types only
// is not an error. When the time limit runs out before a policy has its
// optimal allocation (before an LP solve, or inside one), Allocate returns
// a *LimitError, which matches lp.ErrLimit, and no allocation. A central
// solve that fails otherwise falls back to the vertex of the same LP
// (counted in Tally); CLP's own hiccups are retried inside solvers/lp. Any
// other solver failure is returned wrapped, with the policy and LP named.
package gavel
