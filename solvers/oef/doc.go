// Package oef implements OEF (Mo, Xu, Lau, "Optimal Resource Efficiency
// with Fairness in Heterogeneous GPU Clusters", Middleware 2024, arXiv
// 2403.18545): the allocation of GPU time among users as one global
// optimisation that maximises the cluster's resource efficiency (the total
// normalised throughput) under the fairness its environment calls for.
//
// Two policies, one per environment of the paper:
//
//   - oef (cooperative users, who report their speedups truthfully):
//     maximise Σ_u U_u subject to sharing incentive (every user at least the
//     value of its weighted share of every type) and envy-freeness (no user
//     values another's GPUs, scaled by their weights, above its own), the
//     program (C) of docs/algorithms/oef.md;
//   - oef-noncoop (non-cooperative users, who may misreport): the largest
//     equal weighted normalised throughput U_u / w_u, every user that can
//     reach it held at it exactly, a user whose jobs cannot use that much
//     held at the most it can use (program (N)).
//
// A user's utility is its jobs' progress in units of their best speed,
// U_u = Σ_{c∈u} Σ_g a_cg·X_cg with a_cg = T_cg / max_h T_ch (the unit of
// the checker's predicates); X_cg is the total time the jobs of class c
// (identical jobs of one user) spend on type g. A weight-w user counts as
// w copies of a weight-1 user, as the paper does for weights.
//
// The paper's full text could not be read through this project's tools
// (only its abstract and summaries): the programs are reconstructed from
// what it states, and docs/algorithms/oef.md says which parts were
// inferred and why. Both programs are LPs solved with solvers/lp (CLP with
// cgo). Decisions are taken at round starts, as Gavel's policies do.
package oef
