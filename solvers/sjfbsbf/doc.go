// Package sjfbsbf holds SJF-BSBF, "shortest job first with best sharing
// benefit first" (Luo, Wang, Shi, Lai, Qi, Zhang, Wang, "Scheduling Deep
// Learning Jobs in Multi-Tenant GPU Clusters via Wise Resource Sharing",
// IWQoS 2024, arXiv 2407.13088), and the paper's aggressive-sharing baseline
// SJF-FFS, each also in a variant that tries one server first:
//
//	sjf-bsbf               the pairwise benefit test, best benefit first
//	sjf-bsbf-consolidated  the same, one server first
//	sjf-ffs                share any fitting GPU, first fit, no test
//	sjf-ffs-consolidated   the same, one server first
//
// All four are non-preemptive and decide at arrivals and completions (or
// once per round with rounds_only). At
// most two jobs share a GPU, each running at its co-located speed (the
// simulator's GPU sharing: sim and models.Allocation.Colocate).
//
// # One decision
//
// Every running job is listed again on its own GPUs with its own
// accumulation setting (a running job is never moved, stopped or re-tuned).
// The waiting jobs are then taken in SJF order: ascending remaining time at
// their best throughput on the cluster (sjf.RemainingTime), ties by arrival
// then ID. Each job starts where the first phase that finds room puts it, or
// waits (and the next job is tried):
//
//  1. Idle GPUs (sjf-bsbf, sjf-ffs): when a GPU type has enough idle GPUs
//     for the gang, the fullest server that holds the whole gang, else the
//     servers with the most idle GPUs — the simulator's own rule, so that
//     without sharing these policies place exactly like sjf.
//  2. Sharing: the GPUs of a running job that holds its GPUs alone (a job
//     that already shares is never given a second partner, so a GPU never
//     holds a third job), whose pair with the pending job is not forbidden
//     (a measured co-located throughput of 0) and fits in GPU memory,
//     possibly with gradient accumulation (below). sjf-bsbf offers only the
//     running jobs b that pass the pairwise test t_con < t_seq (TCon, TSeq;
//     docs/algorithms/sjf-bsbf.md) and takes the one with the lowest t_con (best
//     benefit first); sjf-ffs offers every fitting running job and takes the
//     one on the lowest GPU index (first fit).
//
// Which GPUs a sharing job takes depends on the option pairing:
//   - gangs (the default): exactly the GPU set of one running job of its own
//     gang, and no idle GPU. This is the paper's model, in which jobs "share
//     the same set of GPUs" and interference is measured for pairs of jobs of
//     equal GPU counts (as are Gavel's pairs, the only measured pairs in the
//     catalogue).
//   - gpus (the original specification read literally): every idle GPU of the type first, then
//     GPUs of passing running jobs of any gang in the order above, GPU by
//     GPU, until the gang is met. A gang larger than its partner's takes
//     several partners; a partner with more GPUs than needed gives its
//     lowest-indexed ones.
//
// The consolidated variants try, in order: idle GPUs on one server; sharing
// on one server (pairing gangs: a partner whose gang is on one server;
// pairing gpus: idle and shared GPUs of one server, the server needing the
// fewest shared GPUs, then the best worst shared GPU, then the lowest
// index); idle GPUs spread; and sharing anywhere. Each phase is tried on
// every GPU type that can run the job, fastest first, before the next
// phase: a job prefers idle GPUs on a slower type to sharing on a faster
// one.
//
// # The pairwise test
//
// For pending job a and running job b on GPU type g: E = remaining steps /
// throughput alone (b: at its placement and accumulation setting; a: at its
// nominal placement, consolidated when its gang fits a server, as
// Snapshot.Throughput), and ξ = isolated / co-located throughput from the
// matrix's pair figures, or default_slowdown when the matrix has none —
// exactly what the simulator will apply (sim's slowdown). TCon and TSeq give
// the two mean completion times; see pairwise.go. Among running jobs of one
// kind the passing ones are those above a threshold E_b, and t_con grows
// with E_b, so each decision costs a few lookups per pending job and kind of
// running job (threshold).
//
// # Gradient accumulation
//
// When a pair does not fit in memory (models.AccumMemory of both ≤ the GPU's
// memory), the pending job may run k sub-batches of BatchSize/k per step
// (models.AccumThroughput: the matrix's measured figure of the same model at
// the sub-batch, never an extrapolation). sjf-bsbf picks, among the k whose
// memory fits, the one with the highest throughput, which minimises the
// pair's t_con for every E_b (t_con grows with E_a in both branches) and
// tests t_con(E_a(k)) < t_seq(E_a(1)) (waiting, a would later run alone
// with its whole batch). sjf-ffs takes the smallest k that fits. A gang
// sharing with several running jobs uses the largest k any of them needs.
// A job keeps its setting until it ends.
//
// The built-in catalogue has no memory figures (MemoryGB 0: unknown), so
// memory never blocks a pair there; Gavel's pairs measured as [0, 0] are
// the catalogue's co-location limits, and accumulation cannot lift those
// (models.Feasible forbids the job types' pair whatever the setting).
//
// # Choices where the paper is not specific (or could not be checked)
//
// The full text of the paper was not available to the author of this
// package (only its abstract); the formulas are those of
// docs/algorithms/sjf-bsbf.md. Choices made
// here:
//   - Pairing gangs by default, against the specification's "take GPUs of running
//     jobs until the gang is met" (pairing gpus): jobs of different gangs on
//     partly shared GPUs have no measured interference anywhere (the
//     default ξ always applies), the simulator runs a gang at the pace of
//     its slowest worker, so a 1-GPU job sharing one GPU of an 8-GPU job
//     halves the speed of all 8, and mixing idle and shared GPUs spreads
//     gangs over servers. On the example scenario
//     (scenarios/examples/sjfbsbf.yaml) pairing gpus makes sjf-bsbf slower
//     than sjf without any sharing; pairing gangs makes it faster.
//   - Only the pending job's sub-batch is chosen; the running partner keeps
//     its setting (changing it would mean restarting it, and the policy is
//     non-preemptive).
//   - The paper's "time point at which sharing starts" is the test itself:
//     share now, or wait for b to end (when it ends, a completion decision
//     starts a on the freed GPUs if it is still first).
//   - A job that waits does not reserve GPUs: jobs ranked after it
//     that fit go ahead (as sjf does).
//   - ξ of a job with k-step accumulation is that of its own job type (the
//     simulator's rule), not of the sub-batch type.
//   - Heterogeneous clusters: the phases are tried type by type, fastest
//     type first (the paper's cluster is homogeneous).
//
// Options (all four): default_slowdown (float ≥ 1, default 2), the ξ assumed
// for a pair without figures, which must equal the simulator's
// Config.DefaultSlowdown (default 2) for the test to predict what happens;
// pairing (gangs or gpus, default gangs), above; rounds_only (default
// false) decides once per round instead of at arrivals and completions, as
// the authors' prototype does once per scheduling interval.
//
// The policies count the jobs they start, start beside a running job, and
// start with accumulation (Report). Build one per run.
package sjfbsbf
