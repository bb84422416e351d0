package reports

import (
	"fmt"
	"math"
	"strings"

	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"

	"fairbench/sim"
)

// metric is one number per run (or per run and user) that a report shows,
// read from the run's result as sim computed it.
type metric struct {
	Key    string // CSV column
	Header string // Markdown and HTML column header (soft hyphens where long words may break)
	Digits int    // decimals shown in Markdown and HTML
	// Better is -1 when lower values are better, +1 when higher are, 0
	// when neither (the best value of a column is marked).
	Better int
	run    func(*sim.Result) float64
	user   func(*sim.UserResult) float64
}

// summaryMetrics are the run-level numbers of the per-policy table.
var summaryMetrics = []metric{
	{Key: "jobs", Header: "jobs", Digits: 0, run: func(r *sim.Result) float64 { return float64(r.Summary.Jobs) }},
	{Key: "mean_jct_h", Header: "mean JCT (h)", Digits: 2, Better: -1, run: func(r *sim.Result) float64 { return r.Summary.MeanJCT / 3600 }},
	{Key: "median_jct_h", Header: "median JCT (h)", Digits: 2, Better: -1, run: func(r *sim.Result) float64 { return r.Summary.MedianJCT / 3600 }},
	{Key: "p99_jct_h", Header: "p99 JCT (h)", Digits: 1, Better: -1, run: func(r *sim.Result) float64 { return r.Summary.P99JCT / 3600 }},
	{Key: "makespan_h", Header: "make\u00adspan (h)", Digits: 1, Better: -1, run: func(r *sim.Result) float64 { return r.Summary.Makespan / 3600 }},
	{Key: "mean_rho", Header: "mean ρ", Digits: 3, Better: -1, run: func(r *sim.Result) float64 { return r.Summary.MeanRho }},
	{Key: "max_rho", Header: "max ρ", Digits: 2, Better: -1, run: func(r *sim.Result) float64 { return r.Summary.MaxRho }},
	{Key: "unfair_pct", Header: "unfair % (ρ>1)", Digits: 1, Better: -1, run: func(r *sim.Result) float64 { return 100 * r.Summary.Unfair }},
	{Key: "mean_starvation_h", Header: "mean starva\u00adtion (h)", Digits: 2, Better: -1, run: func(r *sim.Result) float64 { return r.Summary.MeanStarve / 3600 }},
	{Key: "max_starvation_h", Header: "max starva\u00adtion (h)", Digits: 1, Better: -1, run: func(r *sim.Result) float64 { return r.Summary.MaxStarve / 3600 }},
	{Key: "jain_users", Header: "Jain (users)", Digits: 3, Better: 1, run: func(r *sim.Result) float64 { return r.Summary.JainUsers }},
	{Key: "utilisation_pct", Header: "utili\u00adsation %", Digits: 1, Better: 1, run: func(r *sim.Result) float64 { return 100 * r.Summary.Utilisation }},
	{Key: "preemptions", Header: "pre\u00ademp\u00adtions", Digits: 0, Better: -1, run: func(r *sim.Result) float64 { return float64(r.Summary.Preemptions) }},
	{Key: "migrations", Header: "migra\u00adtions", Digits: 0, Better: -1, run: func(r *sim.Result) float64 { return float64(r.Summary.Migrations) }},
	{Key: "lost_gpu_h", Header: "restore GPU-h", Digits: 1, Better: -1, run: func(r *sim.Result) float64 { return r.Summary.LostGPUSeconds / 3600 }},
}

