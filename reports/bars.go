package reports

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// barPlot is a grouped bar chart: one group per category, one bar per
// series within it (values[series][category]; NaN leaves a gap). width is
// the width of the plot it will be drawn in, which sets the bar width.
func barPlot(title, xlabel, ylabel string, categories, series []string, values [][]float64, width vg.Length) (*plot.Plot, error) {
	pl := newPlot(title, xlabel, ylabel)
	n, m := len(categories), len(series)
	if n == 0 || m == 0 {
		return emptyPlot(title, "nothing to draw"), nil
	}
	data := width - vg.Inch // less the axis and its labels
	bw := min(vg.Inch/4, 0.8*data/vg.Length(n)/vg.Length(m))
	bw = max(bw, vg.Points(1))
	for i := range series {
		vs := make(plotter.Values, n)
		for c := range vs {
			v := values[i][c]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				v = 0
			}
			vs[c] = v
		}
		b, err := plotter.NewBarChart(vs, bw)
		if err != nil {
			return nil, err
		}
		b.Color = palette[i%len(palette)]
		b.LineStyle.Width = 0
		b.Offset = vg.Length(float64(i)-float64(m-1)/2) * bw
		pl.Add(b)
		if m > 1 {
			pl.Legend.Add(series[i], b)
		}
	}
	nominalX(pl, categories)
	floorZero(pl)
	pl.Legend.Left = false
	if m > 1 {
		legendRoom(pl, m)
	}
	return pl, nil
}
