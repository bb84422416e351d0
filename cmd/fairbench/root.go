package main

import (
	"github.com/spf13/cobra"
	"github.com/spf13/viper"
)

// settings holds the flags, merged (in rising priority) from defaults, the
// --config file, FAIRBENCH_* environment variables and the command line
// (see settings.go), and bound into viper.
type settings struct {
	v *viper.Viper
}

func (s *settings) out() string   { return s.v.GetString("out") }
func (s *settings) seed() int64   { return s.v.GetInt64("seed") }
func (s *settings) seedSet() bool { return s.v.IsSet("seed") }

func newRoot() *cobra.Command {
	s := &settings{v: viper.New()}
	root := &cobra.Command{
		Use:   "fairbench",
		Short: "Benchmark and check fair schedulers for DL training jobs on heterogeneous GPU clusters",
		Long: `fairbench reproduces and compares schedulers for deep-learning training jobs on
heterogeneous, multi-tenant GPU clusters (Gandiva_fair, FFT, SJF-BSBF, the Gavel
LP family, Tiresias, SJF, FIFO, isolated shares) in a deterministic simulator.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return s.load(cmd)
		},
	}
	pf := root.PersistentFlags()
	pf.String("config", "", "settings `FILE` (YAML) whose keys set any flag, e.g. \"out: results\"")
	pf.Int64("seed", 0, "random seed (overrides the scenario's seed)")
	pf.String("out", "out", "folder for result files")
	pf.Bool("wide", false, "print every column of tables, however wide (default: fit 100 columns)")
	root.AddCommand(newVersion(), newList(s), newSimulate(s), newGrid(s), newSolve(s), newMerge(s), newReport(s), newReproduce(s), newCheck(s), newCalibrate(s), newCompareGavel(s))
	finish(root)
	return root
}
