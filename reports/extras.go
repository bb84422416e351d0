package reports

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"fairbench/internal/input"
)

// readRows reads a small table from a CSV file (a header row, '#' comment
// lines) or a JSON file (an array of objects, or an object whose key
// `rows` or `measurements` holds one), as maps of lower-case column name
// to text. Numbers and booleans in JSON become their text.
func readRows(path string) ([]map[string]string, []string, error) {
	b, err := input.ReadFile(path, input.MaxTableBytes)
	if err != nil {
		return nil, nil, fmt.Errorf("reports: %w", err)
	}
	if strings.EqualFold(filepath.Ext(path), ".json") {
		return jsonRows(path, b)
	}
	cr := csv.NewReader(bytes.NewReader(b))
	cr.Comment = '#'
	cr.FieldsPerRecord = -1
	recs, err := cr.ReadAll()
	if err != nil {
		return nil, nil, fmt.Errorf("reports: %s: %w", path, err)
	}
	if len(recs) < 2 {
		return nil, nil, fmt.Errorf("reports: %s: no rows (want a header row and at least one data row)", path)
	}
	if len(recs)-1 > MaxTableRows {
		return nil, nil, fmt.Errorf("reports: %s: %d rows, more than the limit of %d (docs/limits.md)", path, len(recs)-1, MaxTableRows)
	}
	header := make([]string, len(recs[0]))
	for i, h := range recs[0] {
		header[i] = strings.ToLower(strings.TrimSpace(h))
	}
	var rows []map[string]string
	for i, rec := range recs[1:] {
		if len(rec) != len(header) {
			return nil, nil, fmt.Errorf("reports: %s: row %d has %d fields, the header %d", path, i+2, len(rec), len(header))
		}
		m := map[string]string{"_line": strconv.Itoa(i + 2)}
		for j, v := range rec {
			m[header[j]] = strings.TrimSpace(v)
		}
		rows = append(rows, m)
	}
	return rows, header, nil
}

func jsonRows(path string, b []byte) ([]map[string]string, []string, error) {
	var raw any
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, nil, fmt.Errorf("reports: %s: %w", path, err)
	}
	if m, ok := raw.(map[string]any); ok {
		switch {
		case m["rows"] != nil:
			raw = m["rows"]
		case m["measurements"] != nil:
			raw = m["measurements"]
		}
	}
	list, ok := raw.([]any)
	if !ok || len(list) == 0 {
		return nil, nil, fmt.Errorf("reports: %s: want a non-empty array of objects (or {\"rows\": [...]})", path)
	}
	if len(list) > MaxTableRows {
		return nil, nil, fmt.Errorf("reports: %s: %d rows, more than the limit of %d (docs/limits.md)", path, len(list), MaxTableRows)
	}
	var rows []map[string]string
	var header []string
	for i, e := range list {
		obj, ok := e.(map[string]any)
		if !ok {
			return nil, nil, fmt.Errorf("reports: %s: element %d is not an object", path, i)
		}
		m := map[string]string{"_line": fmt.Sprintf("element %d", i)}
		for k, v := range obj {
			k = strings.ToLower(k)
			if !slices.Contains(header, k) {
				header = append(header, k)
			}
			switch x := v.(type) {
			case string:
				m[k] = x
			case float64:
				m[k] = strconv.FormatFloat(x, 'g', -1, 64)
			case bool:
				m[k] = strconv.FormatBool(x)
			case nil:
				m[k] = ""
			default:
				j, _ := json.Marshal(x)
				m[k] = string(j)
			}
		}
		rows = append(rows, m)
	}
	slices.Sort(header)
	return rows, header, nil
}

func where(path string, row map[string]string) string {
	if strings.HasPrefix(row["_line"], "element") {
		return path + ": " + row["_line"]
	}
	return path + ":" + row["_line"]
}

// Limits on the tables a report reads: each calibration job type (and
// gang) widens the calibration figures by 0.6 inch, so their number is
// bounded as well as the rows.
const (
	MaxTableRows       = 1000
	MaxCalibrationJobs = 100
)

// Calibration is a throughput profile from calibration, in the shape
// reports expect (see ReadCalibration).
type Calibration struct {
	Path string
	Rows []CalibrationRow
}

