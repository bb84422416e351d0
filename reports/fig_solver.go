package reports

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/plot"
)

// minSolverSeconds is where the log-scale solver-time axis bottoms out: a
// measured 0 (below the clock's resolution) is drawn there.
const minSolverSeconds = 1e-7

// roundTime is one round's solver time in one run: the sum over the
// decisions taken in the round, with the most jobs active at any of them.
type roundTime struct {
	active  int
	seconds float64
}

func roundTimes(r *Run) []roundTime {
	by := map[int]*roundTime{}
	var order []int
	for _, d := range r.Timing {
		rt, ok := by[d.Round]
		if !ok {
			rt = &roundTime{}
			by[d.Round] = rt
			order = append(order, d.Round)
		}
		rt.seconds += d.Seconds
		rt.active = max(rt.active, d.Active)
	}
	out := make([]roundTime, 0, len(order))
	for _, k := range order {
		out = append(out, *by[k])
	}
	return out
}

// solverFigure draws solver time per round against the number of active
// jobs, from the runs' timing files, one line per policy over every run of
// it (in panels by family when there are many): rounds are binned by
// active jobs and each bin drawn at its mean, with whiskers to its fastest
// and slowest round, on a log axis in human units (µs, ms, s). Nil when
// no run has timings.
func (s *Set) solverFigure() (*Figure, error) {
	type acc struct {
		n                   int
		sum, lo, hi, active float64
	}
	per := map[string][]roundTime{}
	maxActive := 0
	for _, r := range s.Runs {
		for _, rt := range roundTimes(r) {
			per[r.Record.Policy] = append(per[r.Record.Policy], rt)
			maxActive = max(maxActive, rt.active)
		}
	}
	if len(per) == 0 {
		return nil, nil
	}
	width := 1 // bin width in active jobs: at most 30 bins
	if maxActive > 30 {
		width = (maxActive + 29) / 30
	}
	data := &Table{Header: []string{"policy", "active_from", "active_to", "rounds", "mean_s", "min_s", "max_s"}}
	lines := map[string]*seriesPoints{}
	lo, hi := math.Inf(1), math.Inf(-1) // drawn (lg) range
	fl := func(x float64) float64 { return lg(math.Max(x, minSolverSeconds)) }
	for _, pol := range s.Policies {
		rts := per[pol]
		if len(rts) == 0 {
			continue
		}
		bins := map[int]*acc{}
		for _, rt := range rts {
			b := rt.active / width
			a, ok := bins[b]
			if !ok {
				a = &acc{lo: math.Inf(1), hi: math.Inf(-1)}
				bins[b] = a
			}
			a.n++
			a.sum += rt.seconds
			a.active += float64(rt.active)
			a.lo, a.hi = math.Min(a.lo, rt.seconds), math.Max(a.hi, rt.seconds)
		}
		keys := make([]int, 0, len(bins))
		for b := range bins {
			keys = append(keys, b)
		}
		sort.Ints(keys)
		l := &seriesPoints{}
		for _, b := range keys {
			a := bins[b]
			mean := a.sum / float64(a.n)
			data.Rows = append(data.Rows, []string{pol, fmt.Sprint(b * width), fmt.Sprint(b*width + width - 1), fmt.Sprint(a.n), f64(mean), f64(a.lo), f64(a.hi)})
			l.x = append(l.x, a.active/float64(a.n))
			l.st = append(l.st, stats{Mean: fl(mean), Min: fl(a.lo), Max: fl(a.hi), N: a.n})
			lo, hi = math.Min(lo, fl(a.lo)), math.Max(hi, fl(a.hi))
		}
		lines[pol] = l
	}
	tiles, err := s.policyPanels(func(title string, pols []string, idx map[string]int) (*plot.Plot, error) {
		pl := NewPlot(title, "active jobs", "solver time per round (log scale)")
		for _, pol := range pols {
			if l := lines[pol]; l != nil {
				if err := addPoints(pl, idx[pol], pol, l.x, l.st, false); err != nil {
					return nil, err
				}
			}
		}
		LogAxis(&pl.Y, Seconds)
		pl.Y.Min, pl.Y.Max = math.Floor(lo), math.Ceil(hi)
		if pl.Y.Max <= pl.Y.Min {
			pl.Y.Max = pl.Y.Min + 1
		}
		pl.X.Min, pl.X.Max = 0, float64(maxActive)
		return pl, nil
	})()
	if err != nil {
		return nil, fmt.Errorf("reports: solver time: %w", err)
	}
	return &Figure{
		Name: "solver_time", Title: "Solver time per round against active jobs",
		Subtitle: s.subtitle(nil, fmt.Sprintf("wall-clock time, rounds binned by %d active job(s)", width)),
		Caption: fmt.Sprintf("Measured policy (solver) time per scheduling round, summed over the round's decisions, against the jobs active in it, from the runs' timing files (fairbench --timing); rounds binned by %d active job(s), markers at the bin mean, whiskers from the fastest to the slowest round; a time below the clock's resolution is drawn at %s. Wall-clock times of the machine that made the runs. %s.",
			width, Seconds(minSolverSeconds), capitalise(s.scenarioNote())),
		Tiles: tiles, Width: FigWidth, Height: panelsHeight(tiles), Data: data,
	}, nil
}
