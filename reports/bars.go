package reports

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Bar is one bar of a bar chart: its value, the spread of the values it
// summarises (NaN: none), its colour and the label written beside it.
type Bar struct {
	Name     string
	Value    float64
	Lo, Hi   float64 // whisker ends (NaN: no whisker)
	Colour   color.Color
	Label    string
	Emphasis bool // the best bar: its label says so
}

// HBars is a horizontal bar chart, one bar per category from the top
// down, each with a whisker over its spread and its value written past
// the whisker's end; the plot leaves room for the labels so that none is
// cut. Add it to a plot with NewHBarPlot.
type HBars struct {
	Bars  []Bar
	Width vg.Length // bar thickness
	style draw.TextStyle
}

// NewHBarPlot is a plot of bars, sorted so that the best is at the top
// (lower first when lowerBetter, else higher first; NaN values last),
// the categories named on the y axis, the x axis from 0 to the largest
// whisker end.
func NewHBarPlot(title, xlabel string, bars []Bar, lowerBetter bool) *plot.Plot {
	bars = slices.Clone(bars)
	slices.SortStableFunc(bars, func(a, b Bar) int {
		switch {
		case math.IsNaN(a.Value) && math.IsNaN(b.Value):
			return 0
		case math.IsNaN(a.Value):
			return 1
		case math.IsNaN(b.Value):
			return -1
		case a.Value == b.Value:
			return 0
		case (a.Value < b.Value) == lowerBetter:
			return -1
		}
		return 1
	})
	p := NewPlot(title, xlabel, "")
	h := &HBars{Bars: bars, Width: vg.Points(9), style: textStyle(TickSize, color.Gray{Y: 0x22})}
	p.Add(h)
	ticks := make([]plot.Tick, len(bars))
	for i, b := range bars {
		ticks[i] = plot.Tick{Value: h.y(i), Label: b.Name}
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.Y.Tick.Length = 0
	p.Y.Min, p.Y.Max = -0.6, float64(len(bars))-0.4
	p.X.Min = 0
	_, hi, _, _ := h.DataRange()
	p.X.Max = niceMax(hi)
	return p
}

// y is the drawn position of bar i (the first at the top).
func (h *HBars) y(i int) float64 { return float64(len(h.Bars) - 1 - i) }

func (h *HBars) end(b Bar) float64 {
	e := b.Value
	if !math.IsNaN(b.Hi) {
		e = math.Max(e, b.Hi)
	}
	return e
}

// Plot draws the bars, whiskers and labels.
func (h *HBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for i, b := range h.Bars {
		if math.IsNaN(b.Value) {
			continue
		}
		y := trY(h.y(i))
		x0, x1 := trX(0), trX(b.Value)
		c.SetColor(b.Colour)
		c.Fill(rect(x0, y-h.Width/2, x1, y+h.Width/2).Path())
		if !math.IsNaN(b.Lo) && !math.IsNaN(b.Hi) && b.Hi > b.Lo {
			ls := draw.LineStyle{Color: color.Gray{Y: 0x22}, Width: vg.Points(0.8)}
			lo, hi := trX(b.Lo), trX(b.Hi)
			c.StrokeLine2(ls, lo, y, hi, y)
			c.StrokeLine2(ls, lo, y-h.Width/3, lo, y+h.Width/3)
			c.StrokeLine2(ls, hi, y-h.Width/3, hi, y+h.Width/3)
		}
		sty := h.style
		sty.XAlign, sty.YAlign = draw.XLeft, draw.YCenter
		// YCenter centres the text's full height; the nudge centres its
		// digits (which have no descender) on the bar.
		c.FillText(sty, vg.Point{X: trX(h.end(b)) + vg.Points(3), Y: y + sty.FontExtents().Descent/2}, h.label(b))
	}
}

func (h *HBars) label(b Bar) string {
	if b.Emphasis {
		return b.Label + "  (best)"
	}
	return b.Label
}

// DataRange spans 0 to the largest whisker end, and every bar.
func (h *HBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmax = 0
	for _, b := range h.Bars {
		if !math.IsNaN(b.Value) {
			xmax = math.Max(xmax, h.end(b))
		}
	}
	return 0, xmax, -0.5, float64(len(h.Bars)) - 0.5
}

// GlyphBoxes make room for each label right of its bar.
func (h *HBars) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	var out []plot.GlyphBox
	for i, b := range h.Bars {
		if math.IsNaN(b.Value) {
			continue
		}
		r := h.style.Rectangle(h.label(b))
		w, ht := r.Size().X, r.Size().Y
		out = append(out, plot.GlyphBox{X: p.X.Norm(h.end(b)), Y: p.Y.Norm(h.y(i)),
			Rectangle: vg.Rectangle{Min: vg.Point{X: 0, Y: -ht / 2}, Max: vg.Point{X: vg.Points(3) + w, Y: ht / 2}}})
	}
	return out
}

// VBars is a grouped vertical bar chart: per category a group of bars,
// one per series (Values[series][category]; NaN leaves a gap), each with
// its value written above it; the plot leaves room for the labels.
type VBars struct {
	Categories []string
	Series     []string
	Values     [][]float64
	Labels     [][]string
	Colours    []color.Color
	style      draw.TextStyle
	width      vg.Length // bar width
}

