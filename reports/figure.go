package reports

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Figure is one figure of a report: a title and a line saying what ran,
// then one plot or a grid of plots (small multiples), each with its legend
// beside it, outside the data; and the table of the data it draws.
type Figure struct {
	// Name is the files' base name (figures/NAME.svg, .pdf, .png, .csv).
	Name string
	// Title heads the figure, in the image and in the report; Subtitle,
	// drawn under it in the image, says what ran (scenario, grid point,
	// seeds) so that the image alone tells; Caption, in the report, says
	// what the figure shows and where its numbers come from.
	Title, Subtitle, Caption string
	// Tiles are the plots, in rows (nil leaves a cell empty). Each plot's
	// legend is drawn to the right of its data area.
	Tiles [][]*plot.Plot
	// Legend, when it has entries, is drawn once at the right of the
	// figure, level with the first row's data (for tiles sharing one key).
	Legend *plot.Legend
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

// Figure sizes: a figure with one panel is 7.5 × 4.2 inches (the text
// width of a two-column paper, the legend beside the plot); small
// multiples take PanelHeight per row.
const (
	FigWidth    = 7.5 * vg.Inch
	FigHeight   = 4.2 * vg.Inch
	PanelHeight = 2.3 * vg.Inch
)

// DefaultDPI is the resolution of the PNG files: a 7.5 × 4.2 inch figure
// is 1125 × 630 pixels.
const DefaultDPI = 150

// MaxDPI bounds the PNG resolution: at 1200 dpi a 6 × 4 inch figure is
// already 7200 × 4800 pixels (132 MiB of RGBA while it is drawn).
const MaxDPI = 1200

// PNGSize is the size in pixels of a figure's PNG at dpi.
func (f *Figure) PNGSize(dpi int) (w, h int) {
	return int(f.Width/vg.Inch*vg.Length(dpi) + 0.5), int(f.Height/vg.Inch*vg.Length(dpi) + 0.5)
}

// Layout is where a drawing put a figure's parts, in points from the
// bottom left: the data area of each plot and the box of each legend.
// Legends never overlap a data area.
type Layout struct {
	Data, Legends []vg.Rectangle
}

const (
	margin    = vg.Length(8)  // around the figure
	legendGap = vg.Length(10) // between a data area and its legend
	tileGap   = vg.Length(16) // between tiles
)

var (
	titleColour    = color.Gray{Y: 0x11}
	subtitleColour = color.Gray{Y: 0x44}
)

// Draw draws the figure on c and returns where its parts went.
func (f *Figure) Draw(c vg.CanvasSizer) Layout {
	dc := draw.New(c)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	body := draw.Crop(dc, margin, -margin, margin, -margin)
	body = f.drawHeading(body)
	var lay Layout
	rows := len(f.Tiles)
	if rows == 0 {
		return lay
	}
	cols := len(f.Tiles[0])
	// Copies of the plots without their legends (drawn here instead);
	// drawing adjusts a plot's axes, so the originals stay as they were.
	tiles := make([][]*plot.Plot, rows)
	var legW vg.Length
	for i, row := range f.Tiles {
		tiles[i] = make([]*plot.Plot, cols)
		for j, p := range row {
			if p == nil {
				continue
			}
			cp := *p
			cp.BackgroundColor = nil // the figure's is white
			cp.Legend = plot.NewLegend()
			cp.Legend.TextStyle = p.Legend.TextStyle
			tiles[i][j] = &cp
			if w := legendWidth(&p.Legend); w > 0 {
				legW = max(legW, w+legendGap)
			}
		}
	}
	var figLegW, figLegH vg.Length
	if f.Legend != nil {
		if w := legendWidth(f.Legend); w > 0 {
			figLegW, figLegH = w+legendGap, legendHeight(f.Legend)+legendGap
		}
	}
	// Legends go beside their plots, or, when that would leave the data
	// too little width, under them.
	below := legW+figLegW > 0.4*body.Size().X
	t := draw.Tiles{Rows: rows, Cols: cols, PadX: tileGap + legW, PadY: tileGap, PadRight: legW + figLegW}
	var legH vg.Length
	if below {
		for _, row := range f.Tiles {
			for _, p := range row {
				if p != nil && legendWidth(&p.Legend) > 0 {
					legH = max(legH, legendHeight(&p.Legend)+legendGap)
				}
			}
		}
		body.Min.Y += figLegH
		t = draw.Tiles{Rows: rows, Cols: cols, PadX: tileGap, PadY: tileGap + legH, PadBottom: legH}
	}
	cs := plot.Align(tiles, t, body)
	firstTop := vg.Length(math.NaN())
	var rightmost vg.Length
	for i := range tiles {
		for j, p := range tiles[i] {
			if p == nil {
				continue
			}
			p.Draw(cs[i][j])
			data := p.DataCanvas(cs[i][j]).Rectangle
			lay.Data = append(lay.Data, data)
			if math.IsNaN(float64(firstTop)) {
				firstTop = data.Max.Y
			}
			rightmost = max(rightmost, data.Max.X)
			leg := &f.Tiles[i][j].Legend
			switch {
			case legendWidth(leg) == 0:
			case below:
				lay.Legends = append(lay.Legends, drawLegend(dc, leg, data.Min.X, cs[i][j].Min.Y-legendGap/2, dc.Min.Y))
			default:
				lay.Legends = append(lay.Legends, drawLegend(dc, leg, data.Max.X+legendGap, data.Max.Y, cs[i][j].Min.Y))
			}
		}
	}
	switch {
	case figLegW == 0:
	case below:
		lay.Legends = append(lay.Legends, drawLegend(dc, f.Legend, body.Min.X, body.Min.Y-legendGap/2, dc.Min.Y))
	default:
		lay.Legends = append(lay.Legends, drawLegend(dc, f.Legend, rightmost+legW+legendGap, firstTop, body.Min.Y))
	}
	return lay
}

// drawHeading draws the title and subtitle at the top of c and returns
// what is left below them.
func (f *Figure) drawHeading(c draw.Canvas) draw.Canvas {
	y := c.Max.Y
	line := func(s string, sty text.Style) {
		sty.XAlign, sty.YAlign = draw.XLeft, draw.YTop
		c.FillText(sty, vg.Point{X: c.Min.X, Y: y}, s)
		y -= sty.Rectangle(s).Size().Y * 1.15
	}
	if f.Title != "" {
		for _, l := range wrapText(textStyle(TitleSize, titleColour), f.Title, c.Size().X) {
			line(l, textStyle(TitleSize, titleColour))
		}
	}
	if f.Subtitle != "" {
		for _, l := range wrapText(textStyle(SubtitleSize, subtitleColour), f.Subtitle, c.Size().X) {
			line(l, textStyle(SubtitleSize, subtitleColour))
		}
	}
	if y < c.Max.Y {
		y -= vg.Points(6)
	}
	c.Max.Y = y
	return c
}

// wrapText breaks s at spaces into lines no wider than w in sty.
func wrapText(sty text.Style, s string, w vg.Length) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		try := word
		if line != "" {
			try = line + " " + word
		}
		if line != "" && sty.Width(try) > w {
			lines = append(lines, line)
			try = word
		}
		line = try
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// legendWidth is the width of a legend's box, 0 when it has no entries.
func legendWidth(l *plot.Legend) vg.Length {
	r := l.Rectangle(draw.Canvas{})
	return r.Size().X
}

// legendHeight is the height of a legend's box: its entries, and below
// the last the descent gonum's Legend.Draw leaves under its entries.
func legendHeight(l *plot.Legend) vg.Length {
	return l.Rectangle(draw.Canvas{}).Size().Y + l.TextStyle.FontExtents().Descent
}

// drawLegend draws l with its top left at (x, top), its entries going down
// (no lower than bottom), and returns its box.
func drawLegend(dc draw.Canvas, l *plot.Legend, x, top, bottom vg.Length) vg.Rectangle {
	leg := *l
	leg.Top, leg.Left = true, true
	w := legendWidth(l)
	c := dc
	c.Rectangle = vg.Rectangle{Min: vg.Point{X: x, Y: bottom}, Max: vg.Point{X: x + w, Y: top}}
	leg.Draw(c)
	return vg.Rectangle{Min: vg.Point{X: x, Y: top - legendHeight(l)}, Max: vg.Point{X: x + w, Y: top}}
}

// SVG renders the figure as SVG: fonts named with metric-compatible
// fallbacks (SVGFontStack), and each data area and legend box marked by
// an invisible rect (class fb-data, fb-legend) for tools that check the
// layout.
func (f *Figure) SVG() ([]byte, error) {
	c := vgsvg.New(f.Width, f.Height)
	lay := f.Draw(c)
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("reports: figure %s: svg: %w", f.Name, err)
	}
	s := strings.ReplaceAll(b.String(), "font-family:Liberation Sans;", "font-family:"+SVGFontStack+";")
	var marks strings.Builder
	for _, kind := range []struct {
		class string
		rs    []vg.Rectangle
	}{{"fb-data", lay.Data}, {"fb-legend", lay.Legends}} {
		for _, r := range kind.rs {
			// Inside vgsvg's outer group, whose y axis points up as vg's.
			fmt.Fprintf(&marks, "<rect class=\"%s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" stroke=\"none\"/>\n",
				kind.class, r.Min.X.Points(), r.Min.Y.Points(), r.Size().X.Points(), r.Size().Y.Points())
		}
	}
	end := strings.LastIndex(s, "</g>")
	if end < 0 {
		return nil, fmt.Errorf("reports: figure %s: svg: no closing group", f.Name)
	}
	return []byte(s[:end] + marks.String() + s[end:]), nil
}

