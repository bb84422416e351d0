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

func newCheck(s *settings) *cobra.Command {
	var (
		policy, junit, replay, mode string
		props, claims               []string
		cases, bound, rounds        int
		workloads, horizon          int
		arrivals                    float64
		matrix, quiet               bool
		timeout                     time.Duration
	)
	cmd := &cobra.Command{
		Use:   "check --policy NAME | --policy exec:CMD | --matrix | --replay FILE",
		Short: "Check a policy's fairness properties; exit 1 with a minimal counterexample when a claimed one fails",
		Long: `check verifies the fairness properties a policy claims (see 'fairbench list
policies' and the check package): single-allocation properties (feasible,
sharing-incentive, envy-free, pareto-efficient, strategy-proof) on every small
instance up to --bound and on --cases random instances (gopter, seeded by --seed,
with shrinking), and over-time properties (long-term-fairness, regret,
starvation-bound, share-convergence) on seeded simulations over growing horizons.
Properties the policy does not claim are checked too and reported as
information. A violation is shrunk and written to --out/check as an instance
file that 'fairbench check --replay FILE' and 'fairbench solve FILE' re-run.

--policy exec:CMD checks an external policy that speaks the JSON-lines protocol
of the check package (one request per decision on stdin, one allocation per
line on stdout; see check/examples/equal_share.py); --claims names what it
claims. A crashing, hanging or malformed policy is reported as such.

--matrix checks every registered policy against every property and writes
--out/check-matrix.json and --out/check-matrix.csv.

Exit status: 0 when every claimed property holds, 1 when one is violated, 2 on
bad usage or when the policy failed so that a property could not be checked.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg := check.Config{Props: props, Cases: cases, Bound: bound, Seed: s.seed(), Mode: check.Mode(mode),
				Rounds: rounds, OutDir: filepath.Join(s.out(), "check"),
				Temporal: check.TemporalConfig{Workloads: workloads, BaseRounds: horizon, ArrivalsPerRound: arrivals}}
			if bound == 0 {
				cfg.Bound = -1
			}
			if !quiet {
				cfg.Log = cmd.ErrOrStderr()
			}
			if _, err := check.Lookup(&cfg, props); err != nil {
				return usage("%v", err)
			}
			switch {
			case matrix && (policy != "" || replay != ""):
				return usage("--matrix checks every registered policy: drop --policy and --replay")
			case matrix:
				return runMatrix(cmd, s, cfg)
			case policy == "" && replay == "":
				return usage("give --policy NAME, --policy exec:CMD, --matrix or --replay FILE (policies: %v)", registry.Default().Names())
			}
			var in *models.Instance
			if replay != "" {
				i, err := runs.ReadInstance(replay)
				if err != nil {
					return usage("--replay: %v", err)
				}
				in = i
				if policy == "" {
					policy = i.Policy
				}
				if policy == "" {
					return usage("%s names no policy: give --policy", replay)
				}
			}
			subj, err := subjectOf(policy, claims, cmd.Flags().Changed("claims"), timeout, in)
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
						rep.Results[i].Counterexample = replay
					}
				}
			}
			check.PrintReport(cmd.OutOrStdout(), rep)
			if junit != "" {
				b, err := check.JUnit(rep)
				if err == nil {
					err = writeFile(junit, b)
				}
				if err != nil {
					return usage("--junit: %v", err)
				}
			}
			return verdict(rep)
		},
	}
	f := cmd.Flags()
	f.StringVar(&policy, "policy", "", "policy name, or exec:CMD for an external policy")
	f.StringSliceVar(&props, "props", nil, "properties to check (comma-separated or repeated; default: all): "+strings.Join(check.Names(), ", "))
	f.IntVar(&cases, "cases", 100, "random instances per single-allocation property")
	f.IntVar(&bound, "bound", check.DefaultBound, "exhaustive search level, 0 (none) to 4 (see the check package)")
	f.StringVar(&junit, "junit", "", "also write the results as JUnit XML to this file")
	f.BoolVar(&matrix, "matrix", false, "check every registered policy against every property")
	f.StringVar(&replay, "replay", "", "re-check an instance file (a counterexample); the policy defaults to the file's")
	f.StringVar(&mode, "mode", string(check.Auto), "how single-allocation properties see the policy: auto, decision or realised")
	f.IntVar(&rounds, "rounds", 24, "horizon of the realised mode, in rounds")
	f.IntVar(&workloads, "workloads", 2, "seeded workloads per over-time property")
	f.IntVar(&horizon, "horizon", 8, "shortest horizon H₀ of the over-time properties, in rounds (they use H₀, 2H₀, 4H₀, 8H₀)")
	f.Float64Var(&arrivals, "arrivals", 2, "Poisson arrivals per round of the starvation workload (2 overloads it)")
	f.StringSliceVar(&claims, "claims", nil, "properties the policy claims (default: the registry's; for exec: none but feasible)")
	f.DurationVar(&timeout, "timeout", check.DefaultExecTimeout, "time an external policy may take per decision")
	f.BoolVar(&quiet, "quiet", false, "no progress lines on stderr")
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usage("%v", flagError(c, err)) })
	return cmd
}

// subjectOf resolves --policy: a registered name or exec:CMD.
func subjectOf(policy string, claims []string, claimsSet bool, timeout time.Duration, in *models.Instance) (*check.Subject, error) {
	var subj *check.Subject
	if cmd, ok := strings.CutPrefix(policy, check.ExecPrefix); ok {
		if strings.TrimSpace(cmd) == "" {
			return nil, errors.New("--policy exec: needs a command")
		}
		subj = check.NewExternal(cmd, timeout).Subject(nil)
	} else {
		var opts map[string]any
		if in != nil && in.Policy == policy {
			opts = in.Options
		}
		var err error
		if subj, err = check.SubjectOf(registry.Default(), policy, opts); err != nil {
			return nil, err
		}
	}
	if claimsSet {
		if _, err := check.Lookup(&check.Config{}, claims); err != nil {
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

// runMatrix checks every policy and writes the matrix files.
func runMatrix(cmd *cobra.Command, s *settings, cfg check.Config) error {
	m, err := check.RunMatrix(registry.Default(), cfg)
	if err != nil {
		return usage("%v", err)
	}
	if err := printMatrix(cmd.OutOrStdout(), m, s.width()); err != nil {
		return err
	}
	j, err := m.JSON()
	if err != nil {
		return err
	}
	c, err := m.CSV()
	if err != nil {
		return err
	}
	for name, b := range map[string][]byte{"check-matrix.json": j, "check-matrix.csv": c} {
		path := filepath.Join(s.out(), name)
		if err := writeFile(path, b); err != nil {
			return err
		}
		fmt.Fprintln(cmd.OutOrStdout(), "wrote", path)
	}
	return nil
}

// writeFile writes b to path through a temporary file and a rename.
func writeFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
