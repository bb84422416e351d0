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
// it: rounds are binned by active jobs and each bin drawn at its mean, with
// whiskers to its fastest and slowest round. Nil when no run has timings.
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
	pl := newPlot("Solver time per round", "active jobs", "seconds per round (log)")
	data := &Table{Header: []string{"policy", "active_from", "active_to", "rounds", "mean_s", "min_s", "max_s"}}
	for i, pol := range s.Policies {
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
		var xs []float64
		var st []stats
		for _, b := range keys {
			a := bins[b]
			mean := a.sum / float64(a.n)
			data.Rows = append(data.Rows, []string{pol, fmt.Sprint(b * width), fmt.Sprint(b*width + width - 1), fmt.Sprint(a.n), f64(mean), f64(a.lo), f64(a.hi)})
			xs = append(xs, a.active/float64(a.n))
			fl := func(x float64) float64 { return lg(math.Max(x, minSolverSeconds)) }
			st = append(st, stats{Mean: fl(mean), Min: fl(a.lo), Max: fl(a.hi), N: a.n})
		}
		if err := addPoints(pl, i, pol, xs, st); err != nil {
			return nil, fmt.Errorf("reports: solver time: %w", err)
		}
	}
	logAxis(&pl.Y)
	pl.X.Min = 0
	legendRoom(pl, len(per))
	return &Figure{
		Name: "solver_time", Title: "Solver time per round against active jobs",
		Caption: fmt.Sprintf("Measured policy (solver) time per scheduling round, summed over the round's decisions, against the jobs active in it, from the runs' timing files (fairbench --timing); rounds binned by %d active job(s), markers at the bin mean, whiskers from the fastest to the slowest round. Wall-clock times of the machine that made the runs.", width),
		Tiles:   [][]*plot.Plot{{pl}}, Width: figWidth, Height: figHeight, Data: data,
	}, nil
}
