package reports

import (
	"fmt"
	"math"
	"regexp"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"
)

// sweepSpec is a run-level metric drawn against each grid axis.
type sweepSpec struct {
	name, title, ylabel, caption string
	metric                       string // a summaryMetrics key
}

var sweepSpecs = []sweepSpec{
	{name: "mean_jct", title: "Mean JCT", ylabel: "mean JCT (hours)", metric: "mean_jct_h",
		caption: "Mean job completion time per policy"},
	{name: "unfair_fraction", title: "Unfair fraction", ylabel: "jobs with ρ > 1 (%)", metric: "unfair_pct",
		caption: "Share of jobs treated unfairly (finish-time fairness ρ > 1) per policy"},
}

const spreadNote = "markers are the mean over seeds, whiskers the seed-to-seed range (min to max)"

// sweepFigures draws each sweepSpec against each grid axis (one line per
// policy, and per value of the other axes), or per policy when the set is
// a single point.
func (s *Set) sweepFigures(groups []*policyGroup) ([]*Figure, error) {
	var out []*Figure
	for _, spec := range sweepSpecs {
		k := metricIndex(spec.metric)
		if len(s.Axes) == 0 {
			f, err := s.perPolicyFigure(spec, k, groups)
			if err != nil {
				return nil, err
			}
			out = append(out, f)
			continue
		}
		for _, axis := range s.Axes {
			f, err := s.axisFigure(spec, k, axis, groups)
			if err != nil {
				return nil, err
			}
			out = append(out, f)
		}
	}
	return out, nil
}

func metricIndex(key string) int {
	for i, m := range summaryMetrics {
		if m.Key == key {
			return i
		}
	}
	panic("reports: no summary metric " + key)
}

// perPolicyFigure: one marker per policy with its seed range.
func (s *Set) perPolicyFigure(spec sweepSpec, k int, groups []*policyGroup) (*Figure, error) {
	pl := newPlot(spec.title, "policy", spec.ylabel)
	data := &Table{Header: []string{"policy", "runs", spec.metric, spec.metric + "_sd", spec.metric + "_min", spec.metric + "_max"}}
	var names []string
	for i, g := range groups {
		st := g.Stats[k]
		names = append(names, g.Policy)
		data.Rows = append(data.Rows, []string{g.Policy, fmt.Sprint(st.N), f64(st.Mean), f64(st.SD), f64(st.Min), f64(st.Max)})
		if err := addPoints(pl, i, "", []float64{float64(i)}, []stats{st}); err != nil {
			return nil, fmt.Errorf("reports: %s: %w", spec.name, err)
		}
	}
	nominalX(pl, names)
	floorZero(pl)
	return &Figure{Name: spec.name, Title: spec.title,
		Caption: spec.caption + "; " + spreadNote + ".",
		Tiles:   [][]*plot.Plot{{pl}}, Width: figWidth, Height: figHeight, Data: data}, nil
}

// axisFigure: the metric against one grid axis.
func (s *Set) axisFigure(spec sweepSpec, k int, axis string, groups []*policyGroup) (*Figure, error) {
	others := []string{}
	for _, a := range s.Axes {
		if a != axis {
			others = append(others, a)
		}
	}
	// The axis's values, in point order, and whether all are numbers.
	var xs []any
	numeric := true
	for _, p := range s.Points {
		v := p.Values[axis]
		if !containsValue(xs, v) {
			xs = append(xs, v)
		}
		if _, ok := v.(float64); !ok {
			numeric = false
		}
	}
	pos := func(v any) float64 {
		if numeric {
			return v.(float64)
		}
		for i, x := range xs {
			if formatValue(x) == formatValue(v) {
				return float64(i)
			}
		}
		return math.NaN()
	}
	pl := newPlot(spec.title+" vs "+axisLabel(axis), axisLabel(axis), spec.ylabel)
	header := append(append([]string{axis}, others...), "policy", "runs", spec.metric, spec.metric+"_sd", spec.metric+"_min", spec.metric+"_max")
	data := &Table{Header: header}
	// One line per policy and combination of the other axes' values.
	type line struct {
		label string
		x     []float64
		st    []stats
	}
	var lines []*line
	byLabel := map[string]*line{}
	for _, g := range groups {
		label := g.Policy
		if len(others) > 0 {
			label += " (" + pointLabel(others, g.Point.Values) + ")"
		}
		l, ok := byLabel[label]
		if !ok {
			l = &line{label: label}
			byLabel[label] = l
			lines = append(lines, l)
		}
		st := g.Stats[k]
		l.x = append(l.x, pos(g.Point.Values[axis]))
		l.st = append(l.st, st)
		row := []string{formatValue(g.Point.Values[axis])}
		for _, o := range others {
			row = append(row, formatValue(g.Point.Values[o]))
		}
		data.Rows = append(data.Rows, append(row, g.Policy, fmt.Sprint(st.N), f64(st.Mean), f64(st.SD), f64(st.Min), f64(st.Max)))
	}
	for i, l := range lines {
		x := l.x
		if !numeric && len(lines) > 1 { // spread the markers of one category apart
			off := 0.3 * (float64(i)/float64(len(lines)-1) - 0.5)
			x = make([]float64, len(l.x))
			for j := range l.x {
				x[j] = l.x[j] + off
			}
		}
		if err := addPoints(pl, i, l.label, x, l.st); err != nil {
			return nil, fmt.Errorf("reports: %s: %w", spec.name, err)
		}
	}
	if !numeric {
		names := make([]string, len(xs))
		for i, v := range xs {
			names[i] = formatValue(v)
		}
		nominalX(pl, names)
	}
	floorZero(pl)
	legendRoom(pl, len(lines))
	return &Figure{Name: spec.name + "_vs_" + slug(axis), Title: spec.title + " vs " + axisLabel(axis),
		Caption: spec.caption + " against the grid axis " + axis + "; " + spreadNote + ".",
		Tiles:   [][]*plot.Plot{{pl}}, Width: figWidth, Height: figHeight, Data: data}, nil
}

