package fairness

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"fairbench/models"
)

// Search says how StrategyProof looks for a profitable lie of one user: an
// optimisation of the user's true utility over its reports
// (docs/checker.md, "Strategy-proofness search"). For each user it tries,
// in this order, until it finds a lie beyond the tolerance or spends
// MaxEvals mechanism calls:
//
//  1. with Grid set, every report whose speeds all lie in Grid (the same
//     vector for each of the user's jobs; true-support reports first);
//  2. a ladder on each type: the type's reported speed (for all of the
//     user's jobs at once) × Ladder^k for k = ±1, …, ±LadderSteps, and 0
//     (hiding the type) — unbounded in practice: the default reaches
//     ×65,536 and ÷65,536; on a type a job cannot run on, its best speed
//     × Ladder^k (claiming the type);
//  3. reporting the best speed on every type the job can run on (hiding
//     its heterogeneity), reporting only the best type, and swapping two
//     types;
//  4. a climb from the best report so far: the best of the moves "one
//     (job, type) speed × 2 or ÷ 2"; a move that gains is repeated with the
//     factor doubled each time (×2, ×4, ×8, … — the expanding step that lets
//     a climb cross any scale), Climb steps at most;
//  5. Restarts random reports (each speed × a log-uniform factor in
//     [Ladder^−LadderSteps, Ladder^LadderSteps], or 0 with probability
//     1/8; a type the job cannot run on claimed, at its best speed × such
//     a factor, with probability 1/2), each followed by a climb.
//
// Every report is evaluated at most once. The random stream is seeded by
// Seed and the user's index, so the search is deterministic.
type Search struct {
	Grid        []float64 `json:"grid,omitempty"`
	Ladder      float64   `json:"ladder"`
	LadderSteps int       `json:"ladder_steps"`
	Climb       int       `json:"climb"`
	Restarts    int       `json:"restarts"`
	MaxEvals    int       `json:"max_evals"`
	Seed        uint64    `json:"seed"`
}

// DefaultSearch is the search the checker uses unless told otherwise: a
// ×4 ladder of 8 steps each way (×65,536), climbs of up to 8 steps, 4
// restarts, at most 150 mechanism calls per user.
func DefaultSearch() Search {
	return Search{Ladder: 4, LadderSteps: 8, Climb: 8, Restarts: 4, MaxEvals: 150}
}

// Validate refuses a search that cannot run.
func (s Search) Validate() error {
	switch {
	case s.Ladder != 0 && (!(s.Ladder > 1) || math.IsInf(s.Ladder, 0)):
		return fmt.Errorf("fairness: search: ladder factor must be above 1, got %v", s.Ladder)
	case s.LadderSteps < 0 || s.Climb < 0 || s.Restarts < 0 || s.MaxEvals < 0:
		return fmt.Errorf("fairness: search: ladder steps, climb, restarts and max evals must not be negative (%d, %d, %d, %d)",
			s.LadderSteps, s.Climb, s.Restarts, s.MaxEvals)
	}
	for _, v := range s.Grid {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("fairness: search: grid speed %v: must be finite and not negative", v)
		}
	}
	return nil
}

// searcher is one user's search in progress.
type searcher struct {
	d     *Division
	u     int
	jobs  []int
	truth [][]float64
	mech  Mechanism
	s     Search
	base  float64 // U_u on the truth
	limit float64 // the gain a lie must exceed
	rng   *rand.Rand
	evals int
	seen  map[string]float64 // the gain of every report evaluated
	best  [][]float64        // the best report so far (the truth until one gains)
	gain  float64            // its gain
	found *Misreport         // a lie beyond the limit, once found
}

func newSearcher(d *Division, u int, truth *Outcome, mech Mechanism, s Search, tol Tolerance) *searcher {
	jobs := d.byUser[u]
	t := make([][]float64, len(jobs))
	for k, j := range jobs {
		t[k] = d.Jobs[j].Speed
	}
	return &searcher{d: d, u: u, jobs: jobs, truth: t, mech: mech, s: s,
		base: d.Utility(truth, u), limit: tol.Slack(d.Scale(u)),
		rng:  rand.New(rand.NewPCG(s.Seed, uint64(u)+1)),
		seen: map[string]float64{fmt.Sprint(t): 0}, best: t, gain: 0}
}

// errFound stops the search once a lie beyond the limit is found.
var errFound = errors.New("fairness: lie found")

