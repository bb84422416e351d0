package reports

import (
	"bytes"
	"encoding/xml"
	"flag"
	"image"
	"image/png"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unsafe"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgimg"
)

var update = flag.Bool("update", false, "rewrite the golden figure images in testdata/golden")

// kinds maps a figure kind to the name of the figure that stands for it
// (in the synthetic reports).
var kinds = map[string]string{
	"policy_bars":      "mean_jct",
	"sweep":            "mean_jct_vs_workload_arrival_rate_per_hour_at1",
	"jct_cdf":          "jct_cdf",
	"rho_cdf":          "rho_cdf",
	"starvation_cdf":   "starvation_cdf",
	"utilisation":      "utilisation",
	"user_share":       "user_share_gandiva_fair",
	"solver_time":      "solver_time",
	"trades":           "gandiva_trades",
	"calibration_dots": "calibration_throughput",
	"calibration_bars": "calibration_power",
	"property_matrix":  "property_matrix",
}

func allFigures(t *testing.T) []*Figure {
	t.Helper()
	var out []*Figure
	for _, r := range syntheticReports(t) {
		out = append(out, r.Figures...)
	}
	return out
}

func figureNamed(t *testing.T, figs []*Figure, name string) *Figure {
	t.Helper()
	for _, f := range figs {
		if f.Name == name {
			return f
		}
	}
	t.Fatalf("no figure %s", name)
	return nil
}

// plottersOf reads a plot's plotters (gonum keeps them unexported; the
// test reads them to check their data against the axes).
func plottersOf(p *plot.Plot) []plot.Plotter {
	f := reflect.ValueOf(p).Elem().FieldByName("plotters")
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Interface().([]plot.Plotter)
}

// Every figure's data lies inside its axes: the data range of every
// plotter of every panel is within the panel's axis range (so nothing is
// cut), and fraction axes run [0, 1].
func TestDataInsideAxes(t *testing.T) {
	t.Parallel()
	figs := allFigures(t)
	_, r := writeFixtureReport(t, Options{})
	figs = append(figs, r.Figures...)
	for _, f := range figs {
		for _, row := range f.Tiles {
			for _, p := range row {
				if p == nil {
					continue
				}
				for _, d := range plottersOf(p) {
					dr, ok := d.(plot.DataRanger)
					if !ok {
						continue
					}
					xmin, xmax, ymin, ymax := dr.DataRange()
					eps := 1e-9 * (1 + math.Abs(p.X.Max-p.X.Min) + math.Abs(p.Y.Max-p.Y.Min))
					if xmin < p.X.Min-eps || xmax > p.X.Max+eps || ymin < p.Y.Min-eps || ymax > p.Y.Max+eps {
						t.Errorf("%s: %T spans x [%g, %g], y [%g, %g], outside the axes x [%g, %g], y [%g, %g]",
							f.Name, d, xmin, xmax, ymin, ymax, p.X.Min, p.X.Max, p.Y.Min, p.Y.Max)
					}
				}
				if strings.Contains(p.Y.Label.Text, "fraction") && (p.Y.Min != 0 || p.Y.Max != 1) {
					t.Errorf("%s: a fraction axis runs [%g, %g], want [0, 1]", f.Name, p.Y.Min, p.Y.Max)
				}
			}
		}
	}
}

// Legends sit outside every data area and inside the figure; a figure
// with more than MaxSeries policies draws them in panels of at most
// MaxSeries.
func TestLegendsOutsideData(t *testing.T) {
	t.Parallel()
	for _, f := range allFigures(t) {
		lay := f.Draw(vgimg.New(f.Width, f.Height))
		page := vg.Rectangle{Max: vg.Point{X: f.Width, Y: f.Height}}
		for _, l := range lay.Legends {
			if !inside(l, page) {
				t.Errorf("%s: legend %v leaves the figure %v", f.Name, l, page)
			}
			for _, d := range lay.Data {
				if overlap(l, d) {
					t.Errorf("%s: legend %v overlaps the data area %v", f.Name, l, d)
				}
			}
		}
		if len(lay.Data) == 0 {
			t.Errorf("%s: no data area", f.Name)
		}
	}
	for _, p := range Panels(manyPolicies) {
		if len(p.Series) > MaxSeries {
			t.Errorf("panel %s has %d series", p.Title, len(p.Series))
		}
	}
}

