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
	var quick, all bool
	var workers int
	cmd := &cobra.Command{
		Use:   "reproduce [NAME | --all] [--quick] [--out DIR]",
		Short: "Run a seed paper's experiment and judge our numbers against the published ones",
		Long: `reproduce runs a built-in grid that mirrors a seed paper's experiment, then
the same grid with one setting changed at a time (the sensitivity table),
writes its report and prints, per headline, the paper's number, ours and a
verdict: reproduced (the same direction and within ±25% of the paper's
ratio), direction only, or not reproduced, with the setting that moves it
closest to the paper as its measured cause.

  fft           FFT (Mo et al., ICS 2025) against Gavel's JCT policy, per-type Tiresias, SJF
  sjf-bsbf      SJF-BSBF (Luo et al., IWQoS 2024) on the authors' prototype trace
  gandiva-fair  Gandiva_fair (Chaudhary et al., EuroSys 2020) with and without trading
  gavel-las     Gavel's LAS sweep over load (Narayanan et al., OSDI 2020, Figure 8)

Without NAME it lists them; --all runs the four and prints one verdict table.
--quick runs reduced grids (one seed, fewer jobs). A policy this build does
not register is skipped with a notice. Output under --out (default
reproduce/NAME, reproduce/NAME-quick, or reproduce/ with --all):
scenario/ (the concrete grid, rerunnable with 'fairbench grid'), results/,
sensitivity/ and report/. Runs already complete in results/ are not run
again.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			reg := registry.Default()
			o := reproduce.Options{
				Quick: quick, Workers: workers, Registry: reg,
				Version: version.String(), Backend: lp.Backend(),
				Progress:       func(total int) runs.Progress { return progress(cmd.ErrOrStderr(), total) },
				ReportProgress: reportProgress(cmd.ErrOrStderr()),
				Out:            cmd.OutOrStdout(),
				Width:          s.width(),
			}
			start := time.Now()
			if all {
				if len(args) > 0 {
					return fmt.Errorf("reproduce: --all takes no experiment name")
				}
				o.Dir = "reproduce"
				if d := s.out(); d != "" {
					o.Dir = d
				}
				outs, err := reproduce.RunAll(o)
				n := 0
				for _, out := range outs {
					n += out.Runs
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%d runs in %s (%s)\n", n, time.Since(start).Round(100*time.Millisecond), o.Dir)
				return err
			}
			if len(args) == 0 {
				reproduce.List(cmd.OutOrStdout(), reg, s.width())
				return nil
			}
			name := args[0]
			if _, ok := reproduce.Lookup(name); !ok {
				return fmt.Errorf("reproduce: unknown experiment %q (known: %s)", name, strings.Join(reproduce.Names(), ", "))
			}
			o.Dir = filepath.Join("reproduce", name)
			if quick {
				o.Dir += "-quick"
			}
			if d := s.out(); d != "" {
				o.Dir = d
			}
			out, err := reproduce.Run(name, o)
			if out != nil {
				fmt.Fprintln(cmd.OutOrStdout())
				reproduce.PrintVerdicts(cmd.OutOrStdout(), out.Judgements)
				fmt.Fprintf(cmd.OutOrStdout(), "%d runs in %s (%s)\n", out.Runs, time.Since(start).Round(100*time.Millisecond), o.Dir)
			}
			return err
		},
	}
	// reproduce's own --out: its default depends on the experiment.
	cmd.Flags().String("out", "", "folder for the scenario, results and report (default reproduce/NAME, reproduce/NAME-quick with --quick, or reproduce/ with --all)")
	cmd.Flags().BoolVar(&quick, "quick", false, "run the reduced grids")
	cmd.Flags().BoolVar(&all, "all", false, "run every experiment and print one verdict table")
	cmd.Flags().IntVar(&workers, "jobs", runtime.NumCPU(), "runs to execute in parallel")
	return cmd
}
