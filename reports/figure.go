package reports

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Figure is one figure of a report: one plot, or a grid of plots drawn
// together, and the table of the data it draws.
type Figure struct {
	// Name is the files' base name (figures/NAME.svg, .pdf, .png, .csv).
	Name string
	// Title heads the figure in the report; Caption says what it shows and
	// where its numbers come from.
	Title, Caption string
	// Tiles are the plots, in rows.
	Tiles [][]*plot.Plot
	// Width and Height are the figure's size.
	Width, Height vg.Length
	// Data is the CSV behind the figure.
	Data *Table
}

// Table is a table of strings with a header row.
type Table struct {
	Header []string
	Rows   [][]string
}

// CSV is the table as CSV.
func (t *Table) CSV() []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write(t.Header)
	_ = w.WriteAll(t.Rows)
	return b.Bytes()
}

// Figure sizes: one plot is 6 × 4 inches, a column of a single-column
// paper at the default fonts.
const (
	figWidth  = 6 * vg.Inch
	figHeight = 4 * vg.Inch
)

// DefaultDPI is the resolution of the PNG files: a 6 × 4 inch figure is
// 900 × 600 pixels.
const DefaultDPI = 150

// MaxDPI bounds the PNG resolution: at 1200 dpi a 6 × 4 inch figure is
// already 7200 × 4800 pixels (132 MiB of RGBA while it is drawn).
const MaxDPI = 1200

// PNGSize is the size in pixels of a figure's PNG at dpi.
func (f *Figure) PNGSize(dpi int) (w, h int) {
	return int(f.Width/vg.Inch*vg.Length(dpi) + 0.5), int(f.Height/vg.Inch*vg.Length(dpi) + 0.5)
}

func (f *Figure) draw(c vg.CanvasSizer) {
	dc := draw.New(c)
	rows := len(f.Tiles)
	cols := len(f.Tiles[0])
	if rows == 1 && cols == 1 {
		f.Tiles[0][0].Draw(dc)
		return
	}
	t := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Inch / 4, PadY: vg.Inch / 4,
		PadTop: vg.Inch / 16, PadBottom: vg.Inch / 16, PadLeft: vg.Inch / 16, PadRight: vg.Inch / 16}
	cs := plot.Align(f.Tiles, t, dc)
	for i := range f.Tiles {
		for j := range f.Tiles[i] {
			f.Tiles[i][j].Draw(cs[i][j])
		}
	}
}

// SVG renders the figure as SVG (fonts named, not embedded).
func (f *Figure) SVG() ([]byte, error) {
	c := vgsvg.New(f.Width, f.Height)
	f.draw(c)
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("reports: figure %s: svg: %w", f.Name, err)
	}
	return b.Bytes(), nil
}

// PDF renders the figure as PDF with its fonts embedded.
func (f *Figure) PDF() ([]byte, error) {
	c := vgpdf.New(f.Width, f.Height)
	c.EmbedFonts(true)
	f.draw(c)
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("reports: figure %s: pdf: %w", f.Name, err)
	}
	return b.Bytes(), nil
}

// PNG renders the figure as a PNG at dpi on a white background.
func (f *Figure) PNG(dpi int) ([]byte, error) {
	c := vgimg.NewWith(vgimg.UseWH(f.Width, f.Height), vgimg.UseDPI(dpi))
	f.draw(c)
	var b bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&b); err != nil {
		return nil, fmt.Errorf("reports: figure %s: png: %w", f.Name, err)
	}
	return b.Bytes(), nil
}

// palette is Okabe and Ito's colour-blind-safe palette (Okabe & Ito, "Color
// Universal Design", 2008), without its yellow, which is too light on white.
var palette = []color.Color{
	color.RGBA{0x00, 0x72, 0xB2, 0xff}, // blue
	color.RGBA{0xD5, 0x5E, 0x00, 0xff}, // vermillion
	color.RGBA{0x00, 0x9E, 0x73, 0xff}, // bluish green
	color.RGBA{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
	color.RGBA{0xE6, 0x9F, 0x00, 0xff}, // orange
	color.RGBA{0x56, 0xB4, 0xE9, 0xff}, // sky blue
	color.RGBA{0x00, 0x00, 0x00, 0xff}, // black
}

// dashes cycle with the colours so lines stay apart in greyscale print.
var dashes = [][]vg.Length{
	nil,
	{vg.Points(6), vg.Points(2)},
	{vg.Points(2), vg.Points(2)},
	{vg.Points(6), vg.Points(2), vg.Points(2), vg.Points(2)},
	{vg.Points(10), vg.Points(3)},
}

// series style i: a colour, and a dash pattern that changes every time the
// colours wrap around and also with i.
func lineStyle(i int) draw.LineStyle {
	return draw.LineStyle{Color: palette[i%len(palette)], Width: vg.Points(1.5), Dashes: dashes[(i+i/len(palette))%len(dashes)]}
}

func glyphStyle(i int) draw.GlyphStyle {
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.PlusGlyph{}, draw.CrossGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}}
	return draw.GlyphStyle{Color: palette[i%len(palette)], Radius: vg.Points(3), Shape: shapes[i%len(shapes)]}
}

// newPlot is a plot with the report's common look: title, axis labels, a
// light grid, the legend in the top left.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{Y: 0xdd}
	g.Horizontal.Color = color.Gray{Y: 0xdd}
	p.Add(g)
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.ThumbnailWidth = vg.Points(24)
	p.X.Tick.Marker = plainTicks{}
	p.Y.Tick.Marker = plainTicks{}
	return p
}

// tickLabel writes a tick value plainly (0.001, 2500) between 10⁻⁴ and
// 10⁶, in exponent form (1e-05) outside.
func tickLabel(v float64) string {
	v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	if a := math.Abs(v); a != 0 && (a < 1e-4 || a >= 1e6) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// plainTicks are gonum's default ticks with labels in their shortest form
// (25, not 25.00).
type plainTicks struct{}

func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = tickLabel(ts[i].Value)
		}
	}
	return ts
}

// Logarithmic axes: the values are drawn as their base-10 logarithms on a
// linear axis whose ticks are labelled with the values themselves. (gonum's
// LogScale centres an axis label on the arithmetic middle of the range,
// which on a log axis sits near its end and squeezes the plot.)

// lg is the drawn position of a value on a logarithmic axis.
func lg(x float64) float64 { return math.Log10(x) }

// logAxis marks an axis whose drawn values are lg(value).
func logAxis(a *plot.Axis) {
	a.Tick.Marker = logTicks{}
}

// logTicks marks a log axis (in lg units): labelled powers of ten within
// the range, and 2× and 5× labelled too when the range spans less than two
// decades; unlabelled minor ticks at the other multiples.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
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
				t.Label = tickLabel(float64(m) * math.Pow(10, e))
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// legendRoom raises the top of a plot whose legend sits in its top corner
// so that the legend does not cover the data: each entry takes about a
// tenth of the height.
func legendRoom(pl *plot.Plot, entries int) {
	if entries == 0 || !pl.Legend.Top {
		return
	}
	k := 1 - min(0.6, float64(entries)/10)
	pl.Y.Max = pl.Y.Min + (pl.Y.Max-pl.Y.Min)/k
}

// emptyPlot is a plot that says there is nothing to draw.
func emptyPlot(title, note string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.HideAxes()
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: 0.5, Y: 0.5}}, Labels: []string{note}})
	if err == nil {
		p.Add(l)
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	return p
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
