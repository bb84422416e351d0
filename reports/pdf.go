package reports

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"time"

	"codeberg.org/go-pdf/fpdf"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// pdfCanvas is a vg.Canvas that writes PDF with its fonts embedded as
// Unicode (UTF-8) TrueType subsets, so that ρ, →, — and µ come out as
// themselves and a PDF reader (or pdftotext) reads them back. gonum's
// vgpdf encodes text as Windows-1252 and garbles everything outside it
// (gonum/plot issue 347). Drawing is in points, origin bottom left, as
// vg expects; the file is deterministic (fixed creation date, sorted
// catalogue).
type pdfCanvas struct {
	doc   *fpdf.Fpdf
	w, h  vg.Length
	stack []pdfState
	fonts map[string]bool // registered font names
	imgs  int
}

type pdfState struct{ lineWidth vg.Length }

// pdfEpoch is the creation date every PDF records, so that the same
// figure gives the same bytes.
var pdfEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

func newPDFCanvas(w, h vg.Length) *pdfCanvas {
	doc := fpdf.NewCustom(&fpdf.InitType{UnitStr: "pt", Size: fpdf.SizeType{Wd: w.Points(), Ht: h.Points()}})
	doc.SetCreationDate(pdfEpoch)
	doc.SetModificationDate(pdfEpoch)
	doc.SetCatalogSort(true)
	doc.SetCompression(true)
	doc.SetProducer("fairbench", true)
	doc.SetMargins(0, 0, 0)
	doc.SetAutoPageBreak(false, 0)
	doc.AddPage()
	c := &pdfCanvas{doc: doc, w: w, h: h, stack: []pdfState{{lineWidth: vg.Points(1)}}, fonts: map[string]bool{}}
	// fpdf's user space runs down from the top left; flip it so that
	// drawing is in vg's (up from the bottom left).
	c.Push()
	c.Translate(vg.Point{Y: h})
	c.Scale(1, -1)
	vg.Initialize(c)
	return c
}

func (c *pdfCanvas) Size() (vg.Length, vg.Length) { return c.w, c.h }

func (c *pdfCanvas) state() *pdfState { return &c.stack[len(c.stack)-1] }

func (c *pdfCanvas) SetLineWidth(w vg.Length) {
	c.state().lineWidth = w
	c.doc.SetLineWidth(w.Points())
}

func (c *pdfCanvas) SetLineDash(dashes []vg.Length, offs vg.Length) {
	ds := make([]float64, len(dashes))
	for i, d := range dashes {
		ds[i] = d.Points()
	}
	c.doc.SetDashPattern(ds, offs.Points())
}

func (c *pdfCanvas) SetColor(clr color.Color) {
	if clr == nil {
		clr = color.Black
	}
	r, g, b, a := clr.RGBA()
	if a > 0 { // un-premultiply
		r, g, b = r*0xffff/a, g*0xffff/a, b*0xffff/a
	}
	ri, gi, bi := int(r>>8), int(g>>8), int(b>>8)
	c.doc.SetDrawColor(ri, gi, bi)
	c.doc.SetFillColor(ri, gi, bi)
	c.doc.SetTextColor(ri, gi, bi)
	c.doc.SetAlpha(float64(a)/0xffff, "Normal")
}

func (c *pdfCanvas) Rotate(rad float64) { c.doc.TransformRotate(-rad*180/math.Pi, 0, 0) }

func (c *pdfCanvas) Translate(pt vg.Point) { c.doc.TransformTranslate(pt.X.Points(), pt.Y.Points()) }

func (c *pdfCanvas) Scale(x, y float64) { c.doc.TransformScale(x*100, y*100, 0, 0) }

func (c *pdfCanvas) Push() {
	c.stack = append(c.stack, *c.state())
	c.doc.TransformBegin()
}

func (c *pdfCanvas) Pop() {
	c.doc.TransformEnd()
	c.stack = c.stack[:len(c.stack)-1]
	c.doc.SetLineWidth(c.state().lineWidth.Points())
}

func (c *pdfCanvas) Stroke(p vg.Path) {
	if c.state().lineWidth > 0 {
		c.path(p, "D")
	}
}

func (c *pdfCanvas) Fill(p vg.Path) { c.path(p, "F") }

