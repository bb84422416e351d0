package reports

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// writeFixtureReport loads the fixture and writes its report.
func writeFixtureReport(t *testing.T, o Options) (string, *Report) {
	t.Helper()
	dir, _ := fixtureDir(t)
	set, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	o.Version = "test"
	o.Workers = 2
	r, err := Build(set, o)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "report")
	if err := r.Write(out); err != nil {
		t.Fatal(err)
	}
	return out, r
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return recs
}

// checkSVG parses an SVG file completely and checks its root and that it
// draws something.
func checkSVG(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(bytes.NewReader(b))
	root, paths := "", 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: not well-formed XML: %v", path, err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			if root == "" {
				root = se.Name.Local
			}
			if se.Name.Local == "path" || se.Name.Local == "text" {
				paths++
			}
		}
	}
	if root != "svg" || paths == 0 {
		t.Errorf("%s: root <%s>, %d path/text elements; want an <svg> that draws", path, root, paths)
	}
}

// figureColumns is the CSV header each kind of figure must have.
var figureColumns = map[string][]string{
	"mean_jct_vs_workload_arrival_rate_per_hour":        {"workload.arrival_rate_per_hour", "policy", "runs", "mean_jct_h", "mean_jct_h_sd", "mean_jct_h_min", "mean_jct_h_max"},
	"unfair_fraction_vs_workload_arrival_rate_per_hour": {"workload.arrival_rate_per_hour", "policy", "runs", "unfair_pct", "unfair_pct_sd", "unfair_pct_min", "unfair_pct_max"},
	"jct_cdf":        {"policy", "jct_h", "cdf"},
	"rho_cdf":        {"policy", "rho", "cdf"},
	"starvation_cdf": {"policy", "starvation_h", "cdf"},
	"utilisation":    {"policy", "seed", "t_h", "bucket_h", "utilisation"},
	"user_share":     {"user", "t_h", "bucket_h", "share", "entitled"},
	"solver_time":    {"policy", "active_from", "active_to", "rounds", "mean_s", "min_s", "max_s"},
	"gandiva_trades": {"policy_point", "slow", "fast", "runs", "trades", "volume_gpus", "price"},
}

func kindOf(name string) string {
	for k := range figureColumns {
		if name == k || strings.HasPrefix(name, k+"_") {
			return k
		}
	}
	return ""
}

