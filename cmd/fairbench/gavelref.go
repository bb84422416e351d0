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
	var throughputs string
	var policies, options []string
	var seed int64
	cmd := &cobra.Command{
		Use:   "compare-gavel DIR [--throughputs FILE] [--policy NAME]... [--option POLICY:KEY=VALUE]...",
		Short: "Run fairbench's Gavel policies on the traces of a folder of Gavel results and print their mean JCTs beside Gavel's",
		Long: `compare-gavel reads a folder of results of Gavel's own simulator (run-details.csv
and the traces it names, as in the Gavel reference folder: see
docs/algorithms/gavel.md), runs the fairbench counterpart of each Gavel policy on
each trace in Gavel's setting (36 V100 + 36 P100 + 36 K80, 360 s rounds, no
restore cost, Gavel's throughput file), and prints a Markdown table: the mean
JCT over jobs 0-999 less those Gavel dropped, beside Gavel's, their ratio, the
window's end, the allocations each computed, and CPU time. Runs go one at a time.

--throughputs defaults to DIR/../gavel/simulation_throughputs.json.
--option sets a policy option for one comparison run, e.g.
  --option gavel-las:arrivals=block   (Gavel's treatment of new arrivals)`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if throughputs == "" {
				throughputs = filepath.Join(dir, "..", "gavel", "simulation_throughputs.json")
				if _, err := os.Stat(throughputs); err != nil {
					return fmt.Errorf("compare-gavel: no throughput file at %s: name it with --throughputs", throughputs)
				}
			}
			opts, err := parsePolicyOptions(options)
			if err != nil {
				return err
			}
			ref, err := gavelref.Load(dir, nil, [2]int{})
			if err != nil {
				return err
			}
			rows, err := gavelref.Compare(ref, gavelref.Options{
				Throughputs: throughputs, Policies: nilIfEmpty(policies), PolicyOptions: opts, Seed: seed,
				Registry: registry.Default(),
				Progress: func(trace, policy string) { fmt.Fprintf(cmd.ErrOrStderr(), "%s: %s\n", trace, policy) },
			})
			if err != nil {
				return err
			}
			return gavelref.WriteTable(cmd.OutOrStdout(), rows)
		},
	}
	cmd.Flags().StringVar(&throughputs, "throughputs", "", "Gavel-format throughput file (default DIR/../gavel/simulation_throughputs.json)")
	cmd.Flags().StringArrayVar(&policies, "policy", nil, "compare only this fairbench policy (repeatable)")
	cmd.Flags().StringArrayVar(&options, "option", nil, "POLICY:KEY=VALUE, a policy option (repeatable)")
	cmd.Flags().Int64Var(&seed, "seed", 1, "the runs' seed (Gavel's --seed of the reference runs)")
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

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}