// PDF renders the figure as PDF, its fonts embedded as Unicode subsets.
func (f *Figure) PDF() ([]byte, error) {
	c := newPDFCanvas(f.Width, f.Height)
	f.Draw(c)
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("reports: figure %s: pdf: %w", f.Name, err)
	}
	return b.Bytes(), nil
}

// PNG renders the figure as a PNG at dpi on a white background.
func (f *Figure) PNG(dpi int) ([]byte, error) {
	c := vgimg.NewWith(vgimg.UseWH(f.Width, f.Height), vgimg.UseDPI(dpi))
	f.Draw(c)
	var b bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&b); err != nil {
		return nil, fmt.Errorf("reports: figure %s: png: %w", f.Name, err)
	}
	return b.Bytes(), nil
}

// emptyPlot is a plot that says there is nothing to draw.
func emptyPlot(title, note string) *plot.Plot {
	p := NewPlot(title, "", "")
	p.HideAxes()
	p.Add(&noteText{text: note})
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	return p
}

// noteText writes a line of text in the middle of a plot.
type noteText struct{ text string }

func (n *noteText) Plot(c draw.Canvas, _ *plot.Plot) {
	sty := textStyle(LabelSize, subtitleColour)
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YCenter
	c.FillText(sty, c.Center(), n.text)
}
