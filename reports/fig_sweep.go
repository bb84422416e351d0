package reports

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// sweepSpec is a run-level metric drawn per policy (one grid point) or
// against each grid axis.
type sweepSpec struct {
	name, title, xlabel, caption string
	metric                       string // a summaryMetrics key
	unit                         string // of the value labels
}

var sweepSpecs = []sweepSpec{
	{name: "mean_jct", title: "Mean job completion time", xlabel: "mean JCT (hours)", metric: "mean_jct_h", unit: "h",
		caption: "Mean job completion time per policy"},
	{name: "unfair_fraction", title: "Jobs treated unfairly (ρ > 1)", xlabel: "jobs with finish-time fairness ρ > 1 (%)", metric: "unfair_pct", unit: "%",
		caption: "Share of jobs treated unfairly (finish-time fairness ρ > 1) per policy"},
}

const spreadNote = "the mean over seeds, whiskers the seed-to-seed range (min to max)"

// sweepFigures draws each sweepSpec per policy when the set is one grid
// point, else against each grid axis.
func (s *Set) sweepFigures(groups []*policyGroup) ([]*Figure, error) {
	var out []*Figure
	for _, spec := range sweepSpecs {
		k := metricIndex(spec.metric)
		if len(s.Points) == 1 {
			out = append(out, s.perPolicyFigure(spec, k, groups))
			continue
		}
		for _, axis := range s.Axes {
			figs, err := s.axisFigures(spec, k, axis, groups)
			if err != nil {
				return nil, err
			}
			out = append(out, figs...)
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

// perPolicyFigure: one horizontal bar per policy, best at the top,
// coloured by family, with its seed range and value.
func (s *Set) perPolicyFigure(spec sweepSpec, k int, groups []*policyGroup) *Figure {
	m := summaryMetrics[k]
	data := &Table{Header: []string{"policy", "runs", spec.metric, spec.metric + "_sd", spec.metric + "_min", spec.metric + "_max"}}
	var bars []Bar
	best := bestGroup(groups, k)
	fams := map[string]bool{}
	for _, g := range groups {
		st := g.Stats[k]
		data.Rows = append(data.Rows, []string{g.Policy, fmt.Sprint(st.N), f64(st.Mean), f64(st.SD), f64(st.Min), f64(st.Max)})
		b := Bar{Name: g.Policy, Value: st.Mean, Lo: math.NaN(), Hi: math.NaN(), Colour: familyColour(Family(g.Policy)),
			Label: valueLabel(st.Mean, m.Digits, spec.unit), Emphasis: g == best}
		if st.N > 1 {
			b.Lo, b.Hi = st.Min, st.Max
		}
		bars = append(bars, b)
		fams[Family(g.Policy)] = true
	}
	pl := NewHBarPlot("", spec.xlabel, bars, m.Better < 0)
	for _, f := range families {
		if fams[f] {
			pl.Legend.Add(f, swatch{familyColour(f)})
		}
	}
	h := max(FigHeight, vg.Inch*(1.3+0.24*vg.Length(len(bars))))
	better := "lower is better"
	if m.Better > 0 {
		better = "higher is better"
	}
	return &Figure{Name: spec.name, Title: spec.title + " per policy (" + better + ")",
		Subtitle: s.subtitle(nil, "bars: "+spreadNote),
		Caption:  spec.caption + ", sorted best first; bars are " + spreadNote + ", coloured by policy family. " + capitalise(s.scenarioNote()) + ".",
		Tiles:    [][]*plot.Plot{{pl}}, Width: FigWidth, Height: h, Data: data}
}

// bestGroup is the group with the best mean of metric k (nil when none
// or when the metric has no better direction).
func bestGroup(groups []*policyGroup, k int) *policyGroup {
	m := summaryMetrics[k]
	var best *policyGroup
	for _, g := range groups {
		v := g.Stats[k].Mean
		if math.IsNaN(v) || m.Better == 0 {
			continue
		}
		if best == nil || (m.Better < 0 && v < best.Stats[k].Mean) || (m.Better > 0 && v > best.Stats[k].Mean) {
			best = g
		}
	}
	return best
}

// axisFigures draws the metric against one grid axis: one figure per
// combination of the other axes' values, one line per policy (in panels
// by family when there are many).
func (s *Set) axisFigures(spec sweepSpec, k int, axis string, groups []*policyGroup) ([]*Figure, error) {
	var others []string
	for _, a := range s.Axes {
		if a != axis {
			others = append(others, a)
		}
	}
	// The axis's values in point order, and whether all are numbers.
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
	// The combinations of the other axes, in point order.
	var combos []string
	comboOf := map[string]*Point{}
	for _, p := range s.Points {
		c := pointLabel(others, p.Values)
		if _, ok := comboOf[c]; !ok {
			comboOf[c] = p
			combos = append(combos, c)
		}
	}
	var out []*Figure
	for ci, combo := range combos {
		header := append(append([]string{axis}, others...), "policy", "runs", spec.metric, spec.metric+"_sd", spec.metric+"_min", spec.metric+"_max")
		data := &Table{Header: header}
		lines := map[string]*seriesPoints{}
		for _, g := range groups {
			if pointLabel(others, g.Point.Values) != combo {
				continue
			}
			st := g.Stats[k]
			l := lines[g.Policy]
			if l == nil {
				l = &seriesPoints{}
				lines[g.Policy] = l
			}
			l.x = append(l.x, pos(g.Point.Values[axis]))
			l.st = append(l.st, st)
			row := []string{formatValue(g.Point.Values[axis])}
			for _, o := range others {
				row = append(row, formatValue(g.Point.Values[o]))
			}
			data.Rows = append(data.Rows, append(row, g.Policy, fmt.Sprint(st.N), f64(st.Mean), f64(st.SD), f64(st.Min), f64(st.Max)))
		}
		m := summaryMetrics[k]
		ylabel := spec.xlabel
		plots := s.policyPanels(func(title string, pols []string, idx map[string]int) (*plot.Plot, error) {
			pl := NewPlot(title, s.axisLabel(axis), ylabel)
			for _, pol := range pols {
				if l := lines[pol]; l != nil {
					if err := addPoints(pl, idx[pol], pol, l.x, l.st, !numeric); err != nil {
						return nil, err
					}
				}
			}
			if !numeric {
				names := make([]string, len(xs))
				for i, v := range xs {
					names[i] = formatValue(v)
				}
				nominalX(pl, names, FigWidth-2*vg.Inch)
				return pl, nil
			}
			// The swept values are the ticks; a margin keeps the
			// markers at the ends off the frame.
			vals := make([]float64, len(xs))
			for i, v := range xs {
				vals[i] = v.(float64)
			}
			lo, hi := slices.Min(vals), slices.Max(vals)
			pad := 0.06 * (hi - lo)
			if pad == 0 {
				pad = 0.5 * math.Max(1, math.Abs(lo))
			}
			pl.X.Min, pl.X.Max = lo-pad, hi+pad
			if len(vals) <= 12 {
				pl.X.Tick.Marker = valueTicks(vals)
			}
			return pl, nil
		})
		tiles, err := plots()
		if err != nil {
			return nil, fmt.Errorf("reports: %s: %w", spec.name, err)
		}
		shareY(tiles, true)
		name := spec.name + "_vs_" + slug(axis)
		at := ""
		if len(others) > 0 {
			name += fmt.Sprintf("_at%d", ci+1)
			at = " at " + s.pointWords(others, comboOf[combo].Values)
		}
		better := "lower is better"
		if m.Better > 0 {
			better = "higher is better"
		}
		out = append(out, &Figure{Name: name, Title: spec.title + " against " + s.axisLabel(axis) + at + " (" + better + ")",
			Subtitle: s.subtitle(nil, "markers: "+spreadNote),
			Caption:  spec.caption + " against the grid axis " + axis + at + "; markers are " + spreadNote + ". " + capitalise(s.scenarioNote()) + ".",
			Tiles:    tiles, Width: FigWidth, Height: panelsHeight(tiles), Data: data})
	}
	return out, nil
}

// seriesPoints is one line of a sweep: x positions and their stats.
type seriesPoints struct {
	x  []float64
	st []stats
}

// panelFn draws one panel: its title, its policies and their style
// indices.
type panelFn func(title string, pols []string, idx map[string]int) (*plot.Plot, error)

// policyPanels returns a function drawing the set's policies in panels
// (one, or one per family when there are more than MaxSeries), one
// above the other.
func (s *Set) policyPanels(draw panelFn) func() ([][]*plot.Plot, error) {
	return func() ([][]*plot.Plot, error) {
		panels := Panels(s.Policies)
		idx := SeriesIndex(s.Policies)
		rows, cols := grid(len(panels))
		tiles := make([][]*plot.Plot, rows)
		for i := range tiles {
			tiles[i] = make([]*plot.Plot, cols)
		}
		for i, p := range panels {
			pl, err := draw(p.Title, p.Series, idx)
			if err != nil {
				return nil, err
			}
			tiles[i/cols][i%cols] = pl
		}
		// Stacked panels share their x axis: its label once, at the bottom.
		for i := 0; i+1 < rows; i++ {
			for _, p := range tiles[i] {
				if p != nil {
					p.X.Label.Text = ""
				}
			}
		}
		return tiles, nil
	}
}

// panelsHeight is the height of a figure of these tiles.
func panelsHeight(tiles [][]*plot.Plot) vg.Length {
	if len(tiles) <= 1 {
		return FigHeight
	}
	return vg.Inch*0.8 + PanelHeight*vg.Length(len(tiles))
}

// shareY gives the tiles one y range, the union of their data's (call it
// before setting any), from 0 and rounded up when floor0, so that the
// panels compare.
func shareY(tiles [][]*plot.Plot, floor0 bool) {
	lo, hi := math.Inf(1), math.Inf(-1)
	each(tiles, func(p *plot.Plot) {
		ylo, yhi := dataY(p)
		lo, hi = math.Min(lo, ylo), math.Max(hi, yhi)
	})
	if math.IsInf(lo, 0) {
		lo, hi = 0, 1
	}
	if floor0 && lo > 0 {
		lo = 0
	}
	if hi <= lo {
		hi = lo + 1
	}
	if floor0 {
		hi = niceMax(hi)
	}
	each(tiles, func(p *plot.Plot) { p.Y.Min, p.Y.Max = lo, hi })
}

// dataY is the y range of a plot's data: gonum's Add widens the axes to
// each plotter's data range, so before any range is set it is the axis's.
func dataY(p *plot.Plot) (lo, hi float64) { return p.Y.Min, p.Y.Max }

// each calls fn on every tile.
func each(tiles [][]*plot.Plot, fn func(*plot.Plot)) {
	for _, row := range tiles {
		for _, p := range row {
			if p != nil {
				fn(p)
			}
		}
	}
}

// addPoints draws markers (joined by a line when there are several) at
// the means, with whiskers over the seed range when it is not empty.
// Categorical x positions are nudged apart by style index so that the
// markers of one category do not cover each other.
func addPoints(pl *plot.Plot, i int, label string, x []float64, st []stats, nudge bool) error {
	var pts plotter.XYs
	e := yErrs{}
	spread := false
	for j := range x {
		if math.IsNaN(st[j].Mean) {
			continue
		}
		xx := x[j]
		if nudge {
			xx += 0.06 * float64(i%MaxSeries-MaxSeries/2) / 2
		}
		pts = append(pts, plotter.XY{X: xx, Y: st[j].Mean})
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
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return err
	}
	sc.GlyphStyle = GlyphStyle(i)
	thumbs := []plot.Thumbnailer{sc}
	if len(pts) > 1 {
		l, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		l.LineStyle = LineStyle(i)
		l.LineStyle.Width = vg.Points(1.2)
		pl.Add(l)
		thumbs = append([]plot.Thumbnailer{l}, thumbs...)
	}
	pl.Add(sc)
	if spread {
		eb, err := plotter.NewYErrorBars(e)
		if err != nil {
			return err
		}
		eb.LineStyle = LineStyle(i)
		eb.LineStyle.Dashes = nil
		eb.LineStyle.Width = vg.Points(0.8)
		eb.CapWidth = vg.Points(5)
		pl.Add(eb)
	}
	if label != "" {
		pl.Legend.Add(label, thumbs...)
	}
	return nil
}

// nominalX labels x = 0, 1, … with names, slanted when they would crowd
// a plot width wide.
func nominalX(pl *plot.Plot, names []string, width vg.Length) {
	if len(names) == 0 {
		return
	}
	ticks := make([]plot.Tick, len(names))
	for i, n := range names {
		ticks[i] = plot.Tick{Value: float64(i), Label: n}
	}
	pl.X.Tick.Marker = plot.ConstantTicks(ticks)
	pl.X.Min, pl.X.Max = -0.5, float64(len(names))-0.5
	slantLong(&pl.X, names, width)
}

func containsValue(xs []any, v any) bool {
	for _, x := range xs {
		if formatValue(x) == formatValue(v) {
			return true
		}
	}
	return false
}

var slugRE = regexp.MustCompile(`[^A-Za-z0-9]+`)

// slug turns an axis path into a file-name part.
func slug(s string) string {
	return strings.Trim(slugRE.ReplaceAllString(s, "_"), "_")
}

// f64 formats a number for a CSV file: shortest exact form, empty for NaN.
func f64(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// yErrs is points with asymmetric vertical error bars (plotter.YErrorer).
type yErrs struct {
	plotter.XYs
	lo, hi []float64 // distances below and above
}

func (e yErrs) YError(i int) (float64, float64) { return e.lo[i], e.hi[i] }

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
