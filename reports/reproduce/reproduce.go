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
	"math"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"fairbench/internal/atomicfile"
	"fairbench/internal/texttable"

	"go.yaml.in/yaml/v3"

	"fairbench/reports"
	"fairbench/runs"
	"fairbench/scenarios"
	"fairbench/scenarios/examples"
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
	// Judgements are the headlines' verdicts, in the experiment's order.
	Judgements []Judgement
	// Scenario is the scenario file of the grid that was run.
	Scenario string
	res      *Results
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
	base, err := e.baseScenario(quick, file)
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

// baseScenario is the scenario without policies: the grid file, or the
// preset with its policies and options removed and FullSet or QuickSet
// applied.
func (e *Experiment) baseScenario(quick bool, file string) ([]byte, error) {
	if e.Preset == "" {
		return grids.ReadFile("grids/" + file)
	}
	data, err := examples.Read(e.Preset)
	if err != nil {
		return nil, err
	}
	set := e.FullSet
	if quick {
		set = e.QuickSet
	}
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("preset %s: %w", e.Preset, err)
	}
	delete(doc, "policies")
	delete(doc, "policy_options")
	out, err := Variation{Set: set}.apply(mustMarshal(doc))
	if err != nil {
		return nil, err
	}
	return append([]byte("# Written by fairbench reproduce "+e.Name+" from scenarios/examples/"+e.Preset+
		" (its comments explain each setting), with its policies replaced.\n"), out...), nil
}

// mustMarshal encodes a document that was just decoded.
func mustMarshal(doc map[string]any) []byte {
	b, err := yaml.Marshal(doc)
	if err != nil {
		panic("reproduce: re-encoding a decoded preset: " + err.Error())
	}
	return b
}

