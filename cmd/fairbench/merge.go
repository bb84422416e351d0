package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"fairbench/runs"
)

func newMerge(s *settings) *cobra.Command {
	return &cobra.Command{
		Use:   "merge DIR... --out NEWDIR",
		Short: "Combine result folders (grid shards) into one",
		Long: `merge copies the run results of every DIR into --out, which must not exist yet and
appears complete or not at all. A run found in several folders must be
byte-identical in each, else the merge is refused naming both files. Runs that
a grid manifest lists but no folder holds are reported, and merge then exits 1.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := runs.Merge(s.out(), args)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "merged %d runs into %s (%d duplicate copies)\n", rep.Runs, s.out(), rep.Duplicate)
			if len(rep.Missing) > 0 {
				for _, m := range rep.Missing {
					fmt.Fprintf(cmd.OutOrStdout(), "missing: %s\n", m)
				}
				return fmt.Errorf("%d runs of the grid are missing", len(rep.Missing))
			}
			return nil
		},
	}
}
