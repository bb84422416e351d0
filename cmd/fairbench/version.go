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
		Short: "Print the version, the commit it was built from and the LP/MIP solver backend",
		Long: `version prints the fairbench version, the commit it was built from (recorded by
the Go toolchain, or linked in by 'make build'), the LP/MIP solver backend and
the Go toolchain. Every run record carries the version and commit.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "fairbench %s\n", version.String())
			fmt.Fprintf(w, "commit: %s\n", commitLine(version.Source()))
			fmt.Fprintf(w, "solver backend: %s\n", lp.Backend())
			fmt.Fprintf(w, "go: %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
}

// commitLine describes the build's commit: "3f2a…(40 hex) (2026-01-02T…)",
// "+ uncommitted changes" when the tree was modified, or why it is unknown.
func commitLine(b version.Build) string {
	if b.Commit == "" {
		return "unknown (built without VCS information; 'make build' records it)"
	}
	s := b.Commit
	if b.Time != "" {
		s += " (" + b.Time + ")"
	}
	if b.Modified {
		s += " + uncommitted changes"
	}
	return s
}