// CalibrationRow is one measurement: a job type on a GPU type at a gang
// size. NaN marks a figure the profile does not give.
type CalibrationRow struct {
	GPU, JobType    string
	Gang            int
	StepsPerSecond  float64
	SamplesPerSec   float64
	PowerWatts      float64
	JoulesPerSample float64
}

// ReadCalibration reads calibration results: the JSON record `fairbench
// calibrate` writes (package calibrate, Record: its "entries" with status
// ok, read by their JSON keys job_type, gpu_type, gang, steps_per_second,
// samples_per_second, telemetry.mean_power_w and
// telemetry.energy_per_sample_j), or a CSV file with a header row (or a
// JSON array of objects with the same keys, or {"measurements": [...]})
// with the columns
//
//	gpu, job_type                  required: the GPU type and job type measured
//	gang                           optional (default 1): GPUs the job ran on
//	steps_per_s, samples_per_s     at least one: the measured throughput
//	power_w                        optional: mean board power while training
//	energy_per_sample_j            optional: joules per training sample
//
// Other columns are ignored; '#' starts a comment line. Empty cells are
// "not measured".
func ReadCalibration(path string) (*Calibration, error) {
	var rows []map[string]string
	var header []string
	var err error
	if strings.EqualFold(filepath.Ext(path), ".json") {
		rows, header, err = calibrateRecordRows(path)
	}
	if rows == nil && err == nil {
		rows, header, err = readRows(path)
	}
	if err != nil {
		return nil, err
	}
	for _, c := range []string{"gpu", "job_type"} {
		if !slices.Contains(header, c) {
			return nil, fmt.Errorf("reports: %s: calibration profile: no %s column (have %s)", path, c, strings.Join(header, ", "))
		}
	}
	if !slices.Contains(header, "steps_per_s") && !slices.Contains(header, "samples_per_s") {
		return nil, fmt.Errorf("reports: %s: calibration profile: no steps_per_s or samples_per_s column", path)
	}
	if len(rows) > MaxTableRows {
		return nil, fmt.Errorf("reports: %s: %d calibration rows, more than the limit of %d (docs/limits.md)", path, len(rows), MaxTableRows)
	}
	cal := &Calibration{Path: path}
	var errs []error
	for _, r := range rows {
		num := func(col string) float64 {
			v := r[col]
			if v == "" {
				return math.NaN()
			}
			x, err := strconv.ParseFloat(v, 64)
			if err != nil || x < 0 || math.IsInf(x, 0) {
				errs = append(errs, fmt.Errorf("reports: %s: %s: %q is not a non-negative number", where(path, r), col, v))
				return math.NaN()
			}
			return x
		}
		row := CalibrationRow{GPU: r["gpu"], JobType: r["job_type"], Gang: 1,
			StepsPerSecond: num("steps_per_s"), SamplesPerSec: num("samples_per_s"),
			PowerWatts: num("power_w"), JoulesPerSample: num("energy_per_sample_j")}
		if g := r["gang"]; g != "" {
			n, err := strconv.Atoi(g)
			if err != nil || n < 1 {
				errs = append(errs, fmt.Errorf("reports: %s: gang: %q is not a whole number ≥ 1", where(path, r), g))
			}
			row.Gang = n
		}
		if row.GPU == "" || row.JobType == "" {
			errs = append(errs, fmt.Errorf("reports: %s: gpu and job_type are required", where(path, r)))
		}
		cal.Rows = append(cal.Rows, row)
	}
	if n := len(calibrationJobs(cal)); n > MaxCalibrationJobs {
		errs = append(errs, fmt.Errorf("reports: %s: %d distinct job types (and gangs), more than the limit of %d a figure can show (docs/limits.md)", path, n, MaxCalibrationJobs))
	}
	return cal, errors.Join(errs...)
}

