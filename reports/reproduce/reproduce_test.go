package reproduce

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fairbench/scenarios"
	"fairbench/scenarios/examples"
	"fairbench/solvers"
	"fairbench/solvers/registry"
)

// subset is a registry holding only the named policies of the default one.
func subset(t *testing.T, names ...string) *solvers.Registry {
	t.Helper()
	full := registry.Default()
	r := &solvers.Registry{}
	for _, n := range names {
		e, ok := full.Lookup(n)
		if !ok {
			continue
		}
		if err := r.Register(e); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// everything registers a stand-in for every policy any experiment names,
// so that the full grids can be checked whatever this build has.
func everything(t *testing.T) *solvers.Registry {
	t.Helper()
	full := registry.Default()
	fifo, _ := full.Lookup("fifo")
	r := &solvers.Registry{}
	for _, e := range Experiments {
		for _, p := range e.Policies {
			if r.Names() != nil && slices.Contains(r.Names(), p.Name) {
				continue
			}
			entry, ok := full.Lookup(p.Name)
			if !ok {
				entry = fifo
				entry.Name = p.Name
			}
			if err := r.Register(entry); err != nil {
				t.Fatal(err)
			}
		}
	}
	return r
}

// wantRuns is each experiment's grid size, full and quick.
var wantRuns = map[string][2]int{
	"fft":          {3 * 4, 4},         // 3 seeds × 4 policies; quick 1 seed
	"sjf-bsbf":     {2 * 4, 2 * 4},     // 2 scheduling intervals × 4 policies
	"gandiva-fair": {3 * 3, 3},         // 3 traces × 3 policies; quick 1 trace
	"gavel-las":    {3 * 5 * 4, 2 * 4}, // 3 seeds × 5 rates × 4; quick 1 seed × 2 rates
}

// writeScenario writes e's scenario (with every policy it names) and its
// traces into dir and returns the scenario's path.
func writeScenario(t *testing.T, e *Experiment, quick bool, reg *solvers.Registry, dir string) string {
	t.Helper()
	data, skipped, err := e.Scenario(quick, reg)
	if err != nil || len(skipped) > 0 {
		t.Fatalf("%s quick=%v: %v, skipped %v", e.Name, quick, err, skipped)
	}
	if e.Traces != nil {
		for name, b := range e.Traces(quick) {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	path := filepath.Join(dir, e.Name+".yaml")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestGridsAreValid expands every experiment's full and quick grid (with
// every policy it names) and checks its size, and that every run of every
// sensitivity variation builds: the full grids are never run in tests, so
// this is where a typo in one shows.
func TestGridsAreValid(t *testing.T) {
	t.Parallel()
	reg := everything(t)
	for _, e := range Experiments {
		for qi, quick := range []bool{false, true} {
			g, err := scenarios.Load(writeScenario(t, e, quick, reg, t.TempDir()))
			if err != nil {
				t.Fatalf("%s quick=%v: %v", e.Name, quick, err)
			}
			if want := wantRuns[e.Name][qi]; len(g.Runs) != want {
				t.Errorf("%s quick=%v: %d runs, want %d", e.Name, quick, len(g.Runs), want)
			}
			// Every run builds (jobs runnable on the cluster, trace valid).
			for _, r := range g.Runs[:1] {
				if _, err := r.Spec.Build(r.Seed); err != nil {
					t.Errorf("%s quick=%v: %v", e.Name, quick, err)
				}
			}
			for _, v := range e.Variations {
				ve := *e
				ve.Policies = v.policies(e.Policies)
				if v.Traces != nil {
					ve.Traces = v.Traces
				}
				dir := t.TempDir()
				path := writeScenario(t, &ve, quick, reg, dir)
				data, _ := os.ReadFile(path)
				patched, err := v.apply(data)
				if err != nil {
					t.Fatalf("%s/%s: %v", e.Name, v.Name, err)
				}
				vg, err := scenarios.Parse(patched, path)
				if err != nil {
					t.Fatalf("%s/%s quick=%v: %v", e.Name, v.Name, quick, err)
				}
				if _, err := vg.Runs[0].Spec.Build(vg.Runs[0].Seed); err != nil {
					t.Errorf("%s/%s quick=%v: %v", e.Name, v.Name, quick, err)
				}
			}
		}
		if len(e.Headlines) == 0 || len(e.Deviations) == 0 || len(e.QuickDeviations) == 0 || e.Paper == "" {
			t.Errorf("%s: headlines, deviations and the citation are required", e.Name)
		}
		for _, h := range e.Headlines {
			if h.Check.Value == nil || h.Check.Paper == "" || h.Check.Format == "" {
				t.Errorf("%s: headline %q has no verdict check", e.Name, h.Metric)
			}
		}
	}
}

// TestMissingPolicyIsSkipped: a policy this build lacks is skipped with a
// notice naming it, the run goes on, and the comparison says "not run".
func TestMissingPolicyIsSkipped(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	dir := t.TempDir()
	res, err := Run("sjf-bsbf", Options{Quick: true, Dir: dir, Workers: 2, Registry: subset(t, "sjf", "tiresias"),
		Version: "test", Backend: "test", Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Skipped, []string{"sjf-bsbf", "sjf-ffs"}) {
		t.Errorf("skipped %v", res.Skipped)
	}
	for _, want := range []string{`policy "sjf-bsbf" is not registered in this build; skipped`, "not run (sjf-bsbf", "paper: Luo", "deviations from the paper's setting"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	for _, f := range []string{"scenario/sjf-bsbf.quick.yaml", "report/index.html", "report/tables/comparison.csv", "report/report.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	// No policy at all: refused, naming them.
	if _, err := Run("sjf-bsbf", Options{Quick: true, Dir: t.TempDir(), Registry: subset(t)}); err == nil || !strings.Contains(err.Error(), "none of its policies") {
		t.Errorf("empty registry: %v", err)
	}
	if _, err := Run("nope", Options{}); err == nil || !strings.Contains(err.Error(), `unknown experiment "nope"`) {
		t.Errorf("unknown: %v", err)
	}
}

// TestHPOTrace: the trace is deterministic, sorted, and gives each user one
// job type.
func TestHPOTrace(t *testing.T) {
	t.Parallel()
	a, b := gandivaTraces(hpoContended, false)(true)[hpoTraceName(2020)], gandivaTraces(hpoContended, false)(true)[hpoTraceName(2020)]
	if !bytes.Equal(a, b) {
		t.Fatal("the trace differs between calls")
	}
	lines := strings.Split(strings.TrimSpace(string(a)), "\n")
	var rows []string
	for _, l := range lines {
		if !strings.HasPrefix(l, "#") {
			rows = append(rows, l)
		}
	}
	if rows[0] != "arrival_seconds,user,job_type,gang,duration_seconds" || len(rows) < 3*4*8+1 {
		t.Fatalf("%d rows, header %q", len(rows), rows[0])
	}
	types := map[string]string{}
	for _, r := range rows[1:] {
		f := strings.SplitN(r, ",", 3)
		jt := f[2][:strings.LastIndex(f[2][:strings.LastIndex(f[2], ",")], ",")]
		if prev, ok := types[f[1]]; ok && prev != jt {
			t.Errorf("user %s runs %s and %s", f[1], prev, jt)
		}
		types[f[1]] = jt
	}
	if len(types) != 4 {
		t.Errorf("%d users", len(types))
	}
}

// TestPolicyOptions: an experiment's policy options reach the scenario.
func TestPolicyOptions(t *testing.T) {
	t.Parallel()
	e := *fftExperiment
	e.Policies = []Policy{{Name: "fifo", Options: map[string]any{"backfill": true}}, {Name: "sjf"}}
	data, _, err := e.Scenario(true, registry.Default())
	if err != nil {
		t.Fatal(err)
	}
	g, err := scenarios.Parse(data, "options.yaml")
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	found := false
	for _, r := range g.Runs {
		if r.Policy == "fifo" {
			found = r.Spec.PolicyOptions["fifo"]["backfill"] == true
		}
	}
	if !found {
		t.Errorf("fifo's options did not reach its runs:\n%s", data)
	}
}

// The Gandiva_fair preset's trace is the generator's output for seed 2020:
// regenerate it (write gandivaTraces(hpoContended, false)(false)) when hpo.go
// changes.
func TestGandivaPresetTrace(t *testing.T) {
	t.Parallel()
	want := gandivaTraces(hpoContended, false)(false)[hpoTraceName(2020)]
	got, err := examples.Read(hpoTraceName(2020))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("scenarios/examples/gandiva-fair-2020.trace.csv differs from the generator's output")
	}
}

// TestHPOTraceOneGPU: the one-GPU trace is the default trace with every
// gang set to 1: the same users, job types, arrivals and durations.
func TestHPOTraceOneGPU(t *testing.T) {
	t.Parallel()
	rows := func(oneGPU bool) [][]string {
		var out [][]string
		for _, l := range strings.Split(strings.TrimSpace(string(gandivaTraces(hpoContended, oneGPU)(true)[hpoTraceName(2020)])), "\n") {
			if !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "arrival") {
				f := strings.Split(l, ",")
				out = append(out, f)
			}
		}
		return out
	}
	def, one := rows(false), rows(true)
	if len(def) != len(one) {
		t.Fatalf("%d rows, want %d", len(one), len(def))
	}
	multi := 0
	for i := range def {
		n := len(def[i])
		if one[i][n-2] != "1" {
			t.Errorf("row %d: gang %s, want 1", i, one[i][n-2])
		}
		if def[i][n-2] != "1" {
			multi++
		}
		one[i][n-2] = def[i][n-2]
		if !slices.Equal(def[i], one[i]) {
			t.Errorf("row %d: %v, want %v but for the gang", i, one[i], def[i])
		}
	}
	if multi == 0 {
		t.Error("the default trace has no multi-GPU job: the test shows nothing")
	}
}
