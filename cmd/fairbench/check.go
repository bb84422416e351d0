package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"fairbench/check"
	"fairbench/internal/atomicfile"
	"fairbench/models"
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
	props, claims                 []string
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
	case f.baseline != "" || f.writeBaseline != "":
		return usage("--baseline and --write-baseline go with --matrix")
	case f.policy == "" && f.replay == "":
		return usage("give --policy NAME, --policy exec:CMD, --matrix or --replay FILE (policies: %v)", registry.Default().Names())
	}
	var in *models.Instance
	if f.replay != "" {
		i, err := replayInstance(f)
		if err != nil {
			return err
		}
		in = i
	}
	subj, err := subjectOf(f, in)
	if err != nil {
		return usage("%v", err)
	}
	if subj.Close != nil {
		defer subj.Close()
	}
	var rep *check.Report
	if in != nil {
		rep, err = check.Replay(subj, in, cfg)
	} else {
		rep, err = check.Run(subj, cfg)
	}
	if err != nil {
		return usage("%v", err)
	}
	if in != nil {
		for i := range rep.Results {
			if rep.Results[i].Status != check.Holds {
				rep.Results[i].Counterexample = f.replay
			}
		}
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
	return verdict(rep)
}

// replayInstance reads the --replay file and settles the policy: the
// file's registered policy by default; an external one only with --policy,
// since a file must never make check run a command.
func replayInstance(f *checkFlags) (*models.Instance, error) {
	in, err := runs.ReadInstance(f.replay)
	if err != nil {
		return nil, usage("--replay: %v", err)
	}
	if f.policy != "" {
		return in, nil
	}
	switch {
	case in.Policy == "":
		return nil, usage("%s names no policy: give --policy", f.replay)
	case strings.HasPrefix(in.Policy, check.ExecPrefix):
		return nil, usage("%s was found on the external policy %q; replay never runs a command read from a file: "+
			"give it with --policy (e.g. --policy '%s') to run it", f.replay, in.Policy, in.Policy)
	}
	f.policy = in.Policy
	return in, nil
}

// subjectOf resolves --policy (a registered name or exec:CMD) and its
// claims: --claims, else the registry's, else (exec:) the replayed file's.
func subjectOf(f *checkFlags, in *models.Instance) (*check.Subject, error) {
	var subj *check.Subject
	if cmd, ok := strings.CutPrefix(f.policy, check.ExecPrefix); ok {
		if strings.TrimSpace(cmd) == "" {
			return nil, errors.New("--policy exec: needs a command")
		}
		var claims []models.Claim
		if in != nil && in.Check != nil {
			claims = in.Check.Claims
		}
		subj = check.NewExternal(cmd, f.timeout).Subject(claims)
	} else {
		var opts map[string]any
		if in != nil && in.Policy == f.policy {
			opts = in.Options
		}
		var err error
		if subj, err = check.SubjectOf(registry.Default(), f.policy, opts); err != nil {
			return nil, err
		}
	}
	if f.claims != nil {
		claims, err := check.ParseClaims(f.claims)
		if err != nil {
			return nil, fmt.Errorf("--claims: %w", err)
		}
		subj.Claims = claims
	}
	return subj, nil
}

// verdict turns a report into the exit status.
func verdict(rep *check.Report) error {
	switch rep.ExitCode() {
	case 1:
		var bad []string
		for _, r := range rep.Results {
			if r.Claimed && r.Status == check.Violated {
				bad = append(bad, r.Property)
			}
		}
		return checkError{msg: fmt.Sprintf("policy %s violates claimed %s", rep.Policy, strings.Join(bad, ", ")), code: 1}
	case 2:
		return checkError{msg: fmt.Sprintf("policy %s failed while being checked (see the errors above)", rep.Policy), code: 2}
	}
	return nil
}

// runMatrix checks every policy, writes the matrix files and, with a
// baseline, gates on the changes.
func runMatrix(cmd *cobra.Command, s *settings, f *checkFlags, cfg check.Config) error {
	var base *check.Baseline
	if f.baseline != "" {
		b, err := readBaseline(f.baseline)
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
	m, err := check.RunMatrix(registry.Default(), cfg)
	if err != nil {
		return usage("%v", err)
	}
	out := cmd.OutOrStdout()
	if err := printMatrix(out, m, s.width()); err != nil {
		return err
	}
	if err := writeMatrixFiles(out, s, m); err != nil {
		return err
	}
	var changes []check.Change
	if base != nil {
		changes = base.Compare(m)
		printChanges(out, f.baseline, changes)
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
		b, err := check.NewBaseline(m, check.BudgetOf(cfg)).JSON()
		if err == nil {
			err = atomicfile.Write(f.writeBaseline, b)
		}
		if err != nil {
			return usage("--write-baseline: %v", err)
		}
		fmt.Fprintln(out, "wrote", f.writeBaseline)
		return nil
	}
	return matrixVerdict(m, base, changes)
}

// readBaseline reads a baseline file.
func readBaseline(path string) (*check.Baseline, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	b, err := check.ReadBaseline(fh)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

func writeMatrixFiles(out interface{ Write([]byte) (int, error) }, s *settings, m *check.Matrix) error {
	j, err := m.JSON()
	if err != nil {
		return err
	}
	c, err := m.CSV()
	if err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		b    []byte
	}{{"check-matrix.json", j}, {"check-matrix.csv", c}} {
		path := filepath.Join(s.out(), f.name)
		if err := atomicfile.Write(path, f.b); err != nil {
			return err
		}
		fmt.Fprintln(out, "wrote", path)
	}
	return nil
}

func printChanges(out interface{ Write([]byte) (int, error) }, path string, changes []check.Change) {
	failing := check.Failing(changes)
	if len(failing) == 0 {
		fmt.Fprintf(out, "\nbaseline %s: no change in any claim's verdict\n", path)
	} else {
		fmt.Fprintf(out, "\nbaseline %s: %d change(s):\n", path, len(failing))
	}
	for _, c := range changes {
		mark := "  "
		if c.Fails {
			mark = "✗ "
		}
		fmt.Fprintln(out, mark+c.String())
	}
}

// matrixVerdict is the exit status of --matrix: against the baseline, the
// changes; without one, the claims' verdicts.
func matrixVerdict(m *check.Matrix, base *check.Baseline, changes []check.Change) error {
	if base == nil {
		switch m.ExitCode() {
		case 1:
			return checkError{msg: "a claimed property is violated under its conditions (see the table above)", code: 1}
		case 2:
			return checkError{msg: "a policy failed while being checked (see the table above)", code: 2}
		}
		return nil
	}
	failing := check.Failing(changes)
	for _, c := range failing {
		if c.Kind == "error" {
			return checkError{msg: "a policy failed while being checked: " + c.String(), code: 2}
		}
	}
	if len(failing) > 0 {
		return checkError{msg: fmt.Sprintf("%d claim verdict(s) changed against the baseline", len(failing)), code: 1}
	}
	return nil
}