// Run runs the named experiment, then its sensitivity variations, judges
// every headline, writes the report and prints the comparison with the
// verdicts.
func Run(name string, o Options) (*Outcome, error) {
	e, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("reproduce: unknown experiment %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	_, skipped, err := e.Scenario(o.Quick, o.Registry)
	if err != nil {
		return nil, err
	}
	out := &Outcome{Experiment: e, Skipped: skipped}
	for _, p := range skipped {
		fmt.Fprintf(o.Out, "reproduce %s: policy %q is not registered in this build; skipped (its comparisons read \"not run\")\n", e.Name, p)
	}
	g, err := e.runGrid(o, o.Dir, nil)
	if g != nil {
		out.Runs, out.Failed, out.Scenario = g.runs, g.failed, g.scenario
	}
	if err != nil {
		return out, err
	}
	res := g.results
	out.res = res
	sens, sensNotes := e.sensitivity(o, o.Dir)
	for _, s := range sens {
		out.Runs += s.results.runs
	}
	out.Judgements = e.judge(res, sens)
	out.Comparison = e.comparison(res, out.Judgements)
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
	notes = append(notes, sensNotes...)
	order := make([]string, len(e.Policies))
	for i, p := range e.Policies {
		order[i] = p.Name
	}
	title := e.Title
	if o.Quick {
		title += " (quick)"
	}
	rep, err := reports.Build(res.Set, reports.Options{
		Title:       "fairbench reproduce " + e.Name + ": " + title,
		Intro:       "Paper: " + e.Paper + ". Its setting: " + e.Setting + " Scenario: " + out.Scenario + ".",
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
	rep.Tables = append(rep.Tables, e.sensitivityTable(res, sens))
	for _, x := range e.Extra {
		rep.Tables = append(rep.Tables, x(res))
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

// gridRun is one grid of an experiment, run.
type gridRun struct {
	scenario string
	runs     int
	failed   error
	results  *Results
}

// runGrid writes the experiment's scenario (patched, for a sensitivity
// variation) and its trace under dir/scenario, runs the grid into
// dir/results and loads the runs that completed.
func (e *Experiment) runGrid(o Options, dir string, patch func([]byte) ([]byte, error)) (*gridRun, error) {
	data, _, err := e.Scenario(o.Quick, o.Registry)
	if err != nil {
		return nil, err
	}
	if patch != nil {
		if data, err = patch(data); err != nil {
			return nil, fmt.Errorf("reproduce %s: %w", e.Name, err)
		}
	}
	// The scenario (and its trace) go to DIR/scenario, so the grid can be
	// rerun from there.
	scenDir := filepath.Join(dir, "scenario")
	scenFile := filepath.Join(scenDir, e.Name+".yaml")
	if o.Quick {
		scenFile = filepath.Join(scenDir, e.Name+".quick.yaml")
	}
	if e.Traces != nil {
		for name, data := range e.Traces(o.Quick) {
			if err := atomicfile.Write(filepath.Join(scenDir, name), data); err != nil {
				return nil, fmt.Errorf("reproduce %s: %w", e.Name, err)
			}
		}
	}
	if err := atomicfile.Write(scenFile, data); err != nil {
		return nil, fmt.Errorf("reproduce %s: %w", e.Name, err)
	}
	g, err := scenarios.Load(scenFile)
	if err != nil {
		return nil, fmt.Errorf("reproduce %s: %w", e.Name, err)
	}
	out := &gridRun{scenario: scenFile, runs: len(g.Runs)}
	resDir := filepath.Join(dir, "results")
	// Solver time per decision is measured (into <id>.timing.csv; the
	// records stay byte-identical) for the report's solver-time figure.
	start := time.Now()
	ro := runs.Options{Registry: o.Registry, Version: o.Version, Backend: o.Backend,
		Clock: func() time.Duration { return time.Since(start) }}
	var prog runs.Progress
	if o.Progress != nil {
		prog = o.Progress(len(g.Runs))
	}
	_, out.failed = runs.Grid(g.Runs, resDir, ro, runs.GridOptions{Workers: max(1, o.Workers), Progress: prog})
	// The results cover this grid's runs that have a result.
	var files []string
	for _, r := range g.Runs {
		if _, ok := runs.Complete(resDir, r.ID); ok {
			files = append(files, filepath.Join(resDir, r.ID+".json"))
		}
	}
	if len(files) == 0 {
		return out, fmt.Errorf("reproduce %s: no run succeeded: %w", e.Name, out.failed)
	}
	set, err := reports.Load(files...)
	if err != nil {
		return out, err
	}
	set.Inputs = []string{resDir}
	if out.results, err = newResults(set); err != nil {
		return out, err
	}
	out.results.runs = len(g.Runs)
	return out, nil
}

// comparison is the table of the paper's numbers beside ours, with each
// headline's verdict.
func (e *Experiment) comparison(r *Results, js []Judgement) *reports.NamedTable {
	t := &reports.Table{Header: []string{"metric", "paper (published)", "where in the paper", "fairbench (this run)", "judged", "verdict", "measured cause"}}
	for i, h := range e.Headlines {
		j := js[i]
		t.Rows = append(t.Rows, []string{h.Metric, h.Paper, h.Where, h.Ours(r), j.Ours + " vs " + j.Paper, j.Verdict.String(), j.Cause})
	}
	return &reports.NamedTable{Name: "comparison", Title: "Ours beside the paper's",
		Caption: "Published headline numbers from " + e.Paper + ", beside the same quantities measured on this grid (means over seeds; per grid point), and each headline's verdict: reproduced (the same direction and within ±25% of the paper's ratio, or its range), direction only, or not reproduced. The judged value is the mean over the grid's points, or their largest for an \"up to\" claim. A headline short of reproduced names the setting of the sensitivity table that brings it closest to the paper's number.",
		Data:    t, Display: t}
}

// print writes the comparison, the verdicts, the citation and the
// deviations, in lines of at most width columns (0: no limit) where the
// values allow.
func (e *Experiment) print(w io.Writer, out *Outcome, quick bool, width int) {
	if width <= 0 {
		width = math.MaxInt / 2
	}
	fmt.Fprintf(w, "\n%s\n", wrap("reproduce "+e.Name+": "+e.Title, width-2, 2))
	fmt.Fprintf(w, "paper: %s\n\n", wrap(e.Paper, width-8, 7))
	for i, h := range e.Headlines {
		j := out.Judgements[i]
		fmt.Fprintf(w, "%s\n", h.Metric)
		fmt.Fprintf(w, "  paper:   %s\n", wrap(h.Paper+" ("+h.Where+")", width-12, 11))
		fmt.Fprintf(w, "  ours:    %s\n", wrap(h.Ours(out.res), width-12, 11))
		fmt.Fprintf(w, "  verdict: %s (%s vs %s)\n", j.Verdict, j.Ours, j.Paper)
		if j.Cause != "" {
			fmt.Fprintf(w, "  cause:   %s\n", wrap(j.Cause, width-12, 11))
		}
	}
	fmt.Fprintf(w, "\ndeviations from the paper's setting:\n")
	notes := e.Deviations
	if quick {
		notes = append(append([]string{}, notes...), e.QuickDeviations...)
	}
	for _, d := range notes {
		fmt.Fprintf(w, "  - %s\n", wrap(d, width-4, 4))
	}
	fmt.Fprintf(w, "\nreport: %s\n", filepath.Join(out.ReportDir, "index.html"))
}

// PrintVerdicts writes one verdict table for the judgements of one or more
// experiments, then the causes of those short of reproduced, and the tally.
func PrintVerdicts(w io.Writer, js []Judgement) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "EXPERIMENT\tHEADLINE\tPAPER\tOURS\tVERDICT")
	var causes []string
	for _, j := range js {
		mark := ""
		if j.Cause != "" {
			causes = append(causes, fmt.Sprintf("[%d] %s, %s: %s", len(causes)+1, j.Experiment, j.Metric, j.Cause))
			mark = fmt.Sprintf(" [%d]", len(causes))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s%s\n", j.Experiment, j.Metric, j.Paper, j.Ours, j.Verdict, mark)
	}
	tw.Flush()
	for _, c := range causes {
		fmt.Fprintf(w, "%s\n", wrap(c, 98, 4))
	}
	rep, dir, n := tally(js)
	if n > 0 {
		fmt.Fprintf(w, "%d of %d headlines reproduced (%.0f%%), %d of %d in the paper's direction.\n", rep, n, 100*float64(rep)/float64(n), dir, n)
	}
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

// RunAll runs every experiment, each into its own folder under o.Dir
// (NAME, or NAME-quick), and prints one verdict table for all of them. An
// experiment that fails is reported and the others still run; the first
// error is returned.
func RunAll(o Options) ([]*Outcome, error) {
	w := o.Out
	if w == nil {
		w = io.Discard
	}
	var outs []*Outcome
	var js []Judgement
	var first error
	base := o.Dir
	for _, e := range Experiments {
		eo := o
		eo.Out = io.Discard
		eo.Dir = filepath.Join(base, e.Name)
		if o.Quick {
			eo.Dir += "-quick"
		}
		out, err := Run(e.Name, eo)
		if out != nil {
			outs = append(outs, out)
			js = append(js, out.Judgements...)
			fmt.Fprintf(w, "reproduce %s: %d runs, report %s\n", e.Name, out.Runs, filepath.Join(out.ReportDir, "index.html"))
		}
		if err != nil {
			fmt.Fprintf(w, "reproduce %s: %v\n", e.Name, err)
			if first == nil {
				first = err
			}
		}
	}
	fmt.Fprintln(w)
	PrintVerdicts(w, js)
	return outs, first
}
