package reports

import (
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The figure style: every figure of a report, and any figure made with
// NewPlot and drawn through a Figure, shares these fonts, colours, line
// styles and tick labels.

// FontFamily is the typeface of every figure: Liberation Sans (metrically
// compatible with Arial), which has the Greek letters, arrows, dashes and
// relations the labels use (ρ, λ, µ, →, —, ≤, ±, ×). PDFs embed it; SVGs
// name it with metric-compatible fallbacks (SVGFontStack).
var figureFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// SVGFontStack is the font-family an SVG asks for: Liberation Sans, then
// the fonts with the same metrics (Arimo, Arial), so that text keeps the
// width the layout measured.
const SVGFontStack = `'Liberation Sans', Arimo, Arial, Helvetica, sans-serif`

// Font sizes of the figure style.
const (
	TitleSize    = 12
	SubtitleSize = 9
	LabelSize    = 10
	TickSize     = 9
	LegendSize   = 9
)

// Font is the figure font at size points.
func Font(size vg.Length) font.Font {
	f := figureFont
	f.Size = size
	return f
}

// textStyle is the figure font at size in c, aligned as given.
func textStyle(size vg.Length, c color.Color) text.Style {
	return text.Style{Color: c, Font: Font(size), Handler: plot.DefaultTextHandler}
}

// palette is Paul Tol's "muted" qualitative scheme (Tol, "Colour Schemes",
// SRON technical note, 2021): nine colours told apart by readers with any
// common colour-vision deficiency, and in greyscale by their lightness
// together with the dash patterns below.
var palette = []color.Color{
	color.RGBA{0x33, 0x22, 0x88, 0xff}, // indigo
	color.RGBA{0xCC, 0x66, 0x77, 0xff}, // rose
	color.RGBA{0x11, 0x77, 0x33, 0xff}, // green
	color.RGBA{0x88, 0xCC, 0xEE, 0xff}, // cyan
	color.RGBA{0x88, 0x22, 0x55, 0xff}, // wine
	color.RGBA{0x44, 0xAA, 0x99, 0xff}, // teal
	color.RGBA{0x99, 0x99, 0x33, 0xff}, // olive
	color.RGBA{0xAA, 0x44, 0x99, 0xff}, // purple
	color.RGBA{0xDD, 0xCC, 0x77, 0xff}, // sand
}

// Colours is the number of distinct colours; series beyond it repeat a
// colour with another dash pattern and marker (27 distinct styles).
var Colours = len(palette)

// Colour is series i's colour.
func Colour(i int) color.Color { return palette[i%len(palette)] }

var dashes = [][]vg.Length{
	nil,
	{vg.Points(5), vg.Points(2)},
	{vg.Points(1.5), vg.Points(1.5)},
}

var shapes = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.RingGlyph{},
	draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}, draw.CircleGlyph{}}

// LineStyle is series i's line: its colour, and solid, dashed or dotted
// for the first, second and third time the colours go round.
func LineStyle(i int) draw.LineStyle {
	return draw.LineStyle{Color: Colour(i), Width: vg.Points(1.5), Dashes: dashes[(i/len(palette))%len(dashes)]}
}

// GlyphStyle is series i's marker: its colour and a shape of its own
// among the first len(shapes) series of each colour round.
func GlyphStyle(i int) draw.GlyphStyle {
	return draw.GlyphStyle{Color: Colour(i), Radius: vg.Points(3), Shape: shapes[(i+i/len(palette))%len(shapes)]}
}

// NewPlot is a plot in the figure style: the title (a panel's title when
// the figure has several), axis labels, a light grid, the figure font,
// tick labels in their shortest form. Its legend is drawn beside it,
// outside the data area, when the plot is a tile of a Figure.
func NewPlot(title, x, y string) *plot.Plot {
	p := barePlot(title, x, y)
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{Y: 0xe4}
	g.Horizontal.Color = color.Gray{Y: 0xe4}
	g.Vertical.Width, g.Horizontal.Width = vg.Points(0.5), vg.Points(0.5)
	p.Add(g)
	return p
}