func inside(a, b vg.Rectangle) bool {
	return a.Min.X >= b.Min.X && a.Min.Y >= b.Min.Y && a.Max.X <= b.Max.X && a.Max.Y <= b.Max.Y
}

func overlap(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}

// svgTexts are the texts an SVG draws.
func svgTexts(t *testing.T, svg []byte) []string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(svg))
	var out []string
	in := false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		switch x := tok.(type) {
		case xml.StartElement:
			in = x.Name.Local == "text"
		case xml.CharData:
			if in {
				out = append(out, string(x))
			}
		case xml.EndElement:
			in = false
		}
	}
}

func squeeze(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// Every PDF holds the same text as the SVG, in Unicode: pdftotext (poppler)
// reads back each text the figure draws, ρ, → and — included, and none of
// the mojibake of a Windows-1252 encoding (Ï, â€).
func TestPDFText(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Fatalf("the PDF test needs pdftotext (Debian's poppler-utils; `make test` installs it): %v", err)
	}
	dir := t.TempDir()
	seen := map[rune]bool{}
	for _, f := range allFigures(t) {
		pdf, err := f.PDF()
		if err != nil {
			t.Fatal(err)
		}
		svg, err := f.SVG()
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, f.Name+".pdf")
		if err := os.WriteFile(path, pdf, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("pdftotext", "-enc", "UTF-8", path, "-").Output()
		if err != nil {
			t.Fatalf("pdftotext %s: %v", path, err)
		}
		text := squeeze(string(out))
		for _, bad := range []string{"Ï", "â€", "Â"} {
			if strings.Contains(text, bad) {
				t.Errorf("%s.pdf: garbled text (%q): %s", f.Name, bad, out)
			}
		}
		for _, s := range svgTexts(t, svg) {
			if !strings.Contains(text, squeeze(s)) {
				t.Errorf("%s.pdf: pdftotext does not read back %q", f.Name, s)
			}
			for _, r := range s {
				seen[r] = true
			}
		}
	}
	for _, r := range "ρ→·×" {
		if !seen[r] {
			t.Errorf("no figure drew %q, so the test did not check it", r)
		}
	}
}

// A golden PNG per kind of figure, compared with a tolerance for
// anti-aliasing: at most 0.5% of the pixels may differ by more than 64 in
// a channel. go test ./reports -run TestGoldenFigures -update rewrites
// them.
func TestGoldenFigures(t *testing.T) {
	t.Parallel()
	figs := allFigures(t)
	for kind, name := range kinds {
		f := figureNamed(t, figs, name)
		b, err := f.PNG(40)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", "golden", kind+".png")
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test ./reports -run TestGoldenFigures -update writes it)", err)
		}
		if d, n := pixelDiff(t, b, want); d > n/200 {
			t.Errorf("%s (%s): %d of %d pixels differ from %s", kind, name, d, n, path)
			_ = os.WriteFile(filepath.Join(t.TempDir(), kind+".png"), b, 0o644)
		}
	}
}

// The comparison tells figures apart: two kinds differ in far more than
// the tolerance.
func TestGoldenComparisonCanFail(t *testing.T) {
	t.Parallel()
	a, err := os.ReadFile(filepath.Join("testdata", "golden", "jct_cdf.png"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join("testdata", "golden", "rho_cdf.png"))
	if err != nil {
		t.Fatal(err)
	}
	if d, n := pixelDiff(t, a, b); d <= n/200 {
		t.Errorf("the JCT and ρ CDFs differ in only %d of %d pixels", d, n)
	}
}

func pixelDiff(t *testing.T, a, b []byte) (diff, total int) {
	t.Helper()
	ia, err := png.Decode(bytes.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	ib, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if ia.Bounds() != ib.Bounds() {
		return ia.Bounds().Dx() * ia.Bounds().Dy(), ia.Bounds().Dx() * ia.Bounds().Dy()
	}
	r := ia.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if far(ia, ib, x, y) {
				diff++
			}
		}
	}
	return diff, r.Dx() * r.Dy()
}

func far(a, b image.Image, x, y int) bool {
	r1, g1, b1, _ := a.At(x, y).RGBA()
	r2, g2, b2, _ := b.At(x, y).RGBA()
	d := func(p, q uint32) bool { return math.Abs(float64(p>>8)-float64(q>>8)) > 64 }
	return d(r1, r2) || d(g1, g2) || d(b1, b2)
}
