// Package reproduce runs built-in grids that mirror the seed papers'
// experiments (FFT, SJF-BSBF, Gandiva_fair, Gavel's LAS sweep), writes
// their report, and sets our headline numbers beside the published ones
// with the paper and place cited. Each grid says where it deviates from
// the paper's setting and why. The grids are YAML files in grids/ (without
// policies, which come from the Experiments table so that a policy this
// build lacks is skipped with a notice rather than failing the run).
//
// Output, under the chosen folder DIR:
//
//	DIR/scenario/NAME.yaml   the concrete scenario (rerun it with `fairbench grid`)
//	DIR/scenario/*.csv       its trace, where it has one
//	DIR/results/             the run results (package runs)
//	DIR/report/              the report (package reports), comparison first
package reproduce

import (
	"embed"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"fairbench/internal/atomicfile"
	"fairbench/internal/texttable"

	"go.yaml.in/yaml/v3"

	"fairbench/reports"
	"fairbench/runs"
	"fairbench/scenarios"
	"fairbench/solvers"
)

//go:embed grids/*.yaml
var grids embed.FS

// Options say how to run an experiment.
type Options struct {
	// Quick runs the reduced grid (under two minutes on two cores).
	Quick bool
	// Dir is the output folder (see the package comment).
	Dir string
	// Workers is the number of runs executed at once.
	Workers int
	// Registry names the policies this build has.
	Registry *solvers.Registry
	// Version and Backend are recorded in every result.
	Version, Backend string
	// Progress, when set, makes the progress reporter of a grid of total
	// runs; ReportProgress is told about each figure.
	Progress       func(total int) runs.Progress
	ReportProgress func(done, total int, what string)
	// Out receives notices (skipped policies) and the comparison, its
	// tables fitted to Width columns (0: no limit).
	Out   io.Writer
	Width int
}

// Outcome is what an experiment produced.
type Outcome struct {
	Experiment *Experiment
	// Skipped are the experiment's policies this build does not register.
	Skipped []string
	// Runs is the number of runs in the grid; Failed those that failed.
	Runs   int
	Failed error
	// Comparison is ours beside the paper's.
	Comparison *reports.NamedTable
	// ReportDir is where the report was written.
	ReportDir string
}

// Scenario returns the experiment's scenario file (quick or full) with its
// policies and their options appended: those of Policies that the registry
// has, and the names of the others.
func (e *Experiment) Scenario(quick bool, reg *solvers.Registry) ([]byte, []string, error) {
	file := e.Grid
	if quick {
		file = e.Quick
	}
	base, err := grids.ReadFile("grids/" + file)
	if err != nil {
		return nil, nil, fmt.Errorf("reproduce %s: %w", e.Name, err)
	}
	var have []Policy
	var skipped []string
	for _, p := range e.Policies {
		if _, ok := reg.Lookup(p.Name); ok {
			have = append(have, p)
		} else {
			skipped = append(skipped, p.Name)
		}
	}
	if len(have) == 0 {
		return nil, skipped, fmt.Errorf("reproduce %s: none of its policies (%s) is registered in this build", e.Name, strings.Join(skipped, ", "))
	}
	var b strings.Builder
	b.Write(base)
	b.WriteString("\n# Appended by fairbench reproduce: the experiment's policies this build registers")
	if len(skipped) > 0 {
		b.WriteString(" (skipped: " + strings.Join(skipped, ", ") + ")")
	}
	b.WriteString(".\npolicies: [")
	for i, p := range have {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.Name)
	}
	b.WriteString("]\n")
	var opts []string
	for _, p := range have {
		if len(p.Options) == 0 {
			continue
		}
		o, err := yaml.Marshal(p.Options)
		if err != nil {
			return nil, nil, fmt.Errorf("reproduce %s: options of %s: %w", e.Name, p.Name, err)
		}
		opts = append(opts, "  "+p.Name+":\n    "+strings.ReplaceAll(strings.TrimSpace(string(o)), "\n", "\n    ")+"\n")
	}
	if len(opts) > 0 {
		b.WriteString("policy_options:\n" + strings.Join(opts, ""))
	}
	return []byte(b.String()), skipped, nil
}

