package reports

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// chromiumPath is Debian's chromium, which `make test` installs.
const chromiumPath = "/usr/bin/chromium"

// probe is put at the top of a copy of the report's page: it records every
// script error, resource load error and console error or warning, and
// after the load event writes, into a <pre id="render-check">, the size
// each figure's SVG is laid out at, the size of what it draws, and the
// errors.
const probe = `<script>
window.__errors = [];
window.addEventListener('error', function (e) {
  var what = e.message || (e.target && (e.target.src || e.target.href || e.target.outerHTML)) || String(e);
  window.__errors.push('error: ' + what);
}, true);
window.addEventListener('unhandledrejection', function (e) { window.__errors.push('unhandled rejection: ' + e.reason); });
['error', 'warn'].forEach(function (k) {
  var orig = console[k];
  console[k] = function () { window.__errors.push('console.' + k + ': ' + Array.prototype.join.call(arguments, ' ')); orig.apply(console, arguments); };
});
function ov(a, b, tol) { return a.left < b.right - tol && b.left < a.right - tol && a.top < b.bottom - tol && b.top < a.bottom - tol; }
function within(a, b, tol) { return a.left >= b.left - tol && a.right <= b.right + tol && a.top >= b.top - tol && a.bottom <= b.bottom + tol; }
window.addEventListener('load', function () {
  var out = {figures: [], errors: window.__errors, tables: document.querySelectorAll('table').length, layout: []};
  document.querySelectorAll('figure').forEach(function (f) {
    var svg = f.querySelector('svg');
    var r = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
    var b = {width: 0, height: 0};
    try { if (svg) { b = svg.getBBox(); } } catch (err) { window.__errors.push('getBBox ' + f.id + ': ' + err); }
    var card = f.getBoundingClientRect(), cs = getComputedStyle(f);
    out.figures.push({id: f.id, width: r.width, height: r.height, drawn_width: b.width, drawn_height: b.height,
      shapes: svg ? svg.querySelectorAll('path, text').length : 0,
      card_width: card.width - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - parseFloat(cs.borderLeftWidth) - parseFloat(cs.borderRightWidth)});
    if (!svg) { return; }
    // The legends, from the SVG geometry as the browser laid it out.
    var legs = Array.from(svg.querySelectorAll('rect.fb-legend')).map(function (e) { return e.getBoundingClientRect(); });
    var data = Array.from(svg.querySelectorAll('rect.fb-data')).map(function (e) { return e.getBoundingClientRect(); });
    legs.forEach(function (L, i) {
      data.forEach(function (D) { if (ov(L, D, 0.5)) { out.layout.push(f.id + ': legend ' + i + ' overlaps a data area'); } });
    });
    var keys = [];
    svg.querySelectorAll('path').forEach(function (p) {
      var pb = p.getBoundingClientRect();
      if (pb.width * pb.height > 0.5 * r.width * r.height) { return; } // the background
      legs.forEach(function (L, i) {
        if (!ov(pb, L, 0.5)) { return; }
        if (within(pb, L, 1)) { keys.push(pb); return; }
        out.layout.push(f.id + ': a plotted line or shape crosses legend ' + i + ' (' + Math.round(pb.left) + ',' + Math.round(pb.top) + ' ' + Math.round(pb.width) + '×' + Math.round(pb.height) + ')');
      });
    });
    svg.querySelectorAll('text').forEach(function (t) {
      var tb = t.getBoundingClientRect();
      legs.forEach(function (L, i) {
        if (!ov(tb, L, 0.5)) { return; }
        if (!within(tb, L, 2)) { out.layout.push(f.id + ': legend text "' + t.textContent + '" runs out of legend ' + i); }
        keys.forEach(function (k) { if (ov(tb, k, 0.5)) { out.layout.push(f.id + ': legend text "' + t.textContent + '" overlaps a key'); } });
      });
    });
  });
  document.querySelectorAll('table').forEach(function (t) {
    var card = t.closest('.card'), cs = getComputedStyle(card);
    var inner = card.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    var w = t.getBoundingClientRect().width;
    if (w > inner + 1) { out.layout.push('table ' + t.id + ' is ' + Math.round(w) + ' px wide, its card ' + Math.round(inner) + ' px'); }
  });
  var pre = document.createElement('pre');
  pre.id = 'render-check';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>
`

type renderCheck struct {
	Figures []struct {
		ID          string  `json:"id"`
		Width       float64 `json:"width"`
		Height      float64 `json:"height"`
		DrawnWidth  float64 `json:"drawn_width"`
		DrawnHeight float64 `json:"drawn_height"`
		Shapes      int     `json:"shapes"`
		CardWidth   float64 `json:"card_width"`
	}
	Errors []string
	Tables int
	Layout []string
}

var checkRE = regexp.MustCompile(`(?s)<pre id="render-check">(.*?)</pre>`)