// run performs the search's stages in order.
func (sr *searcher) run() (*Misreport, error) {
	stages := []func() error{sr.grid, sr.ladder, sr.structural,
		func() error { return sr.climb(sr.best, sr.gain, "climbing") }, sr.restarts}
	for _, stage := range stages {
		err := stage()
		switch {
		case errors.Is(err, errFound):
			return sr.found, nil
		case err != nil:
			return nil, err
		}
	}
	return nil, nil
}

// spent reports whether the evaluation budget is used up.
func (sr *searcher) spent() bool { return sr.s.MaxEvals > 0 && sr.evals >= sr.s.MaxEvals }

// try evaluates one report (once: a report seen before gives its recorded
// gain). It returns the report's gain and whether it has one (false for a
// report that cannot run, or once the budget is spent), and errFound for a
// lie beyond the limit.
func (sr *searcher) try(speeds [][]float64, move string) (float64, bool, error) {
	key := fmt.Sprint(speeds)
	if g, ok := sr.seen[key]; ok {
		return g, true, nil
	}
	if sr.spent() || !sr.d.runnable(sr.jobs, speeds) {
		return 0, false, nil
	}
	rep := sr.d.withSpeeds(sr.u, speeds)
	if rep == nil {
		return 0, false, nil
	}
	sr.evals++
	out, err := sr.mech(rep)
	var v *models.Violation
	switch {
	case errors.As(err, &v):
		sr.found = &Misreport{User: sr.u, Speeds: speeds, Truthful: sr.base, Infeasible: err, Move: move}
		return 0, true, errFound
	case err != nil:
		return 0, false, fmt.Errorf("mechanism on a misreport of user %s: %w", sr.d.Users[sr.u].Name, err)
	}
	got := sr.d.Utility(out, sr.u)
	gain := got - sr.base
	sr.seen[key] = gain
	if gain > sr.limit {
		sr.found = &Misreport{User: sr.u, Speeds: speeds, Truthful: sr.base, Lying: got, Move: move}
		return gain, true, errFound
	}
	if gain > sr.gain {
		sr.best, sr.gain = speeds, gain
	}
	return gain, true, nil
}

// tryAll evaluates reports in order, stopping at a lie.
func (sr *searcher) tryAll(cands [][][]float64, move string) error {
	for _, c := range cands {
		if _, _, err := sr.try(c, move); err != nil {
			return err
		}
	}
	return nil
}

// grid is stage 1: every report on the grid, true-support reports first.
func (sr *searcher) grid() error {
	if len(sr.s.Grid) == 0 {
		return nil
	}
	m := len(sr.d.Types)
	var cands [][][]float64
	vec := make([]float64, m)
	var walk func(g int)
	walk = func(g int) {
		if g == m {
			cands = append(cands, mapSpeeds(sr.truth, func(_, h int, _ float64) float64 { return vec[h] }))
			return
		}
		for _, v := range sr.s.Grid {
			vec[g] = v
			walk(g + 1)
		}
	}
	walk(0)
	sort.SliceStable(cands, func(a, b int) bool {
		return sameSupport(sr.truth, cands[a]) && !sameSupport(sr.truth, cands[b])
	})
	return sr.tryAll(cands, "the speed grid")
}

// ladder is stage 2: one type scaled for all jobs by Ladder^±k, and 0.
func (sr *searcher) ladder() error {
	if sr.s.Ladder <= 1 {
		return nil
	}
	for g := range sr.d.Types {
		factors := []float64{0}
		for k := 1; k <= sr.s.LadderSteps; k++ {
			f := math.Pow(sr.s.Ladder, float64(k))
			factors = append(factors, f, 1/f)
		}
		for _, f := range factors {
			c := scaleType(sr.truth, -1, g, f)
			if err := sr.tryAll([][][]float64{c}, fmt.Sprintf("scaling %s by %.4g", sr.d.Types[g], f)); err != nil {
				return err
			}
		}
	}
	return nil
}

// structural is stage 3: heterogeneity hidden, best type only, swaps.
func (sr *searcher) structural() error {
	t := sr.truth
	cands := [][][]float64{
		mapSpeeds(t, func(k, _ int, v float64) float64 {
			if v > 0 {
				return maxOf(t[k])
			}
			return 0
		}),
		mapSpeeds(t, func(k, _ int, v float64) float64 {
			if v == maxOf(t[k]) {
				return v
			}
			return 0
		}),
	}
	m := len(sr.d.Types)
	for g := 0; g < m; g++ {
		for h := g + 1; h < m; h++ {
			cands = append(cands, mapSpeeds(t, func(k, i int, v float64) float64 {
				switch i {
				case g:
					return t[k][h]
				case h:
					return t[k][g]
				}
				return v
			}))
		}
	}
	return sr.tryAll(cands, "hiding or swapping types")
}