// TestReportFiles writes the fixture's report and checks every file: the
// SVG parses, the PNG decodes at the expected size, the PDF has its
// header, the CSV its columns and rows.
func TestReportFiles(t *testing.T) {
	t.Parallel()
	out, r := writeFixtureReport(t, Options{})
	_, pols := fixtureDir(t)
	var man Manifest
	b, err := os.ReadFile(filepath.Join(out, ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &man); err != nil {
		t.Fatal(err)
	}
	checkFigureNames(t, &man, pols)
	for i, f := range man.Figures {
		checkFigureFiles(t, filepath.Join(out, "figures", f.Name), f, r.Figures[i])
	}
	// Row counts: a CDF has one row per job of its point (24 jobs × 2 seeds
	// per policy); a sweep one per point and policy.
	if n := len(readCSV(t, filepath.Join(out, "figures", "jct_cdf_p1.csv"))) - 1; n != 24*2*len(pols) {
		t.Errorf("jct_cdf_p1.csv: %d rows, want %d", n, 24*2*len(pols))
	}
	if n := len(readCSV(t, filepath.Join(out, "figures", "mean_jct_vs_workload_arrival_rate_per_hour.csv"))) - 1; n != 2*len(pols) {
		t.Errorf("mean JCT sweep: %d rows, want %d", n, 2*len(pols))
	}
	checkTables(t, out, pols)
	checkHTML(t, out, r, &man)
}

// checkFigureNames: the fixture's report has every figure it must have.
func checkFigureNames(t *testing.T, man *Manifest, pols []string) {
	t.Helper()
	want := []string{"mean_jct_vs_workload_arrival_rate_per_hour", "unfair_fraction_vs_workload_arrival_rate_per_hour", "solver_time"}
	for _, k := range []string{"jct_cdf", "rho_cdf", "starvation_cdf", "utilisation"} {
		want = append(want, k+"_p1", k+"_p2")
	}
	for _, p := range pols {
		want = append(want, "user_share_"+slug(p)+"_p1", "user_share_"+slug(p)+"_p2")
	}
	var names []string
	for _, f := range man.Figures {
		names = append(names, f.Name)
	}
	for _, w := range want {
		if !slices.Contains(names, w) {
			t.Errorf("no figure %s (have %v)", w, names)
		}
	}
	if slices.Contains(pols, "gandiva-fair") && !slices.Contains(names, "gandiva_trades") {
		t.Errorf("gandiva-fair ran but there is no trades figure (have %v)", names)
	}
}

// checkFigureFiles checks one figure's files (base.svg, .png, .pdf, .csv)
// against its manifest entry f and the figure fig.
func checkFigureFiles(t *testing.T, base string, f ManifestFigure, fig *Figure) {
	t.Helper()
	checkSVG(t, base+".svg")
	pb, err := os.ReadFile(base + ".png")
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(pb))
	if err != nil {
		t.Errorf("%s.png: %v", f.Name, err)
	} else if w, h := fig.PNGSize(DefaultDPI); img.Bounds().Dx() != w || img.Bounds().Dy() != h || w != f.PNGWidth || h != f.PNGHeight {
		t.Errorf("%s.png is %v, want %d×%d", f.Name, img.Bounds().Size(), w, h)
	}
	pdf, err := os.ReadFile(base + ".pdf")
	if err != nil || !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		t.Errorf("%s.pdf: %v, starts %q", f.Name, err, pdf[:min(8, len(pdf))])
	}
	recs := readCSV(t, base+".csv")
	if cols, ok := figureColumns[kindOf(f.Name)]; ok && !slices.Equal(recs[0], cols) {
		t.Errorf("%s.csv columns %v, want %v", f.Name, recs[0], cols)
	}
	if len(recs) < 2 {
		t.Errorf("%s.csv has no data rows", f.Name)
	}
}

// checkTables: every table is there as CSV with rows and as Markdown; the
// runs table has a row per run (2 points × 2 seeds per policy).
func checkTables(t *testing.T, out string, pols []string) {
	t.Helper()
	for _, tb := range []string{"policies", "users", "runs", "points"} {
		recs := readCSV(t, filepath.Join(out, "tables", tb+".csv"))
		if len(recs) < 2 {
			t.Errorf("tables/%s.csv: no rows", tb)
		}
		md, err := os.ReadFile(filepath.Join(out, "tables", tb+".md"))
		if err != nil || !bytes.Contains(md, []byte("| --- |")) {
			t.Errorf("tables/%s.md: %v, not a Markdown table", tb, err)
		}
	}
	if n := len(readCSV(t, filepath.Join(out, "tables", "runs.csv"))) - 1; n != 2*2*len(pols) {
		t.Errorf("runs.csv: %d rows, want %d", n, 2*2*len(pols))
	}
}

// checkHTML: the HTML report inlines every figure, says what ran and with
// what, and needs nothing from outside; the Markdown report is there.
func checkHTML(t *testing.T, out string, r *Report, man *Manifest) {
	t.Helper()
	html, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if c := bytes.Count(html, []byte("<svg")); c != len(man.Figures) {
		t.Errorf("index.html inlines %d SVGs, want %d", c, len(man.Figures))
	}
	for _, s := range []string{"solver backend", "throughput source", "seeds", r.Set.Runs[0].Record.ID} {
		if !bytes.Contains(html, []byte(s)) {
			t.Errorf("index.html lacks %q", s)
		}
	}
	if bytes.Contains(html, []byte("<script")) || bytes.Contains(html, []byte("src=")) {
		t.Errorf("index.html is not self-contained (a script or an external resource)")
	}
	if _, err := os.Stat(filepath.Join(out, "report.md")); err != nil {
		t.Error(err)
	}
}

