// Package gavel holds the Gavel family of allocation policies (Narayanan,
// Santhanam, Kazhamiaka, Phanishayee, Zaharia, "Heterogeneity-Aware Cluster
// Scheduling Policies for Deep Learning Workloads", OSDI 2020; artifact
// github.com/stanford-futuredata/gavel, scheduler/policies/), each a linear
// program over time fractions solved through solvers/lp:
//
//	gavel-las              max-min fairness, heterogeneity-aware   (LAS, las.go)
//	gavel-las-agnostic     the same with every throughput 1        (LAS, las.go)
//	gavel-ftf              finish-time fairness                    (FTF, ftf.go)
//	gavel-makespan         minimum makespan                        (Makespan, makespan.go)
//	gavel-max-throughput   maximum total throughput                (MaxThroughput, maxthroughput.go)
//	gavel-hierarchical     users, then jobs, by water filling      (Hierarchical, hierarchical.go)
//	gavel-las-ss           max-min fairness with space sharing     (SpaceSharing, spacesharing.go)
//
// # The shared LP
//
// Every policy decides x[j][g], the fraction of time active job j should
// spend on GPU type g, subject to
//
//	x[j][g] ≥ 0
//	Σ_g x[j][g] ≤ 1                  (a job runs on one type at a time)
//	Σ_j d_j·x[j][g] ≤ N_g            (d_j the gang, N_g the GPUs of type g)
//	x[j][g] = 0 where T[j][g] = 0
//
// where T[j][g] = models.Snapshot.Throughput: the job's steps per second
// with its whole gang on type g, consolidated when the gang fits one server
// of g and spread otherwise; 0 when the matrix has no figure for that key,
// the figure is 0, the job does not fit the type's memory, or the type has
// fewer GPUs than the gang. Such a type simply gets no time.
//
// The allocation is returned as fractions (gavel-las-ss adds pairs in
// Allocation.Shared); the simulator's round mechanism turns them into one
// round's placements with Gavel's priorities, x[j][g] over the share of its
// time in the system the job has had on g (sim.realise). Fractions are
// targets, not caps, as in Gavel. LP noise is cleaned before returning:
// values under 1e-9 become 0 and, should a time or capacity row be exceeded
// by the solver's tolerance, all shares are scaled down by one common factor,
// so every allocation passes models.Feasible.
//
// Policies decide at round starts only (Triggers), as Gavel recomputes its
// allocation once per round.
//
// # Classes of jobs
//
// With the option aggregate (default true) jobs that the LP cannot tell
// apart — same gang, throughputs and policy data (weight, normaliser,
// remaining steps, user, job type and memory where these enter) — share one
// set of variables: each of the jobs gets the same shares. The LPs are convex
// and symmetric in such jobs, so averaging any optimum over their
// permutations gives an optimum with equal shares: the optimal value is
// unchanged (Objective is the same with aggregate false), only which of
// several optimal allocations is returned differs. Gavel's own solver (ECOS,
// an interior-point method) also tends to the symmetric centre of the optimal
// face. With 2,048 Philly-like jobs of the built-in catalogue the LP of
// gavel-las has 106 classes instead of 2,048 jobs. Set aggregate: false for
// Gavel's per-job LPs (the benchmarks in microbench/gavel_test.go time both).
//
// # Options
//
// Every policy takes backend (auto | coin | pure, default auto: CLP when
// built with cgo, else the pure-Go simplex; coin in a build without it is an
// error), time_limit (default 1m, 0 for none: the wall-clock time all the LP
// solves of one decision may take together) and aggregate (default true).
// The max-min policies (gavel-las, gavel-las-agnostic, gavel-las-ss,
// gavel-hierarchical) take normaliser (proportional | equal-share, default
// proportional, Gavel's). gavel-ftf takes tolerance (default 0.001) and
// max_bisections (default 60); gavel-hierarchical takes slack (default
// 0.0001). Unknown keys and bad values are refused when the policy is
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
// optimal allocation (before an LP solve, or inside one with CLP), Allocate
// returns a *LimitError, which matches lp.ErrLimit, and no allocation. The
// pure-Go backend cannot stop inside one LP solve; its limit is checked
// between solves. Any other solver failure is returned wrapped, with the
// policy and LP named.
package gavel