// climb is stage 4 from start (whose gain is startGain): the best
// single-coordinate move ×2 or ÷2 on one job's speed on one type (or on
// every job at once), expanded while it gains, Climb steps at most.
func (sr *searcher) climb(start [][]float64, startGain float64, move string) error {
	cur, curGain := start, startGain
	for step := 0; step < sr.s.Climb && !sr.spent(); step++ {
		next, gain, err := sr.bestMove(cur, curGain, move)
		if err != nil || next == nil {
			return err
		}
		cur, curGain = next, gain
	}
	return nil
}

// bestMove tries every coordinate move from cur and follows the one that
// gains most over curGain, with its factor squared each step (×2, ×4, ×16,
// ×256, …) while it keeps gaining: the expanding step that lets a climb
// cross any scale. It returns the new point, or nil when no move gains.
func (sr *searcher) bestMove(cur [][]float64, curGain float64, move string) ([][]float64, float64, error) {
	bestJob, bestG, bestF := 0, -1, 0.0
	bestGain := curGain
	var bestAt [][]float64
	for _, job := range sr.jobChoices() {
		for g := range sr.d.Types {
			for _, f := range []float64{2, 0.5} {
				c := scaleType(cur, job, g, f)
				gain, ok, err := sr.try(c, move)
				if err != nil {
					return nil, 0, err
				}
				if ok && gain > bestGain {
					bestJob, bestG, bestF, bestGain, bestAt = job, g, f, gain, c
				}
			}
		}
	}
	if bestG < 0 {
		return nil, 0, nil
	}
	for f := bestF * bestF; !sr.spent(); f *= f {
		c := scaleType(bestAt, bestJob, bestG, f)
		gain, ok, err := sr.try(c, move+" (expanding)")
		if err != nil {
			return nil, 0, err
		}
		if !ok || gain <= bestGain {
			break
		}
		bestAt, bestGain = c, gain
	}
	return bestAt, bestGain, nil
}

// jobChoices are the coordinates of a move: every job at once (−1), then
// each job alone when the user has several.
func (sr *searcher) jobChoices() []int {
	out := []int{-1}
	if len(sr.jobs) > 1 {
		for k := range sr.jobs {
			out = append(out, k)
		}
	}
	return out
}

// restarts is stage 5: random reports, each followed by a climb.
func (sr *searcher) restarts() error {
	if sr.s.Ladder <= 1 {
		return nil
	}
	span := float64(sr.s.LadderSteps) * math.Log(sr.s.Ladder)
	for r := 0; r < sr.s.Restarts && !sr.spent(); r++ {
		start := mapSpeeds(sr.truth, func(k, _ int, v float64) float64 {
			switch {
			case sr.rng.IntN(8) == 0:
				return 0
			case v == 0 && sr.rng.IntN(2) == 0:
				return 0
			case v == 0:
				v = maxOf(sr.truth[k])
			}
			return v * math.Exp(span*(2*sr.rng.Float64()-1))
		})
		move := fmt.Sprintf("random restart %d", r+1)
		gain, ok, err := sr.try(start, move)
		if err != nil {
			return err
		}
		if ok {
			if err := sr.climb(start, gain, move); err != nil {
				return err
			}
		}
	}
	return nil
}

// scaleType multiplies the speed on type g by f, for job k (−1: every
// job); a speed of 0 (a type the job does not claim to run on) becomes the
// job's best speed times f, so that a move can also claim a type.
func scaleType(src [][]float64, k, g int, f float64) [][]float64 {
	return mapSpeeds(src, func(job, h int, t float64) float64 {
		if h != g || k >= 0 && k != job {
			return t
		}
		if t == 0 {
			return maxOf(src[job]) * f
		}
		return t * f
	})
}

// sameSupport reports whether rep claims no type the truth cannot run.
func sameSupport(truth, rep [][]float64) bool {
	for k := range truth {
		for g := range truth[k] {
			if truth[k][g] == 0 && rep[k][g] > 0 {
				return false
			}
		}
	}
	return true
}

func mapSpeeds(src [][]float64, f func(k, g int, t float64) float64) [][]float64 {
	out := make([][]float64, len(src))
	for k := range src {
		out[k] = make([]float64, len(src[k]))
		for g, t := range src[k] {
			out[k][g] = f(k, g, t)
		}
	}
	return out
}

func maxOf(xs []float64) float64 {
	return slices.Max(append([]float64{0}, xs...))
}
