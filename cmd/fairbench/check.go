package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"fairbench/check"
	"fairbench/internal/atomicfile"
	"fairbench/runs"
	"fairbench/solvers/registry"
)

// checkError is an error with the exit status `fairbench check` ends with.
type checkError struct {
	msg  string
	code exitCode
}

func (e checkError) Error() string { return e.msg }
func (e checkError) Unwrap() error { return e.code }

// usage is a bad-usage error (exit status 2).
func usage(format string, a ...any) error {
	return checkError{msg: fmt.Sprintf(format, a...), code: 2}
}

// checkFlags are the flags of `fairbench check`.
type checkFlags struct {
	policy, junit, replay, mode   string
	baseline, writeBaseline       string
	props, claims, skip           []string
	cases, bound, rounds          int
	workloads, horizon, horizons  int
	arrivals, underload           float64
	matrix, quiet                 bool
	timeout                       time.Duration
	maxUsers, maxTypes, maxGPUs   int
	maxJobsPerUser, maxJobs       int
	maxRound                      int
	weights, speeds               []float64
	gangs                         []int
	noIdle, noSplit, noKinds      bool
	noHistory                     bool
	limitsChanged, budgetsChanged []string
}

func newCheck(s *settings) *cobra.Command {
	var f checkFlags
	cmd := &cobra.Command{
		Use:   "check (--policy NAME|exec:CMD | --matrix [--baseline FILE] | --replay FILE)",
		Short: "Check a policy's fairness claims; exit 1 with a minimal counterexample when one fails",
		Long: `check verifies the fairness properties a policy claims, each under the
conditions its paper states (docs/checker.md, "Claims and conditions"):
single-allocation properties (feasible, sharing-incentive, envy-free,
pareto-efficient, strategy-proof) on every small instance up to --bound
(symmetry-reduced) and on --cases random instances (gopter, seeded by --seed,
with shrinking), and over-time properties (long-term-fairness, regret,
starvation-bound, share-convergence) on seeded simulations over growing
horizons. Feasibility is always checked first: an infeasible allocation
violates every property. A claim with conditions is checked under them, and
its unconditional result is reported beside it. Properties the policy does not
claim are checked too and reported as information. A violation is shrunk and
written to --out/check as an instance file that 'fairbench check --replay
FILE' and 'fairbench solve FILE' re-run.

--policy exec:CMD checks an external policy that speaks the JSON-lines protocol
of docs/external-policy-sdk.md; --claims names what it claims, each as
PROPERTY or PROPERTY:CONDITION+CONDITION (e.g. envy-free:one-job-per-user).
A crashing, hanging or malformed policy is reported as such.

--replay FILE re-checks a counterexample on the policy it names. A file never
makes check run a command: an external policy must be given with --policy.

--matrix checks every registered policy against every property and writes
--out/check-matrix.json and .csv; it exits 1 when a claim is violated under
its conditions. With --baseline FILE (the checked-in matrix) it reruns with the
budget FILE records and exits 1 only on a change: a new violation, or one fixed
but not yet recorded; --write-baseline FILE records the matrix as the new
baseline. --junit FILE writes JUnit XML for --policy and --matrix.

Exit status: 0 when every claimed property holds (or, with --baseline, nothing
changed), 1 when one is violated (or changed), 2 on bad usage or when a policy
failed so that a property could not be checked.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, name := range []string{"max-users", "max-types", "max-gpus", "max-jobs-per-user", "max-jobs", "max-round",
				"weights", "speeds", "gangs", "no-idle", "no-split", "no-kinds", "no-history"} {
				if cmd.Flags().Changed(name) {
					f.limitsChanged = append(f.limitsChanged, name)
				}
			}
			for _, name := range []string{"cases", "bound", "rounds", "workloads", "horizon", "horizons", "arrivals", "underload", "props"} {
				if cmd.Flags().Changed(name) {
					f.budgetsChanged = append(f.budgetsChanged, name)
				}
			}
			return runCheck(cmd, s, &f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.policy, "policy", "", "policy name, or exec:CMD for an external policy")
	fl.StringSliceVar(&f.props, "props", nil, "properties to check (comma-separated or repeated; default: all; feasible is always checked first): "+strings.Join(check.Names(), ", "))
	fl.IntVar(&f.cases, "cases", check.DefaultCases, "random instances per single-allocation property and scope (0: none)")
	fl.IntVar(&f.bound, "bound", check.DefaultBound, fmt.Sprintf("exhaustive search level, 0 (none) to %d (see docs/checker.md)", check.MaxBound))
	fl.StringVar(&f.junit, "junit", "", "also write the results as JUnit XML to this file (--policy, --replay, --matrix)")
	fl.BoolVar(&f.matrix, "matrix", false, "check every registered policy against every property")
	fl.StringVar(&f.baseline, "baseline", "", "with --matrix: compare with this baseline file and fail only on a change")
	fl.StringVar(&f.writeBaseline, "write-baseline", "", "with --matrix: write the matrix as a baseline file")
	fl.StringSliceVar(&f.skip, "skip", nil, "with --matrix: leave these policies out (their baseline entries are not compared)")
	fl.StringVar(&f.replay, "replay", "", "re-check an instance file (a counterexample); the policy defaults to the file's registered one")
	fl.StringVar(&f.mode, "mode", string(check.Auto), "how single-allocation properties see the policy: auto, decision or realised")
	fl.IntVar(&f.rounds, "rounds", 24, "horizon of the realised mode, in rounds")
	fl.IntVar(&f.workloads, "workloads", 2, "seeded workloads per over-time property")
	fl.IntVar(&f.horizon, "horizon", 8, "shortest horizon H₀ of the over-time properties, in rounds")
	fl.IntVar(&f.horizons, "horizons", 5, "number of horizons H₀·2^k (on static workloads extended by up to two while the growth verdict is unsure)")
	fl.Float64Var(&f.arrivals, "arrivals", 2, "Poisson arrivals per round of the starvation workload (2 overloads it)")
	fl.Float64Var(&f.underload, "underload", 0.7, "offered load of the starvation workload under the condition load-below-capacity, in (0, 1)")
	fl.StringSliceVar(&f.claims, "claims", nil, "properties the policy claims, PROPERTY[:CONDITION+...] (default: the registry's; for exec: the replayed file's, else none but feasible)")
	fl.DurationVar(&f.timeout, "timeout", check.DefaultExecTimeout, "time an external policy may take per decision")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress lines on stderr")
	d := check.DefaultLimits()
	fl.IntVar(&f.maxUsers, "max-users", d.MaxUsers, "random instances: most users")
	fl.IntVar(&f.maxTypes, "max-types", d.MaxTypes, fmt.Sprintf("random instances: most GPU types (≤ %d)", check.MaxSpecTypes))
	fl.IntVar(&f.maxGPUs, "max-gpus", d.MaxGPUs, "random instances: most GPUs per type")
	fl.IntVar(&f.maxJobsPerUser, "max-jobs-per-user", d.MaxJobsPerUser, "random instances: most jobs of one user")
	fl.IntVar(&f.maxJobs, "max-jobs", d.MaxJobs, "random instances: most active jobs in all")
	fl.IntVar(&f.maxRound, "max-round", d.MaxRound, "random instances: latest decision round of instances with history")
	fl.Float64SliceVar(&f.weights, "weights", d.Weights, "random instances: user weights to draw from")
	fl.Float64SliceVar(&f.speeds, "speeds", d.Speeds, "random instances: job speeds to draw from (steps/s)")
	fl.IntSliceVar(&f.gangs, "gangs", d.Gangs, "random instances (and the exhaustive bound): gang sizes")
	fl.BoolVar(&f.noIdle, "no-idle", false, "random instances: no user without an active job")
	fl.BoolVar(&f.noSplit, "no-split", false, "random instances: one server per GPU type")
	fl.BoolVar(&f.noKinds, "no-kinds", false, "random instances: no job types shared by several jobs")
	fl.BoolVar(&f.noHistory, "no-history", false, "random instances: decisions at round 0 only")
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usage("%v", flagError(c, err)) })
	return cmd
}

// config builds the check's configuration from the flags.
func (f *checkFlags) config(s *settings) check.Config {
	l := check.DefaultLimits()
	l.MaxUsers, l.MaxTypes, l.MaxGPUs, l.MaxJobsPerUser, l.MaxJobs, l.MaxRound = f.maxUsers, f.maxTypes, f.maxGPUs, f.maxJobsPerUser, f.maxJobs, f.maxRound
	l.Weights, l.Speeds, l.Gangs = f.weights, f.speeds, f.gangs
	for _, off := range []struct {
		on bool
		p  *float64
	}{{f.noIdle, &l.IdleChance}, {f.noSplit, &l.SplitChance}, {f.noKinds, &l.KindChance}, {f.noHistory, &l.HistoryChance}} {
		if off.on {
			*off.p = 0
		}
	}
	cfg := check.Config{Props: f.props, Cases: f.cases, Bound: f.bound, Seed: s.seed(), Mode: check.Mode(f.mode),
		Rounds: f.rounds, OutDir: filepath.Join(s.out(), "check"), Limits: l,
		Temporal: check.TemporalConfig{Workloads: f.workloads, BaseRounds: f.horizon, Horizons: f.horizons,
			MaxHorizons: f.horizons + 2, ArrivalsPerRound: f.arrivals, Underload: f.underload}}
	if len(f.limitsChanged) > 0 && slicesContains(f.limitsChanged, "gangs") {
		cfg.Gangs = f.gangs
	}
	return cfg
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// runCheck dispatches to the matrix, a replay or a policy check.
func runCheck(cmd *cobra.Command, s *settings, f *checkFlags) error {
	cfg := f.config(s)
	if !f.quiet {
		cfg.Log = cmd.ErrOrStderr()
	}
	if _, err := check.Lookup(&cfg, f.props); err != nil {
		return usage("%v", err)
	}
	if err := check.Validate(cfg); err != nil {
		return usage("%v", err)
	}
	switch {
	case f.matrix && (f.policy != "" || f.replay != ""):
		return usage("--matrix checks every registered policy: drop --policy and --replay")
	case f.matrix:
		return runMatrix(cmd, s, f, cfg)
	case f.baseline != "" || f.writeBaseline != "" || len(f.skip) > 0:
		return usage("--baseline, --write-baseline and --skip go with --matrix")
	case f.policy == "" && f.replay == "":
		return usage("give --policy NAME, --policy exec:CMD, --matrix or --replay FILE (policies: %v)", registry.Default().Names())
	}
	target := check.Target{Policy: f.policy, Claims: f.claims, Timeout: f.timeout, Replay: f.replay}
	if f.replay != "" {
		in, err := runs.ReadInstance(f.replay)
		if err != nil {
			return usage("--replay: %v", err)
		}
		target.Instance = in
		if err := target.Settle(); err != nil {
			return usage("%v", err)
		}
	}
	subj, err := target.Subject(registry.Default())
	if err != nil {
		return usage("%v", err)
	}
	if subj.Close != nil {
		defer subj.Close()
	}
	rep, err := target.Check(subj, cfg)
	if err != nil {
		return usage("%v", err)
	}
	check.PrintReport(cmd.OutOrStdout(), rep)
	if f.junit != "" {
		b, err := check.JUnit(rep)
		if err == nil {
			err = atomicfile.Write(f.junit, b)
		}
		if err != nil {
			return usage("--junit: %v", err)
		}
	}
	return failure(rep.Failure())
}

// failure is a check's failure as the error the command ends with.
func failure(f *check.Failure) error {
	if f == nil {
		return nil
	}
	return checkError{msg: f.Msg, code: exitCode(f.Status)}
}

// runMatrix checks every policy, writes the matrix files and, with a
// baseline, gates on the changes.
func runMatrix(cmd *cobra.Command, s *settings, f *checkFlags, cfg check.Config) error {
	var base *check.Baseline
	if f.baseline != "" {
		b, err := check.ReadBaselineFile(f.baseline)
		if err != nil {
			return usage("--baseline: %v", err)
		}
		if len(f.budgetsChanged) > 0 || s.seedSet() || len(f.limitsChanged) > 0 {
			return usage("--baseline %s reruns the matrix with the budget it records (%+v): drop %s",
				f.baseline, b.Budget, strings.Join(append(f.budgetsChanged, f.limitsChanged...), ", "))
		}
		b.Budget.Apply(&cfg)
		base = b
	}
	if f.writeBaseline != "" && len(f.skip) > 0 {
		return usage("--write-baseline records every policy: drop --skip")
	}
	m, err := check.RunMatrixSkipping(registry.Default(), cfg, f.skip)
	if err != nil {
		return usage("%v", err)
	}
	out := cmd.OutOrStdout()
	if err := printMatrix(out, m, s.width()); err != nil {
		return err
	}
	if err := m.WriteFiles(out, s.out()); err != nil {
		return err
	}
	var changes []check.Change
	if base != nil {
		changes = base.Compare(m)
		check.PrintChanges(out, f.baseline, changes)
	}
	if f.junit != "" {
		b, err := check.MatrixJUnit(m, changes)
		if err == nil {
			err = atomicfile.Write(f.junit, b)
		}
		if err != nil {
			return usage("--junit: %v", err)
		}
		fmt.Fprintln(out, "wrote", f.junit)
	}
	if f.writeBaseline != "" {
		if err := check.NewBaseline(m, check.BudgetOf(cfg)).WriteFile(f.writeBaseline); err != nil {
			return usage("--write-baseline: %v", err)
		}
		fmt.Fprintln(out, "wrote", f.writeBaseline)
		return nil
	}
	return failure(m.Failure(base, changes))
}
