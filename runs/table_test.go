package runs

import (
	"strings"
	"testing"

	"fairbench/internal/texttable"
	"fairbench/sim"
)

func rec(policy string, seed int64, point map[string]any, jct float64) *Record {
	return &Record{Policy: policy, Seed: seed, Point: point,
		Result: &sim.Result{Summary: sim.Summary{Jobs: 10, MeanJCT: jct, MeanRho: jct / 3600, Unfair: 0.25}}}
}

// Two seeds of fifo with mean JCTs of 1 h and 2 h: mean 1.5 h, sample
// standard deviation √((0.5² + 0.5²)/1) = 0.7071 h → "1.50 ± 0.71"; one
// seed of srtf prints its value alone. Without grid axes there is no point
// heading and no point column.
func TestTableMeanAndSpread(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	recs := []*Record{rec("fifo", 1, nil, 3600), rec("fifo", 2, nil, 7200), rec("srtf", 1, nil, 1800)}
	if err := Table(&b, recs, texttable.DefaultWidth); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lines := strings.Split(out, "\n")
	for len(lines) > 0 && !strings.HasPrefix(lines[0], "policy") { // a header may take two lines
		lines = lines[1:]
	}
	if len(lines) < 3 || strings.Contains(out, "point") {
		t.Fatalf("no header line starting with policy, or a point column:\n%s", out)
	}
	if !strings.Contains(lines[1], "fifo") || !strings.Contains(lines[1], "1.50 ± 0.71") || !strings.Contains(lines[1], "25.0") {
		t.Errorf("fifo row: %q", lines[1])
	}
	if !strings.Contains(lines[2], "srtf") || !strings.Contains(lines[2], "0.50") || strings.Contains(lines[2], "±") {
		t.Errorf("srtf row: %q", lines[2])
	}
	if !strings.Contains(out, "sample standard deviation") {
		t.Errorf("no note on the spread:\n%s", out)
	}
	for _, l := range lines {
		if texttable.Width(l) > texttable.DefaultWidth {
			t.Errorf("line wider than %d: %q", texttable.DefaultWidth, l)
		}
	}
}

// Grid points become headings, their policies under them; every line
// fits 100 columns, and width 0 prints every column.
func TestTableGridPoints(t *testing.T) {
	t.Parallel()
	var recs []*Record
	for _, rate := range []float64{2, 6} {
		pt := map[string]any{"workload.arrival_rate_per_hour": rate, "seed": 1.0, "policies": "x"}
		for _, p := range []string{"sjf-bsbf-consolidated", "gavel-max-throughput"} {
			for seed := int64(0); seed < 3; seed++ {
				recs = append(recs, rec(p, seed, pt, 3600*float64(100+seed)))
			}
		}
	}
	var b strings.Builder
	if err := Table(&b, recs, texttable.DefaultWidth); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Count(out, "workload.arrival_rate_per_hour = ") != 2 || strings.Contains(out, "seed =") {
		t.Errorf("want one heading per point, without seed:\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if texttable.Width(l) > texttable.DefaultWidth {
			t.Errorf("line wider than %d: %q", texttable.DefaultWidth, l)
		}
	}
	b.Reset()
	if err := Table(&b, recs, 0); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "migrate") || strings.Contains(b.String(), "--wide") {
		t.Errorf("width 0 should print every column:\n%s", b.String())
	}
}