// addPoints draws markers (joined by a line when there are several) at
// the means, with whiskers over the seed range when it is not empty.
func addPoints(pl *plot.Plot, i int, label string, x []float64, st []stats) error {
	var pts plotter.XYs
	e := yErrs{}
	spread := false
	for j := range x {
		if math.IsNaN(st[j].Mean) {
			continue
		}
		pts = append(pts, plotter.XY{X: x[j], Y: st[j].Mean})
		e.lo = append(e.lo, st[j].Mean-st[j].Min)
		e.hi = append(e.hi, st[j].Max-st[j].Mean)
		if st[j].Max > st[j].Min {
			spread = true
		}
	}
	if len(pts) == 0 {
		return nil
	}
	e.XYs = pts
	if len(pts) > 1 {
		l, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return err
		}
		l.LineStyle = lineStyle(i)
		sc.GlyphStyle = glyphStyle(i)
		pl.Add(l, sc)
		if label != "" {
			pl.Legend.Add(label, l, sc)
		}
	} else {
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return err
		}
		sc.GlyphStyle = glyphStyle(i)
		pl.Add(sc)
		if label != "" {
			pl.Legend.Add(label, sc)
		}
	}
	if spread {
		eb, err := plotter.NewYErrorBars(e)
		if err != nil {
			return err
		}
		eb.LineStyle = lineStyle(i)
		eb.LineStyle.Dashes = nil
		eb.LineStyle.Width /= 1.5
		pl.Add(eb)
	}
	return nil
}

// nominalX labels x = 0, 1, … with names, slanted when they would crowd.
func nominalX(pl *plot.Plot, names []string) {
	if len(names) == 0 {
		return
	}
	pl.NominalX(names...)
	pl.X.Min, pl.X.Max = -0.5, float64(len(names))-0.5
	total := 0
	for _, n := range names {
		total += len(n) + 2
	}
	if total > 60 {
		pl.X.Tick.Label.Rotation = math.Pi / 6
		pl.X.Tick.Label.XAlign = draw.XRight
		pl.X.Tick.Label.YAlign = draw.YCenter
	}
}

// floorZero starts a non-negative metric's axis at 0.
func floorZero(pl *plot.Plot) {
	if pl.Y.Min > 0 {
		pl.Y.Min = 0
	}
	if pl.Y.Max <= pl.Y.Min {
		pl.Y.Max = pl.Y.Min + 1
	}
}

func containsValue(xs []any, v any) bool {
	for _, x := range xs {
		if formatValue(x) == formatValue(v) {
			return true
		}
	}
	return false
}

// axisLabels name the grid axes most often swept.
var axisLabels = map[string]string{
	"workload.arrival_rate_per_hour":     "arrival rate (jobs/hour)",
	"workload.jobs":                      "jobs",
	"round_seconds":                      "round length (s)",
	"user_count":                         "users",
	"preemption.bandwidth_gb_per_second": "restore bandwidth (GB/s)",
}

func axisLabel(axis string) string {
	if l, ok := axisLabels[axis]; ok {
		return l
	}
	return axis
}

var slugRE = regexp.MustCompile(`[^A-Za-z0-9]+`)

// slug turns an axis path into a file-name part.
func slug(s string) string {
	return strings.Trim(slugRE.ReplaceAllString(s, "_"), "_")
}
