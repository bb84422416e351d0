package reports

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"fairbench/internal/input"
	"fairbench/runs"
	"fairbench/scenarios"
	"fairbench/sim"
	"fairbench/solvers"
	"fairbench/solvers/registry"
)

// Run is one run's results as a report reads them.
type Run struct {
	Record *runs.Record
	// Path is the run's record file (<id>.json).
	Path string
	// Timing is the run's measured solver time per decision, from
	// <id>.timing.csv; nil when the run was made without --timing.
	Timing []sim.DecisionTiming
	// Point is the run's grid point (its axes other than policies and seed).
	Point *Point
}

// Point is one grid point: the values of the grid's axes other than
// policies and seed, shared by the runs of every policy and seed there.
type Point struct {
	// Values maps an axis path (as in the record's point) to its value.
	Values map[string]any
	// Label is "path=value, …" in path order, "-" for a grid without axes.
	Label string
	// Index is the point's position in Set.Points.
	Index int
}

// Set is the runs one report covers: one experiment, possibly a grid,
// possibly spread over several result folders.
type Set struct {
	// Runs are ordered by point, then policy (as in Policies), then seed.
	Runs []*Run
	// Axes are the grid axes other than policies and seed, sorted.
	Axes []string
	// Points are the distinct grid points, ordered by their axis values.
	Points []*Point
	// Policies are the policies that ran, sorted by name unless reordered
	// by OrderPolicies.
	Policies []string
	// Seeds are the seeds that ran, ascending.
	Seeds []int64
	// Inputs are the paths the runs were read from, as given.
	Inputs []string
	// Warnings are things a reader should know that do not make the runs
	// incompatible (several fairbench versions or solver backends).
	Warnings []string
}

// fileRE matches the result files of one run (package runs, Write).
var fileRE = regexp.MustCompile(`^([0-9a-f]{12})\.(json|jobs\.csv|events\.jsonl|timing\.csv)$`)

// Load reads run results from paths, each a result folder (every
// <id>.json there, with its <id>.jobs.csv and optional <id>.timing.csv) or
// one run's <id>.json, and checks that they form one experiment: the same
// scenario up to the grid axes, the same axes, the same options per policy.
// Every problem found is reported, each naming its file: a record without
// its per-job file (or the reverse), an unreadable file, a per-job file
// that disagrees with its record, runs that do not belong together.
func Load(paths ...string) (*Set, error) {
	if len(paths) == 0 {
		return nil, errors.New("reports: no results given")
	}
	reg := registry.Default()
	var errs []error
	var found []*Run
	seen := map[string]string{} // run ID → record path
	set := &Set{Inputs: slices.Clone(paths)}
	add := func(r *Run) {
		if prev, ok := seen[r.Record.ID]; ok {
			if filepath.Clean(prev) != filepath.Clean(r.Path) {
				set.Warnings = append(set.Warnings, fmt.Sprintf("run %s is in both %s and %s; using %s", r.Record.ID, prev, r.Path, prev))
			}
			return
		}
		seen[r.Record.ID] = r.Path
		found = append(found, r)
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			errs = append(errs, fmt.Errorf("reports: %w", err))
			continue
		}
		if !st.IsDir() {
			if !strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".jobs.json") {
				errs = append(errs, fmt.Errorf("reports: %s: not a run record; give a run's <id>.json or a result folder", p))
				continue
			}
			r, err := readRun(reg, p)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			add(r)
			continue
		}
		rs, err := readDir(reg, p)
		errs = append(errs, err)
		for _, r := range rs {
			add(r)
		}
	}
	if err := joinCapped(errs); err != nil {
		return nil, err
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("reports: no run results in %s", strings.Join(paths, ", "))
	}
	if err := set.assemble(found); err != nil {
		return nil, err
	}
	return set, nil
}

// maxErrors is how many problems an error lists before it counts the rest.
const maxErrors = 20

// joinCapped joins errs (nils dropped), listing at most maxErrors.
func joinCapped(errs []error) error {
	var list []error
	for _, e := range errs {
		if e != nil {
			list = append(list, e)
		}
	}
	if len(list) > maxErrors {
		list = append(list[:maxErrors:maxErrors], fmt.Errorf("reports: … and %d more problems", len(list)-maxErrors))
	}
	return errors.Join(list...)
}

