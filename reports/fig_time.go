package reports

import (
	"fmt"
	"image/color"

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
// one line per policy (the lowest seed's run).
func (s *Set) utilisationFigures() ([]*Figure, error) {
	var out []*Figure
	for _, p := range s.Points {
		pl := newPlot(s.titleAt("Cluster utilisation", p), "time (hours)", "GPUs held (fraction of the cluster)")
		pl.Legend.Left = false
		pl.Y.Min, pl.Y.Max = 0, 1
		data := &Table{Header: []string{"policy", "seed", "t_h", "bucket_h", "utilisation"}}
		drawn := 0
		for i, pol := range s.Policies {
			r := s.firstSeed(p, pol)
			if r == nil {
				continue
			}
			se := &r.Record.Result.Series
			var pts plotter.XYs
			for k := range se.Start {
				if k >= len(se.Utilisation) {
					break
				}
				pts = append(pts, plotter.XY{X: seriesTime(se, k), Y: se.Utilisation[k]})
				data.Rows = append(data.Rows, []string{pol, fmt.Sprint(r.Record.Seed), f64(seriesTime(se, k)), f64(se.Width / 3600), f64(se.Utilisation[k])})
			}
			if len(pts) == 0 {
				continue
			}
			l, err := plotter.NewLine(pts)
			if err != nil {
				return nil, fmt.Errorf("reports: utilisation: %w", err)
			}
			l.LineStyle = lineStyle(i)
			l.LineStyle.Width = vg.Points(1)
			pl.Add(l)
			pl.Legend.Add(pol, l)
			drawn++
		}
		legendRoom(pl, drawn)
		if len(data.Rows) == 0 {
			pl = emptyPlot(pl.Title.Text, "no time series in these results")
		}
		out = append(out, &Figure{
			Name: "utilisation" + s.suffix(p), Title: s.titleAt("Cluster utilisation over time", p),
			Caption: fmt.Sprintf("Fraction of the cluster's GPUs held by jobs, averaged over buckets of whole rounds, per policy (seed %d).", s.Seeds[0]),
			Tiles:   [][]*plot.Plot{{pl}}, Width: figWidth, Height: figHeight, Data: data,
		})
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
	title := s.titleAt("Per-user share: "+pol, p)
	pl := newPlot(title, "time (hours)", "share of the cluster's GPUs")
	pl.Y.Min = 0
	data := &Table{Header: []string{"user", "t_h", "bucket_h", "share", "entitled"}}
	// Users in the result's order.
	var users []string
	for _, u := range r.Record.Result.Users {
		users = append(users, u.Name)
	}
	for i, u := range users {
		held, ent := se.Share[u], se.Entitled[u]
		var hp, ep plotter.XYs
		for k := range se.Start {
			if k >= len(held) || k >= len(ent) {
				break
			}
			t := seriesTime(se, k)
			hp = append(hp, plotter.XY{X: t, Y: held[k]})
			ep = append(ep, plotter.XY{X: t, Y: ent[k]})
			data.Rows = append(data.Rows, []string{u, f64(t), f64(se.Width / 3600), f64(held[k]), f64(ent[k])})
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
		hl.LineStyle = draw.LineStyle{Color: palette[i%len(palette)], Width: vg.Points(1)}
		el.LineStyle = draw.LineStyle{Color: palette[i%len(palette)], Width: vg.Points(0.75), Dashes: []vg.Length{vg.Points(3), vg.Points(2)}}
		pl.Add(hl, el)
		pl.Legend.Add(u, hl)
	}
	key, _ := plotter.NewLine(plotter.XYs{})
	if key != nil {
		key.LineStyle = draw.LineStyle{Color: color.Gray{Y: 0x60}, Width: vg.Points(0.75), Dashes: []vg.Length{vg.Points(3), vg.Points(2)}}
		pl.Legend.Add("entitled (dashed)", key)
	}
	pl.Legend.Left = false
	legendRoom(pl, len(users)+1)
	return &Figure{
		Name: "user_share_" + slug(pol) + s.suffix(p), Title: title,
		Caption: fmt.Sprintf("Each user's fraction of the cluster's GPUs held over time (solid) against its entitlement (dashed): the weighted water-filling of the cluster over the active users' demands, as the simulator records it. Policy %s, seed %d.", pol, r.Record.Seed),
		Tiles:   [][]*plot.Plot{{pl}}, Width: figWidth, Height: figHeight, Data: data,
	}, nil
}
