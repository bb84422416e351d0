// Package check is fairbench's formal-model checker: it tells whether an
// allocation policy keeps the fairness properties it claims
// (solvers.Entry.Claims), and when it does not, hands back the smallest
// instance that shows it, as an instance file that `fairbench check
// --replay FILE` and `fairbench solve FILE` re-run.
//
// # Properties
//
// Properties are values (Property: a Name and a String that prints the
// formula with its tolerance; Properties lists them). The single-allocation
// predicates live in models (models.SharingIncentive, EnvyFree,
// ParetoEfficient, StrategyProof, over a fairness.Division); this package
// generates instances, runs policies, and measures the over-time ones.
// With U_u(x) = Σ_{j∈u} Σ_g x[j][g]·T[j][g]/max_h T[j][h] (a user's
// progress in units of each job's best speed), V_u(b) the best U_u a user
// can get from a bundle b of GPUs, N the cluster and M_u = V_u(N):
//
//	feasible            models.Feasible: x ≥ 0, Σ_g x[j][g] ≤ 1, Σ_j d_j·x[j][g] ≤ N_g, runnable types,
//	                    no GPU double-booked (slack 1e-6). Every policy claims it.
//	sharing-incentive   ∀u: U_u(x) ≥ V_u((w_u/Σw)·N) − 1e-6·V_u(…)
//	envy-free           ∀u≠v: U_u(x) ≥ V_u((w_u/w_v)·held_v) − 1e-6·V_u(…)
//	pareto-efficient    max{Σ_u ΔU_u/M_u : x' time-sharing, ΔU_v ≥ 0 ∀v} ≤ 1e-6 (an LP)
//	strategy-proof      no report T'_u found with U_u(M(T'_u, T_−u); T_u) > U_u(M(T); T_u) + 1e-3·M_u
//	long-term-fairness  lag(H) = max_j max_{t≤H} (p_j·t − done_j(t))/(p_j·round), p_j = E_j(1/n)
//	                    (FFT's max-min-fair pace); lag ∝ H^α with α ≤ 0.5
//	regret              R(H) = H·f* − Σ_{t<H} f(x_t), f(x) = Σ_j T_j(x)/p_j, f* the best fixed
//	                    allocation with T_j ≥ p_j (an LP); R ∝ H^α with α ≤ 0.5
//	starvation-bound    S(H) = the longest wait from arrival to first run, in rounds, on an overloaded
//	                    Poisson workload; S ∝ H^α with α ≤ 0.5 (FFT Theorem 4.2: a constant bound)
//	share-convergence   D(H) = max_u |GPU·s_u / entitled_u − 1| (weighted water-filling of the GPUs);
//	                    D(H_max) ≤ 0.05, or D decaying like H^α with α ≤ −0.5
//
// Tolerances are named in Tolerances (DefaultTolerances) and printed by each
// property's String. Growth exponents are least-squares slopes of
// ln max(value, 1) on ln H over H = H₀, 2H₀, 4H₀, 8H₀ rounds (H₀ = 8 by
// default): a quantity that stays within one unit has α = 0.
//
// # How a policy is checked (Run)
//
// Single-allocation properties are checked on
//
//   - every instance up to a bound (Bound, BoundLevel; default level 2:
//     ≤ 2 users × ≤ 2 types × ≤ 2 GPUs per type, speeds {0, 1, 2}, gangs
//     {1, 2}, weights {1, 2}; 1,638 instances): the formal guarantee that no
//     counterexample exists below the bound (users are enumerated up to
//     order, which assumes an anonymous policy; strategy-proofness tries
//     every report on the bound's speed grid);
//   - Config.Cases random instances (default 100) drawn by gopter from
//     Limits (default ≤ 3 users × ≤ 3 types × ≤ 4 GPUs, one job per user,
//     gangs 1–2, weights 1–3, speeds 1–8 with one figure in five 0), seeded
//     by Config.Seed, with shrinking (Spec.Shrinks: users, jobs and types
//     removed, GPUs, weights, gangs and speeds lowered) to a locally minimal
//     counterexample. A counterexample of the exhaustive search is shrunk
//     the same way.
//
// Instances (Spec) have one server per GPU type (so gangs never spread),
// jobs of their own job types with priority w_u / (jobs of u) so that
// job-level (Gavel) and user-level (Gandiva_fair) policies see the same
// entitlements, and the catalogue's V100, P100, K80 and T4 names and ranks
// with the spec's own speeds.
//
// A policy is seen in one of two modes (Mode). A policy that answers with
// time fractions is judged on that one decision (OneDecision: the LP
// allocation as stated; Gavel's fractions are targets that the round
// mechanism may exceed by using idle GPUs, which this mode does not
// credit). A policy that answers with placements (integral, often
// stateful: Gandiva_fair, Tiresias, FIFO) is simulated with every job
// present and none finishing for Config.Rounds rounds (default 24), and
// judged on the time-averaged shares it realised (Realised), with a slack of
// 2 rounds' worth (Tolerances.RealisedRounds / Rounds) and only on instances
// of single-GPU jobs (see Decision.Relaxed: with gangs the time-sharing
// model is a relaxation no gang schedule may meet). --mode forces either.
//
// Over-time properties run seeded workloads (TemporalConfig; 2 per property
// by default): static ones (three users with two jobs each, or ticket
// holders of weights 1, 2, 3 with identical speeds) simulated to 8H₀ rounds
// with a checkpoint every round, and a dynamic overloaded Poisson workload
// (2 jobs per round on 6–9 GPUs) cut at each horizon and run to completion.
// Their counterexample is the workload itself; it is not shrunk.
//
// Every property the policy does not claim is checked too: its violation is
// information, not a failure. A policy failure (an error, a crash, a hang, a
// malformed answer) is reported as an error, never as a violation.
// Report.ExitCode is `fairbench check`'s exit status: 0 when every claimed
// property holds, 1 when one is violated, 2 on bad usage or a policy
// failure. PrintReport, JUnit and Matrix (with its JSON and CSV shapes
// documented on the type) present the results.
//
// # Counterexamples and replay
//
// A counterexample is written to Config.OutDir as
// <policy>-<property>-<hash>.json in the instance format of `fairbench
// solve` (README, "Instance files"): the instance, "policy", "options", the
// policy's answer under "result", and a "note" that names the property
// ("fairbench check: property NAME violated by policy P (mode; instance):
// reason"). Replay re-checks such a file; the files in testdata/ are
// counterexamples the searches found, each with a note saying what it
// caught.
//
// # External policies
//
// `--policy exec:CMD` runs CMD as a subprocess (External); CMD may be in any
// language. examples/equal_share.py is a minimal policy in standard-library
// Python; the tests check it end to end.
//
// The external-policy protocol (JSON lines on the subprocess's stdin and
// stdout; stderr is kept for error messages):
//
// fairbench starts CMD once, through `sh -c CMD`, and writes one request per
// decision, one JSON object per line:
//
//	{"protocol": "fairbench-policy/1", "id": 7, "run": 3, "trigger": "round",
//	 "instance": { ...the snapshot as an instance file, as `fairbench solve` reads it... }}
//
// id numbers the requests; run numbers the independent problems: every
// single-instance check is a run of its own, a simulation is one run whose
// decisions share a run number. A policy that keeps state must start afresh
// when the run number changes. trigger is why the decision is asked for
// (round, arrival, completion or mixed). The instance holds gpu_types,
// servers, users (name, weight), and the active jobs with their progress
// (done, attained_gpu_s, executed_s, first_run_s, last_type, last_gpus,
// received_s) and their throughputs in steps/s with the whole gang on each
// GPU type (throughputs, and spread_throughputs when the gang spans
// servers); a type missing from throughputs cannot run the job.
//
// The policy answers every request with exactly one line:
//
//	{"id": 7, "allocation": {"fractions": {"1": {"V100": 0.5, "K80": 0.5}}}}
//	{"id": 7, "allocation": {"run": [{"job": 1, "type": "V100"}]}}
//	{"id": 7, "error": "why it cannot decide"}
//
// The allocation is models.Allocation in JSON: "fractions" (job id → GPU
// type → share of time) or "run" (whole-gang placements, optionally with
// "gpus"), plus the optional "shared", "capped" and "colocate". Unknown keys
// are refused. When stdin closes, the policy should exit.
//
// Failures are reported as such, never as property violations: an answer
// that is not one JSON object of that shape, or carries another id, is
// malformed; no answer within the timeout is a hang; an exit or a closed
// stdout is a crash (with the exit status and the end of stderr). The
// process is killed after a malformed answer or a hang, and every later
// request fails with the same error. An "error" answer fails that decision
// only.
package check
