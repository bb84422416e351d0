package reproduce

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"fairbench/reports"
)

// The verdict rules on hand-picked values. Range 1.37–1.74: the band is
// [0.75·1.37, 1.25·1.74] = [1.0275, 2.175].
func TestJudge(t *testing.T) {
	t.Parallel()
	r := Target{Lo: 1.37, Hi: 1.74}
	for _, c := range []struct {
		t    Target
		v    float64
		want Verdict
	}{
		{r, 1.5, Reproduced}, {r, 1.03, Reproduced}, {r, 2.17, Reproduced},
		{r, 1.02, DirectionOnly}, {r, 2.2, DirectionOnly},
		{r, 0.9, NotReproduced}, {r, 1, NotReproduced}, {r, math.NaN(), NotRun},
		{Target{Lo: 1, AtLeast: true}, 0.995, Reproduced}, // within the 1% slack
		{Target{Lo: 1, AtLeast: true}, 0.98, NotReproduced},
		{Target{Hi: 1.53, AtMost: true}, 0.05, Reproduced},
		{Target{Hi: 1.53, AtMost: true}, 2, NotReproduced},
	} {
		if got := c.t.judge(c.v); got != c.want {
			t.Errorf("%+v judge(%v) = %v, want %v", c.t, c.v, got, c.want)
		}
	}
	// Distance: 0 inside the band; log(band edge / v) outside.
	if d := r.distance(1.5); d != 0 {
		t.Errorf("distance inside %v", d)
	}
	if d, want := r.distance(0.5), math.Log(1.0275/0.5); math.Abs(d-want) > 1e-12 {
		t.Errorf("distance %v, want %v", d, want)
	}
}

// fakeResults is a set of two points whose values a check reads from vals.
func fakeResults(policies ...string) *Results {
	s := &reports.Set{Points: []*reports.Point{{Label: "p0", Index: 0}, {Label: "p1", Index: 1}}, Policies: policies}
	return &Results{Set: s}
}

func pointValue(vals ...float64) func(*Results, *reports.Point) (float64, bool) {
	return func(_ *Results, p *reports.Point) (float64, bool) { return vals[p.Index], true }
}

// measure reduces over points: the largest for "up to", else the mean;
// NaN when a needed policy did not run.
func TestMeasure(t *testing.T) {
	t.Parallel()
	r := fakeResults("a", "b")
	c := Check{Value: pointValue(1.2, 2.0), Target: Target{Lo: 2, Hi: 2, UpTo: true}, Needs: []string{"a", "b"}}
	if v := c.measure(r); v != 2 {
		t.Errorf("up to: %v", v)
	}
	c.Target.UpTo = false
	if v := c.measure(r); math.Abs(v-1.6) > 1e-12 {
		t.Errorf("mean: %v", v)
	}
	c.Needs = []string{"a", "missing"}
	if v := c.measure(r); !math.IsNaN(v) {
		t.Errorf("missing policy: %v", v)
	}
}

// The cause names the variation that brings a headline closest to the
// paper's number, and says when one reproduces it.
func TestCause(t *testing.T) {
	t.Parallel()
	c := &Check{Target: Target{Lo: 1.5, Hi: 1.5}, Format: "%.2f×", Needs: []string{"a"}}
	mk := func(name string) sensitivityRun {
		return sensitivityRun{Variation: Variation{Name: name, What: "w-" + name}, results: fakeResults("a")}
	}
	runs := []sensitivityRun{mk("far"), mk("near"), mk("worse")}
	vals := map[*Results]float64{runs[0].results: 0.8, runs[1].results: 1.3, runs[2].results: 0.5}
	c.Value = func(r *Results, _ *reports.Point) (float64, bool) { return vals[r], true }
	got := cause(c, 0.7, runs)
	if !strings.HasPrefix(got, "near (w-near) reproduces it: 1.30×") {
		t.Errorf("cause %q", got)
	}
	vals[runs[1].results] = 0.6
	if got := cause(c, 0.9, runs); !strings.Contains(got, "no single setting") {
		t.Errorf("no better variation: %q", got)
	}
	if got := cause(c, 0.9, nil); !strings.Contains(got, "no sensitivity runs") {
		t.Errorf("none: %q", got)
	}
}

// A variation sets nested scenario keys and keeps the others.
func TestVariationApply(t *testing.T) {
	t.Parallel()
	v := Variation{Set: map[string]any{"workload.arrival_rate_per_hour": 1.8, "preemption.seconds": map[string]any{"A3C": 86}}}
	out, err := v.apply([]byte("seed: 0\nworkload:\n  jobs: 10\n  arrival_rate_per_hour: 0.9\n"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	w := doc["workload"].(map[string]any)
	if w["arrival_rate_per_hour"] != 1.8 || w["jobs"] != 10 || doc["preemption"].(map[string]any)["seconds"].(map[string]any)["A3C"] != 86 {
		t.Errorf("applied: %v", doc)
	}
	// Swapped and optioned policies.
	ps := Variation{Swap: map[string]string{"x": "y"}, Options: map[string]map[string]any{"y": {"k": 1}, "z": {"m": 2}}}.
		policies([]Policy{{Name: "x", Options: map[string]any{"old": 1}}, {Name: "z"}})
	if ps[0].Name != "y" || ps[0].Options["k"] != 1 || ps[0].Options["old"] != nil || ps[1].Options["m"] != 2 {
		t.Errorf("policies %+v", ps)
	}
}

// The verdict table keeps to 100 columns where the values allow, and
// tallies the verdicts.
func TestPrintVerdicts(t *testing.T) {
	t.Parallel()
	js := []Judgement{
		{Experiment: "fft", Metric: "mean JCT, Gavel ÷ FFT", Paper: "1.37–1.74×", Ours: "1.84×", Verdict: DirectionOnly,
			Cause: strings.Repeat("a long measured cause ", 12)},
		{Experiment: "fft", Metric: "mean ρ, Gavel ÷ FFT", Paper: "1.64×", Ours: "1.45×", Verdict: Reproduced},
	}
	var b bytes.Buffer
	PrintVerdicts(&b, js)
	for _, l := range strings.Split(b.String(), "\n") {
		if n := len([]rune(l)); n > 100 {
			t.Errorf("%d columns: %q", n, l)
		}
	}
	if !strings.Contains(b.String(), "1 of 2 headlines reproduced (50%), 2 of 2 in the paper's direction.") ||
		!strings.Contains(b.String(), "direction only [1]") {
		t.Errorf("output:\n%s", b.String())
	}
}
