// Package check is fairbench's formal-model checker: it tells whether an
// allocation policy keeps the fairness properties it claims, each under the
// conditions its paper states (solvers.Entry.Claims, declared in
// solvers/registry/claims.go), and when it does not, hands back the
// smallest instance that shows it, as an instance file that `fairbench
// check --replay FILE` and `fairbench solve FILE` re-run.
//
// docs/checker.md is the specification: every property as mathematics with
// its tolerance, the conditions claims carry, the instance space and its
// limits, how the exhaustive, random and strategy-proofness searches work,
// how growth exponents are fitted and with what confidence, and the CI gate
// (the baseline file). docs/external-policy-sdk.md is the protocol of
// external policies (exec:CMD). This comment is the map of the package:
//
//   - Spec, Limits, Bound: the instances; Limits.Random draws them,
//     Bound.Each enumerates them (symmetry-reduced), Spec.Shrinks shrinks
//     them, Spec.Instance writes them in the instance format.
//   - Condition, Scope: the conditions of claims, as filters on instances
//     (exhaustive search), projections (random search) and workload changes
//     (over-time properties).
//   - Property (SingleProperty, TemporalProperty): the properties as
//     values; the single-allocation predicates are in package fairness.
//   - Run: a policy's check (Report, Result); RunMatrix: every registered
//     policy (Matrix); Replay: one counterexample file again.
//   - Baseline: the checked-in matrix and Compare, the gate's change list.
//   - External: an external policy process speaking the protocol.
//   - PrintReport, JUnit, MatrixJUnit, Matrix.JSON/CSV/Table: the outputs.
//
// Feasibility is checked first on every decision, whatever properties are
// selected: an infeasible allocation violates every property and is never
// counted as passing one. A policy failure (an error, a crash, a hang, a
// malformed answer) is reported as an error, never as a violation.
// Report.ExitCode is `fairbench check`'s exit status: 0 when every claimed
// property holds under its conditions, 1 when one is violated, 2 on bad
// usage or a policy failure.
package check
