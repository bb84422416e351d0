package reports

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"fairbench/internal/input"
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

// calibrationFigures draws the profile's throughput, power and energy per
// sample, per job type (and gang) and GPU type.
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
		w := max(FigWidth, vg.Inch*(2.5+0.6*vg.Length(len(jobs))))
		var pl *plot.Plot
		if sp.log {
			var err error
			if pl, err = dotPlot("", "job type", sp.ylabel, jobs, gpus, vals, w); err != nil {
				return nil, nil, fmt.Errorf("reports: %s: %w", sp.name, err)
			}
		} else {
			pl = NewVBarPlot("", "job type", sp.ylabel, jobs, gpus, vals, func(x float64) string { return fmt.Sprintf("%.0f", x) }, w)
		}
		out = append(out, &Figure{Name: sp.name, Title: sp.title + " per job type and GPU type",
			Subtitle: "Calibration profile " + filepath.Base(cal.Path),
			Caption:  sp.caption + " Profile: " + filepath.Base(cal.Path) + ".",
			Tiles:    [][]*plot.Plot{{pl}}, Width: w, Height: FigHeight + vg.Inch/2, Data: data})
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
// (values[series][category]; NaN or ≤ 0 leaves it out), the series of a
// category side by side; width is the plot's.
func dotPlot(title, xlabel, ylabel string, categories, series []string, values [][]float64, width vg.Length) (*plot.Plot, error) {
	pl := NewPlot(title, xlabel, ylabel)
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range series {
		var pts plotter.XYs
		for c := range categories {
			v := values[i][c]
			if math.IsNaN(v) || v <= 0 {
				continue
			}
			off := 0.0
			if len(series) > 1 {
				off = 0.5 * (float64(i)/float64(len(series)-1) - 0.5)
			}
			pts = append(pts, plotter.XY{X: float64(c) + off, Y: lg(v)})
			lo, hi = math.Min(lo, lg(v)), math.Max(hi, lg(v))
		}
		if len(pts) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = GlyphStyle(i)
		sc.GlyphStyle.Radius = vg.Points(3.5)
		pl.Add(sc)
		pl.Legend.Add(series[i], sc)
	}
	nominalX(pl, categories, width)
	LogAxis(&pl.Y, nil)
	if !math.IsInf(lo, 0) {
		pl.Y.Min, pl.Y.Max = math.Floor(lo), math.Ceil(hi)
		if pl.Y.Max == pl.Y.Min {
			pl.Y.Max++
		}
	}
	return pl, nil
}
