package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"fairbench/internal/texttable"
	"fairbench/models"
	"fairbench/solvers/registry"
)

func newList(s *settings) *cobra.Command {
	return &cobra.Command{
		Use:   "list [policies|gpus|jobs]",
		Short: "List the policies, GPU types and job types fairbench knows",
		Long: `list prints the registered policies (with the fairness properties each claims),
the GPU types of the built-in catalogue and the job types with the GPU types
they were measured on. Tables fit 100 columns, long text wrapped; --wide prints
each entry on one line.`,
		Args:      cobra.MatchAll(cobra.MaximumNArgs(1), cobra.OnlyValidArgs),
		ValidArgs: []string{"policies", "gpus", "jobs"},
		RunE: func(cmd *cobra.Command, args []string) error {
			what := "all"
			if len(args) == 1 {
				what = args[0]
			}
			w, width := cmd.OutOrStdout(), s.width()
			var tables []*texttable.Table
			if what == "all" || what == "policies" {
				tables = append(tables, policyTable())
			}
			cat := models.Catalogue()
			if what == "all" || what == "gpus" {
				tables = append(tables, gpuTable(&cat))
			}
			if what == "all" || what == "jobs" {
				tables = append(tables, jobTable(&cat))
			}
			return writeTables(w, width, tables...)
		},
	}
}

// writeTables writes tables fitted to width, a blank line between them.
func writeTables(w io.Writer, width int, tables ...*texttable.Table) error {
	for i, t := range tables {
		if i > 0 {
			if _, err := fmt.Fprintln(w); err != nil {
				return err
			}
		}
		if _, err := t.Write(w, width, "--wide"); err != nil {
			return err
		}
	}
	return nil
}

func policyTable() *texttable.Table {
	reg := registry.Default()
	t := texttable.New(texttable.Column{Header: "POLICY"}, texttable.Column{Header: "SUMMARY", Wrap: true, MinWidth: 30},
		texttable.Column{Header: "CLAIMS", Wrap: true, MinWidth: 18})
	for _, n := range reg.Names() {
		e, _ := reg.Lookup(n)
		var claims []string
		for _, c := range e.Claims {
			s := c.Property
			if len(c.Conditions) > 0 {
				s += " (" + strings.Join(c.Conditions, ", ") + ")"
			}
			claims = append(claims, s)
		}
		t.Add(n, e.Summary, strings.Join(claims, "; "))
	}
	return t
}

func gpuTable(cat *models.Catalog) *texttable.Table {
	t := texttable.New(texttable.Column{Header: "GPU TYPE"}, texttable.Column{Header: "MEMORY GB", Right: true},
		texttable.Column{Header: "RANK", Right: true}, texttable.Column{Header: "FIGURES", Right: true},
		texttable.Column{Header: "SOURCE", Wrap: true, MinWidth: 30})
	for _, g := range cat.GPUTypes {
		n := 0
		for _, k := range cat.Matrix.Keys() {
			if k.GPU == g.Name {
				n++
			}
		}
		t.Add(g.Name, fmt.Sprintf("%g", g.MemoryGB), fmt.Sprint(g.Rank), fmt.Sprint(n), g.Source)
	}
	return t
}

func jobTable(cat *models.Catalog) *texttable.Table {
	t := texttable.New(texttable.Column{Header: "JOB TYPE", Wrap: true, MinWidth: 20},
		texttable.Column{Header: "GPU TYPES MEASURED", Wrap: true, MinWidth: 18},
		texttable.Column{Header: "SOURCE", Wrap: true, MinWidth: 30})
	for _, jt := range cat.JobTypes {
		seen := map[string]bool{}
		var gpus []string
		for _, k := range cat.Matrix.Keys() {
			if k.Job == jt.Name && !seen[k.GPU] && cat.Matrix.Runnable(k) {
				seen[k.GPU] = true
				gpus = append(gpus, k.GPU)
			}
		}
		t.Add(jt.Name, strings.Join(gpus, ", "), jt.Source)
	}
	return t
}