// readDir reads every run in dir. A record without its per-job file, and
// files of a run without its record, are errors naming the missing file.
func readDir(reg *solvers.Registry, dir string) ([]*Run, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reports: %w", err)
	}
	files := map[string]map[string]bool{} // id → kinds present
	var ids, manifests []string
	for _, e := range ents {
		if n := e.Name(); strings.HasPrefix(n, "manifest-") && strings.HasSuffix(n, ".json") && !e.IsDir() {
			manifests = append(manifests, n)
			continue
		}
		m := fileRE.FindStringSubmatch(e.Name())
		if m == nil || e.IsDir() {
			continue
		}
		if files[m[1]] == nil {
			files[m[1]] = map[string]bool{}
			ids = append(ids, m[1])
		}
		files[m[1]][m[2]] = true
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("reports: %s: no run results (<id>.json files) in this folder", dir)
	}
	sort.Strings(ids)
	var errs []error
	var out []*Run
	for _, id := range ids {
		kinds := files[id]
		if !kinds["json"] {
			var have []string
			for _, k := range []string{"jobs.csv", "events.jsonl", "timing.csv"} {
				if kinds[k] {
					have = append(have, filepath.Join(dir, id+"."+k))
				}
			}
			errs = append(errs, fmt.Errorf("reports: %s: missing (the run's record; found %s)", filepath.Join(dir, id+".json"), strings.Join(have, ", ")))
			continue
		}
		r, err := readRun(reg, filepath.Join(dir, id+".json"))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, r)
	}
	// Runs a grid manifest lists (package runs writes one per grid) that
	// the folder lacks: a grid that did not finish, or one shard of it.
	sort.Strings(manifests)
	for _, name := range manifests {
		var m runs.Manifest
		b, err := input.ReadFile(filepath.Join(dir, name), input.MaxRecordBytes)
		if err == nil {
			err = json.Unmarshal(b, &m)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("reports: %s: %w", filepath.Join(dir, name), err))
			continue
		}
		for _, e := range m.Runs {
			if files[e.ID] == nil {
				errs = append(errs, fmt.Errorf("reports: %s: missing (run %s, seed %d, of the grid %s lists; an unfinished grid, or one shard of it: finish it, or merge the shards with fairbench merge)",
					filepath.Join(dir, e.ID+".json"), e.Policy, e.Seed, filepath.Join(dir, name)))
			}
		}
	}
	return out, errors.Join(errs...)
}

