package runs

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"fairbench/internal/input"
	"fairbench/sim"
)

// Record is one run's result file: what ran (scenario, policy, seed, the grid
// point and the concrete spec), with what (fairbench version, solver backend,
// throughput source) and what came out.
type Record struct {
	ID        string         `json:"id"`
	Scenario  string         `json:"scenario"`
	Policy    string         `json:"policy"`
	Seed      int64          `json:"seed"`
	Point     map[string]any `json:"point,omitempty"`
	Fairbench string         `json:"fairbench"`
	Backend   string         `json:"solver_backend"`
	Spec      any            `json:"spec"`
	Result    *sim.Result    `json:"result"`
}

// Encode is the record's canonical JSON (indented, map keys sorted, ending in
// a newline): the same record always gives the same bytes.
func (r *Record) Encode() ([]byte, error) {
	b, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return nil, fmt.Errorf("encode run %s: %w", r.ID, err)
	}
	return append(b, '\n'), nil
}

// ReadRecord reads a result file written by Write.
func ReadRecord(path string) (*Record, error) {
	b, err := input.ReadFile(path, input.MaxRecordBytes)
	if err != nil {
		return nil, err
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if r.ID == "" || r.Result == nil {
		return nil, fmt.Errorf("%s: not a fairbench run record (no id or result)", path)
	}
	return &r, nil
}

// JobsCSV writes one row per job of the run.
func JobsCSV(w io.Writer, r *sim.Result) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"id", "user", "type", "gang", "steps", "arrival_s", "first_run_s", "finish_s", "jct_s",
		"starvation_s", "isolated_jct_s", "rho", "contention", "executed_s", "restore_s", "preemptions", "migrations", "resumes"})
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 10, 64) }
	for _, j := range r.Jobs {
		_ = cw.Write([]string{strconv.Itoa(int(j.ID)), j.User, j.Type, strconv.Itoa(j.Gang), f(j.Steps), f(j.Arrival),
			f(j.FirstRun), f(j.Finish), f(j.JCT), f(j.Starvation), f(j.IsolatedJCT), f(j.Rho), f(j.Contention),
			f(j.Executed), f(j.Lost), strconv.Itoa(j.Preemptions), strconv.Itoa(j.Migrations), strconv.Itoa(j.Resumes)})
	}
	cw.Flush()
	return cw.Error()
}

// Table prints one line per record: the headline metrics side by side, with
// the grid point (its axes other than policy and seed) when there is one.
func Table(w io.Writer, recs []*Record) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "point\tpolicy\tseed\tjobs\tmean JCT h\tmedian h\tp99 h\tmakespan h\tmean ρ\tmax ρ\tunfair %\tJain\tutil %\tpreempt\tmigrate\t")
	for _, r := range recs {
		s := r.Result.Summary
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t%.3f\t%.2f\t%.1f\t%.3f\t%.1f\t%d\t%d\t\n",
			pointLabel(r.Point), r.Policy, r.Seed, s.Jobs, s.MeanJCT/3600, s.MedianJCT/3600, s.P99JCT/3600, s.Makespan/3600,
			s.MeanRho, s.MaxRho, 100*s.Unfair, s.JainUsers, 100*s.Utilisation, s.Preemptions, s.Migrations)
	}
	return tw.Flush()
}

// TimingCSV writes the measured solver time of every decision.
func TimingCSV(w io.Writer, r *sim.Result) error {
	var b bytes.Buffer
	b.WriteString("t_s,round,trigger,active,solver_s\n")
	for _, d := range r.Decisions {
		fmt.Fprintf(&b, "%g,%d,%s,%d,%g\n", d.Time, d.Round, d.Trigger, d.Active, d.Seconds)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// pointLabel writes a grid point's axes other than policies and seed as
// "path=value" pairs in path order ("-" when there are none).
func pointLabel(p map[string]any) string {
	var keys []string
	for k := range p {
		if k != "policies" && k != "seed" {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return "-"
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%v", k, p[k])
	}
	return strings.Join(parts, " ")
}
