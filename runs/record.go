package runs

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

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

// ReadRecord reads a result file written by Write. The policy's report
// (Result.PolicyReport) comes back as its JSON, a json.RawMessage: only the
// policy's registry entry knows its type, so a reader decodes it with
// solvers.Registry.DecodeReport (package reports does).
func ReadRecord(path string) (*Record, error) {
	b, err := input.ReadFile(path, input.MaxRecordBytes)
	if err != nil {
		return nil, err
	}
	var stored struct {
		Record
		Result *struct {
			sim.Result
			PolicyReport json.RawMessage `json:"policy_report,omitempty"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &stored); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r := stored.Record
	if res := stored.Result; res != nil {
		r.Result = &res.Result
		if len(res.PolicyReport) > 0 && string(res.PolicyReport) != "null" {
			r.Result.PolicyReport = res.PolicyReport
		}
	}
	if r.ID == "" || r.Result == nil {
		return nil, fmt.Errorf("%s: not a fairbench run record (no id or result)", path)
	}
	return &r, nil
}

// JobsCSV writes one row per job of the run. A job the run stopped before
// it finished (sim.JobResult.Unfinished) has empty finish_s, jct_s,
// isolated_jct_s, rho and contention cells, and empty first_run_s and
// starvation_s cells when it never ran.
func JobsCSV(w io.Writer, r *sim.Result) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"id", "user", "type", "gang", "steps", "arrival_s", "first_run_s", "finish_s", "jct_s",
		"starvation_s", "isolated_jct_s", "rho", "contention", "executed_s", "restore_s", "preemptions", "migrations", "resumes"})
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 10, 64) }
	for _, j := range r.Jobs {
		firstRun, starve, finish, jct, iso, rho, n := f(j.FirstRun), f(j.Starvation), f(j.Finish), f(j.JCT), f(j.IsolatedJCT), f(j.Rho), f(j.Contention)
		if j.Unfinished {
			finish, jct, iso, rho, n = "", "", "", "", ""
			if j.Executed == 0 && j.Lost == 0 { // never ran
				firstRun, starve = "", ""
			}
		}
		_ = cw.Write([]string{strconv.Itoa(int(j.ID)), j.User, j.Type, strconv.Itoa(j.Gang), f(j.Steps), f(j.Arrival),
			firstRun, finish, jct, starve, iso, rho, n,
			f(j.Executed), f(j.Lost), strconv.Itoa(j.Preemptions), strconv.Itoa(j.Migrations), strconv.Itoa(j.Resumes)})
	}
	cw.Flush()
	return cw.Error()
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