// NewVBarPlot is a grouped bar plot of values, labelled by format, the y
// axis from 0 to the largest value; its legend names the series. width is the plot's width, which sets the bars'.
func NewVBarPlot(title, xlabel, ylabel string, categories, series []string, values [][]float64, format func(float64) string, width vg.Length) *plot.Plot {
	p := NewPlot(title, xlabel, ylabel)
	if len(categories) == 0 || len(series) == 0 {
		return emptyPlot(title, "nothing to draw")
	}
	v := &VBars{Categories: categories, Series: series, Values: values, style: textStyle(TickSize-1, color.Gray{Y: 0x22})}
	data := width - vg.Inch
	v.width = max(vg.Points(2), min(vg.Points(22), 0.6*data/vg.Length(len(categories)*len(series))))
	ymax := 0.0
	for i := range series {
		v.Colours = append(v.Colours, Colour(i))
		labels := make([]string, len(categories))
		for c := range categories {
			if x := values[i][c]; !math.IsNaN(x) && !math.IsInf(x, 0) {
				labels[c] = format(x)
				ymax = math.Max(ymax, x)
			}
		}
		v.Labels = append(v.Labels, labels)
		p.Legend.Add(series[i], swatch{Colour(i)})
	}
	p.Add(v)
	ticks := make([]plot.Tick, len(categories))
	for c, name := range categories {
		ticks[c] = plot.Tick{Value: float64(c), Label: name}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Tick.Length = 0
	p.X.Min, p.X.Max = -0.5, float64(len(categories))-0.5
	p.Y.Min, p.Y.Max = 0, niceMax(ymax)
	slantLong(&p.X, categories, width)
	return p
}

// offset is the x offset, in points, of series i's bar within its group.
func (v *VBars) offset(i int) vg.Length {
	return vg.Length(float64(i)-float64(len(v.Series)-1)/2) * v.width
}

func (v *VBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for i := range v.Series {
		for k := range v.Categories {
			x := v.Values[i][k]
			if math.IsNaN(x) || math.IsInf(x, 0) {
				continue
			}
			mid := trX(float64(k)) + v.offset(i)
			c.SetColor(v.Colours[i])
			c.Fill(rect(mid-v.width/2*0.92, trY(0), mid+v.width/2*0.92, trY(x)).Path())
			c.FillText(v.labelStyle(), vg.Point{X: mid, Y: trY(x) + vg.Points(2)}, v.Labels[i][k])
		}
	}
}

func (v *VBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	for i := range v.Values {
		for _, x := range v.Values[i] {
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				ymax = math.Max(ymax, x)
			}
		}
	}
	return -0.5, float64(len(v.Categories)) - 0.5, 0, ymax
}

// GlyphBoxes make room above each bar for its label.
func (v *VBars) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	var out []plot.GlyphBox
	for i := range v.Series {
		for k := range v.Categories {
			x := v.Values[i][k]
			if math.IsNaN(x) || math.IsInf(x, 0) {
				continue
			}
			r := v.style.Rectangle(v.Labels[i][k])
			w, h := r.Size().X, r.Size().Y
			if v.upright() {
				w, h = h, w
			}
			off := v.offset(i)
			out = append(out, plot.GlyphBox{X: p.X.Norm(float64(k)), Y: p.Y.Norm(x),
				Rectangle: vg.Rectangle{Min: vg.Point{X: off - w/2, Y: 0}, Max: vg.Point{X: off + w/2, Y: h + vg.Points(2)}}})
		}
	}
	return out
}

// upright is whether the labels are turned to read upwards: when one is
// wider than a bar, side by side they would run into each other.
func (v *VBars) upright() bool {
	for i := range v.Labels {
		for _, l := range v.Labels[i] {
			if v.style.Width(l) > v.width {
				return true
			}
		}
	}
	return false
}

// labelStyle is the value labels' style: centred above the bar, or
// turned upright starting just above it.
func (v *VBars) labelStyle() draw.TextStyle {
	sty := v.style
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YBottom
	if v.upright() {
		sty.Rotation = math.Pi / 2
		sty.XAlign, sty.YAlign = draw.XLeft, draw.YCenter
	}
	return sty
}

// swatch is a legend key: a filled square.
type swatch struct{ colour color.Color }

func (s swatch) Thumbnail(c *draw.Canvas) {
	h := c.Max.Y - c.Min.Y
	side := min(h, c.Max.X-c.Min.X)
	x0 := c.Min.X + (c.Max.X-c.Min.X-side)/2
	c.SetColor(s.colour)
	c.Fill(rect(x0, c.Min.Y+(h-side)/2, x0+side, c.Min.Y+(h+side)/2).Path())
}

// lineKey is a legend key: a line in a style.
type lineKey struct{ style draw.LineStyle }

func (k lineKey) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(k.style, c.Min.X, y, c.Max.X, y)
}

func rect(x0, y0, x1, y1 vg.Length) vg.Rectangle {
	return vg.Rectangle{Min: vg.Point{X: min(x0, x1), Y: min(y0, y1)}, Max: vg.Point{X: max(x0, x1), Y: max(y0, y1)}}
}

// slantLong slants an axis's category labels when they would not fit
// side by side in width.
func slantLong(a *plot.Axis, names []string, width vg.Length) {
	var total vg.Length
	for _, n := range names {
		total += a.Tick.Label.Width(n) + vg.Points(6)
	}
	if total > width-vg.Inch {
		a.Tick.Label.Rotation = math.Pi / 6
		a.Tick.Label.XAlign, a.Tick.Label.YAlign = draw.XRight, draw.YCenter
	}
}

// valueLabel writes a value with digits decimals and a unit.
func valueLabel(x float64, digits int, unit string) string {
	s := fmt.Sprintf("%.*f", digits, x)
	if unit != "" {
		s += " " + unit
	}
	return s
}
