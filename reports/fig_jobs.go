package reports

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"fairbench/sim"
)

// maxLinePoints bounds the points drawn per line; the CSV keeps them all.
const maxLinePoints = 1500

// suffix names a per-point figure: "" when the set has one point, else
// "_p<N>" (N from 1; tables/points lists the points).
func (s *Set) suffix(p *Point) string {
	if len(s.Points) == 1 {
		return ""
	}
	return fmt.Sprintf("_p%d", p.Index+1)
}

// seedsNote says which seeds a per-point figure pools.
func (s *Set) seedsNote() string {
	if len(s.Seeds) == 1 {
		return fmt.Sprintf("seed %d", s.Seeds[0])
	}
	return "jobs of every seed pooled"
}

// cdfSpec describes one per-job CDF figure. Every one is drawn on a log
// axis: job times span decades. Values at or below zero (a job that
// started at once) cannot sit on a log axis; they are counted at its left
// edge, which the label says.
type cdfSpec struct {
	name, title, xlabel, column, caption string
	value                                func(j *sim.JobResult) float64
	vline                                float64 // a reference line (ρ = 1); 0 = none
	vlabel                               string
}

var cdfSpecs = []cdfSpec{
	{name: "jct_cdf", title: "Job completion time", xlabel: "JCT (hours, log scale)", column: "jct_h",
		caption: "Empirical CDF of job completion time (finish − arrival) per policy; curves further left and higher are better.",
		value:   func(j *sim.JobResult) float64 { return j.JCT / 3600 }},
	{name: "rho_cdf", title: "Finish-time fairness ρ", xlabel: "ρ = JCT / isolated JCT (log scale)", column: "rho", vline: 1, vlabel: "ρ = 1",
		caption: "Empirical CDF of finish-time fairness ρ (Themis, Mahajan et al., NSDI 2020) per policy; jobs right of ρ = 1 (dashed) were treated unfairly.",
		value:   func(j *sim.JobResult) float64 { return j.Rho }},
	{name: "starvation_cdf", title: "Starvation time", xlabel: "time from arrival to first run (hours, log scale)", column: "starvation_h",
		caption: "Empirical CDF of starvation time (arrival to first run) per policy; jobs that started at once (0 h) are counted at the left edge of the log axis.",
		value:   func(j *sim.JobResult) float64 { return j.Starvation / 3600 }},
}

// cdfFigures draws each cdfSpec at each grid point, one line per policy
// pooling the jobs of every seed.
func (s *Set) cdfFigures() ([]*Figure, error) {
	var out []*Figure
	for _, spec := range cdfSpecs {
		for _, p := range s.Points {
			f, err := s.cdfFigure(spec, p)
			if err != nil {
				return nil, err
			}
			out = append(out, f)
		}
	}
	return out, nil
}

func (s *Set) cdfFigure(spec cdfSpec, p *Point) (*Figure, error) {
	data := &Table{Header: []string{"policy", spec.column, "cdf"}}
	values := map[string][]float64{}
	lo, hi := math.Inf(1), math.Inf(-1) // positive values only
	zeros := false
	for _, pol := range s.Policies {
		var xs []float64
		for _, r := range s.group(p, pol) {
			for k := range r.Record.Result.Jobs {
				if r.Record.Result.Jobs[k].Unfinished {
					continue // a run stopped with its window done: no JCT, ρ or (maybe) start
				}
				x := spec.value(&r.Record.Result.Jobs[k])
				if math.IsNaN(x) || math.IsInf(x, 0) {
					continue
				}
				xs = append(xs, x)
				if x > 0 {
					lo, hi = math.Min(lo, x), math.Max(hi, x)
				} else {
					zeros = true
				}
			}
		}
		slices.Sort(xs)
		n := float64(len(xs))
		for k, x := range xs {
			data.Rows = append(data.Rows, []string{pol, f64(x), f64(float64(k+1) / n)})
		}
		values[pol] = xs
	}
	title := s.titleAt(spec.title, p)
	fig := &Figure{Name: spec.name + s.suffix(p), Title: title,
		Subtitle: s.subtitle(p, s.seedsNote()),
		Caption:  spec.caption + " " + capitalise(s.scenarioNote()) + "; " + s.seedsNote() + ".",
		Width:    FigWidth, Data: data}
	if math.IsInf(lo, 0) {
		fig.Tiles = [][]*plot.Plot{{emptyPlot("", "no job with a positive value to draw")}}
		fig.Height = FigHeight
		return fig, nil
	}
	// The log axis: whole decades around the data; zeros at its left edge.
	left, right := math.Floor(lg(lo)), math.Ceil(lg(hi))
	if right <= left {
		right = left + 1
	}
	if zeros && lg(lo) == left {
		left-- // keep the jump at zero apart from the smallest value
	}
	xlabel := spec.xlabel
	if zeros {
		xlabel += "; 0 at the left edge"
	}
	tiles, err := s.policyPanels(func(ptitle string, pols []string, idx map[string]int) (*plot.Plot, error) {
		pl := NewPlot(ptitle, xlabel, "fraction of jobs")
		for _, pol := range pols {
			xs := values[pol]
			if len(xs) == 0 {
				continue
			}
			drawn := make([]float64, len(xs))
			for k, x := range xs {
				drawn[k] = left
				if x > 0 {
					drawn[k] = lg(x)
				}
			}
			l, err := plotter.NewLine(ecdf(drawn))
			if err != nil {
				return nil, err
			}
			l.StepStyle = plotter.PostStep
			l.LineStyle = LineStyle(idx[pol])
			pl.Add(l)
			pl.Legend.Add(pol, l)
		}
		if spec.vline > 0 && lo <= spec.vline && spec.vline <= hi {
			addVLine(pl, lg(spec.vline), spec.vlabel)
		}
		LogAxis(&pl.X, nil)
		pl.X.Min, pl.X.Max = left, right
		pl.Y.Min, pl.Y.Max = 0, 1
		return pl, nil
	})()
	if err != nil {
		return nil, fmt.Errorf("reports: %s: %w", spec.name, err)
	}
	fig.Tiles, fig.Height = tiles, panelsHeight(tiles)
	return fig, nil
}

// addVLine draws a thin dashed reference line at x across [0, 1] and
// names it in the legend.
func addVLine(pl *plot.Plot, x float64, label string) {
	v, err := plotter.NewLine(plotter.XYs{{X: x, Y: 0}, {X: x, Y: 1}})
	if err != nil {
		return
	}
	v.LineStyle.Color = subtitleColour
	v.LineStyle.Width = vg.Points(0.75)
	v.LineStyle.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
	pl.Add(v)
	pl.Legend.Add(label, v)
}

// ecdf is the step line of the empirical CDF of sorted xs: (x₁, 0), then
// (x_k, k/n); at most maxLinePoints points, taken at evenly spaced ranks
// (with the last) when there are more.
func ecdf(xs []float64) plotter.XYs {
	n := len(xs)
	pts := plotter.XYs{{X: xs[0], Y: 0}}
	step := 1
	if n > maxLinePoints {
		step = (n + maxLinePoints - 1) / maxLinePoints
	}
	for k := 0; k < n; k += step {
		pts = append(pts, plotter.XY{X: xs[k], Y: float64(k+1) / float64(n)})
	}
	if last := pts[len(pts)-1]; last.Y != 1 {
		pts = append(pts, plotter.XY{X: xs[n-1], Y: 1})
	}
	return pts
}