// path traces p, arcs as cubic Bézier curves, and paints it.
func (c *pdfCanvas) path(p vg.Path, style string) {
	var start vg.Point
	for _, comp := range p {
		switch comp.Type {
		case vg.MoveComp:
			start = comp.Pos
			c.doc.MoveTo(comp.Pos.X.Points(), comp.Pos.Y.Points())
		case vg.LineComp:
			c.doc.LineTo(comp.Pos.X.Points(), comp.Pos.Y.Points())
		case vg.ArcComp:
			c.arc(comp)
		case vg.CurveComp:
			switch len(comp.Control) {
			case 1:
				c.doc.CurveTo(comp.Control[0].X.Points(), comp.Control[0].Y.Points(), comp.Pos.X.Points(), comp.Pos.Y.Points())
			case 2:
				c.doc.CurveBezierCubicTo(comp.Control[0].X.Points(), comp.Control[0].Y.Points(),
					comp.Control[1].X.Points(), comp.Control[1].Y.Points(), comp.Pos.X.Points(), comp.Pos.Y.Points())
			}
		case vg.CloseComp:
			c.doc.LineTo(start.X.Points(), start.Y.Points())
			c.doc.ClosePath()
		}
	}
	c.doc.DrawPath(style)
}

// arc draws an arc from the current point's circle as Bézier segments of
// at most 90°: for a segment of angle θ the control points sit at
// 4/3·tan(θ/4) of the radius along the tangents.
func (c *pdfCanvas) arc(a vg.PathComp) {
	cx, cy, r := a.Pos.X.Points(), a.Pos.Y.Points(), a.Radius.Points()
	at := func(t float64) (float64, float64) { return cx + r*math.Cos(t), cy + r*math.Sin(t) }
	x0, y0 := at(a.Start)
	c.doc.LineTo(x0, y0)
	n := max(1, int(math.Ceil(math.Abs(a.Angle)/(math.Pi/2))))
	step := a.Angle / float64(n)
	k := 4.0 / 3 * math.Tan(step/4)
	for i := 0; i < n; i++ {
		t0, t1 := a.Start+float64(i)*step, a.Start+float64(i+1)*step
		x0, y0 := at(t0)
		x1, y1 := at(t1)
		c.doc.CurveBezierCubicTo(x0-k*r*math.Sin(t0), y0+k*r*math.Cos(t0), x1+k*r*math.Sin(t1), y1-k*r*math.Cos(t1), x1, y1)
	}
}

// FillString draws str with its baseline starting at pt.
func (c *pdfCanvas) FillString(f font.Face, pt vg.Point, str string) {
	if f.Font.Size == 0 || str == "" {
		return
	}
	name := f.Name()
	if !c.fonts[name] {
		var b bytes.Buffer
		if _, err := f.Face.WriteSourceTo(nil, &b); err != nil {
			panic(fmt.Sprintf("reports: pdf: font %s: %v", name, err))
		}
		c.doc.AddUTF8FontFromBytes(name, "", b.Bytes())
		c.fonts[name] = true
	}
	c.doc.SetFont(name, "", f.Font.Size.Points())
	c.Push()
	c.Translate(pt)
	c.Scale(1, -1) // text upright in the flipped space
	c.doc.Text(0, 0, str)
	c.Pop()
}

func (c *pdfCanvas) DrawImage(rect vg.Rectangle, img image.Image) {
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(fmt.Sprintf("reports: pdf: image: %v", err))
	}
	c.imgs++
	name := fmt.Sprintf("image%03d", c.imgs)
	opts := fpdf.ImageOptions{ImageType: "png"}
	c.doc.RegisterImageOptionsReader(name, opts, &b)
	c.Push()
	c.Translate(vg.Point{X: rect.Min.X, Y: rect.Max.Y})
	c.Scale(1, -1)
	c.doc.ImageOptions(name, 0, 0, rect.Size().X.Points(), rect.Size().Y.Points(), false, opts, 0, "")
	c.Pop()
}

// WriteTo writes the PDF; the canvas is finished.
func (c *pdfCanvas) WriteTo(w io.Writer) (int64, error) {
	c.Pop()
	var b bytes.Buffer
	if err := c.doc.Output(&b); err != nil {
		return 0, err
	}
	return b.WriteTo(w)
}