// userMetrics are the per-user numbers of the per-user table.
var userMetrics = []metric{
	{Key: "weight", Header: "weight", Digits: 2, user: func(u *sim.UserResult) float64 { return u.Weight }},
	{Key: "jobs", Header: "jobs", Digits: 0, user: func(u *sim.UserResult) float64 { return float64(u.Jobs) }},
	{Key: "gpu_h", Header: "GPU-h held", Digits: 1, user: func(u *sim.UserResult) float64 { return u.GPUSeconds / 3600 }},
	{Key: "entitled_gpu_h", Header: "GPU-h entitled", Digits: 1, user: func(u *sim.UserResult) float64 { return u.EntitledSeconds / 3600 }},
	{Key: "share_ratio", Header: "held / entitled", Digits: 3, user: func(u *sim.UserResult) float64 { return u.ShareRatio }},
	{Key: "mean_jct_h", Header: "mean JCT (h)", Digits: 2, user: func(u *sim.UserResult) float64 { return u.MeanJCT / 3600 }},
	{Key: "mean_rho", Header: "mean ρ", Digits: 3, user: func(u *sim.UserResult) float64 { return u.MeanRho }},
}

// stats is one metric aggregated over the runs of a group (the seeds of
// one grid point and policy): their mean, sample standard deviation (NaN
// for one run), minimum, maximum and count.
type stats struct {
	Mean, SD, Min, Max float64
	N                  int
}

// aggregate groups rows of values (vals[i][k] is row i's value of metric
// k) by group[i] and returns, per group index 0..ngroups-1, the stats of
// each metric. The grouping and statistics are done by a gota dataframe.
func aggregate(group []int, vals [][]float64, metrics []metric, ngroups int) ([][]stats, error) {
	out := make([][]stats, ngroups)
	if len(group) == 0 {
		return out, nil
	}
	cols := []series.Series{series.New(groupKeys(group), series.String, "group")}
	for k, m := range metrics {
		col := make([]float64, len(vals))
		for i := range vals {
			col[i] = vals[i][k]
		}
		cols = append(cols, series.New(col, series.Float, m.Key))
	}
	df := dataframe.New(cols...)
	if df.Err != nil {
		return nil, fmt.Errorf("reports: aggregate: %w", df.Err)
	}
	kinds := []dataframe.AggregationType{dataframe.Aggregation_MEAN, dataframe.Aggregation_STD,
		dataframe.Aggregation_MIN, dataframe.Aggregation_MAX, dataframe.Aggregation_COUNT}
	var types []dataframe.AggregationType
	var names []string
	for _, m := range metrics {
		for _, k := range kinds {
			types = append(types, k)
			names = append(names, m.Key)
		}
	}
	g := df.GroupBy("group")
	if g.Err != nil {
		return nil, fmt.Errorf("reports: aggregate: %w", g.Err)
	}
	a := g.Aggregation(types, names)
	if a.Err != nil {
		return nil, fmt.Errorf("reports: aggregate: %w", a.Err)
	}
	keys := a.Col("group").Records()
	index := map[string]int{}
	for i, k := range groupKeys(seq(ngroups)) {
		index[k] = i
	}
	for row, key := range keys {
		gi, ok := index[key]
		if !ok {
			return nil, fmt.Errorf("reports: aggregate: unknown group %q", key)
		}
		st := make([]stats, len(metrics))
		for k, m := range metrics {
			get := func(kind dataframe.AggregationType) float64 {
				return a.Col(fmt.Sprintf("%s_%s", m.Key, kind)).Elem(row).Float()
			}
			st[k] = stats{Mean: get(dataframe.Aggregation_MEAN), SD: get(dataframe.Aggregation_STD),
				Min: get(dataframe.Aggregation_MIN), Max: get(dataframe.Aggregation_MAX),
				N: int(get(dataframe.Aggregation_COUNT))}
		}
		out[gi] = st
	}
	return out, nil
}

