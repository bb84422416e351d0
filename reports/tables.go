package reports

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"fairbench/scenarios"
)

// NamedTable is one table of a report, written as tables/NAME.csv (full
// precision) and tables/NAME.md (rounded, as shown in the report).
type NamedTable struct {
	Name, Title, Caption string
	// Data is the CSV; Display the rounded cells shown in Markdown and HTML.
	Data, Display *Table
	// Best marks the display cells holding the best value of their column
	// (Best[row][column]; nil: none marked), shown in bold.
	Best [][]bool
}

// policyTable is the per-policy summary: per grid point and policy, each
// summary metric's mean over seeds (and in the CSV its standard deviation).
func (s *Set) policyTable(groups []*policyGroup) *NamedTable {
	data := &Table{Header: []string{"point", "policy", "runs", "seeds"}}
	disp := &Table{Header: []string{"point", "policy", "runs"}}
	if len(s.Points) == 1 {
		disp.Header = disp.Header[1:]
	}
	for _, m := range summaryMetrics {
		data.Header = append(data.Header, m.Key, m.Key+"_sd")
		disp.Header = append(disp.Header, m.Header)
	}
	for _, g := range groups {
		var seeds []string
		for _, r := range g.Runs {
			seeds = append(seeds, fmt.Sprint(r.Record.Seed))
		}
		row := []string{g.Point.Label, g.Policy, fmt.Sprint(len(g.Runs)), strings.Join(seeds, " ")}
		d := []string{s.pointWords(s.Axes, g.Point.Values), g.Policy, fmt.Sprint(len(g.Runs))}
		if len(s.Points) == 1 {
			d = d[1:]
		}
		for k, m := range summaryMetrics {
			row = append(row, f64(g.Stats[k].Mean), f64(g.Stats[k].SD))
			d = append(d, meanSD(g.Stats[k], m.Digits))
		}
		data.Rows = append(data.Rows, row)
		disp.Rows = append(disp.Rows, d)
	}
	return &NamedTable{Name: "policies", Title: "Per-policy summary",
		Caption: "Headline metrics per policy (and grid point), as the simulator computed them per run: mean over seeds ± the seed-to-seed standard deviation (the CSV has both, unrounded). Bold: the best value of its column (at its grid point).",
		Data:    data, Display: disp, Best: bestCells(groups, len(disp.Header)-len(summaryMetrics))}
}

// bestCells marks, per grid point, the group with the best mean of each
// summary metric that has a better direction (ties all marked); first is
// the display column of the first metric.
func bestCells(groups []*policyGroup, first int) [][]bool {
	best := make([][]bool, len(groups))
	for i := range best {
		best[i] = make([]bool, first+len(summaryMetrics))
	}
	for k, m := range summaryMetrics {
		if m.Better == 0 {
			continue
		}
		top := map[*Point]float64{}
		for _, g := range groups {
			v := round(g.Stats[k].Mean, m.Digits)
			if t, ok := top[g.Point]; !math.IsNaN(v) && (!ok || float64(m.Better)*(v-t) > 0) {
				top[g.Point] = v
			}
		}
		for i, g := range groups {
			if t, ok := top[g.Point]; ok && round(g.Stats[k].Mean, m.Digits) == t {
				best[i][first+k] = true
			}
		}
	}
	return best
}

// round rounds x to digits decimals, as it is shown.
func round(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}

// userTable is the per-user summary per grid point and policy.
func (s *Set) userTable(groups []*userGroup) *NamedTable {
	data := &Table{Header: []string{"point", "policy", "user", "runs"}}
	disp := &Table{Header: []string{"point", "policy", "user"}}
	if len(s.Points) == 1 {
		disp.Header = disp.Header[1:]
	}
	for _, m := range userMetrics {
		data.Header = append(data.Header, m.Key, m.Key+"_sd")
		disp.Header = append(disp.Header, m.Header)
	}
	for _, g := range groups {
		n := 0
		if len(g.Stats) > 0 {
			n = g.Stats[0].N
		}
		row := []string{g.Point.Label, g.Policy, g.User, fmt.Sprint(n)}
		d := []string{s.pointWords(s.Axes, g.Point.Values), g.Policy, g.User}
		if len(s.Points) == 1 {
			d = d[1:]
		}
		for k, m := range userMetrics {
			row = append(row, f64(g.Stats[k].Mean), f64(g.Stats[k].SD))
			d = append(d, meanSD(g.Stats[k], m.Digits))
		}
		data.Rows = append(data.Rows, row)
		disp.Rows = append(disp.Rows, d)
	}
	return &NamedTable{Name: "users", Title: "Per-user summary",
		Caption: "Per user: GPU time held against its entitlement (weighted water-filling over the active users' demands) and the user's jobs' mean JCT and ρ; mean over seeds.",
		Data:    data, Display: disp}
}