// readRun reads one run: its record (the policy's report decoded into its
// type), its per-job file (checked against the record) and its timing file
// when there is one.
func readRun(reg *solvers.Registry, path string) (*Run, error) {
	rec, err := runs.ReadRecord(path)
	if err != nil {
		return nil, fmt.Errorf("reports: %w", err)
	}
	if err := decodeReport(reg, rec); err != nil {
		return nil, fmt.Errorf("reports: %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	jobs := filepath.Join(dir, rec.ID+".jobs.csv")
	if err := checkJobsCSV(jobs, rec); err != nil {
		return nil, err
	}
	r := &Run{Record: rec, Path: path}
	timing := filepath.Join(dir, rec.ID+".timing.csv")
	if _, err := os.Stat(timing); err == nil {
		if r.Timing, err = readTiming(timing); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// decodeReport replaces the record's policy report, JSON as read, by the
// typed value the policy's registry entry declares (*gandivafair.Report,
// *fft.Report, ...): the value the policy returned when the run was made,
// so figures and reproductions read its fields, never its JSON keys. The
// report of a policy this build does not register, or that declares no
// report type, stays JSON and no figure reads it.
func decodeReport(reg *solvers.Registry, rec *runs.Record) error {
	raw, ok := rec.Result.PolicyReport.(json.RawMessage)
	if !ok {
		return nil
	}
	rep, ok, err := reg.DecodeReport(rec.Policy, raw)
	if err != nil {
		return fmt.Errorf("policy_report: %w", err)
	}
	if ok {
		rec.Result.PolicyReport = rep
	}
	return nil
}

// checkJobsCSV checks that the run's per-job file exists, has the columns
// package runs writes and one row per job of the record.
func checkJobsCSV(path string, rec *runs.Record) error {
	f, err := input.OpenLimit(path, input.MaxRecordBytes)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("reports: %s: missing (the per-job file of run %s, whose record is %s)", path, rec.ID, filepath.Join(filepath.Dir(path), rec.ID+".json"))
		}
		return fmt.Errorf("reports: %w", err)
	}
	defer f.Close()
	cr := csv.NewReader(input.Lines(f, input.MaxLineBytes))
	header, err := cr.Read()
	if err != nil {
		return fmt.Errorf("reports: %s: %w", path, err)
	}
	if want := jobsHeader(); !slices.Equal(header, want) {
		return fmt.Errorf("reports: %s: columns %v, want %v", path, header, want)
	}
	rows := 0
	for {
		_, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("reports: %s: %w", path, err)
		}
		rows++
	}
	if rows != len(rec.Result.Jobs) {
		return fmt.Errorf("reports: %s: %d job rows, but its record %s.json has %d jobs", path, rows, rec.ID, len(rec.Result.Jobs))
	}
	return nil
}

// jobsHeader is the header package runs writes in <id>.jobs.csv.
func jobsHeader() []string {
	var b bytes.Buffer
	_ = runs.JobsCSV(&b, &sim.Result{})
	h, _ := csv.NewReader(&b).Read()
	return h
}

// readTiming reads a <id>.timing.csv file (runs.TimingCSV).
func readTiming(path string) ([]sim.DecisionTiming, error) {
	b, err := input.ReadFile(path, input.MaxRecordBytes)
	if err != nil {
		return nil, fmt.Errorf("reports: %w", err)
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("reports: %s: %w", path, err)
	}
	want := []string{"t_s", "round", "trigger", "active", "solver_s"}
	if len(recs) == 0 || !slices.Equal(recs[0], want) {
		return nil, fmt.Errorf("reports: %s: not a timing file (want the columns %s)", path, strings.Join(want, ","))
	}
	out := make([]sim.DecisionTiming, 0, len(recs)-1)
	for i, row := range recs[1:] {
		t, e1 := strconv.ParseFloat(row[0], 64)
		round, e2 := strconv.Atoi(row[1])
		active, e3 := strconv.Atoi(row[3])
		sec, e4 := strconv.ParseFloat(row[4], 64)
		if err := errors.Join(e1, e2, e3, e4); err != nil {
			return nil, fmt.Errorf("reports: %s:%d: %w", path, i+2, err)
		}
		out = append(out, sim.DecisionTiming{Time: t, Round: round, Trigger: row[2], Active: active, Seconds: sec})
	}
	return out, nil
}

// assemble checks that the runs form one experiment and fills in the set.
func (s *Set) assemble(found []*Run) error {
	// The rule for runs of one experiment is package scenarios'.
	axesOf := func(r *Run) []string { return scenarios.ExperimentAxes(r.Record.Point) }
	first := found[0]
	s.Axes = axesOf(first)
	base, err := specKey(first, s.Axes)
	if err != nil {
		return err
	}
	var errs []error
	options := map[string]*Run{} // policy → first run of it
	same := map[string]*Run{}    // point, policy, seed → run
	versions, backends := map[string]bool{}, map[string]bool{}
	for _, r := range found {
		versions[r.Record.Fairbench] = true
		backends[r.Record.Backend] = true
		if a := axesOf(r); !slices.Equal(a, s.Axes) {
			errs = append(errs, fmt.Errorf("reports: results mix incompatible runs: %s varies %s but %s varies %s",
				first.Path, axesList(s.Axes), r.Path, axesList(a)))
			continue
		}
		key, err := specKey(r, s.Axes)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if d, differ := scenarios.FirstDifference(base, key); differ {
			errs = append(errs, fmt.Errorf("reports: results mix incompatible runs: %s and %s differ in %s (%s vs %s), which is not a grid axis",
				first.Path, r.Path, d.Path, d.A, d.B))
			continue
		}
		if o, ok := options[r.Record.Policy]; ok {
			if d, differ := scenarios.FirstDifference(policyOptions(o), policyOptions(r)); differ {
				errs = append(errs, fmt.Errorf("reports: results mix incompatible runs: %s and %s run %s with different options (%s: %s vs %s)",
					o.Path, r.Path, r.Record.Policy, strings.TrimPrefix(d.Path, "."), d.A, d.B))
				continue
			}
		} else {
			options[r.Record.Policy] = r
		}
		r.Point = &Point{Values: map[string]any{}}
		for _, a := range s.Axes {
			r.Point.Values[a] = r.Record.Point[a]
		}
		r.Point.Label = pointLabel(s.Axes, r.Point.Values)
		k := fmt.Sprintf("%s\x00%s\x00%d", r.Point.Label, r.Record.Policy, r.Record.Seed)
		if o, ok := same[k]; ok {
			errs = append(errs, fmt.Errorf("reports: results mix incompatible runs: %s and %s are the same run (%s, seed %d, %s) with different IDs: made against a different catalogue or input file",
				o.Path, r.Path, r.Record.Policy, r.Record.Seed, r.Point.Label))
			continue
		}
		same[k] = r
	}
	if err := joinCapped(errs); err != nil {
		return err
	}
	if len(versions) > 1 {
		s.Warnings = append(s.Warnings, "runs were made by several fairbench versions: "+strings.Join(slices.Sorted(maps.Keys(versions)), ", "))
	}
	if len(backends) > 1 {
		s.Warnings = append(s.Warnings, "runs used several solver backends: "+strings.Join(slices.Sorted(maps.Keys(backends)), ", "))
	}
	// Points, policies and seeds.
	points := map[string]*Point{}
	policies, seeds := map[string]bool{}, map[int64]bool{}
	for _, r := range found {
		if p, ok := points[r.Point.Label]; ok {
			r.Point = p
		} else {
			points[r.Point.Label] = r.Point
			s.Points = append(s.Points, r.Point)
		}
		policies[r.Record.Policy] = true
		seeds[r.Record.Seed] = true
	}
	sort.SliceStable(s.Points, func(i, j int) bool {
		for _, a := range s.Axes {
			if c := compareValues(s.Points[i].Values[a], s.Points[j].Values[a]); c != 0 {
				return c < 0
			}
		}
		return false
	})
	for i, p := range s.Points {
		p.Index = i
	}
	s.Policies = slices.Sorted(maps.Keys(policies))
	for sd := range seeds {
		s.Seeds = append(s.Seeds, sd)
	}
	slices.Sort(s.Seeds)
	s.Runs = found
	s.sortRuns()
	return nil
}

// OrderPolicies puts the named policies first, in the given order (names
// that did not run are ignored), the others after them by name.
func (s *Set) OrderPolicies(order []string) {
	var out []string
	for _, p := range order {
		if slices.Contains(s.Policies, p) && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	for _, p := range s.Policies {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	s.Policies = out
	s.sortRuns()
}

func (s *Set) sortRuns() {
	rank := map[string]int{}
	for i, p := range s.Policies {
		rank[p] = i
	}
	sort.SliceStable(s.Runs, func(i, j int) bool {
		a, b := s.Runs[i], s.Runs[j]
		if a.Point.Index != b.Point.Index {
			return a.Point.Index < b.Point.Index
		}
		if rank[a.Record.Policy] != rank[b.Record.Policy] {
			return rank[a.Record.Policy] < rank[b.Record.Policy]
		}
		return a.Record.Seed < b.Record.Seed
	})
}

// group returns the runs at point p under policy, ascending by seed.
func (s *Set) group(p *Point, policy string) []*Run {
	var out []*Run
	for _, r := range s.Runs {
		if r.Point == p && r.Record.Policy == policy {
			out = append(out, r)
		}
	}
	return out
}

// specKey is the run's spec with what may differ between the runs of one
// experiment blanked (scenarios.ExperimentSpec).
func specKey(r *Run, axes []string) (any, error) {
	m, ok := scenarios.ExperimentSpec(r.Record.Spec, axes)
	if !ok {
		return nil, fmt.Errorf("reports: %s: the record has no scenario spec", r.Path)
	}
	return m, nil
}

func policyOptions(r *Run) any { return scenarios.PolicyOptions(r.Record.Spec, r.Record.Policy) }

func axesList(a []string) string {
	if len(a) == 0 {
		return "no grid axis"
	}
	return "the grid axes " + strings.Join(a, ", ")
}

// pointLabel is "path=value, …" over axes, or "-" when there are none.
func pointLabel(axes []string, vals map[string]any) string {
	if len(axes) == 0 {
		return "-"
	}
	parts := make([]string, len(axes))
	for i, a := range axes {
		parts[i] = a + "=" + formatValue(vals[a])
	}
	return strings.Join(parts, ", ")
}

// formatValue writes an axis value: numbers in their shortest form,
// strings as they are, lists as JSON.
func formatValue(v any) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return x
	case nil:
		return "-"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// compareValues orders axis values: numbers numerically, before strings,
// before anything else (by its JSON text).
func compareValues(a, b any) int {
	fa, aNum := a.(float64)
	fb, bNum := b.(float64)
	switch {
	case aNum && bNum:
		switch {
		case fa < fb:
			return -1
		case fa > fb:
			return 1
		}
		return 0
	case aNum:
		return -1
	case bNum:
		return 1
	}
	return strings.Compare(formatValue(a), formatValue(b))
}