// barePlot is NewPlot without the grid.
func barePlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle = textStyle(LabelSize, color.Black)
	p.Title.TextStyle.XAlign, p.Title.TextStyle.YAlign = draw.XCenter, draw.YTop
	p.Title.Padding = vg.Points(4)
	p.X.Label.Text, p.Y.Label.Text = x, y
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle = textStyle(LabelSize, color.Black)
		a.Label.TextStyle.XAlign, a.Label.TextStyle.YAlign = draw.XCenter, draw.YBottom
		a.Tick.Label = textStyle(TickSize, color.Gray{Y: 0x33})
		a.Tick.Marker = plainTicks{}
		a.Tick.LineStyle.Color = color.Gray{Y: 0x66}
		a.LineStyle.Color = color.Gray{Y: 0x66}
		a.Padding = vg.Points(2)
		a.Tick.Length = vg.Points(4)
	}
	p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XCenter, draw.YTop
	p.Y.Tick.Label.XAlign, p.Y.Tick.Label.YAlign = draw.XRight, draw.YCenter
	p.Legend = plot.NewLegend()
	p.Legend.TextStyle = textStyle(LegendSize, color.Black)
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.ThumbnailWidth = vg.Points(22)
	p.Legend.Padding = vg.Points(1.5)
	return p
}

// tickLabel writes a tick value plainly (0.001, 2500) between 10⁻⁴ and
// 10⁶, in exponent form outside.
func tickLabel(v float64) string {
	v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	if v == 0 {
		v = 0 // not -0
	}
	if a := math.Abs(v); a != 0 && (a < 1e-4 || a >= 1e6) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// plainTicks mark a linear axis: 4 to 10 labelled ticks at round steps
// (1, 2, 2.5 or 5 × 10^k), labels in their shortest form (25, not
// 25.00), unlabelled minor ticks between.
type plainTicks struct{}

func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || hi <= lo {
		return nil
	}
	step, minor := tickStep(hi - lo)
	var ts []plot.Tick
	for k := math.Ceil(lo/minor - 1e-9); k*minor <= hi+minor*1e-9; k++ {
		v := k * minor
		t := plot.Tick{Value: v}
		if r := math.Abs(math.Remainder(v, step)); r < minor*1e-6 {
			t.Label = tickLabel(v)
		}
		ts = append(ts, t)
	}
	return ts
}

// tickStep is the labelled step for a range (giving 4 to 10 ticks) and
// the minor step.
func tickStep(span float64) (step, minor float64) {
	e := math.Pow(10, math.Floor(math.Log10(span)))
	for _, m := range []struct{ major, minor float64 }{{0.1, 0.05}, {0.2, 0.1}, {0.25, 0.05}, {0.5, 0.1}, {1, 0.5}, {2, 1}, {2.5, 0.5}, {5, 1}, {10, 5}} {
		if span/(m.major*e) <= 8 {
			return m.major * e, m.minor * e
		}
	}
	return 10 * e, 5 * e
}

// valueTicks label exactly the given values (a swept axis's points).
func valueTicks(values []float64) plot.ConstantTicks {
	ts := make([]plot.Tick, len(values))
	for i, v := range values {
		ts[i] = plot.Tick{Value: v, Label: tickLabel(v)}
	}
	return ts
}

// Logarithmic axes: the values are drawn as their base-10 logarithms on a
// linear axis whose ticks are labelled with the values themselves. (gonum's
// LogScale centres an axis label on the arithmetic middle of the range,
// which on a log axis sits near its end and squeezes the plot.)

// lg is the drawn position of a value on a logarithmic axis.
func lg(x float64) float64 { return math.Log10(x) }

// LogAxis marks an axis whose drawn values are log10(value), its ticks
// labelled by label (nil: plain numbers).
func LogAxis(a *plot.Axis, label func(float64) string) {
	if label == nil {
		label = tickLabel
	}
	a.Tick.Marker = logTicks{label: label}
}

// logTicks marks a log axis (in lg units): labelled powers of ten within
// the range, and 2× and 5× labelled too when the range spans less than two
// decades; unlabelled minor ticks at the other multiples.
type logTicks struct{ label func(float64) string }

