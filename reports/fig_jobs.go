package reports

import (
	"fmt"
	"math"
	"slices"
	"strings"

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

// titleAt adds the point to a figure title when the set has several.
func (s *Set) titleAt(title string, p *Point) string {
	if len(s.Points) == 1 {
		return title
	}
	parts := make([]string, len(s.Axes))
	for i, a := range s.Axes {
		parts[i] = axisLabel(a) + " = " + formatValue(p.Values[a])
	}
	return title + " — " + strings.Join(parts, ", ")
}

// seedsNote says which seeds a per-point figure pools.
func (s *Set) seedsNote() string {
	if len(s.Seeds) == 1 {
		return fmt.Sprintf("seed %d", s.Seeds[0])
	}
	parts := make([]string, len(s.Seeds))
	for i, sd := range s.Seeds {
		parts[i] = fmt.Sprint(sd)
	}
	return "jobs of seeds " + strings.Join(parts, ", ") + " pooled"
}

// cdfSpec describes one per-job CDF figure.
type cdfSpec struct {
	name, title, xlabel, column, caption string
	value                                func(j *sim.JobResult) float64
	logX                                 bool
	vline                                float64 // a reference line (ρ = 1); 0 = none
}

var cdfSpecs = []cdfSpec{
	{name: "jct_cdf", title: "Job completion time", xlabel: "JCT (hours, log scale)", column: "jct_h", logX: true,
		caption: "Empirical CDF of job completion time (finish − arrival) per policy.",
		value:   func(j *sim.JobResult) float64 { return j.JCT / 3600 }},
	{name: "rho_cdf", title: "Finish-time fairness ρ", xlabel: "ρ = JCT / isolated JCT (log scale)", column: "rho", logX: true, vline: 1,
		caption: "Empirical CDF of finish-time fairness ρ (Themis, Mahajan et al., NSDI 2020) per policy; jobs right of ρ = 1 were treated unfairly.",
		value:   func(j *sim.JobResult) float64 { return j.Rho }},
	{name: "starvation_cdf", title: "Starvation time", xlabel: "time from arrival to first run (hours)", column: "starvation_h",
		caption: "Empirical CDF of starvation time (arrival to first run) per policy.",
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
	pl := newPlot(s.titleAt(spec.title, p), spec.xlabel, "fraction of jobs")
	pl.Legend.Top, pl.Legend.Left = false, false // bottom right, below the curves
	pl.Y.Min, pl.Y.Max = 0, 1
	data := &Table{Header: []string{"policy", spec.column, "cdf"}}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, pol := range s.Policies {
		var xs []float64
		for _, r := range s.group(p, pol) {
			for k := range r.Record.Result.Jobs {
				x := spec.value(&r.Record.Result.Jobs[k])
				if spec.logX && x <= 0 {
					continue // not drawable on a log axis; kept out of the CSV too
				}
				xs = append(xs, x)
			}
		}
		if len(xs) == 0 {
			continue
		}
		slices.Sort(xs)
		n := float64(len(xs))
		for k, x := range xs {
			data.Rows = append(data.Rows, []string{pol, f64(x), f64(float64(k+1) / n)})
		}
		lo, hi = math.Min(lo, xs[0]), math.Max(hi, xs[len(xs)-1])
		drawn := xs
		if spec.logX {
			drawn = make([]float64, len(xs))
			for k, x := range xs {
				drawn[k] = lg(x)
			}
		}
		pts := ecdf(drawn)
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, fmt.Errorf("reports: %s: %w", spec.name, err)
		}
		l.StepStyle = plotter.PostStep
		l.LineStyle = lineStyle(i)
		pl.Add(l)
		pl.Legend.Add(pol, l)
	}
	if spec.logX {
		logAxis(&pl.X)
	}
	if spec.vline > 0 && lo <= spec.vline && spec.vline <= hi {
		x := spec.vline
		if spec.logX {
			x = lg(x)
		}
		v, _ := plotter.NewLine(plotter.XYs{{X: x, Y: 0}, {X: x, Y: 1}})
		v.LineStyle.Color = palette[len(palette)-1]
		v.LineStyle.Width = vg.Points(0.5)
		v.LineStyle.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
		pl.Add(v)
	}
	if len(data.Rows) == 0 {
		pl = emptyPlot(pl.Title.Text, "no jobs to draw")
	}
	return &Figure{
		Name: spec.name + s.suffix(p), Title: s.titleAt(spec.title, p),
		Caption: spec.caption + " " + capitalise(s.seedsNote()) + ".",
		Tiles:   [][]*plot.Plot{{pl}}, Width: figWidth, Height: figHeight, Data: data,
	}, nil
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

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