// runTable lists every run with what makes it reproducible.
func (s *Set) runTable() *NamedTable {
	data := &Table{Header: []string{"id", "point", "policy", "seed", "scenario", "fairbench", "solver_backend", "throughputs", "jobs", "mean_jct_h", "mean_rho", "unfair_pct", "file"}}
	disp := &Table{Header: []string{"run ID", "point", "policy", "seed", "jobs", "mean JCT (h)", "mean ρ", "unfair %"}}
	for _, r := range s.Runs {
		sm := r.Record.Result.Summary
		data.Rows = append(data.Rows, []string{r.Record.ID, r.Point.Label, r.Record.Policy, fmt.Sprint(r.Record.Seed),
			r.Record.Scenario, r.Record.Fairbench, r.Record.Backend, throughputSource(r), fmt.Sprint(sm.Jobs),
			f64(sm.MeanJCT / 3600), f64(sm.MeanRho), f64(100 * sm.Unfair), r.Path})
		disp.Rows = append(disp.Rows, []string{r.Record.ID, s.pointWords(s.Axes, r.Point.Values), r.Record.Policy, fmt.Sprint(r.Record.Seed), fmt.Sprint(sm.Jobs),
			fmt.Sprintf("%.2f", sm.MeanJCT/3600), fmt.Sprintf("%.3f", sm.MeanRho), fmt.Sprintf("%.1f", 100*sm.Unfair)})
	}
	return &NamedTable{Name: "runs", Title: "Runs",
		Caption: "Every run in this report. The run ID is the content hash of the concrete scenario (spec, policy, seed, input files and catalogue): the same ID reproduces the same result file.",
		Data:    data, Display: disp}
}

// pointTable lists the grid points and the figure suffix of each.
func (s *Set) pointTable() *NamedTable {
	data := &Table{Header: append([]string{"figure_suffix", "label"}, s.Axes...)}
	for _, p := range s.Points {
		row := []string{s.suffix(p), p.Label}
		for _, a := range s.Axes {
			row = append(row, formatValue(p.Values[a]))
		}
		data.Rows = append(data.Rows, row)
	}
	return &NamedTable{Name: "points", Title: "Grid points",
		Caption: "The grid points of these results; per-point figures carry the suffix shown.",
		Data:    data, Display: data}
}

// throughputSource is where a run's throughput figures came from: the
// built-in catalogue, or a file (named by the spec).
func throughputSource(r *Run) string {
	m := scenarios.GenericSpec(r.Record.Spec)
	if t, ok := m["throughputs"].(string); ok && t != "" {
		return t
	}
	return "catalogue"
}

// Markdown renders the display table as Markdown, the best cells bold.
func (t *NamedTable) Markdown() string {
	if t.Best == nil {
		return t.Display.Markdown()
	}
	c := &Table{Header: t.Display.Header}
	for i, row := range t.Display.Rows {
		r := slices.Clone(row)
		for j := range r {
			if i < len(t.Best) && j < len(t.Best[i]) && t.Best[i][j] && r[j] != "" {
				r[j] = "**" + r[j] + "**"
			}
		}
		c.Rows = append(c.Rows, r)
	}
	return c.Markdown()
}

// Markdown renders a display table as a GitHub-flavoured Markdown table.
func (t *Table) Markdown() string {
	var b strings.Builder
	esc := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	b.WriteString("|")
	for _, h := range t.Header {
		b.WriteString(" " + esc(h) + " |")
	}
	b.WriteString("\n|")
	for range t.Header {
		b.WriteString(" --- |")
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		b.WriteString("|")
		for _, c := range r {
			b.WriteString(" " + esc(c) + " |")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// numeric reports whether a display cell is a number (right-aligned).
func numeric(s string) bool {
	s = strings.TrimSpace(strings.SplitN(s, " ± ", 2)[0])
	x, err := strconv.ParseFloat(s, 64)
	return err == nil && !math.IsNaN(x)
}