// TestPolicyTableMatchesRuns checks the gota aggregation against the mean
// and range computed directly from the runs (a differential test).
func TestPolicyTableMatchesRuns(t *testing.T) {
	t.Parallel()
	dir, _ := fixtureDir(t)
	set, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	groups, err := set.policyGroups()
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != len(set.Points)*len(set.Policies) {
		t.Fatalf("%d groups, want %d", len(groups), len(set.Points)*len(set.Policies))
	}
	k := metricIndex("mean_jct_h")
	for _, g := range groups {
		var xs []float64
		for _, r := range g.Runs {
			xs = append(xs, r.Record.Result.Summary.MeanJCT/3600)
		}
		m := (xs[0] + xs[1]) / 2
		sd := math.Abs(xs[0]-xs[1]) / math.Sqrt2
		st := g.Stats[k]
		if len(xs) != 2 || st.N != 2 || math.Abs(st.Mean-m) > 1e-9*m || math.Abs(st.SD-sd) > 1e-9*(1+sd) ||
			st.Min != slices.Min(xs) || st.Max != slices.Max(xs) {
			t.Errorf("%s %s: got %+v from %v", g.Point.Label, g.Policy, st, xs)
		}
	}
	users, err := set.userGroups()
	if err != nil {
		t.Fatal(err)
	}
	if len(users) != 3*len(groups) {
		t.Errorf("%d user groups, want 3 users × %d", len(users), len(groups))
	}
}

// TestSinglePoint: results without grid axes draw one figure per kind,
// with no suffix, and the sweep figures per policy.
func TestSinglePoint(t *testing.T) {
	t.Parallel()
	dir, _ := fixtureDir(t)
	set, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	// The runs of the first point alone, read by file.
	var files []string
	for _, r := range set.Runs {
		if r.Point.Index == 0 {
			files = append(files, r.Path)
		}
	}
	one, err := Load(files...)
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Points) != 1 {
		t.Fatalf("%d points", len(one.Points))
	}
	// One point of a grid still has its axis; a set without any is made
	// by simulate, tested through the CLI. Here: no suffixes.
	r, err := Build(one, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range r.Figures {
		if strings.Contains(f.Name, "_p1") {
			t.Errorf("figure %s has a point suffix in a one-point report", f.Name)
		}
	}
}

func TestCalibrationAndMatrix(t *testing.T) {
	t.Parallel()
	cal, err := ReadCalibration("testdata/calibration.csv")
	if err != nil {
		t.Fatal(err)
	}
	m, err := ReadMatrix("testdata/matrix.csv")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Build(nil, Options{Calibration: cal, Matrix: m})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "r")
	if err := r.Write(out); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"calibration_throughput", "calibration_power", "calibration_energy", "property_matrix"} {
		checkSVG(t, filepath.Join(out, "figures", name+".svg"))
		recs := readCSV(t, filepath.Join(out, "figures", name+".csv"))
		if len(recs) < 2 {
			t.Errorf("%s.csv: no rows", name)
		}
	}
	recs := readCSV(t, filepath.Join(out, "figures", "property_matrix.csv"))
	if len(recs)-1 != len(m.Rows) || !slices.Equal(recs[0], []string{"policy", "property", "claimed", "result", "detail"}) {
		t.Errorf("property_matrix.csv: %v", recs)
	}
	// The JSON forms read the same.
	calJ, err := ReadCalibration("testdata/calibration.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(calJ.Rows) != 2 || calJ.Rows[0].GPU != "H200" || calJ.Rows[0].SamplesPerSec != 2400 || !math.IsNaN(calJ.Rows[1].PowerWatts) {
		t.Errorf("calibration.json: %+v", calJ.Rows)
	}
	for _, c := range []struct{ file, want string }{
		{"testdata/bad_matrix.csv", "matrix.csv:3: result \"maybe\""},
		{"testdata/bad_calibration.csv", "bad_calibration.csv:2: samples_per_s: \"fast\""},
	} {
		var err error
		if strings.Contains(c.file, "matrix") {
			_, err = ReadMatrix(c.file)
		} else {
			_, err = ReadCalibration(c.file)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.file, err, c.want)
		}
	}
}

