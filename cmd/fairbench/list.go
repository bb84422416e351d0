package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"fairbench/models"
	"fairbench/solvers/registry"
)

func newList() *cobra.Command {
	return &cobra.Command{
		Use:       "list [policies|gpus|jobs]",
		Short:     "List the policies, GPU types and job types fairbench knows",
		Args:      cobra.MatchAll(cobra.MaximumNArgs(1), cobra.OnlyValidArgs),
		ValidArgs: []string{"policies", "gpus", "jobs"},
		RunE: func(cmd *cobra.Command, args []string) error {
			what := "all"
			if len(args) == 1 {
				what = args[0]
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			cat := models.Catalogue()
			if what == "all" || what == "policies" {
				reg := registry.Default()
				fmt.Fprintln(w, "POLICY\tSUMMARY")
				for _, n := range reg.Names() {
					e, _ := reg.Lookup(n)
					fmt.Fprintf(w, "%s\t%s\n", n, e.Summary)
				}
				fmt.Fprintln(w)
			}
			if what == "all" || what == "gpus" {
				fmt.Fprintln(w, "GPU TYPE\tMEMORY GB\tRANK\tFIGURES\tSOURCE")
				for _, g := range cat.GPUTypes {
					n := 0
					for _, k := range cat.Matrix.Keys() {
						if k.GPU == g.Name {
							n++
						}
					}
					fmt.Fprintf(w, "%s\t%g\t%d\t%d\t%s\n", g.Name, g.MemoryGB, g.Rank, n, g.Source)
				}
				fmt.Fprintln(w)
			}
			if what == "all" || what == "jobs" {
				fmt.Fprintln(w, "JOB TYPE\tGPU TYPES MEASURED\tSOURCE")
				for _, jt := range cat.JobTypes {
					seen := map[string]bool{}
					var gpus []string
					for _, k := range cat.Matrix.Keys() {
						if k.Job == jt.Name && !seen[k.GPU] && cat.Matrix.Runnable(k) {
							seen[k.GPU] = true
							gpus = append(gpus, k.GPU)
						}
					}
					fmt.Fprintf(w, "%s\t%s\t%s\n", jt.Name, strings.Join(gpus, ","), jt.Source)
				}
			}
			return w.Flush()
		},
	}
}
