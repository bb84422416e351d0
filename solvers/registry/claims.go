package registry

import "fairbench/models"

// Citations of the claims below.
const (
	gavelPaper    = "Narayanan et al., Heterogeneity-Aware Cluster Scheduling Policies for Deep Learning Workloads, OSDI 2020, §4.1"
	gandivaPaper  = "Chaudhary et al., Balancing Efficiency and Fairness in Heterogeneous GPU Clusters for Deep Learning, EuroSys 2020, §3–4"
	fftPaper      = "Mo, Xu, Lau, Fast and Fair Training for Deep Learning in Heterogeneous GPU Clusters, ICS 2025"
	egPaper       = "Eisenberg, Gale, Consensus of subjective probabilities: the pari-mutuel method, Ann. Math. Stat. 30, 1959 (the maximiser of weighted Nash welfare); docs/algorithms/nash.md"
	paPaper       = "Cole, Gkatzelis, Goel, Mechanism design for fair division: allocating divisible items without payments, EC 2013 (partial allocation); docs/algorithms/nash.md (5)"
	ceeiNote      = "competitive equilibrium with the jobs' time caps (Varian, Equity, envy and efficiency, J. Econ. Theory 9, 1974; Hylland, Zeckhauser, JPE 87, 1979); every decision certified (docs/algorithms/ceei.md)"
	oefPaper      = "Mo, Xu, Lau, Optimal Resource Efficiency with Fairness in Heterogeneous GPU Clusters, Middleware 2024 (arXiv 2403.18545); programs reconstructed in docs/algorithms/oef.md"
	partitionNote = "static weighted partition (by construction): each user owns w_u/Σw of every type, all users counted, " +
		"and its jobs fill their fastest types in arrival order, which is the best use of the slice when the user's jobs are alike"
)

// Claims is every registered policy's claims, in one place: the properties
// each paper proves or states, with the conditions it states them under
// (docs/checker.md lists the conditions; docs/adding-a-policy.md says how
// to add a claim). A policy without an entry claims feasibility only.
func Claims() map[string][]models.Claim {
	return map[string][]models.Claim{
		"static-partition": {
			{Property: "sharing-incentive", Conditions: []string{models.AllUsersActive, models.IdenticalJobsPerUser}, Source: partitionNote},
			{Property: "envy-free", Conditions: []string{models.IdenticalJobsPerUser}, Source: partitionNote},
			{Property: "strategy-proof", Conditions: []string{models.IdenticalJobsPerUser}, Source: partitionNote},
		},
		"gandiva-fair":         gandivaClaims(),
		"gandiva-fair-notrade": gandivaClaims(),
		"gavel-las": {
			// Gavel's entities are jobs, with equal weights in the proof:
			// users with one job each, of equal weight.
			{Property: "sharing-incentive", Conditions: []string{models.EqualWeights, models.OneJobPerUser}, Source: gavelPaper},
			{Property: "pareto-efficient", Conditions: []string{models.OneJobPerUser}, Source: gavelPaper},
		},
		"gavel-hierarchical": {
			{Property: "pareto-efficient", Conditions: []string{models.OneJobPerUser}, Source: gavelPaper + " (hierarchical policies, water filling)"},
		},
		"fft":       fftClaims(),
		"fft-exact": fftClaims(),
		// The fair-division mechanisms of issue 21, in the time-sharing
		// model their proofs use (divisible). nash keeps envy-freeness and
		// sharing incentive only where no job's time cap binds, a condition
		// the checker cannot state yet (docs/algorithms/nash.md), so it
		// claims Pareto efficiency only. themis's partial allocation is
		// strategy-proof within one auction of fresh jobs, which one
		// checked decision (24 rounds of leases) is not: it claims nothing
		// (docs/algorithms/themis.md).
		"nash": {
			{Property: "pareto-efficient", Conditions: []string{models.Divisible}, Source: egPaper},
		},
		"nash-pa": {
			{Property: "strategy-proof", Conditions: []string{models.Divisible}, Source: paPaper},
		},
		"ceei": {
			{Property: "sharing-incentive", Conditions: []string{models.Divisible}, Source: ceeiNote},
			{Property: "envy-free", Conditions: []string{models.Divisible}, Source: ceeiNote},
			{Property: "pareto-efficient", Conditions: []string{models.Divisible}, Source: ceeiNote + "; first welfare theorem"},
		},
		// OEF's users are tenants with one speedup vector each, time-shared
		// (divisible); the cooperative program states sharing incentive and
		// envy-freeness, the non-cooperative one strategy-proofness
		// (docs/algorithms/oef.md says what was inferred).
		"oef": {
			{Property: "sharing-incentive", Conditions: []string{models.Divisible, models.IdenticalJobsPerUser}, Source: oefPaper + ", cooperative environment"},
			{Property: "envy-free", Conditions: []string{models.Divisible, models.IdenticalJobsPerUser}, Source: oefPaper + ", cooperative environment"},
		},
		"oef-noncoop": {
			{Property: "strategy-proof", Conditions: []string{models.Divisible, models.IdenticalJobsPerUser}, Source: oefPaper + ", non-cooperative environment"},
		},
		"gavel-strategy-proof": {
			// Gavel's agents are jobs: a user with several jobs lies for
			// all of them at once, which the per-agent proof does not cover.
			{Property: "strategy-proof", Conditions: []string{models.OneJobPerUser, models.Divisible}, Source: gavelPaper + " (max_min_fairness_strategy_proof.py); " + paPaper},
		},
	}
}

// gandivaClaims: per-user fair share of GPU time with trading that leaves
// no user worse off; the paper's users run similar jobs (hyper-parameter
// search) on generations whose newer GPUs are faster.
func gandivaClaims() []models.Claim {
	return []models.Claim{
		{Property: "sharing-incentive", Conditions: []string{models.IdenticalJobsPerUser, models.MonotoneSpeeds, models.SingleGPUJobs}, Source: gandivaPaper},
		{Property: "share-convergence", Source: gandivaPaper},
	}
}

// fftClaims: Theorem 4.1 (unfinished jobs O(√N), fractional JCT within a
// constant of optimal: the long-term fairness constraint and sub-linear
// regret) and Theorem 4.2 (every job runs within a constant time of its
// arrival), for a system that can serve its load.
func fftClaims() []models.Claim {
	return []models.Claim{
		{Property: "long-term-fairness", Source: fftPaper + ", Theorem 4.1 and Eq. 5"},
		{Property: "regret", Source: fftPaper + ", Theorem 4.1"},
		{Property: "starvation-bound", Conditions: []string{models.LoadBelowCapacity}, Source: fftPaper + ", Theorem 4.2"},
	}
}
