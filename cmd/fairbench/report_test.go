package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fairbench/reports/reproduce"
)

// simulated runs the small test scenario under two policies into a new
// folder and returns it.
func simulated(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := run(t, "simulate", "../../runs/testdata/small.yaml", "--policy", "fifo", "--policy", "srtf", "--timing", "--out", dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestReportWritesReport(t *testing.T) {
	res := simulated(t)
	out := filepath.Join(t.TempDir(), "rep")
	stdout, err := run(t, "report", res, "--out", out, "--matrix", "../../reports/testdata/matrix.csv",
		"--calibration", "../../reports/testdata/calibration.csv", "--dpi", "50")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "report: 4 runs") || !strings.Contains(stdout, "index.html") {
		t.Errorf("output: %s", stdout)
	}
	for _, f := range []string{"index.html", "report.md", "report.json", "figures/mean_jct.svg", "figures/mean_jct.pdf",
		"figures/mean_jct.png", "figures/mean_jct.csv", "figures/jct_cdf.svg", "figures/solver_time.csv",
		"figures/property_matrix.svg", "figures/calibration_throughput.png", "tables/policies.md", "tables/users.csv"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	// Again into the same folder: an earlier report is replaced.
	if _, err := run(t, "report", res, "--out", out, "--dpi", "50"); err != nil {
		t.Fatalf("replacing a report: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "figures", "property_matrix.svg")); err == nil {
		t.Error("the replaced report kept a figure of the earlier one")
	}
	// Without --out: ./report, not the results' default folder.
	t.Chdir(t.TempDir())
	if _, err := run(t, "report", res, "--dpi", "50"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join("report", "index.html")); err != nil {
		t.Errorf("default --out: %v", err)
	}
}

// TestReportBadInput: every problem names its file, and nothing is
// written.
func TestReportBadInput(t *testing.T) {
	res := simulated(t)
	ids, _ := filepath.Glob(filepath.Join(res, "*.jobs.csv"))
	// A record without its per-job file.
	noJobs := copyResults(t, res)
	missing := filepath.Join(noJobs, filepath.Base(ids[0]))
	if err := os.Remove(missing); err != nil {
		t.Fatal(err)
	}
	// A per-job file without its record.
	noRecord := copyResults(t, res)
	rec := filepath.Join(noRecord, strings.TrimSuffix(filepath.Base(ids[0]), ".jobs.csv")+".json")
	if err := os.Remove(rec); err != nil {
		t.Fatal(err)
	}
	// Runs of another scenario mixed in.
	mixed := copyResults(t, res)
	if _, err := run(t, "simulate", "../../runs/testdata/small.yaml", "--policy", "fifo", "--seed", "9", "--out", mixed); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "s.yaml"), []byte("cluster:\n  servers:\n    - {type: V100, count: 1, gpus_per_server: 4}\nworkload: {jobs: 5, gangs: [{size: 1, weight: 1}]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, "simulate", filepath.Join(other, "s.yaml"), "--policy", "fifo", "--out", mixed); err != nil {
		t.Fatal(err)
	}
	notReport := t.TempDir()
	if err := os.WriteFile(filepath.Join(notReport, "keep.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"report", noJobs}, missing + ": missing"},
		{[]string{"report", noRecord}, rec + ": missing"},
		{[]string{"report", mixed}, "results mix incompatible runs"},
		{[]string{"report", filepath.Join(res, "nope")}, "nope"},
		{[]string{"report", t.TempDir()}, "no run results"},
		{[]string{"report", res, "--out", notReport}, "is not a fairbench report"},
		{[]string{"report", res, "--matrix", "../../reports/testdata/bad_matrix.csv"}, "bad_matrix.csv:3"},
		{[]string{"report"}, "give result folders"},
	}
	for _, c := range cases {
		out := filepath.Join(t.TempDir(), "rep")
		args := c.args
		if !strings.Contains(strings.Join(args, " "), "--out") {
			args = append(args, "--out", out)
		}
		_, err := run(t, args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want an error containing %q", c.args, err, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: a report was written despite the error", c.args)
		}
		if ents, _ := os.ReadDir(filepath.Dir(out)); len(ents) > 0 {
			t.Errorf("%v: left %v behind", c.args, ents)
		}
	}
	if b, err := os.ReadFile(filepath.Join(notReport, "keep.txt")); err != nil || string(b) != "mine" {
		t.Errorf("a folder that is not a report was touched: %v", err)
	}
}

func copyResults(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// TestReproduceQuick runs every experiment's quick grid end to end through
// the CLI: the comparison beside the paper's numbers, the citation, the
// deviations and the report. Each must take well under two minutes.
func TestReproduceQuick(t *testing.T) {
	list, err := run(t, "reproduce")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range reproduce.Names() {
		if !strings.Contains(list, name) {
			t.Errorf("reproduce lists no %s", name)
		}
	}
	// One experiment on its own: the per-headline lines and the table.
	dir := filepath.Join(t.TempDir(), "sjf-bsbf")
	out, err := run(t, "reproduce", "sjf-bsbf", "--quick", "--out", dir, "--jobs", "2")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"paper: ", "  verdict: ", "EXPERIMENT", "VERDICT", "deviations from the paper's setting", "--quick:", "report: ", "headlines reproduced"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// All four: one verdict table, a report per experiment with its
	// sensitivity table, and results that are a valid report input.
	all := filepath.Join(t.TempDir(), "all")
	start := time.Now()
	out, err = run(t, "reproduce", "--all", "--quick", "--out", all, "--jobs", "2")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Logf("reproduce --all --quick took %s", time.Since(start).Round(time.Second))
	for _, name := range reproduce.Names() {
		if !strings.Contains(out, name+" ") {
			t.Errorf("verdict table lacks %s:\n%s", name, out)
		}
		for _, f := range []string{"report/index.html", "report/tables/comparison.md", "report/tables/sensitivity.md", "results"} {
			if _, err := os.Stat(filepath.Join(all, name+"-quick", f)); err != nil {
				t.Error(err)
			}
		}
	}
	if _, err := run(t, "report", filepath.Join(all, "fft-quick", "results"), "--out", filepath.Join(t.TempDir(), "r"), "--dpi", "30"); err != nil {
		t.Errorf("report of the results: %v", err)
	}
	if !strings.Contains(out, "headlines reproduced") || strings.Count(out, "\n") > 200 {
		t.Errorf("verdict table:\n%s", out)
	}
	// The verdict table and its causes fit 100 columns.
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "reproduce ") || strings.HasSuffix(l, ")") && strings.Contains(l, " runs in ") {
			continue // the report paths
		}
		if n := len([]rune(l)); n > 100 {
			t.Errorf("%d columns: %q", n, l)
		}
	}
	if _, err := run(t, "reproduce", "nope"); err == nil || !strings.Contains(err.Error(), `unknown experiment "nope"`) {
		t.Errorf("unknown experiment: %v", err)
	}
	if _, err := run(t, "reproduce", "fft", "--all"); err == nil {
		t.Error("--all with a name accepted")
	}
}