func groupKeys(g []int) []string {
	out := make([]string, len(g))
	for i, x := range g {
		out[i] = fmt.Sprintf("g%06d", x)
	}
	return out
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// policyGroup is the runs of one policy at one grid point (its seeds).
type policyGroup struct {
	Point  *Point
	Policy string
	Runs   []*Run
	Stats  []stats // per summaryMetrics
}

// policyGroups aggregates summaryMetrics per grid point and policy, in the
// set's order; groups without runs are left out.
func (s *Set) policyGroups() ([]*policyGroup, error) {
	var groups []*policyGroup
	var gi []int
	var vals [][]float64
	for _, p := range s.Points {
		for _, pol := range s.Policies {
			rs := s.group(p, pol)
			if len(rs) == 0 {
				continue
			}
			for _, r := range rs {
				v := make([]float64, len(summaryMetrics))
				for k, m := range summaryMetrics {
					v[k] = m.run(r.Record.Result)
				}
				gi = append(gi, len(groups))
				vals = append(vals, v)
			}
			groups = append(groups, &policyGroup{Point: p, Policy: pol, Runs: rs})
		}
	}
	st, err := aggregate(gi, vals, summaryMetrics, len(groups))
	if err != nil {
		return nil, err
	}
	for i, g := range groups {
		g.Stats = st[i]
	}
	return groups, nil
}

// userGroup is one user under one policy at one grid point, over seeds.
type userGroup struct {
	Point  *Point
	Policy string
	User   string
	Stats  []stats // per userMetrics
}

// userGroups aggregates userMetrics per grid point, policy and user.
func (s *Set) userGroups() ([]*userGroup, error) {
	var groups []*userGroup
	var gi []int
	var vals [][]float64
	for _, p := range s.Points {
		for _, pol := range s.Policies {
			rs := s.group(p, pol)
			index := map[string]int{}
			for _, r := range rs {
				for ui := range r.Record.Result.Users {
					u := &r.Record.Result.Users[ui]
					i, ok := index[u.Name]
					if !ok {
						i = len(groups)
						index[u.Name] = i
						groups = append(groups, &userGroup{Point: p, Policy: pol, User: u.Name})
					}
					v := make([]float64, len(userMetrics))
					for k, m := range userMetrics {
						v[k] = m.user(u)
					}
					gi = append(gi, i)
					vals = append(vals, v)
				}
			}
		}
	}
	st, err := aggregate(gi, vals, userMetrics, len(groups))
	if err != nil {
		return nil, err
	}
	for i, g := range groups {
		g.Stats = st[i]
	}
	return groups, nil
}

// meanSD formats a mean with its seed-to-seed standard deviation.
func meanSD(s stats, digits int) string {
	if math.IsNaN(s.Mean) {
		return "–"
	}
	m := fmt.Sprintf("%.*f", digits, s.Mean)
	if s.N > 1 && !math.IsNaN(s.SD) && s.SD > 0 {
		if sd := fmt.Sprintf("%.*f", digits, s.SD); sd != fmt.Sprintf("%.*f", digits, 0.0) {
			m += " ± " + sd
		}
	}
	return m
}

// GroupMean is one policy at one grid point: the mean over its seeds of
// every summary metric, keyed as in tables/policies.csv (mean_jct_h,
// unfair_pct, makespan_h, mean_rho, max_rho, jain_users, ...).
type GroupMean struct {
	Point  *Point
	Policy string
	Runs   int
	Mean   map[string]float64
}

// Means aggregates the set per grid point and policy (see tables/policies).
func (s *Set) Means() ([]GroupMean, error) {
	groups, err := s.policyGroups()
	if err != nil {
		return nil, err
	}
	out := make([]GroupMean, len(groups))
	for i, g := range groups {
		m := map[string]float64{}
		for k, mt := range summaryMetrics {
			m[mt.Key] = g.Stats[k].Mean
		}
		out[i] = GroupMean{Point: g.Point, Policy: g.Policy, Runs: len(g.Runs), Mean: m}
	}
	return out, nil
}

// ShortLabel is a compact label of a grid point for text ("λ=2/h",
// "count=4"), "" for a set without axes.
func (s *Set) ShortLabel(p *Point) string {
	var parts []string
	for _, a := range s.Axes {
		name := a
		if a == "workload.arrival_rate_per_hour" {
			parts = append(parts, "λ="+formatValue(p.Values[a])+"/h")
			continue
		}
		if i := strings.LastIndexAny(name, ".]"); i >= 0 && i+1 < len(name) {
			name = name[i+1:]
		}
		parts = append(parts, name+"="+formatValue(p.Values[a]))
	}
	return strings.Join(parts, ", ")
}
