package reports

import (
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"fairbench/internal/input"
)

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
	// Counterexample is the instance file of a violation, as the matrix
	// names it ("" for none).
	Counterexample string
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
		m.Rows = append(m.Rows, MatrixRow{Policy: r["policy"], Property: r["property"], Claimed: claimed, Result: res,
			Detail: strings.Join(detail, "; "), Counterexample: strings.TrimSpace(r["counterexample"])})
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
	pl := barePlot("", "", "")
	pl.HideAxes()
	mp := &matrixPlotter{rows: len(pols), cols: len(props), cells: cells, style: textStyle(TickSize, titleColour)}
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
	w := max(5.5*vg.Inch, vg.Inch*(4.2+0.8*vg.Length(len(props))))
	slantLong(&pl.X, props, w-3*vg.Inch)
	pl.Y.Tick.Label.XAlign, pl.Y.Tick.Label.YAlign = draw.XRight, draw.YCenter
	pl.X.Tick.Length, pl.Y.Tick.Length = 0, 0
	pl.X.Width, pl.Y.Width = 0, 0
	pl.X.Label.Text, pl.Y.Label.Text = "", ""
	for _, k := range matrixKeys {
		pl.Legend.Add(k.label, swatch{resultColours[k.result]})
	}
	h := max(2.6*vg.Inch, vg.Inch*(1.7+0.32*vg.Length(len(pols))))
	return &Figure{Name: "property_matrix", Title: "Fairness properties per policy",
		Subtitle: "Checked by fairbench check --matrix (" + filepath.Base(m.Path) + "); * = the policy claims the property",
		Caption:  "Fairness properties checked per policy (fairbench check --matrix, " + filepath.Base(m.Path) + "): blue-green holds; FAIL in dark orange is a violation of a property the policy claims (*), fail in pale orange a violation of one it does not claim (information, not a failure); grey not checked, yellow an error.",
		Tiles:    [][]*plot.Plot{{pl}}, Width: w, Height: h, Data: data}, table
}

// matrixPlotter draws the cells of a property matrix.
type matrixPlotter struct {
	rows, cols int
	cells      map[[2]int]MatrixRow
	style      draw.TextStyle
}

// Cell kinds: a violation of a claimed property apart from one of an
// unclaimed property (information).
const resultClaimedFail = "claimed-fail"

// resultColours are colour-blind safe: blue-green against two oranges of
// different lightness (Okabe and Ito's bluish green and vermillion).
var resultColours = map[string]color.Color{
	ResultPass:        color.RGBA{0xA6, 0xDB, 0xCB, 0xff},
	resultClaimedFail: color.RGBA{0xD5, 0x5E, 0x00, 0xff},
	ResultFail:        color.RGBA{0xF9, 0xD2, 0xB0, 0xff},
	ResultSkip:        color.Gray{Y: 0xe4},
	ResultError:       color.RGBA{0xF0, 0xE4, 0x42, 0xff},
}

var matrixKeys = []struct{ result, label string }{
	{ResultPass, "holds"}, {resultClaimedFail, "FAIL: violates a claimed property"},
	{ResultFail, "fail: violates an unclaimed one"}, {ResultSkip, "– not checked"}, {ResultError, "! error"},
}

var resultText = map[string]string{ResultPass: "holds", resultClaimedFail: "FAIL", ResultFail: "fail", ResultSkip: "–", ResultError: "!"}

// kind is a cell's colour and text key.
func cellKind(r MatrixRow) string {
	if r.Result == ResultFail && r.Claimed == "true" {
		return resultClaimedFail
	}
	return r.Result
}

func (m *matrixPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for k, r := range m.cells {
		x := float64(k[1])
		y := float64(m.rows - 1 - k[0])
		x0, x1 := trX(x-0.47), trX(x+0.47)
		y0, y1 := trY(y-0.44), trY(y+0.44)
		kind := cellKind(r)
		c.SetColor(resultColours[kind])
		c.Fill(rect(x0, y0, x1, y1).Path())
		txt := resultText[kind]
		if r.Claimed == "true" {
			txt += " *"
		}
		st := m.style
		if kind == resultClaimedFail {
			st.Color = color.White
		}
		st.XAlign, st.YAlign = draw.XCenter, draw.YCenter
		c.FillText(st, vg.Point{X: (x0 + x1) / 2, Y: (y0 + y1) / 2}, txt)
	}
}

func (m *matrixPlotter) DataRange() (xmin, xmax, ymin, ymax float64) {
	return -0.5, float64(m.cols) - 0.5, -0.5, float64(m.rows) - 0.5
}