// TestFormatValue: an axis value in its shortest form.
func TestFormatValue(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		v    any
		want string
	}{{1.5, "1.5"}, {1e21, "1e+21"}, {"fifo", "fifo"}, {nil, "-"}, {[]any{"a", 2.0}, `["a",2]`}} {
		if got := formatValue(c.v); got != c.want {
			t.Errorf("formatValue(%#v) = %s, want %s", c.v, strconv.Quote(got), strconv.Quote(c.want))
		}
	}
}

// TestReportIsDeterministic: the same results give byte-identical files,
// the PDFs included (they record a fixed creation date).
func TestReportIsDeterministic(t *testing.T) {
	t.Parallel()
	a, _ := writeFixtureReport(t, Options{})
	b, _ := writeFixtureReport(t, Options{})
	var files []string
	for _, sub := range []string{".", "figures", "tables"} {
		ents, err := os.ReadDir(filepath.Join(a, sub))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if !e.IsDir() {
				files = append(files, filepath.Join(sub, e.Name()))
			}
		}
	}
	for _, f := range files {
		x, err1 := os.ReadFile(filepath.Join(a, f))
		y, err2 := os.ReadFile(filepath.Join(b, f))
		if err1 != nil || err2 != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs between two reports of the same results (%v, %v)", f, err1, err2)
		}
	}
}

// TestCheckMatrixFiles reads the files `fairbench check --matrix` writes
// (package check, Matrix: check-matrix.csv and check-matrix.json).
func TestCheckMatrixFiles(t *testing.T) {
	t.Parallel()
	for _, f := range []string{"testdata/check-matrix.csv", "testdata/check-matrix.json"} {
		m, err := ReadMatrix(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		byKey := map[string]MatrixRow{}
		for _, r := range m.Rows {
			byKey[r.Policy+" "+r.Property] = r
		}
		if r := byKey["fifo envy-free"]; r.Result != ResultFail || r.Claimed != "false" || !strings.Contains(r.Detail, "fifo-envy-free-1a2b3c4d.json") {
			t.Errorf("%s: fifo envy-free = %+v", f, r)
		}
		if r := byKey["gavel-las envy-free"]; r.Result != ResultPass || r.Claimed != "true" {
			t.Errorf("%s: gavel-las envy-free = %+v", f, r)
		}
		if fig, _ := matrixFigure(m); len(fig.Data.Rows) != len(m.Rows) {
			t.Errorf("%s: figure data %d rows, want %d", f, len(fig.Data.Rows), len(m.Rows))
		}
	}
}

// TestCalibrateRecord reads the record `fairbench calibrate` writes
// (package calibrate, Record) by its JSON keys.
func TestCalibrateRecord(t *testing.T) {
	t.Parallel()
	cal, err := ReadCalibration("testdata/calibrate-record.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(cal.Rows) != 2 {
		t.Fatalf("%d rows, want the 2 entries with status ok", len(cal.Rows))
	}
	r := cal.Rows[0]
	if r.GPU != "H200" || r.JobType != "ResNet-50 (batch size 64)" || r.SamplesPerSec != 2400 || r.PowerWatts != 610 || r.JoulesPerSample != 0.254 {
		t.Errorf("row 0: %+v", r)
	}
	if r := cal.Rows[1]; r.Gang != 2 || !math.IsNaN(r.PowerWatts) {
		t.Errorf("row 1: %+v", r)
	}
	figs, _, err := calibrationFigures(cal)
	if err != nil || len(figs) != 3 {
		t.Errorf("%d figures, %v", len(figs), err)
	}
}