// calibrateRecordRows reads the JSON record of `fairbench calibrate` as
// rows (entries whose status is not ok are left out); nil rows when the
// file has another shape.
func calibrateRecordRows(path string) ([]map[string]string, []string, error) {
	b, err := input.ReadFile(path, input.MaxTableBytes)
	if err != nil {
		return nil, nil, fmt.Errorf("reports: %w", err)
	}
	var rec struct {
		Entries []struct {
			JobType   string   `json:"job_type"`
			GPUType   string   `json:"gpu_type"`
			Gang      int      `json:"gang"`
			Status    string   `json:"status"`
			Steps     *float64 `json:"steps_per_second"`
			Samples   *float64 `json:"samples_per_second"`
			Telemetry *struct {
				Power  *float64 `json:"mean_power_w"`
				Energy *float64 `json:"energy_per_sample_j"`
			} `json:"telemetry"`
		} `json:"entries"`
	}
	if json.Unmarshal(b, &rec) != nil || len(rec.Entries) == 0 || rec.Entries[0].GPUType == "" {
		return nil, nil, nil
	}
	num := func(x *float64) string {
		if x == nil || *x == 0 {
			return ""
		}
		return strconv.FormatFloat(*x, 'g', -1, 64)
	}
	var rows []map[string]string
	for i, e := range rec.Entries {
		if e.Status != "ok" {
			continue
		}
		r := map[string]string{"_line": fmt.Sprintf("element entries[%d]", i), "gpu": e.GPUType, "job_type": e.JobType,
			"gang": strconv.Itoa(max(1, e.Gang)), "steps_per_s": num(e.Steps), "samples_per_s": num(e.Samples)}
		if e.Telemetry != nil {
			r["power_w"], r["energy_per_sample_j"] = num(e.Telemetry.Power), num(e.Telemetry.Energy)
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		return nil, nil, fmt.Errorf("reports: %s: the calibration record has no entry with status ok", path)
	}
	return rows, []string{"energy_per_sample_j", "gang", "gpu", "job_type", "power_w", "samples_per_s", "steps_per_s"}, nil
}

// calibrationJobs lists the profile's job labels (job type and gang).
func calibrationJobs(cal *Calibration) []string {
	var jobs []string
	seen := map[string]bool{}
	for _, r := range cal.Rows {
		if j := jobLabel(r); !seen[j] {
			seen[j] = true
			jobs = append(jobs, j)
		}
	}
	return jobs
}

// calibrationFigures draws the profile's throughput, power and energy per
// sample, per job type (and gang) and GPU type.
func calibrationFigures(cal *Calibration) ([]*Figure, *Table, error) {
	var gpus, jobs []string
	for _, r := range cal.Rows {
		if !slices.Contains(gpus, r.GPU) {
			gpus = append(gpus, r.GPU)
		}
		if j := jobLabel(r); !slices.Contains(jobs, j) {
			jobs = append(jobs, j)
		}
	}
	table := &Table{Header: []string{"gpu", "job_type", "gang", "steps_per_s", "samples_per_s", "power_w", "energy_per_sample_j"}}
	for _, r := range cal.Rows {
		table.Rows = append(table.Rows, []string{r.GPU, r.JobType, fmt.Sprint(r.Gang), f64(r.StepsPerSecond), f64(r.SamplesPerSec), f64(r.PowerWatts), f64(r.JoulesPerSample)})
	}
	type spec struct {
		name, title, ylabel, col, caption string
		value                             func(CalibrationRow) float64
		log                               bool
	}
	specs := []spec{
		{"calibration_throughput", "Measured throughput", "samples/s (log scale)", "samples_per_s",
			"Training throughput measured by calibration, per job type and GPU type.", func(r CalibrationRow) float64 { return r.SamplesPerSec }, true},
		{"calibration_throughput", "Measured throughput", "steps/s (log scale)", "steps_per_s",
			"Training throughput measured by calibration, per job type and GPU type.", func(r CalibrationRow) float64 { return r.StepsPerSecond }, true},
		{"calibration_power", "Measured power", "mean board power (W)", "power_w",
			"Mean GPU board power while training, per job type and GPU type, as calibration measured it.", func(r CalibrationRow) float64 { return r.PowerWatts }, false},
		{"calibration_energy", "Energy per sample", "J per sample (log scale)", "energy_per_sample_j",
			"Energy per training sample, per job type and GPU type, as the calibration profile gives it.", func(r CalibrationRow) float64 { return r.JoulesPerSample }, true},
	}
	var out []*Figure
	done := map[string]bool{}
	for _, sp := range specs {
		if done[sp.name] {
			continue
		}
		vals := make([][]float64, len(gpus))
		has := false
		for g := range gpus {
			vals[g] = make([]float64, len(jobs))
			for j := range vals[g] {
				vals[g][j] = math.NaN()
			}
		}
		data := &Table{Header: []string{"gpu", "job_type", "gang", sp.col}}
		for _, r := range cal.Rows {
			v := sp.value(r)
			if math.IsNaN(v) || (sp.log && v <= 0) {
				continue
			}
			has = true
			vals[slices.Index(gpus, r.GPU)][slices.Index(jobs, jobLabel(r))] = v
			data.Rows = append(data.Rows, []string{r.GPU, r.JobType, fmt.Sprint(r.Gang), f64(v)})
		}
		if !has {
			continue
		}
		done[sp.name] = true
		w := max(figWidth, vg.Inch*(2+0.6*vg.Length(len(jobs))))
		var pl *plot.Plot
		var err error
		if sp.log {
			pl, err = dotPlot(sp.title, "job type", sp.ylabel, jobs, gpus, vals)
		} else {
			pl, err = barPlot(sp.title, "job type", sp.ylabel, jobs, gpus, vals, w)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("reports: %s: %w", sp.name, err)
		}
		out = append(out, &Figure{Name: sp.name, Title: sp.title, Caption: sp.caption + " Profile: " + filepath.Base(cal.Path) + ".",
			Tiles: [][]*plot.Plot{{pl}}, Width: w, Height: figHeight + vg.Inch/2, Data: data})
	}
	return out, table, nil
}

func jobLabel(r CalibrationRow) string {
	if r.Gang > 1 {
		return fmt.Sprintf("%s ×%d", r.JobType, r.Gang)
	}
	return r.JobType
}

// dotPlot is a log-scale dot plot: one marker per series and category
// (values[series][category]; NaN or ≤ 0 leaves it out).
func dotPlot(title, xlabel, ylabel string, categories, series []string, values [][]float64) (*plot.Plot, error) {
	pl := newPlot(title, xlabel, ylabel)
	pl.Legend.Left = false
	for i := range series {
		var pts plotter.XYs
		for c := range categories {
			v := values[i][c]
			if math.IsNaN(v) || v <= 0 {
				continue
			}
			off := 0.0
			if len(series) > 1 {
				off = 0.4 * (float64(i)/float64(len(series)-1) - 0.5)
			}
			pts = append(pts, plotter.XY{X: float64(c) + off, Y: lg(v)})
		}
		if len(pts) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = glyphStyle(i)
		sc.GlyphStyle.Radius = vg.Points(3.5)
		pl.Add(sc)
		pl.Legend.Add(series[i], sc)
	}
	nominalX(pl, categories)
	logAxis(&pl.Y)
	legendRoom(pl, len(series))
	return pl, nil
}

// Matrix is the property matrix of `fairbench check --matrix` in the shape
// reports expect (see ReadMatrix).
type Matrix struct {
	Path string
	Rows []MatrixRow
}

// MatrixRow is one policy × property verdict.
type MatrixRow struct {
	Policy, Property string
	// Claimed is whether the policy claims the property ("" when unknown).
	Claimed string
	// Result is pass, fail, skip or error (see ReadMatrix).
	Result, Detail string
}

// Matrix results.
const (
	ResultPass  = "pass"
	ResultFail  = "fail"
	ResultSkip  = "skip"
	ResultError = "error"
)

// resultAliases maps the words a checker may write to the four results.
var resultAliases = map[string]string{
	"pass": ResultPass, "passed": ResultPass, "ok": ResultPass, "holds": ResultPass, "true": ResultPass,
	"fail": ResultFail, "failed": ResultFail, "violated": ResultFail, "violation": ResultFail, "false": ResultFail,
	"skip": ResultSkip, "skipped": ResultSkip, "n/a": ResultSkip, "na": ResultSkip, "-": ResultSkip, "": ResultSkip,
	"not checked": ResultSkip, "error": ResultError, "errored": ResultError,
}

// ReadMatrix reads a property matrix: the files `fairbench check --matrix`
// writes (check-matrix.csv or check-matrix.json, package check, Matrix), or
// any CSV file with a header row (or JSON array of objects with the same
// keys, or {"rows": [...]}) with the columns
//
//	policy, property   required: a policy and a property name
//	result or status   required: pass | fail | skip | error (also accepted:
//	                   holds, passed, ok; violated, failed; skipped, n/a, -)
//	claimed            optional: true | false, whether the policy claims it
//	detail, reason,    optional: a reason, a counterexample file (shown in
//	counterexample     the data behind the figure)
//
// One row per policy and property; a repeated pair is refused.
func ReadMatrix(path string) (*Matrix, error) {
	var rows []map[string]string
	var header []string
	var err error
	if strings.EqualFold(filepath.Ext(path), ".json") {
		rows, header, err = checkMatrixRows(path)
	}
	if rows == nil && err == nil {
		rows, header, err = readRows(path)
	}
	if err != nil {
		return nil, err
	}
	if slices.Contains(header, "status") && !slices.Contains(header, "result") {
		header = append(header, "result")
		for _, r := range rows {
			r["result"] = r["status"]
		}
	}
	for _, c := range []string{"policy", "property", "result"} {
		if !slices.Contains(header, c) {
			return nil, fmt.Errorf("reports: %s: property matrix: no %s column (have %s)", path, c, strings.Join(header, ", "))
		}
	}
	m := &Matrix{Path: path}
	seen := map[string]bool{}
	var errs []error
	for _, r := range rows {
		res, ok := resultAliases[strings.ToLower(strings.TrimSpace(r["result"]))]
		if !ok {
			errs = append(errs, fmt.Errorf("reports: %s: result %q: want pass, fail, skip or error", where(path, r), r["result"]))
		}
		claimed := strings.ToLower(r["claimed"])
		switch claimed {
		case "", "true", "false":
		case "yes", "1":
			claimed = "true"
		case "no", "0":
			claimed = "false"
		default:
			errs = append(errs, fmt.Errorf("reports: %s: claimed %q: want true or false", where(path, r), r["claimed"]))
		}
		if r["policy"] == "" || r["property"] == "" {
			errs = append(errs, fmt.Errorf("reports: %s: policy and property are required", where(path, r)))
		}
		k := r["policy"] + "\x00" + r["property"]
		if seen[k] {
			errs = append(errs, fmt.Errorf("reports: %s: %s × %s appears twice", where(path, r), r["policy"], r["property"]))
		}
		seen[k] = true
		var detail []string
		for _, c := range []string{"detail", "counterexample", "reason"} {
			if v := strings.TrimSpace(r[c]); v != "" {
				detail = append(detail, v)
			}
		}
		m.Rows = append(m.Rows, MatrixRow{Policy: r["policy"], Property: r["property"], Claimed: claimed, Result: res, Detail: strings.Join(detail, "; ")})
	}
	return m, errors.Join(errs...)
}

// checkMatrixRows reads the JSON `fairbench check --matrix` writes
// ({"policies": [{"policy", "results": [{"property", "claimed", "status",
// "reason", "counterexample"}]}]}) as rows; nil rows when the file has
// another shape.
func checkMatrixRows(path string) ([]map[string]string, []string, error) {
	b, err := input.ReadFile(path, input.MaxTableBytes)
	if err != nil {
		return nil, nil, fmt.Errorf("reports: %w", err)
	}
	var cm struct {
		Policies []struct {
			Policy  string `json:"policy"`
			Results []struct {
				Property       string `json:"property"`
				Claimed        bool   `json:"claimed"`
				Status         string `json:"status"`
				Reason         string `json:"reason"`
				Counterexample string `json:"counterexample"`
			} `json:"results"`
		} `json:"policies"`
	}
	if json.Unmarshal(b, &cm) != nil || len(cm.Policies) == 0 {
		return nil, nil, nil
	}
	var rows []map[string]string
	for i, p := range cm.Policies {
		for j, r := range p.Results {
			rows = append(rows, map[string]string{"_line": fmt.Sprintf("element policies[%d].results[%d]", i, j),
				"policy": p.Policy, "property": r.Property, "claimed": strconv.FormatBool(r.Claimed), "status": r.Status,
				"reason": r.Reason, "counterexample": r.Counterexample})
		}
	}
	return rows, []string{"claimed", "counterexample", "policy", "property", "reason", "status"}, nil
}

// matrixFigure draws the matrix: policies down, properties across, each
// cell coloured by its result, claimed properties marked with *.
func matrixFigure(m *Matrix) (*Figure, *Table) {
	var pols, props []string
	for _, r := range m.Rows {
		if !slices.Contains(pols, r.Policy) {
			pols = append(pols, r.Policy)
		}
		if !slices.Contains(props, r.Property) {
			props = append(props, r.Property)
		}
	}
	table := &Table{Header: append([]string{"policy"}, props...)}
	data := &Table{Header: []string{"policy", "property", "claimed", "result", "detail"}}
	cells := map[[2]int]MatrixRow{}
	for _, r := range m.Rows {
		cells[[2]int{slices.Index(pols, r.Policy), slices.Index(props, r.Property)}] = r
		data.Rows = append(data.Rows, []string{r.Policy, r.Property, r.Claimed, r.Result, r.Detail})
	}
	for i, p := range pols {
		row := []string{p}
		for j := range props {
			c, ok := cells[[2]int{i, j}]
			switch {
			case !ok:
				row = append(row, "")
			case c.Claimed == "true":
				row = append(row, c.Result+" (claimed)")
			default:
				row = append(row, c.Result)
			}
		}
		table.Rows = append(table.Rows, row)
	}
	pl := plot.New()
	pl.Title.Text = "Property matrix"
	mp := &matrixPlotter{rows: len(pols), cols: len(props), cells: cells, style: pl.X.Tick.Label}
	pl.Add(mp)
	xt := make([]plot.Tick, len(props))
	for j, p := range props {
		xt[j] = plot.Tick{Value: float64(j), Label: p}
	}
	yt := make([]plot.Tick, len(pols))
	for i, p := range pols {
		// Policies read top down: row 0 at the top.
		yt[i] = plot.Tick{Value: float64(len(pols) - 1 - i), Label: p}
	}
	pl.X.Tick.Marker = plot.ConstantTicks(xt)
	pl.Y.Tick.Marker = plot.ConstantTicks(yt)
	pl.X.Tick.Label.Rotation = math.Pi / 6
	pl.X.Tick.Label.XAlign = draw.XRight
	pl.X.Tick.Label.YAlign = draw.YCenter
	pl.X.Tick.Length, pl.Y.Tick.Length = 0, 0
	pl.X.Width, pl.Y.Width = 0, 0
	pl.X.Label.Text = "pass · FAIL · – not checked · ! error; * claimed by the policy"
	w := max(figWidth, vg.Inch*(2+0.9*vg.Length(len(props))))
	h := max(figHeight, vg.Inch*(1.8+0.35*vg.Length(len(pols))))
	return &Figure{Name: "property_matrix", Title: "Property matrix",
		Caption: "Fairness properties checked per policy (fairbench check --matrix, " + filepath.Base(m.Path) + "): green holds, red is violated, grey not checked; * marks the properties a policy claims (a violation of an unclaimed property is information, not a failure).",
		Tiles:   [][]*plot.Plot{{pl}}, Width: w, Height: h, Data: data}, table
}

// matrixPlotter draws the cells of a property matrix.
type matrixPlotter struct {
	rows, cols int
	cells      map[[2]int]MatrixRow
	style      draw.TextStyle
}

var resultColours = map[string]color.Color{
	ResultPass:  color.RGBA{0x9e, 0xd9, 0xc4, 0xff},
	ResultFail:  color.RGBA{0xf0, 0xa8, 0x7e, 0xff},
	ResultSkip:  color.Gray{Y: 0xe4},
	ResultError: color.RGBA{0xe6, 0xc3, 0x66, 0xff},
}

var resultText = map[string]string{ResultPass: "pass", ResultFail: "FAIL", ResultSkip: "–", ResultError: "!"}

func (m *matrixPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	st := m.style
	st.XAlign, st.YAlign = draw.XCenter, draw.YCenter
	for k, r := range m.cells {
		x := float64(k[1])
		y := float64(m.rows - 1 - k[0])
		x0, x1 := trX(x-0.48), trX(x+0.48)
		y0, y1 := trY(y-0.45), trY(y+0.45)
		c.FillPolygon(resultColours[r.Result], []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
		txt := resultText[r.Result]
		if r.Claimed == "true" {
			txt += " *"
		}
		c.FillText(st, vg.Point{X: (x0 + x1) / 2, Y: (y0 + y1) / 2}, txt)
	}
}

func (m *matrixPlotter) DataRange() (xmin, xmax, ymin, ymax float64) {
	return -0.5, float64(m.cols) - 0.5, -0.5, float64(m.rows) - 0.5
}
