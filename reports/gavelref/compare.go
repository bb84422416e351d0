package gavelref

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"fairbench/runs"
	"fairbench/scenarios"
	"fairbench/sim"
	"fairbench/solvers"
	"fairbench/solvers/gavel"
)

// Options say what to compare.
type Options struct {
	// Throughputs is the Gavel-format throughput file the traces' jobs were
	// generated with (Gavel's simulation_throughputs.json); empty: the
	// built-in catalogue, which holds that file's figures for Gavel's job
	// types.
	Throughputs string
	// Policies limits the comparison to these fairbench policies (nil: every
	// pair).
	Policies []string
	// PolicyOptions are options for the fairbench policies, by name (to
	// measure what one setting changes).
	PolicyOptions map[string]map[string]any
	// Seed is the run's seed (Gavel's --seed; it drives the shuffled type
	// orders).
	Seed int64
	// AllJobs simulates every job of a trace. Without it a run stops when
	// the window's jobs are done (scenario key measure.stop: window_done),
	// as Gavel's simulator stops once its jobs_to_complete are: the
	// window's JCTs are the same either way, and the solves and CPU time
	// are for the same work as Gavel's.
	AllJobs  bool
	Registry *solvers.Registry
	// Progress, when set, is told about each run as it starts.
	Progress func(trace, policy string)
}

// Row is one trace and policy pair compared.
type Row struct {
	Trace, Gavel, Fairbench string
	// GavelJCT and JCT are the mean JCTs (s) over the window's jobs that
	// Gavel did not drop; Ratio is JCT / GavelJCT (NaN when Gavel has no
	// result).
	GavelJCT, JCT, Ratio float64
	// Jobs is how many jobs the means are over.
	Jobs int
	// GavelLast and Last are when the window's last job finished (s).
	GavelLast, Last float64
	// GavelDecisions is Gavel's allocation recomputations; Decisions is
	// fairbench's allocations computed up to Last, and LPs its LP solves
	// over the simulated span (0 for policies without LPs).
	GavelDecisions, Decisions, LPs int
	// GavelCPU and CPU are the CPU seconds of the runs. Gavel's stops when
	// the window's jobs are done; fairbench's too unless Stopped is false
	// (Options.AllJobs: every job of the trace simulated).
	GavelCPU, CPU float64
	Stopped       bool
	// Note says why Gavel has no result, if it has none.
	Note string
}

// Compare runs every pair on every trace of ref, one run at a time (so that
// the CPU time of a run is its own).
func Compare(ref *Reference, o Options) ([]Row, error) {
	var rows []Row
	for _, trace := range ref.Traces {
		for _, pair := range Pairs {
			if o.Policies != nil && !slices.Contains(o.Policies, pair.Fairbench) {
				continue
			}
			g, ok := ref.Run(trace, pair.Gavel)
			if !ok {
				continue
			}
			if o.Progress != nil {
				o.Progress(trace, pair.Fairbench)
			}
			row, err := compare(ref, g, pair, o)
			if err != nil {
				return nil, fmt.Errorf("%s, %s: %w", trace, pair.Fairbench, err)
			}
			rows = append(rows, row)
		}
	}
	return rows, nil
}

// spec is the scenario of one run: Gavel's setting on the trace.
func spec(ref *Reference, trace, policy string, o Options) ([]byte, error) {
	tp := o.Throughputs
	if tp == "" {
		tp = scenarios.DefaultThroughputs
	} else if abs, err := filepath.Abs(tp); err == nil {
		tp = abs // the scenario's paths are relative to the reference folder
	}
	m := map[string]any{
		"name":          strings.TrimSuffix(trace, filepath.Ext(trace)),
		"seed":          o.Seed,
		"round_seconds": 360,
		"user_count":    1,
		"throughputs":   tp,
		"preemption":    map[string]any{"bandwidth_gb_per_second": 0},
		"policies":      []string{policy},
		"workload":      map[string]any{"generator": "trace", "trace": trace, "trace_format": "gavel"},
	}
	var servers []any
	for _, g := range []string{"V100", "P100", "K80"} {
		if n := ref.Cluster[g]; n > 0 {
			servers = append(servers, map[string]any{"type": g, "count": 1, "gpus_per_server": n})
		}
	}
	m["cluster"] = map[string]any{"servers": servers}
	if opts := o.PolicyOptions[policy]; opts != nil {
		m["policy_options"] = map[string]any{policy: opts}
	}
	if !o.AllJobs {
		m["measure"] = map[string]any{"from_job": ref.Window[0], "to_job": ref.Window[1], "stop": scenarios.StopWindowDone}
	}
	return json.Marshal(m) // YAML is a superset of JSON
}

