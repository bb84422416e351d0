package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"fairbench/reports/gavelref"
	"fairbench/solvers/registry"
)

func newCompareGavel(s *settings) *cobra.Command {
	var throughputs, cluster, window string
	var policies, options []string
	var seed int64
	var allJobs bool
	cmd := &cobra.Command{
		Use:   "compare-gavel DIR",
		Short: "Run fairbench's Gavel policies on the traces of a folder of Gavel results and print their mean JCTs beside Gavel's",
		Long: `compare-gavel reads a folder of results of Gavel's own simulator (run-details.csv
and the traces it names, as in the Gavel reference folder: see
docs/algorithms/gavel.md), runs the fairbench counterpart of each Gavel policy on
each trace in Gavel's setting (36 V100 + 36 P100 + 36 K80, 360 s rounds, no
restore cost, Gavel's throughput file), and prints a Markdown table: the mean
JCT over jobs 0-999 less those Gavel dropped, beside Gavel's, their ratio, the
window's end, the allocations each computed, and CPU time (Gavel's: its whole
process; fairbench's: building the scenario, which reads and checks the trace
and the throughput file, and the run). Runs go one at a time.
Like Gavel's, each run stops when the window's jobs are done (the scenario key
measure.stop: window_done), so that LP solves and CPU time are for the same
work; --all-jobs simulates every job of the trace instead (the JCTs are the
same: the simulator is causal).

--throughputs defaults to DIR/../gavel/simulation_throughputs.json when that
file exists, else the built-in catalogue (which holds its figures for Gavel's
job types). --cluster (default 36:36:36, Gavel's -c) and --window (default
0:1000, Gavel's -s and -e) describe the reference runs. --option sets a policy
option for the comparison runs, e.g.
  --option gavel-las:arrivals=block   (Gavel's treatment of new arrivals)

The small folder of fairbench's own test data compares the same way:
  fairbench compare-gavel reports/gavelref/testdata/small --cluster 12:12:12 --window 0:200 --seed 7`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if throughputs == "" {
				if f := filepath.Join(dir, "..", "gavel", "simulation_throughputs.json"); fileExists(f) {
					throughputs = f
				}
			}
			opts, err := parsePolicyOptions(options)
			if err != nil {
				return err
			}
			c, err := parseCluster(cluster)
			if err != nil {
				return err
			}
			w, err := parseWindow(window)
			if err != nil {
				return err
			}
			ref, err := gavelref.Load(dir, c, w)
			if err != nil {
				return err
			}
			rows, err := gavelref.Compare(ref, gavelref.Options{
				Throughputs: throughputs, Policies: nilIfEmpty(policies), PolicyOptions: opts, Seed: seed,
				AllJobs: allJobs, Registry: registry.Default(),
				Progress: func(trace, policy string) { fmt.Fprintf(cmd.ErrOrStderr(), "%s: %s\n", trace, policy) },
			})
			if err != nil {
				return err
			}
			return gavelref.WriteTable(cmd.OutOrStdout(), rows)
		},
	}
	cmd.Flags().StringVar(&throughputs, "throughputs", "", "Gavel-format throughput file (default DIR/../gavel/simulation_throughputs.json, else the catalogue)")
	cmd.Flags().StringVar(&cluster, "cluster", "36:36:36", "V100:P100:K80 GPUs of the reference runs (Gavel's -c)")
	cmd.Flags().StringVar(&window, "window", "0:1000", "FROM:TO, the job IDs averaged over (Gavel's -s and -e)")
	cmd.Flags().StringSliceVar(&policies, "policy", nil, "compare only these fairbench policies (repeatable, or comma-separated)")
	cmd.Flags().StringSliceVar(&options, "option", nil, "POLICY:KEY=VALUE, a policy option (repeatable, or comma-separated)")
	cmd.Flags().Int64Var(&seed, "seed", 1, "the runs' seed (Gavel's --seed of the reference runs)")
	cmd.Flags().BoolVar(&allJobs, "all-jobs", false, "simulate every job of each trace instead of stopping when the window's jobs are done, as Gavel does")
	return cmd
}

// parsePolicyOptions reads POLICY:KEY=VALUE flags; VALUE is a number, true
// or false, or a string.
func parsePolicyOptions(flags []string) (map[string]map[string]any, error) {
	out := map[string]map[string]any{}
	for _, f := range flags {
		policy, kv, ok1 := strings.Cut(f, ":")
		key, val, ok2 := strings.Cut(kv, "=")
		if !ok1 || !ok2 || policy == "" || key == "" {
			return nil, fmt.Errorf("compare-gavel: --option %q: want POLICY:KEY=VALUE", f)
		}
		if out[policy] == nil {
			out[policy] = map[string]any{}
		}
		var v any = val
		if n, err := strconv.ParseFloat(val, 64); err == nil {
			v = n
		} else if b, err := strconv.ParseBool(val); err == nil {
			v = b
		}
		out[policy][key] = v
	}
	return out, nil
}

func parseCluster(s string) (map[string]int, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return nil, fmt.Errorf("compare-gavel: --cluster %q: want V100:P100:K80 GPU counts", s)
	}
	out := map[string]int{}
	for i, g := range []string{"V100", "P100", "K80"} {
		n, err := strconv.Atoi(parts[i])
		if err != nil || n < 0 || n > 1_000_000 {
			return nil, fmt.Errorf("compare-gavel: --cluster %q: %q is not a GPU count", s, parts[i])
		}
		out[g] = n
	}
	return out, nil
}

func parseWindow(s string) ([2]int, error) {
	from, to, ok := strings.Cut(s, ":")
	a, err1 := strconv.Atoi(from)
	b, err2 := strconv.Atoi(to)
	if !ok || err1 != nil || err2 != nil || a < 0 || b <= a {
		return [2]int{}, fmt.Errorf("compare-gavel: --window %q: want FROM:TO job IDs with FROM < TO", s)
	}
	return [2]int{a, b}, nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}
