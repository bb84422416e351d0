package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"fairbench/internal/version"
	"fairbench/runs"
	"fairbench/scenarios"
	"fairbench/solvers/lp"
	"fairbench/solvers/registry"
)

// runFlags are the flags simulate and grid share.
type runFlags struct {
	policies []string
	skip     []string
	events   bool
	timing   bool
	workers  int
	force    bool
	shard    string
}

func (f *runFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringSliceVar(&f.policies, "policy", nil, "policies to run (repeatable; default: the scenario's, else every registered policy)")
	cmd.Flags().StringSliceVar(&f.skip, "skip", nil, "with the default policy list (every registered policy): leave these out")
	cmd.Flags().BoolVar(&f.events, "events", false, "also write each run's event log as <id>.events.jsonl")
	cmd.Flags().BoolVar(&f.timing, "timing", false, "measure solver time per decision into <id>.timing.csv")
	cmd.Flags().IntVar(&f.workers, "jobs", runtime.NumCPU(), "runs to execute in parallel")
	cmd.Flags().BoolVar(&f.force, "force", false, "recompute runs whose complete result is already in --out")
}

func newSimulate(s *settings) *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "simulate [SCENARIO.yaml]",
		Short: "Simulate one scenario under one or more policies and print a comparison table",
		Long: `simulate runs one scenario (without a file: the built-in default — 36 V100 +
36 P100 + 36 K80 on 4-GPU servers, 8 users, 500 Philly-like jobs — under every
registered policy), writes one result file per policy to --out (<id>.json and
<id>.jobs.csv) and prints a comparison table. A scenario with grid axes other
than policies and seed belongs to 'fairbench grid'.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			g, err := loadGrid(s, f, args)
			if err != nil {
				return err
			}
			for _, a := range g.Axes {
				if a.Path != "policies" && a.Path != "seed" {
					return fmt.Errorf("%s: %q is a grid axis; use 'fairbench grid' for grids", g.File, a.Path)
				}
			}
			return execute(cmd, s, f, g)
		},
	}
	f.add(cmd)
	return cmd
}

func newGrid(s *settings) *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "grid SCENARIO.yaml",
		Short: "Run every point of a scenario grid in parallel, one result file per run",
		Long: `grid expands a scenario file whose scalar fields may be lists into the cartesian
product of its axes (plus one run per policy and seed), runs them on every core,
writes <id>.json and <id>.jobs.csv per run to --out, where <id> is derived from
the run's content, and prints the comparison table. A run whose complete result is
already in --out is skipped, so a killed grid resumes where it stopped (--force
recomputes). --shard I/N runs one of N shards, balanced by expected cost; every
shard writes the whole grid's manifest, and 'fairbench merge' combines shard
folders.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			g, err := loadGrid(s, f, args)
			if err != nil {
				return err
			}
			return execute(cmd, s, f, g)
		},
	}
	f.add(cmd)
	cmd.Flags().StringVar(&f.shard, "shard", "", "run only shard I of N (\"I/N\", 0-based), e.g. from a batch system's array index")
	return cmd
}

// loadGrid reads the scenario (or the default), fills in policies and seeds,
// and checks every policy name against the registry.
func loadGrid(s *settings, f *runFlags, args []string) (*scenarios.Grid, error) {
	reg := registry.Default()
	g := scenarios.Default()
	if len(args) == 1 {
		var err error
		if g, err = scenarios.Load(args[0]); err != nil {
			return nil, err
		}
	}
	for _, p := range append(slices.Clone(f.policies), f.skip...) {
		if _, ok := reg.Lookup(p); !ok {
			return nil, fmt.Errorf("--policy/--skip: unknown policy %q%s (known: %s)", p, didYouMean(p, reg.Names()), strings.Join(reg.Names(), ", "))
		}
	}
	var err error
	switch {
	case len(f.policies) > 0 && len(f.skip) > 0:
		return nil, errors.New("--skip thins the default policy list: drop it, or --policy")
	case len(f.policies) > 0:
		g, err = g.WithPolicies(f.policies)
	case len(g.Runs) > 0 && g.Runs[0].Policy == "":
		g, err = g.WithPolicies(slices.DeleteFunc(reg.Names(), func(n string) bool { return slices.Contains(f.skip, n) }))
	case len(f.skip) > 0:
		return nil, fmt.Errorf("--skip: %s names its policies; drop --skip or edit the file", g.File)
	}
	if err != nil {
		return nil, err
	}
	if s.seedSet() {
		if g, err = g.WithSeeds([]int64{s.seed()}); err != nil {
			return nil, err
		}
	}
	for _, r := range g.Runs {
		if _, ok := reg.Lookup(r.Policy); !ok {
			return nil, fmt.Errorf("%s: unknown policy %q%s (known: %s)", g.File, r.Policy, didYouMean(r.Policy, reg.Names()), strings.Join(reg.Names(), ", "))
		}
	}
	return g, nil
}

// execute runs the grid (or its shard) and prints the table.
func execute(cmd *cobra.Command, s *settings, f *runFlags, g *scenarios.Grid) error {
	o := runs.Options{Registry: registry.Default(), Version: version.String(), Backend: lp.Backend(), Events: f.events}
	if f.timing {
		start := time.Now()
		o.Clock = func() time.Duration { return time.Since(start) }
	}
	todo := g.Runs
	if f.shard != "" {
		i, n, err := runs.ParseShard(f.shard)
		if err != nil {
			return err
		}
		todo = runs.Shard(g.Runs, i, n)
	}
	recs, err := runs.GridContext(cmd.Context(), todo, s.out(), o, runs.GridOptions{
		Workers: f.workers, Force: f.force, Whole: g.Runs, Progress: progress(cmd.ErrOrStderr(), len(todo)),
	})
	if len(recs) > 0 {
		name := g.File
		if name == "" {
			name = "built-in default scenario"
		}
		fmt.Fprintf(cmd.OutOrStdout(), "%s: %d runs, results in %s\n", name, len(recs), s.out())
		if terr := runs.Table(cmd.OutOrStdout(), recs, s.width()); terr != nil {
			return terr
		}
	}
	return err
}

// progress shows a bar on a terminal and plain lines otherwise.
func progress(w io.Writer, total int) runs.Progress {
	if fd, ok := w.(*os.File); ok && term.IsTerminal(int(fd.Fd())) {
		bar := progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription("runs"),
			progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())
		return func(int, int, scenarios.Run, bool, error) { _ = bar.Add(1) }
	}
	return func(done, total int, r scenarios.Run, skipped bool, err error) {
		status := "ok"
		var stop interrupted
		switch {
		case errors.As(err, &stop):
			status = "stopped (" + stop.Error() + ")"
		case err != nil:
			status = "FAILED"
		case skipped:
			status = "done before, skipped"
		}
		fmt.Fprintf(w, "[%d/%d] %s %s seed %d: %s\n", done, total, r.ID, r.Policy, r.Seed, status)
	}
}