// TestReportInChromium opens the fixture's HTML report in headless
// Chromium and checks that every figure is laid out at its card's width
// and draws something, every table is there and fits its card, no legend
// box overlaps a plotted line or a data area (from the SVG geometry as
// the browser laid it out), no legend text runs out of its box or over a
// key, and the page logs no error. Chromium must be installed (Debian's
// chromium at /usr/bin/chromium; `make test` installs it): without it the
// test fails.
func TestReportInChromium(t *testing.T) {
	cal, err := ReadCalibration("testdata/calibration.csv")
	if err != nil {
		t.Fatal(err)
	}
	m, err := ReadMatrix("testdata/matrix.csv")
	if err != nil {
		t.Fatal(err)
	}
	comparison := &NamedTable{Name: "comparison", Title: "Ours beside the paper's",
		Caption: "A comparison table as reproduce writes it.",
		Data:    &Table{Header: []string{"metric", "paper", "ours"}, Rows: [][]string{{"mean JCT ratio", "1.46×", "1.2×"}}}}
	comparison.Display = comparison.Data
	out, r := writeFixtureReport(t, Options{Title: "browser test", Calibration: cal, Matrix: m,
		Comparison: comparison, Notes: []string{"a <note> & its escaping"}})
	checkInChromium(t, out, r)
}

// TestManyPoliciesInChromium: the same checks on the synthetic reports
// of 20 policies (small multiples by family, long names) and of a grid.
func TestManyPoliciesInChromium(t *testing.T) {
	for i, r := range syntheticReports(t) {
		out := filepath.Join(t.TempDir(), fmt.Sprint("r", i))
		if err := r.Write(out); err != nil {
			t.Fatal(err)
		}
		checkInChromium(t, out, r)
	}
}

func checkInChromium(t *testing.T, out string, r *Report) {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("the HTML report test needs Debian's chromium at %s (`make test` installs it, or apt-get install chromium): %v", chromiumPath, err)
	}
	page, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	probed := strings.Replace(string(page), "<head>", "<head>\n"+probe, 1)
	probePath := filepath.Join(out, "probe.html")
	if err := os.WriteFile(probePath, []byte(probed), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromiumPath, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--window-size=1280,2000", "--virtual-time-budget=10000",
		"--enable-logging=stderr", "--v=0", "--dump-dom", "file://"+probePath)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, tail(stderr.String(), 3000))
	}
	mt := checkRE.FindSubmatch(stdout.Bytes())
	if mt == nil {
		t.Fatalf("chromium's DOM has no render check (the probe did not run)\nstderr:\n%s", tail(stderr.String(), 3000))
	}
	var rc renderCheck
	if err := json.Unmarshal([]byte(html.UnescapeString(string(mt[1]))), &rc); err != nil {
		t.Fatalf("render check: %v: %s", err, mt[1])
	}
	if len(rc.Figures) != len(r.Figures) {
		t.Errorf("chromium laid out %d figures, the report has %d", len(rc.Figures), len(r.Figures))
	}
	for _, f := range rc.Figures {
		if f.Width <= 0 || f.Height <= 0 || f.DrawnWidth <= 0 || f.DrawnHeight <= 0 || f.Shapes == 0 {
			t.Errorf("figure %s renders at %.0f×%.0f px, draws %.0f×%.0f with %d shapes; want non-zero",
				f.ID, f.Width, f.Height, f.DrawnWidth, f.DrawnHeight, f.Shapes)
		}
		if math.Abs(f.Width-f.CardWidth) > 2 {
			t.Errorf("figure %s is %.0f px wide in a card of %.0f px; want the card's width", f.ID, f.Width, f.CardWidth)
		}
	}
	if rc.Tables != len(r.Tables) {
		t.Errorf("chromium found %d tables, the report has %d", rc.Tables, len(r.Tables))
	}
	for _, l := range rc.Layout {
		t.Errorf("layout: %s", l)
	}
	for _, e := range rc.Errors {
		t.Errorf("page error: %s", e)
	}
	// Console messages Chromium logged itself (the page logs none).
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, ":CONSOLE") {
			t.Errorf("console: %s", line)
		}
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// TestReportPrintsWhole prints the 20-policy report to PDF in headless
// Chromium (the page's print CSS: A4 landscape) and reads it back with
// pdftotext: every header of every table and every policy is there, so no
// table is cut at the page's edge.
func TestReportPrintsWhole(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("needs Debian's chromium at %s: %v", chromiumPath, err)
	}
	r := syntheticReports(t)[0]
	out := filepath.Join(t.TempDir(), "r")
	if err := r.Write(out); err != nil {
		t.Fatal(err)
	}
	pdf := filepath.Join(t.TempDir(), "print.pdf")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromiumPath, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--user-data-dir="+t.TempDir(),
		"--no-pdf-header-footer", "--print-to-pdf="+pdf, "file://"+filepath.Join(out, "index.html"))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium --print-to-pdf: %v\n%s", err, tail(string(b), 3000))
	}
	text, err := exec.Command("pdftotext", "-enc", "UTF-8", pdf, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	// Hyphens (soft or at a line break) and spaces aside.
	norm := func(s string) string {
		return strings.NewReplacer("\u00ad", "", "-", "", "‐", "").Replace(squeeze(s))
	}
	got := norm(string(text))
	// A header may break across lines (at spaces and soft hyphens): each
	// of its pieces must be there.
	for _, tb := range r.Tables {
		for _, h := range tb.Display.Header {
			for _, piece := range strings.FieldsFunc(h, func(r rune) bool { return r == ' ' || r == '\u00ad' }) {
				if !strings.Contains(got, norm(piece)) {
					t.Errorf("the printed report lacks %q of the column %q of table %s", piece, h, tb.Name)
				}
			}
		}
	}
	for _, p := range manyPolicies {
		if !strings.Contains(got, norm(p)) {
			t.Errorf("the printed report lacks policy %s", p)
		}
	}
}
