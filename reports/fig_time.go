package reports

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"fairbench/sim"
)

// firstSeed is the run of the lowest seed at point p under policy (the one
// whose time series a report draws), nil when there is none.
func (s *Set) firstSeed(p *Point, policy string) *Run {
	rs := s.group(p, policy)
	if len(rs) == 0 {
		return nil
	}
	return rs[0]
}

// seriesTime is the midpoint of each bucket of the series, in hours.
func seriesTime(se *sim.Series, i int) float64 {
	return (se.Start[i] + se.Width/2) / 3600
}

// utilisationFigures draws cluster utilisation over time at each point,
// one line per policy (the lowest seed's run), in panels by family when
// there are many policies.
func (s *Set) utilisationFigures() ([]*Figure, error) {
	var out []*Figure
	for _, p := range s.Points {
		data := &Table{Header: []string{"policy", "seed", "t_h", "bucket_h", "utilisation"}}
		lines := map[string]plotter.XYs{}
		tmax := 0.0
		for _, pol := range s.Policies {
			r := s.firstSeed(p, pol)
			if r == nil {
				continue
			}
			se := &r.Record.Result.Series
			for k := range se.Start {
				if k >= len(se.Utilisation) {
					break
				}
				t := seriesTime(se, k)
				lines[pol] = append(lines[pol], plotter.XY{X: t, Y: se.Utilisation[k]})
				tmax = math.Max(tmax, (se.Start[k]+se.Width)/3600)
				data.Rows = append(data.Rows, []string{pol, fmt.Sprint(r.Record.Seed), f64(t), f64(se.Width / 3600), f64(se.Utilisation[k])})
			}
		}
		fig := &Figure{Name: "utilisation" + s.suffix(p), Title: s.titleAt("Cluster utilisation over time", p),
			Subtitle: s.subtitle(p, fmt.Sprintf("seed %d", s.Seeds[0])),
			Caption:  fmt.Sprintf("Fraction of the cluster's GPUs held by jobs, averaged over buckets of whole rounds, per policy (seed %d). %s.", s.Seeds[0], capitalise(s.scenarioNote())),
			Width:    FigWidth, Data: data}
		if len(data.Rows) == 0 {
			fig.Tiles, fig.Height = [][]*plot.Plot{{emptyPlot("", "no time series in these results")}}, FigHeight
			out = append(out, fig)
			continue
		}
		tiles, err := s.policyPanels(func(title string, pols []string, idx map[string]int) (*plot.Plot, error) {
			pl := NewPlot(title, "time (hours)", "GPUs held (fraction of the cluster)")
			for _, pol := range pols {
				if len(lines[pol]) == 0 {
					continue
				}
				l, err := plotter.NewLine(lines[pol])
				if err != nil {
					return nil, err
				}
				l.LineStyle = LineStyle(idx[pol])
				l.LineStyle.Width = vg.Points(1)
				pl.Add(l)
				pl.Legend.Add(pol, l)
			}
			pl.Y.Min, pl.Y.Max = 0, 1
			pl.X.Min, pl.X.Max = 0, tmax
			return pl, nil
		})()
		if err != nil {
			return nil, fmt.Errorf("reports: utilisation: %w", err)
		}
		fig.Tiles, fig.Height = tiles, panelsHeight(tiles)
		out = append(out, fig)
	}
	return out, nil
}

// shareFigures draws, at each point and for each policy (lowest seed),
// every user's share of the cluster over time against its entitlement.
func (s *Set) shareFigures() ([]*Figure, error) {
	var out []*Figure
	for _, p := range s.Points {
		for _, pol := range s.Policies {
			r := s.firstSeed(p, pol)
			if r == nil || len(r.Record.Result.Series.Share) == 0 {
				continue
			}
			f, err := s.shareFigure(p, pol, r)
			if err != nil {
				return nil, err
			}
			out = append(out, f)
		}
	}
	return out, nil
}

func (s *Set) shareFigure(p *Point, pol string, r *Run) (*Figure, error) {
	se := &r.Record.Result.Series
	pl := NewPlot("", "time (hours)", "share of the cluster's GPUs")
	data := &Table{Header: []string{"user", "t_h", "bucket_h", "share", "entitled"}}
	ymax := 0.0
	for i, u := range r.Record.Result.Users {
		held, ent := se.Share[u.Name], se.Entitled[u.Name]
		var hp, ep plotter.XYs
		for k := range se.Start {
			if k >= len(held) || k >= len(ent) {
				break
			}
			t := seriesTime(se, k)
			hp = append(hp, plotter.XY{X: t, Y: held[k]})
			ep = append(ep, plotter.XY{X: t, Y: ent[k]})
			ymax = math.Max(ymax, math.Max(held[k], ent[k]))
			data.Rows = append(data.Rows, []string{u.Name, f64(t), f64(se.Width / 3600), f64(held[k]), f64(ent[k])})
		}
		if len(hp) == 0 {
			continue
		}
		hl, err := plotter.NewLine(hp)
		if err != nil {
			return nil, fmt.Errorf("reports: user share: %w", err)
		}
		el, err := plotter.NewLine(ep)
		if err != nil {
			return nil, fmt.Errorf("reports: user share: %w", err)
		}
		// A user's colour, held solid and entitled dotted; beyond the
		// palette the held line's dash pattern tells users apart.
		hl.LineStyle = LineStyle(i)
		hl.LineStyle.Width = vg.Points(1.2)
		el.LineStyle = draw.LineStyle{Color: Colour(i), Width: vg.Points(0.9), Dashes: []vg.Length{vg.Points(1), vg.Points(2)}}
		pl.Add(hl, el)
		pl.Legend.Add("user "+u.Name, hl)
	}
	pl.Legend.Add("entitled (dotted)", lineKey{draw.LineStyle{Color: color.Gray{Y: 0x55}, Width: vg.Points(0.9), Dashes: []vg.Length{vg.Points(1), vg.Points(2)}}})
	pl.Y.Min, pl.Y.Max = 0, math.Min(1, niceMax(1.05*ymax))
	if n := len(se.Start); n > 0 {
		pl.X.Min, pl.X.Max = 0, (se.Start[n-1]+se.Width)/3600
	}
	title := s.titleAt("Each user's share of the cluster under "+pol, p)
	return &Figure{
		Name: "user_share_" + slug(pol) + s.suffix(p), Title: title,
		Subtitle: s.subtitle(p, fmt.Sprintf("policy %s, seed %d", pol, r.Record.Seed)),
		Caption: fmt.Sprintf("Each user's fraction of the cluster's GPUs held over time (solid) against its entitlement (dotted): the weighted water-filling of the cluster over the active users' demands, as the simulator records it. Policy %s, seed %d; %s.",
			pol, r.Record.Seed, s.scenarioNote()),
		Tiles: [][]*plot.Plot{{pl}}, Width: FigWidth, Height: FigHeight, Data: data,
	}, nil
}