func compare(ref *Reference, g *RefRun, pair Pair, o Options) (Row, error) {
	row := Row{Trace: g.Trace, Gavel: pair.Gavel, Fairbench: pair.Fairbench, GavelJCT: g.AvgJCT, GavelLast: g.LastCompletion,
		GavelDecisions: g.Recomputations, GavelCPU: g.CPU, Ratio: math.NaN(), Stopped: !o.AllJobs}
	if !g.OK() {
		row.Note = "Gavel: " + g.Status
	}
	// The CPU time counted is what a process of its own would spend on the
	// run, as Gavel's time is its process's: building the scenario (reading
	// and checking the trace and the throughput file), the simulation and
	// its result; not reading Gavel's results, nor the process's start.
	// A process of its own starts with an empty heap: the garbage of what
	// came before (Gavel's results, the previous run) is collected first,
	// so that its collection is not counted on this run.
	runtime.GC()
	start := time.Now()
	cpu0 := cpuSeconds()
	b, err := spec(ref, g.Trace, pair.Fairbench, o)
	if err != nil {
		return row, err
	}
	grid, err := scenarios.Parse(b, filepath.Join(ref.Dir, "gavel-reference.yaml"))
	if err != nil {
		return row, err
	}
	out, err := runs.Execute(grid.Runs[0], runs.Options{Registry: o.Registry, Clock: func() time.Duration { return time.Since(start) }})
	if err != nil {
		return row, err
	}
	row.CPU = cpuSeconds() - cpu0
	res := out.Record.Result
	window(ref, g, res, &row)
	for _, d := range res.Decisions {
		if d.Time <= row.Last {
			row.Decisions++
		}
	}
	if t, ok := res.PolicyReport.(*gavel.Tally); ok {
		row.LPs = t.LPs
	}
	if g.OK() && row.GavelJCT > 0 {
		row.Ratio = row.JCT / row.GavelJCT
	}
	return row, nil
}

// window fills in the mean JCT and last completion over the window's jobs
// that Gavel did not drop.
func window(ref *Reference, g *RefRun, res *sim.Result, row *Row) {
	sum := 0.0
	for _, j := range res.Jobs {
		id := int(j.ID)
		if id < ref.Window[0] || id >= ref.Window[1] || slices.Contains(g.Dropped, id) {
			continue
		}
		sum += j.JCT
		row.Jobs++
		row.Last = math.Max(row.Last, j.Finish)
	}
	if row.Jobs > 0 {
		row.JCT = sum / float64(row.Jobs)
	}
}

// simulated says how far fairbench's runs went, which the LP solves and CPU
// times count.
func simulated(rows []Row) string {
	stopped := 0
	for _, r := range rows {
		if r.Stopped {
			stopped++
		}
	}
	switch stopped {
	case 0:
		return "fairbench simulated every job of each trace (--all-jobs); Gavel stopped when the window's jobs were done.\n"
	case len(rows):
		return "fairbench's runs stopped when the window's jobs were done, as Gavel's did (measure.stop: window_done); LP solves and CPU are for that span.\n"
	}
	return fmt.Sprintf("%d of %d fairbench runs stopped when the window's jobs were done, as Gavel's did; the others simulated every job.\n", stopped, len(rows))
}

// cpuSeconds is the process's user + system CPU time so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}

// WriteTable prints rows as a Markdown table, followed by the largest
// deviation of a ratio from 1 and what fairbench's runs simulated.
func WriteTable(w io.Writer, rows []Row) error {
	var b strings.Builder
	b.WriteString("| trace | Gavel policy | fairbench policy | Gavel mean JCT (s) | fairbench mean JCT (s) | ratio | jobs | " +
		"window end Gavel / fairbench (h) | allocations Gavel / fairbench | fairbench LP solves | CPU s Gavel / fairbench | CPU Gavel ÷ fairbench |\n")
	b.WriteString("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	worst := 0.0
	var notes []string
	for _, r := range rows {
		ratio, gavelJCT := "—", "—"
		if !math.IsNaN(r.Ratio) {
			ratio = fmt.Sprintf("**%.3f**", r.Ratio)
			gavelJCT = fmt.Sprintf("%.0f", r.GavelJCT)
			worst = math.Max(worst, math.Abs(r.Ratio-1))
		}
		gavelLast := "—"
		if r.GavelLast > 0 {
			gavelLast = fmt.Sprintf("%.1f", r.GavelLast/3600)
		}
		if r.Note != "" {
			notes = append(notes, fmt.Sprintf("- %s, %s: %s", r.Trace, r.Gavel, r.Note))
			ratio += fmt.Sprintf(" (note %d)", len(notes))
		}
		speedup := "—"
		if r.CPU > 0 && r.GavelCPU > 0 && r.Note == "" { // a crashed run of Gavel did other work
			speedup = fmt.Sprintf("%.0f×", r.GavelCPU/r.CPU)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %.0f | %s | %d | %s / %.1f | %d / %d | %d | %.1f / %.2f | %s |\n",
			r.Trace, r.Gavel, r.Fairbench, gavelJCT, r.JCT, ratio, r.Jobs, gavelLast, r.Last/3600,
			r.GavelDecisions, r.Decisions, r.LPs, r.GavelCPU, r.CPU, speedup)
	}
	fmt.Fprintf(&b, "\nLargest deviation of a ratio from 1: %.1f%%\n", 100*worst)
	b.WriteString(simulated(rows))
	if len(notes) > 0 {
		b.WriteString("\nNotes:\n" + strings.Join(notes, "\n") + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
