package runs

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"fairbench/internal/texttable"
	"fairbench/sim"
)

// column is one metric of the comparison table: its header, how it is read
// from a run, its decimals, and when it is left out of a narrow table (see
// texttable.Column.Drop; 0 never).
type column struct {
	header string
	value  func(s *sim.Summary) float64
	digits int
	drop   int
}

var columns = []column{
	{"mean JCT h", func(s *sim.Summary) float64 { return s.MeanJCT / 3600 }, 2, 0},
	{"median h", func(s *sim.Summary) float64 { return s.MedianJCT / 3600 }, 2, 4},
	{"p99 h", func(s *sim.Summary) float64 { return s.P99JCT / 3600 }, 1, 5},
	{"makespan h", func(s *sim.Summary) float64 { return s.Makespan / 3600 }, 1, 3},
	{"mean ρ", func(s *sim.Summary) float64 { return s.MeanRho }, 3, 0},
	{"max ρ", func(s *sim.Summary) float64 { return s.MaxRho }, 2, 4},
	{"unfair %", func(s *sim.Summary) float64 { return 100 * s.Unfair }, 1, 0},
	{"Jain", func(s *sim.Summary) float64 { return s.JainUsers }, 3, 1},
	{"util %", func(s *sim.Summary) float64 { return 100 * s.Utilisation }, 1, 2},
	{"preempt", func(s *sim.Summary) float64 { return float64(s.Preemptions) }, 0, 6},
	{"migrate", func(s *sim.Summary) float64 { return float64(s.Migrations) }, 0, 6},
}

// Table prints the comparison of the records: one row per policy (per
// grid point, under a heading naming it) with each headline metric's mean
// over the seeds ± their sample standard deviation, fitted to width
// columns (0: every column, however wide; see texttable).
func Table(w io.Writer, recs []*Record, width int) error {
	type group struct {
		point, policy string
		seeds         []int64
		runs          []*sim.Summary
	}
	var groups []*group
	index := map[string]*group{}
	for _, r := range recs {
		p := pointLabel(r.Point)
		k := p + "\x00" + r.Policy
		g, ok := index[k]
		if !ok {
			g = &group{point: p, policy: r.Policy}
			index[k] = g
			groups = append(groups, g)
		}
		g.seeds = append(g.seeds, r.Seed)
		g.runs = append(g.runs, &r.Result.Summary)
	}
	// Points in first-seen order, the policies of each together.
	order := map[string]int{}
	for _, g := range groups {
		if _, ok := order[g.point]; !ok {
			order[g.point] = len(order)
		}
	}
	sort.SliceStable(groups, func(i, j int) bool { return order[groups[i].point] < order[groups[j].point] })

	cols := []texttable.Column{{Header: "policy"}, {Header: "seeds", Right: true, Drop: 7}, {Header: "jobs", Right: true, Drop: 7}}
	for _, c := range columns {
		cols = append(cols, texttable.Column{Header: c.header, Right: true, Drop: c.drop})
	}
	t := texttable.New(cols...)
	spread, last := false, "\x00"
	for _, g := range groups {
		if g.point != "" && g.point != last {
			t.Heading("grid point " + g.point)
		}
		last = g.point
		row := []string{g.policy, fmt.Sprint(len(g.runs)), meanSD(g.runs, func(s *sim.Summary) float64 { return float64(s.Jobs) }, 0)}
		for _, c := range columns {
			row = append(row, meanSD(g.runs, c.value, c.digits))
		}
		if len(g.runs) > 1 {
			spread = true
		}
		t.Add(row...)
	}
	if _, err := t.Write(w, width, "--wide"); err != nil {
		return err
	}
	if spread {
		_, err := fmt.Fprintln(w, "mean over seeds ± sample standard deviation")
		return err
	}
	return nil
}

// meanSD is the mean of value over runs with its sample standard
// deviation ("12.50 ± 0.71"); the value alone for one run or no spread.
func meanSD(runs []*sim.Summary, value func(*sim.Summary) float64, digits int) string {
	var sum float64
	for _, r := range runs {
		sum += value(r)
	}
	n := float64(len(runs))
	m := sum / n
	var ss float64
	for _, r := range runs {
		d := value(r) - m
		ss += d * d
	}
	out := fmt.Sprintf("%.*f", digits, m)
	if len(runs) > 1 {
		if sd := math.Sqrt(ss / (n - 1)); sd > 0 {
			out += fmt.Sprintf(" ± %.*f", digits, sd)
		}
	}
	return out
}

// pointLabel writes a grid point's axes other than policies and seed as
// "path = value" pairs in path order ("" when there are none).
func pointLabel(p map[string]any) string {
	var keys []string
	for k := range p {
		if k != "policies" && k != "seed" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s = %v", k, p[k])
	}
	return strings.Join(parts, ", ")
}