// Run runs the named experiment and writes its report.
func Run(name string, o Options) (*Outcome, error) {
	e, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("reproduce: unknown experiment %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	data, skipped, err := e.Scenario(o.Quick, o.Registry)
	if err != nil {
		return nil, err
	}
	out := &Outcome{Experiment: e, Skipped: skipped}
	for _, p := range skipped {
		fmt.Fprintf(o.Out, "reproduce %s: policy %q is not registered in this build; skipped (its comparisons read \"not run\")\n", e.Name, p)
	}
	// The scenario (and its trace) go to DIR/scenario, so the grid can be
	// rerun from there.
	scenDir := filepath.Join(o.Dir, "scenario")
	scenFile := filepath.Join(scenDir, e.Name+".yaml")
	if o.Quick {
		scenFile = filepath.Join(scenDir, e.Name+".quick.yaml")
	}
	if e.Trace != nil {
		if err := atomicfile.Write(filepath.Join(scenDir, e.TraceFile), e.Trace(o.Quick)); err != nil {
			return nil, fmt.Errorf("reproduce %s: %w", e.Name, err)
		}
	}
	if err := atomicfile.Write(scenFile, data); err != nil {
		return nil, fmt.Errorf("reproduce %s: %w", e.Name, err)
	}
	g, err := scenarios.Load(scenFile)
	if err != nil {
		return nil, fmt.Errorf("reproduce %s: %w", e.Name, err)
	}
	out.Runs = len(g.Runs)
	resDir := filepath.Join(o.Dir, "results")
	// Solver time per decision is measured (into <id>.timing.csv; the
	// records stay byte-identical) for the report's solver-time figure.
	start := time.Now()
	ro := runs.Options{Registry: o.Registry, Version: o.Version, Backend: o.Backend,
		Clock: func() time.Duration { return time.Since(start) }}
	var prog runs.Progress
	if o.Progress != nil {
		prog = o.Progress(len(g.Runs))
	}
	_, out.Failed = runs.Grid(g.Runs, resDir, ro, runs.GridOptions{Workers: max(1, o.Workers), Progress: prog})
	// The report covers this grid's runs that have a result.
	var files []string
	for _, r := range g.Runs {
		if _, ok := runs.Complete(resDir, r.ID); ok {
			files = append(files, filepath.Join(resDir, r.ID+".json"))
		}
	}
	if len(files) == 0 {
		return out, fmt.Errorf("reproduce %s: no run succeeded: %w", e.Name, out.Failed)
	}
	set, err := reports.Load(files...)
	if err != nil {
		return out, err
	}
	set.Inputs = []string{resDir}
	res, err := newResults(set)
	if err != nil {
		return out, err
	}
	out.Comparison = e.comparison(res)
	notes := append([]string{}, e.Deviations...)
	if o.Quick {
		notes = append(notes, e.QuickDeviations...)
	}
	for _, p := range skipped {
		notes = append(notes, fmt.Sprintf("Policy %s is not registered in this build and did not run.", p))
	}
	if out.Failed != nil {
		notes = append(notes, "Runs that failed (left out of this report): "+out.Failed.Error())
	}
	order := make([]string, len(e.Policies))
	for i, p := range e.Policies {
		order[i] = p.Name
	}
	title := e.Title
	if o.Quick {
		title += " (quick)"
	}
	rep, err := reports.Build(set, reports.Options{
		Title:       "fairbench reproduce " + e.Name + ": " + title,
		Intro:       "Paper: " + e.Paper + ". Its setting: " + e.Setting + " Scenario: " + scenFile + ".",
		Comparison:  out.Comparison,
		Notes:       notes,
		PolicyOrder: order,
		Version:     o.Version,
		Workers:     max(1, o.Workers),
		Progress:    o.ReportProgress,
	})
	if err != nil {
		return out, err
	}
	out.ReportDir = filepath.Join(o.Dir, "report")
	if err := rep.Write(out.ReportDir); err != nil {
		return out, err
	}
	e.print(o.Out, out, o.Quick, o.Width)
	if out.Failed != nil {
		return out, fmt.Errorf("reproduce %s: some runs failed (the report covers the others): %w", e.Name, out.Failed)
	}
	return out, nil
}

// comparison is the table of the paper's numbers beside ours.
func (e *Experiment) comparison(r *Results) *reports.NamedTable {
	t := &reports.Table{Header: []string{"metric", "paper (published)", "where in the paper", "fairbench (this run)"}}
	for _, h := range e.Headlines {
		t.Rows = append(t.Rows, []string{h.Metric, h.Paper, h.Where, h.Ours(r)})
	}
	return &reports.NamedTable{Name: "comparison", Title: "Ours beside the paper's",
		Caption: "Published headline numbers from " + e.Paper + ", beside the same quantities measured on this grid (means over seeds; per grid point). The settings differ as listed under Deviations, so agreement in direction matters more than in digits.",
		Data:    t, Display: t}
}

// print writes the comparison, the citation and the deviations, fitted to
// width columns (0: no limit).
func (e *Experiment) print(w io.Writer, out *Outcome, quick bool, width int) {
	fmt.Fprintf(w, "\nreproduce %s: %s\n", e.Name, e.Title)
	for _, l := range texttable.Wrap("paper: "+e.Paper, width) {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintln(w)
	t := texttable.New(texttable.Column{Header: "METRIC", Wrap: true, MinWidth: 20}, texttable.Column{Header: "PAPER", Wrap: true, MinWidth: 14},
		texttable.Column{Header: "WHERE", Wrap: true, MinWidth: 14}, texttable.Column{Header: "OURS", Wrap: true, MinWidth: 16})
	for _, row := range out.Comparison.Data.Rows {
		t.Add(row...)
	}
	_, _ = t.Write(w, width, "--wide")
	fmt.Fprintf(w, "\ndeviations from the paper's setting:\n")
	notes := e.Deviations
	if quick {
		notes = append(append([]string{}, notes...), e.QuickDeviations...)
	}
	for _, d := range notes {
		for i, l := range texttable.Wrap(d, max(0, width-4)) {
			if i == 0 {
				fmt.Fprintf(w, "  - %s\n", l)
			} else {
				fmt.Fprintf(w, "    %s\n", l)
			}
		}
	}
	fmt.Fprintf(w, "\nreport: %s\n", filepath.Join(out.ReportDir, "index.html"))
}

// List writes the experiments, their papers and policies, fitted to width
// columns (0: no limit).
func List(w io.Writer, reg *solvers.Registry, width int) {
	t := texttable.New(texttable.Column{Header: "NAME"}, texttable.Column{Header: "POLICIES", Wrap: true, MinWidth: 24},
		texttable.Column{Header: "PAPER", Wrap: true, MinWidth: 30})
	for _, e := range Experiments {
		var ps []string
		for _, p := range e.Policies {
			n := p.Name
			if _, ok := reg.Lookup(p.Name); !ok {
				n += " (not in this build)"
			}
			ps = append(ps, n)
		}
		t.Add(e.Name, strings.Join(ps, ", "), e.Paper)
	}
	_, _ = t.Write(w, width, "--wide")
}
