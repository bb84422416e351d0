package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"fairbench/internal/atomicfile"
	"fairbench/internal/version"
	"fairbench/reports"
)

// defaultReportOut is where report writes when --out is not set (the
// global --out default, out, is where simulate writes results; report has
// its own --out).
const defaultReportOut = "report"

func newReport(s *settings) *cobra.Command {
	var calibration, matrix, matrixDoc, readme, title string
	var dpi, workers int
	cmd := &cobra.Command{
		Use:   "report [RESULTS...] [--out DIR]",
		Short: "Write figures (SVG, PDF, PNG + CSV), tables and an HTML report from run results",
		Long: `report reads run results — result folders or single <id>.json files, from
simulate, grid or merge — and writes to --out (default: report) every figure as
SVG, PDF and PNG with the CSV of its data, the per-policy, per-user and per-run
tables as CSV and Markdown, report.md, and index.html: one self-contained page
with every figure inline and the metadata that makes the runs reproducible.

Figures: mean JCT and the unfair fraction against each grid axis (or per
policy) with the seed-to-seed range; JCT, finish-time fairness ρ and starvation
CDFs per policy at each grid point; cluster utilisation and each user's share
against its entitlement over time; solver time per round against active jobs
(runs made with --timing); Gandiva_fair's trades (when recorded); and, when
given, a calibration profile (--calibration) and a property matrix (--matrix).

The results must form one experiment (the same scenario up to its grid axes);
a mix, a record without its per-job file, or a run a grid manifest lists but
the folder lacks is refused, naming the files. The report is built in a
temporary folder and renamed into place: it is written completely or not at
all. An existing --out is replaced only if it is an earlier report.

Calibration profile (CSV with a header row, or JSON): gpu, job_type, gang,
steps_per_s and/or samples_per_s, power_w, energy_per_sample_j.
Property matrix (CSV or JSON): policy, property, result (pass|fail|skip|error),
claimed (true|false), detail.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && calibration == "" && matrix == "" {
				return errors.New("report: give result folders or files, or --calibration / --matrix")
			}
			out := s.out()
			for _, a := range args {
				if filepath.Clean(a) == filepath.Clean(out) {
					return fmt.Errorf("report: --out %s is one of the results; write the report elsewhere", out)
				}
			}
			o := reports.Options{Title: title, DPI: dpi, Version: version.String(), Workers: workers,
				Progress: reportProgress(cmd.ErrOrStderr())}
			var set *reports.Set
			if len(args) > 0 {
				var err error
				if set, err = reports.Load(args...); err != nil {
					return err
				}
				for _, w := range set.Warnings {
					fmt.Fprintf(cmd.ErrOrStderr(), "report: warning: %s\n", w)
				}
			}
			if calibration != "" {
				c, err := reports.ReadCalibration(calibration)
				if err != nil {
					return err
				}
				o.Calibration = c
			}
			if matrix != "" {
				m, err := reports.ReadMatrix(matrix)
				if err != nil {
					return err
				}
				o.Matrix = m
			}
			if (matrixDoc != "" || readme != "") && o.Matrix == nil {
				return errors.New("report: --matrix-doc and --readme need --matrix")
			}
			rep, err := reports.Build(set, o)
			if err != nil {
				return err
			}
			if matrixDoc != "" {
				if err := writeMatrixDoc(reports.NewPropertyMatrix(o.Matrix, set), matrixDoc, readme); err != nil {
					return err
				}
			}
			if err := rep.Write(out); err != nil {
				return err
			}
			runs := 0
			if set != nil {
				runs = len(set.Runs)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "report: %s, %s, %s in %s (open %s)\n", plural(runs, "run"),
				plural(len(rep.Figures), "figure"), plural(len(rep.Tables), "table"), out, filepath.Join(out, "index.html"))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&calibration, "calibration", "", "calibration profile `FILE` (CSV or JSON) to draw")
	// report's own --out: its default differs from the results folder.
	f.String("out", defaultReportOut, "folder for the report (replaced if it holds an earlier report)")
	f.StringVar(&matrix, "matrix", "", "property matrix `FILE` from 'fairbench check --matrix' (CSV or JSON) to draw")
	f.StringVar(&matrixDoc, "matrix-doc", "", "with --matrix: write the property matrix beside the runs' throughput and mean JCT to `DIR` (property-matrix.json, property-matrix.md, counterexamples/)")
	f.StringVar(&readme, "readme", "", "with --matrix-doc: replace the generated property-matrix block of this Markdown `FILE` (links relative to it)")
	f.StringVar(&title, "title", "", "report title (default \"fairbench report\")")
	f.IntVar(&dpi, "dpi", reports.DefaultDPI, "PNG resolution")
	f.IntVar(&workers, "jobs", runtime.NumCPU(), "figures to render in parallel")
	return cmd
}

// reportProgress shows a bar on a terminal and plain lines otherwise.
func reportProgress(w io.Writer) func(done, total int, what string) {
	if fd, ok := w.(*os.File); ok && term.IsTerminal(int(fd.Fd())) {
		var bar *progressbar.ProgressBar
		return func(done, total int, what string) {
			if bar == nil {
				bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription("figures"),
					progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())
			}
			_ = bar.Add(1)
		}
	}
	return func(done, total int, what string) {
		fmt.Fprintf(w, "[%d/%d] figure %s\n", done, total, what)
	}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// writeMatrixDoc writes the property matrix files to dir and, when readme
// is given, its table into readme's generated block, with links relative
// to readme's folder.
func writeMatrixDoc(pm *reports.PropertyMatrix, dir, readme string) error {
	if err := pm.Write(dir); err != nil {
		return err
	}
	if readme == "" {
		return nil
	}
	rel, err := filepath.Rel(filepath.Dir(readme), dir)
	if err != nil {
		return fmt.Errorf("report: --readme %s: %w", readme, err)
	}
	doc, err := os.ReadFile(readme)
	if err != nil {
		return fmt.Errorf("report: --readme: %w", err)
	}
	out, err := reports.SpliceMatrix(doc, pm.Markdown(filepath.ToSlash(rel)+"/"))
	if err != nil {
		return fmt.Errorf("report: --readme %s: %w", readme, err)
	}
	return atomicfile.Write(readme, out)
}