func (l logTicks) Ticks(lo, hi float64) []plot.Tick {
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || hi < lo {
		return nil
	}
	few := hi-lo < 2
	var ticks []plot.Tick
	for e := math.Floor(lo); e <= math.Ceil(hi); e++ {
		for m := 1; m < 10; m++ {
			v := e + math.Log10(float64(m))
			if v < lo-1e-9 || v > hi+1e-9 {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || (few && (m == 2 || m == 5)) {
				t.Label = l.label(float64(m) * math.Pow(10, e))
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// Seconds writes a duration in seconds in a human unit: 100 ns, 1 µs,
// 10 ms, 1 s, 2 min, 3 h.
func Seconds(s float64) string {
	type unit struct {
		name  string
		scale float64
	}
	for _, u := range []unit{{"h", 3600}, {"min", 60}, {"s", 1}, {"ms", 1e-3}, {"µs", 1e-6}, {"ns", 1e-9}} {
		if math.Abs(s) >= u.scale*(1-1e-9) || u.name == "ns" {
			if s == 0 {
				return "0 s"
			}
			return tickLabel(s/u.scale) + " " + u.name
		}
	}
	return tickLabel(s) + " s"
}

// niceMax is a round upper bound at or above x (1, 2, 2.5, 5 × 10^k):
// where an axis of non-negative values ends.
func niceMax(x float64) float64 {
	if x <= 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return 1
	}
	e := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10} {
		if m*e >= x*(1-1e-12) {
			return m * e
		}
	}
	return 10 * e
}

// Policy families: where a figure would draw more than MaxSeries
// policies in one panel, it draws one panel per family instead.
const (
	FamilyBaselines = "baselines"
	FamilyGavel     = "Gavel family"
	FamilySeed      = "seed papers"
	FamilyNew       = "new mechanisms"
)

// MaxSeries is the most series one panel draws; more go to small
// multiples.
const MaxSeries = 8

var families = []string{FamilyBaselines, FamilyGavel, FamilySeed, FamilyNew}

// Family is the family of a policy, by name: the classic baselines (FIFO,
// SJF, SRTF, Tiresias, isolated shares), Gavel's LP family (gavel-*),
// the seed papers' policies and their variants (Gandiva_fair, FFT,
// SJF-BSBF and its SJF-FFS baselines), and any other policy, a new
// mechanism.
func Family(policy string) string {
	switch {
	case slices.Contains([]string{"fifo", "sjf", "srtf", "tiresias", "static-partition"}, policy):
		return FamilyBaselines
	case strings.HasPrefix(policy, "gavel-") || policy == "gavel":
		return FamilyGavel
	}
	for _, p := range []string{"gandiva-fair", "fft", "sjf-bsbf", "sjf-ffs"} {
		if policy == p || strings.HasPrefix(policy, p+"-") {
			return FamilySeed
		}
	}
	return FamilyNew
}

// familyColour is the colour of a family's bars.
func familyColour(f string) color.Color {
	switch f {
	case FamilyBaselines:
		return color.RGBA{0x99, 0x99, 0x99, 0xff}
	case FamilyGavel:
		return color.RGBA{0x44, 0x77, 0xAA, 0xff}
	case FamilySeed:
		return color.RGBA{0xCC, 0x66, 0x77, 0xff}
	}
	return color.RGBA{0x22, 0x88, 0x33, 0xff}
}

// Panel is a group of series drawn in one panel of a figure.
type Panel struct {
	Title  string
	Series []string
}

// Panels splits series (policy names) into panels: one panel holding all
// of them when there are at most MaxSeries, else one per family (in the
// order baselines, Gavel family, seed papers, new mechanisms; a family of
// more than MaxSeries split in parts). Each series keeps one style index
// (SeriesIndex) across every figure of a report.
func Panels(series []string) []Panel {
	if len(series) <= MaxSeries {
		return []Panel{{Series: series}}
	}
	var out []Panel
	for _, f := range families {
		var in []string
		for _, s := range series {
			if Family(s) == f {
				in = append(in, s)
			}
		}
		for part := 0; len(in) > 0; part++ {
			n := min(len(in), MaxSeries)
			title := f
			if part > 0 || len(in) > MaxSeries {
				title += " (" + strconv.Itoa(part+1) + ")"
			}
			out = append(out, Panel{Title: title, Series: in[:n]})
			in = in[n:]
		}
	}
	return out
}

// SeriesIndex is the style index of each series: its place in its panel
// (see Panels), so that the series of one panel have distinct styles and
// a series has the same style in every figure drawn from the same list.
func SeriesIndex(series []string) map[string]int {
	idx := map[string]int{}
	for _, p := range Panels(series) {
		for i, s := range p.Series {
			idx[s] = i
		}
	}
	return idx
}

// grid lays n panels out: one above the other, each as wide as the
// figure, its legend beside it (side by side, legends would leave the
// data a third of the width).
func grid(n int) (rows, cols int) {
	return max(1, n), 1
}
