// Package gavelref compares fairbench's Gavel policies with results of
// Gavel's own simulator (Narayanan et al., OSDI 2020;
// github.com/stanford-futuredata/gavel) on the same traces: it reads a
// folder of Gavel results (the layout of a Gavel reference folder, see
// Load), runs each fairbench counterpart of a Gavel policy on each trace in
// Gavel's setting, and reports, per trace and policy, the mean JCT over the
// same window of jobs beside Gavel's and their ratio, how many allocations
// each computed, and the CPU time each took (docs/algorithms/gavel.md,
// "Agreement with Gavel's simulator").
//
// Gavel's setting: one GPU type per server group, one server per type with
// all its GPUs (Gavel's simulator uses a gang's consolidated throughput
// whatever its placement, and so does fairbench when a gang fits one
// server), 360 s rounds, no checkpoint-restore cost, a throughput file in
// Gavel's format, one user, the trace's jobs in file order with IDs 0, 1, ….
// The mean JCT is taken over the window's job IDs minus those Gavel
// dropped (a job Gavel drops has no JCT there).
package gavelref

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Pair is a Gavel policy and the fairbench policy that implements it.
type Pair struct {
	Gavel, Fairbench string
}

// Pairs are the Gavel policies fairbench implements. Gavel's gandiva has no
// counterpart here (gandiva-fair is Gandiva_fair, another policy).
var Pairs = []Pair{
	{"fifo_perf", "gavel-fifo"},
	{"isolated", "gavel-isolated"},
	{"max_min_fairness", "gavel-las-agnostic"},
	{"max_min_fairness_perf", "gavel-las"},
	{"finish_time_fairness_perf", "gavel-ftf"},
	{"min_total_duration_perf", "gavel-makespan"},
}

// RefRun is one run of Gavel's simulator: a row of run-details.csv.
type RefRun struct {
	Trace  string // the trace file's name, in the reference folder
	Policy string
	// Status is "ok", or why Gavel produced no result.
	Status string
	// AvgJCT is Gavel's mean JCT over the window's jobs it completed.
	AvgJCT float64
	// LastCompletion is when the window's last job finished.
	LastCompletion float64
	// Dropped are the window jobs Gavel removed without a JCT.
	Dropped []int
	// Recomputations is how many allocations Gavel computed.
	Recomputations int
	// CPU is Gavel's CPU time in seconds (user + system).
	CPU float64
}

// OK reports whether Gavel produced a result.
func (r *RefRun) OK() bool { return r.Status == "ok" }

// Reference is a folder of Gavel results.
type Reference struct {
	Dir    string
	Traces []string // in the order run-details.csv first names them
	Runs   []RefRun
	// Cluster is the GPUs of each type Gavel simulated (Gavel's -c), and
	// Window the job IDs [from, to) averaged over (Gavel's -s and -e).
	Cluster map[string]int
	Window  [2]int
}

// Run finds Gavel's run of policy on trace.
func (r *Reference) Run(trace, policy string) (*RefRun, bool) {
	for i := range r.Runs {
		if r.Runs[i].Trace == trace && r.Runs[i].Policy == policy {
			return &r.Runs[i], true
		}
	}
	return nil, false
}

// Load reads a reference folder: run-details.csv (one row per trace and
// policy, with the columns trace, policy, status, avg_jct_s,
// last_window_completion_s, dropped_window_job_ids (';'-separated),
// allocation_recomputations and cpu_s) and the trace files it names. The
// cluster and window are those of the folder's runs (36 GPUs of each of
// V100, P100 and K80; jobs 0–999) unless cluster and window are given.
// Errors name the file, line and column.
func Load(dir string, cluster map[string]int, window [2]int) (*Reference, error) {
	path := filepath.Join(dir, "run-details.csv")
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("gavel reference: %w", err)
	}
	defer f.Close()
	rd := csv.NewReader(f)
	head, err := rd.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: header: %w", path, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	for _, need := range []string{"trace", "policy", "status", "avg_jct_s", "last_window_completion_s",
		"dropped_window_job_ids", "allocation_recomputations", "cpu_s"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("%s: no column %q", path, need)
		}
	}
	ref := &Reference{Dir: dir, Cluster: cluster, Window: window}
	if ref.Cluster == nil {
		ref.Cluster = map[string]int{"V100": 36, "P100": 36, "K80": 36}
	}
	if ref.Window == [2]int{} {
		ref.Window = [2]int{0, 1000}
	}
	for line := 2; ; line++ {
		rec, err := rd.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		run, err := parseRun(rec, col)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if !slices.Contains(ref.Traces, run.Trace) {
			if _, err := os.Stat(filepath.Join(dir, run.Trace)); err != nil {
				return nil, fmt.Errorf("%s:%d: trace: %w", path, line, err)
			}
			ref.Traces = append(ref.Traces, run.Trace)
		}
		ref.Runs = append(ref.Runs, run)
	}
	if len(ref.Runs) == 0 {
		return nil, fmt.Errorf("%s: no runs", path)
	}
	return ref, nil
}

// parseRun reads one row of run-details.csv.
func parseRun(rec []string, col map[string]int) (RefRun, error) {
	get := func(name string) string { return strings.TrimSpace(rec[col[name]]) }
	r := RefRun{Trace: get("trace"), Policy: get("policy"), Status: get("status")}
	if strings.ContainsAny(r.Trace, `/\`) || r.Trace == "" || r.Policy == "" {
		return r, fmt.Errorf("trace %q, policy %q: want a file name in the folder and a policy", r.Trace, r.Policy)
	}
	num := func(name string, blankOK bool) (float64, error) {
		s := get(name)
		if s == "" && blankOK {
			return 0, nil
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, fmt.Errorf("column %s: %q is not a number", name, s)
		}
		return v, nil
	}
	var err error
	failed := !r.OK()
	if r.AvgJCT, err = num("avg_jct_s", failed); err != nil {
		return r, err
	}
	if r.LastCompletion, err = num("last_window_completion_s", failed); err != nil {
		return r, err
	}
	if r.CPU, err = num("cpu_s", false); err != nil {
		return r, err
	}
	n, err := num("allocation_recomputations", true)
	if err != nil {
		return r, err
	}
	r.Recomputations = int(n)
	for _, s := range strings.Split(get("dropped_window_job_ids"), ";") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		id, err := strconv.Atoi(s)
		if err != nil {
			return r, fmt.Errorf("column dropped_window_job_ids: %q is not a job ID", s)
		}
		r.Dropped = append(r.Dropped, id)
	}
	return r, nil
}
