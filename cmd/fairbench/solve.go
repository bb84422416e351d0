package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"fairbench/runs"
	"fairbench/solvers/registry"
)

func newSolve(s *settings) *cobra.Command {
	var policy string
	cmd := &cobra.Command{
		Use:   "solve INSTANCE --policy NAME",
		Short: "Print one policy's allocation decision on an instance file (JSON or YAML)",
		Long: `solve reads an instance — a cluster, users, and active jobs with their progress
and throughputs (the format the checker writes for counterexamples, described in
the README) — asks one policy for one allocation decision, checks it, and prints
it as JSON.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dec, err := runs.Solve(args[0], policy, registry.Default(), s.seed())
			if err != nil {
				return err
			}
			b, err := json.MarshalIndent(dec, "", "  ")
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), string(b))
			return nil
		},
	}
	cmd.Flags().StringVar(&policy, "policy", "", "policy `NAME` (see 'fairbench list policies'); default: the instance's policy field")
	return cmd
}
