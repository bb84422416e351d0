package reports

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

func TestSeconds(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		s    float64
		want string
	}{{1e-7, "100 ns"}, {1e-6, "1 µs"}, {2.5e-5, "25 µs"}, {1e-3, "1 ms"}, {0.25, "250 ms"}, {1, "1 s"}, {90, "1.5 min"}, {7200, "2 h"}, {0, "0 s"}} {
		if got := Seconds(c.s); got != c.want {
			t.Errorf("Seconds(%g) = %q, want %q", c.s, got, c.want)
		}
	}
}

func TestNiceMax(t *testing.T) {
	t.Parallel()
	// The round values at or above x: 191 → 200, 0.93 → 1, 0.134 → 0.15.
	for _, c := range []struct{ x, want float64 }{{191.25, 200}, {0.93, 1}, {0.134, 0.15}, {40, 40}, {0, 1}, {3.95, 4}} {
		if got := niceMax(c.x); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("niceMax(%g) = %g, want %g", c.x, got, c.want)
		}
	}
}

// Ticks over [0, 191]: step 50 (191/50 ≈ 3.8 ≤ 8 at the first mantissa
// that fits after 20 and 25 give 9.6 and 7.6 → 25 fits: 191/25 = 7.64).
func TestPlainTicks(t *testing.T) {
	t.Parallel()
	var labels []string
	for _, tk := range (plainTicks{}).Ticks(0, 191) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if got := strings.Join(labels, " "); got != "0 25 50 75 100 125 150 175" {
		t.Errorf("labels %q", got)
	}
	for _, tk := range (plainTicks{}).Ticks(-1e-17, 1) {
		if tk.Label == "-0" {
			t.Errorf("a -0 label")
		}
	}
}

// Families: 20 policies split into panels of at most MaxSeries, each
// policy once; names of no known family are new mechanisms.
func TestPanels(t *testing.T) {
	t.Parallel()
	if Family("sjf") != FamilyBaselines || Family("sjf-bsbf") != FamilySeed || Family("gavel-ftf") != FamilyGavel || Family("drf-new") != FamilyNew {
		t.Errorf("families: %s %s %s %s", Family("sjf"), Family("sjf-bsbf"), Family("gavel-ftf"), Family("drf-new"))
	}
	seen := map[string]int{}
	for _, p := range Panels(manyPolicies) {
		for _, s := range p.Series {
			seen[s]++
		}
	}
	for _, p := range manyPolicies {
		if seen[p] != 1 {
			t.Errorf("%s in %d panels", p, seen[p])
		}
	}
	if len(Panels([]string{"a", "b"})) != 1 {
		t.Errorf("two series need one panel")
	}
	// 27 series in one panel would all have their own style.
	styles := map[string]bool{}
	for i := 0; i < 27; i++ {
		l := LineStyle(i)
		styles[fmt.Sprint(l.Color, l.Dashes)] = true
	}
	if len(styles) != 27 {
		t.Errorf("%d distinct line styles among 27 series", len(styles))
	}
}

// Axis paths in words: structural names read from the spec.
func TestAxisLabel(t *testing.T) {
	t.Parallel()
	s := syntheticSet(t, []string{"fifo"}, []map[string]any{{"cluster.servers[0].count": 2.0}}, []int64{1})
	for _, c := range []struct{ axis, want string }{
		{"cluster.servers[0].count", "V100 servers"},
		{"cluster.servers[1].gpus_per_server", "GPUs per K80 server"},
		{"workload.arrival_rate_per_hour", "arrival rate (jobs/h)"},
		{"preemption.restore_seconds", "restore (s)"},
		{`preemption.seconds["A3C"]`, "seconds (A3C)"},
	} {
		if got := s.axisLabel(c.axis); got != c.want {
			t.Errorf("axisLabel(%s) = %q, want %q", c.axis, got, c.want)
		}
	}
}

// A figure's PDF is the same bytes every time.
func TestPDFDeterministic(t *testing.T) {
	t.Parallel()
	f := &Figure{Name: "x", Title: "ρ → —", Tiles: nil, Width: 2 * vg.Inch, Height: vg.Inch}
	a, err := f.PDF()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := f.PDF()
	if string(a) != string(b) {
		t.Error("two renderings of a PDF differ")
	}
}
