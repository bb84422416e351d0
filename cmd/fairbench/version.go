package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"fairbench/internal/version"
	"fairbench/solvers/lp"
)

func newVersion() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the fairbench version and the LP/MIP solver backend",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "fairbench %s\n", version.String())
			fmt.Fprintf(w, "solver backend: %s\n", lp.Backend())
			fmt.Fprintf(w, "go: %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
}
