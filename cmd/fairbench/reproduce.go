package main

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"fairbench/internal/version"
	"fairbench/reports/reproduce"
	"fairbench/runs"
	"fairbench/solvers/lp"
	"fairbench/solvers/registry"
)

func newReproduce(s *settings) *cobra.Command {
	var quick bool
	var workers int
	cmd := &cobra.Command{
		Use:   "reproduce [NAME] [--quick] [--out DIR]",
		Short: "Run a seed paper's experiment and print our numbers beside the published ones",
		Long: `reproduce runs a built-in grid that mirrors a seed paper's experiment, writes its
report and prints our headline numbers beside the paper's, with the paper and
the place in it cited, and the grid's deviations from the paper's setting.

  fft           FFT (Mo et al., ICS 2025) against Gavel, Tiresias, SJF
  sjf-bsbf      SJF-BSBF (Luo et al., IWQoS 2024) against SJF-FFS, Tiresias on 4 × 8 GPUs
  gandiva-fair  Gandiva_fair (Chaudhary et al., EuroSys 2020) with and without trading
  gavel-las     Gavel's LAS sweep over load (Narayanan et al., OSDI 2020, Figure 8)

Without NAME it lists them. --quick runs a reduced grid (one seed, tens of jobs)
in under two minutes on two cores. A policy this build does not register is
skipped with a notice. Output under --out (default reproduce/NAME, or
reproduce/NAME-quick): scenario/ (the concrete grid, rerunnable with
'fairbench grid'), results/ and report/. Runs already complete in results/ are
not run again.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			reg := registry.Default()
			if len(args) == 0 {
				reproduce.List(cmd.OutOrStdout(), reg, s.width())
				return nil
			}
			name := args[0]
			if _, ok := reproduce.Lookup(name); !ok {
				return fmt.Errorf("reproduce: unknown experiment %q (known: %s)", name, strings.Join(reproduce.Names(), ", "))
			}
			dir := filepath.Join("reproduce", name)
			if quick {
				dir += "-quick"
			}
			if o := s.out(); o != "" {
				dir = o
			}
			start := time.Now()
			out, err := reproduce.Run(name, reproduce.Options{
				Quick: quick, Dir: dir, Workers: workers, Registry: reg,
				Version: version.String(), Backend: lp.Backend(),
				Progress:       func(total int) runs.Progress { return progress(cmd.ErrOrStderr(), total) },
				ReportProgress: reportProgress(cmd.ErrOrStderr()),
				Out:            cmd.OutOrStdout(),
				Width:          s.width(),
			})
			if out != nil {
				fmt.Fprintf(cmd.OutOrStdout(), "%d runs in %s (%s)\n", out.Runs, time.Since(start).Round(100*time.Millisecond), dir)
			}
			return err
		},
	}
	// reproduce's own --out: its default depends on the experiment.
	cmd.Flags().String("out", "", "folder for the scenario, results and report (default reproduce/NAME, or reproduce/NAME-quick with --quick)")
	cmd.Flags().BoolVar(&quick, "quick", false, "run the reduced grid (under two minutes on two cores)")
	cmd.Flags().IntVar(&workers, "jobs", runtime.NumCPU(), "runs to execute in parallel")
	return cmd
}
