// Package fft is FFT, "Fast and Fair Training" (Mo, Xu, Lau, "Fast and Fair
// Training for Deep Learning in Heterogeneous GPU Clusters", ICS 2025, DOI
// 10.1145/3721145.3728488), as specified in docs/algorithms/fft.md. Two registered
// names: fft solves each round's program with the fast path, fft-exact
// exactly: by branch and bound over the program's transportation relaxation
// (branch.go, after reduced-cost fixing, fixing.go) where the fast path
// reached the relaxation's fill, else, and
// when that search runs past its node budget, by the MIP backend (CBC
// through solvers/lp where built with cgo, the pure-Go branch and bound
// otherwise).
//
// # The round's program
//
// Every round t (the scenario's round_seconds; the paper's is 5 minutes),
// over binary x[j][i] — job j runs its whole gang of d_j GPUs on type i this
// round —
//
//	minimise    Σ_j Σ_i ( φ[j][i](t) + s[j][i](t) − ρ_j(t)·θ[j][i] )·x[j][i]
//	φ[j][i](t) = (t − a_j)·θ[j][i]/W_j + d_j·W_j/θ[j][i]
//	subject to  Σ_i x[j][i] ≤ 1;   Σ_j d_j·x[j][i] ≤ Υ_i;
//	            Σ_i Σ_j d_j·x[j][i] ≥ K(t)                          (Eq. 7)
//	            x[j][i] = 0 where type i lacks the memory job j needs
//
// with θ[j][i] the work per round on type i at the job's gang, W_j the work
// required, a_j the arrival, s[j][i] the training-state transfer time in
// rounds when running on i means restoring a checkpoint, Υ_i the GPUs of
// type i, and K(t) the largest Σ d_j·x[j][i] the active jobs can place under
// the per-type limits (work conservation). After each round the fairness
// compensation follows Eq. 5:
//
//	ρ_j(t+1) = max{0, ρ_j(t) + μ_j(t)·(W_j/(τ_j − a_j) − Σ_i θ[j][i]·x[j][i])},  ρ_j(a_j) = 0
//	μ_j(t)   = (t − a_j)/(τ_j − a_j)
//
// where τ_j is the finish time of j on a dedicated 1/|A(t)| of every GPU type
// without preemption, re-estimated whenever a job arrives or completes. The
// equation numbers (Eq. 5, Eq. 7) are those of docs/algorithms/fft.md.
//
// # Choices where the specification leaves room
//
//   - Units. Time is in rounds: t = Now/round and a_j = Arrival/round, both
//     real (a job arriving mid-round has 0 < t − a_j ≤ 1 at its first
//     decision). Work has no natural unit in fairbench (the paper counts
//     epochs; jobs here have steps and no epoch size) and ρ_j·θ scales with
//     the square of the unit (see UnitBestRound): the default is one round of
//     the job's own work on its fastest type; "job" and "step" are options.
//   - θ[j][i] uses models.Environment.Throughput: consolidated throughput when the gang
//     fits one server, spread otherwise; 0 (no measured figure, too little
//     memory, too few GPUs) forbids the pair — the memory rows.
//   - τ_j = a_j + W_j / r_j with r_j = models.Environment.EqualShareThroughput at
//     f = 1/|A(t)| (fractional time on 1/n of each type, the isolated rate of
//     the simulator's finish-time fairness), |A(t)| the active jobs of the
//     decision; recomputed only when the set of active jobs changed.
//   - Eq. 5 uses the x the policy decided for the round (the planned θ·x, as
//     written, not the progress measured afterwards: restore pauses and
//     mid-round completions do not enter), μ_j at the decision that set x,
//     and τ_j as it was then. A gap of Δ rounds between decisions multiplies
//     the increment by Δ (Δ = 1 in the simulator). ρ_j = 0 at a job's first
//     decision.
//   - s[j][i] = restore_j/round when the job has run before and either is not
//     running now (it resumes) or runs on another type (it migrates), else 0:
//     the simulator charges its restore cost in exactly those cases, and a
//     first start is free. restore_j = StateGB / bandwidth_gb_per_second
//     (default 1.25 GB/s, the simulator's default) or a restore_seconds
//     override. The policy cannot see the scenario's
//     preemption.bandwidth_gb_per_second: set both to the same value.
//   - K(t) is the largest fill over integral x. The fast path gets an upper
//     bound from the LP relaxation (its max-flow value) and rounds for the
//     most GPUs filled first, the objective second; when its fill reaches
//     the bound it has K(t). The exact path solves K(t) as its own MIP
//     (maximise Σ d·x, with the MIP backend) only when the fast path's fill
//     falls short of the bound, then the round's program with Σ d·x ≥ K(t).
//   - Decisions at round starts only (the paper's time slots): a job arriving
//     mid-round waits for the next round, and GPUs a job frees mid-round stay
//     idle until then.
//   - The fast path (fast.go) solves the LP relaxation exactly — it is a
//     transportation problem — and rounds the few jobs it splits, with a
//     local search; it equals the exact solve whenever every gang is 1. Its
//     gap is measured, not assumed: Report.MaxBoundGap certifies a bound per
//     round, and the audit_every option solves sampled rounds exactly too.
//   - Host placement (place.go): the program decides types; FFT names the
//     GPUs, keeping a job that stays on its type on its GPUs, packing gangs
//     best-fit onto whole servers, and at churn moving jobs, cheapest
//     migration first, when that keeps a gang on one server for less than a
//     round of spreading costs.
//   - fft-exact falls back to the fast path's x when the MIP backend fails
//     and keeps the better of the two when a time or node limit stops it
//     (Report.ExactFailed, ExactLimited). A time limit that is reached makes
//     a run machine-dependent; the default has none.
//
// The policy keeps each job's ρ_j, τ_j and the previous round's x between
// decisions; an instance serves one run (solvers.Policy: a snapshot earlier
// than the last is an error). Report (solvers.Reporter) records per round the objective,
// the LP bound and the fills, and per job its ρ trajectory, both bounded.
package fft
