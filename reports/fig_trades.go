package reports

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"

	"fairbench/solvers/gandivafair"
)

// pairStats is one type pair's trading over one run.
type pairStats struct {
	trades int
	// vdt is Σ volume·dt and pvdt Σ price·volume·dt over the trades in force.
	vdt, pvdt float64
}

// trades is a run's record of GPU trades: gandiva-fair's report (both of
// its variants; solvers/gandivafair, Report.Markets: each market outcome
// from its time until the next record). ok is false when the run's policy
// records no trades. A new policy that trades adds its report type here.
func trades(r *Run) (rep *gandivafair.Report, ok bool) {
	rep, ok = r.Record.Result.PolicyReport.(*gandivafair.Report)
	return rep, ok && rep != nil
}

// tradesFigure draws, per pair of GPU types, the volume traded (fast GPUs
// bought, time-averaged over the run) and the volume-weighted price (slow
// GPUs paid per fast GPU), one bar per policy and grid point averaged over
// seeds. Nil when no run recorded a trade.
func (s *Set) tradesFigure() (*Figure, error) {
	type key struct{ slow, fast string }
	var pairs []key
	seenPair := map[key]bool{}
	type group struct {
		label    string
		runs     int
		vol, prc map[key][]float64 // per run
		count    map[key]int
	}
	var groups []*group
	traded := false
	for _, p := range s.Points {
		for _, pol := range s.Policies {
			var g *group
			for _, r := range s.group(p, pol) {
				rep, ok := trades(r)
				if !ok {
					continue
				}
				if g == nil {
					label := pol
					if len(s.Points) > 1 {
						label += " at " + s.ShortLabel(p)
					}
					g = &group{label: label, vol: map[key][]float64{}, prc: map[key][]float64{}, count: map[key]int{}}
					groups = append(groups, g)
				}
				g.runs++
				end := r.Record.Result.Summary.Makespan
				ps := map[key]*pairStats{}
				for i, mk := range rep.Markets {
					until := end
					if i+1 < len(rep.Markets) {
						until = rep.Markets[i+1].Time
					}
					dt := math.Max(0, until-mk.Time)
					for _, t := range mk.Trades {
						k := key{t.Slow, t.Fast}
						if !seenPair[k] {
							seenPair[k] = true
							pairs = append(pairs, k)
						}
						st := ps[k]
						if st == nil {
							st = &pairStats{}
							ps[k] = st
						}
						st.trades++
						st.vdt += t.Volume * dt
						st.pvdt += t.Price * t.Volume * dt
						traded = true
					}
				}
				for k, st := range ps {
					g.count[k] += st.trades
					if end > 0 {
						g.vol[k] = append(g.vol[k], st.vdt/end)
					}
					if st.vdt > 0 {
						g.prc[k] = append(g.prc[k], st.pvdt/st.vdt)
					}
				}
			}
		}
	}
	if !traded {
		return nil, nil
	}
	// Only the groups that traded get a bar.
	kept := groups[:0]
	for _, g := range groups {
		n := 0
		for _, c := range g.count {
			n += c
		}
		if n > 0 {
			kept = append(kept, g)
		}
	}
	groups = kept
	cats := make([]string, len(pairs))
	for i, k := range pairs {
		cats[i] = k.slow + "→" + k.fast
	}
	labels := make([]string, len(groups))
	vol := make([][]float64, len(groups))
	prc := make([][]float64, len(groups))
	data := &Table{Header: []string{"policy_point", "slow", "fast", "runs", "trades", "volume_gpus", "price"}}
	for i, g := range groups {
		labels[i] = g.label
		vol[i] = make([]float64, len(pairs))
		prc[i] = make([]float64, len(pairs))
		for j, k := range pairs {
			// A run without trades on the pair traded volume 0 there.
			v := sum(g.vol[k]) / float64(g.runs)
			pr := mean(g.prc[k])
			vol[i][j], prc[i][j] = v, pr
			data.Rows = append(data.Rows, []string{g.label, k.slow, k.fast, fmt.Sprint(g.runs), fmt.Sprint(g.count[k]), f64(v), f64(pr)})
		}
	}
	w := FigWidth
	volFmt := func(x float64) string { return fmt.Sprintf("%.3g", x) }
	prcFmt := func(x float64) string { return fmt.Sprintf("%.2f", x) }
	left := NewVBarPlot("Volume", "GPU types (pays slow → buys fast)", "fast GPUs bought (time average)", cats, labels, vol, volFmt, w/2)
	right := NewVBarPlot("Price", "GPU types (pays slow → buys fast)", "slow GPUs paid per fast GPU", cats, labels, prc, prcFmt, w/2)
	// One key for both panels, at the right of the figure.
	legend := left.Legend
	left.Legend.Top = true
	left.Legend, right.Legend = emptyLegend(), emptyLegend()
	return &Figure{
		Name: "gandiva_trades", Title: "GPU trades between users",
		Subtitle: s.subtitle(nil, "means over seeds"),
		Caption:  "Trades between users per pair of GPU types, as the policy recorded them (Gandiva_fair's market): the fast GPUs bought, averaged over the run's length (left), and the price in slow GPUs per fast GPU, weighted by volume and time in force (right); means over seeds. " + capitalise(s.scenarioNote()) + ".",
		Tiles:    [][]*plot.Plot{{left, right}}, Legend: &legend, Width: w, Height: FigHeight, Data: data,
	}, nil
}

// emptyLegend is a legend in the figure style without entries.
func emptyLegend() plot.Legend {
	l := plot.NewLegend()
	l.TextStyle = textStyle(LegendSize, titleColour)
	return l
}

func sum(xs []float64) float64 {
	var t float64
	for _, x := range xs {
		t += x
	}
	return t
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return sum(xs) / float64(len(xs))
}
