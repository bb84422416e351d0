package models

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Mechanism is a policy seen through a Division: the outcome it gives when
// the jobs report the speeds of reported (the true division with some
// speeds changed; same users, jobs, types and capacities). The checker
// builds one from a solvers.Policy; models knows no policies.
type Mechanism func(reported *Division) (*Outcome, error)

// MisreportSearch says how hard StrategyProof looks for a profitable lie.
// For each user u in turn it tries, for all of u's jobs at once:
//
//  1. scaling the reported speed on one type by each of Factors (0 hides
//     the type, as long as the job can still run somewhere);
//  2. reporting the best speed on every type it can run on (hiding its
//     heterogeneity), and reporting only its best type;
//  3. swapping the reported speeds of two types;
//
// then climbs from the most profitable of these (even a zero gain), Climb
// times at most, by the best of the moves "one type's reported speed × Step
// or ÷ Step". With Grid set it first tries every report whose speeds all lie
// in Grid (the same vector for each of the user's jobs): with a grid that
// holds the instance's own speeds, this is exhaustive over the grid. At most
// MaxEvals mechanism calls are spent per user (0: no limit).
type MisreportSearch struct {
	Grid     []float64 `json:"grid,omitempty"`
	Factors  []float64 `json:"factors"`
	Climb    int       `json:"climb"`
	Step     float64   `json:"step"`
	MaxEvals int       `json:"max_evals"`
}

// DefaultMisreportSearch is the search the checker uses unless told
// otherwise.
func DefaultMisreportSearch() MisreportSearch {
	return MisreportSearch{Factors: []float64{0, 0.25, 0.5, 0.8, 1.25, 2, 4}, Climb: 6, Step: 1.5, MaxEvals: 60}
}

// Misreport is a profitable lie: what user User reported for each of its
// jobs (Speeds[k] for the k-th job of Division.JobsOf(User)), and its true
// utility when truthful and when lying.
type Misreport struct {
	User     int
	Speeds   [][]float64
	Truthful float64
	Lying    float64
}

// Reported returns a copy of d in which the lie's user reports its speeds.
func (m *Misreport) Reported(d *Division) *Division {
	return d.withSpeeds(m.User, m.Speeds)
}

// withSpeeds copies d with the speeds of user u's jobs replaced.
func (d *Division) withSpeeds(u int, speeds [][]float64) *Division {
	c := *d
	c.Jobs = append([]DivisionJob(nil), d.Jobs...)
	for k, j := range d.byUser[u] {
		c.Jobs[j].Speed = speeds[k]
	}
	if err := c.Index(); err != nil {
		return nil
	}
	return &c
}

// StrategyProof searches for a misreport of one user's speeds that raises
// its true utility (DESIGN.md, "Properties"):
//
//	∀u, ∀T'_u: U_u(M(T'_u, T_−u); T_u) ≤ U_u(M(T); T_u) + tol,
//
// the slack scaled by M_u = V_u(N), where M is the mechanism and truth its
// outcome on the true speeds. The search is MisreportSearch's: it proves
// nothing when it finds no lie, but it is a search, not one sample. A
// mechanism error is returned as an error, not as a violation.
func StrategyProof(d *Division, truth *Outcome, mech Mechanism, s MisreportSearch, tol Tolerance) (bool, string, *Misreport, error) {
	for u := range d.Users {
		lie, err := d.searchUser(u, truth, mech, s, tol)
		if err != nil {
			return false, "", nil, err
		}
		if lie != nil {
			return false, lie.describe(d), lie, nil
		}
	}
	return true, "", nil, nil
}

func (m *Misreport) describe(d *Division) string {
	var parts []string
	for k, j := range d.byUser[m.User] {
		var figs []string
		for g, t := range m.Speeds[k] {
			figs = append(figs, fmt.Sprintf("%s %.4g (true %.4g)", d.Types[g], t, d.Jobs[j].Speed[g]))
		}
		parts = append(parts, fmt.Sprintf("job %d: %s", d.Jobs[j].ID, strings.Join(figs, ", ")))
	}
	return fmt.Sprintf("user %s gains by misreporting [%s]: true utility %.6g → %.6g (+%.3g%% of V(N))",
		d.Users[m.User].Name, strings.Join(parts, "; "), m.Truthful, m.Lying, 100*(m.Lying-m.Truthful)/d.scale[m.User])
}

// searchUser returns a profitable lie of user u beyond tol, or nil.
func (d *Division) searchUser(u int, truth *Outcome, mech Mechanism, s MisreportSearch, tol Tolerance) (*Misreport, error) {
	jobs := d.byUser[u]
	m := len(d.Types)
	base := d.Utility(truth, u)
	limit := tol.Slack(d.scale[u])
	true0 := make([][]float64, len(jobs))
	for k, j := range jobs {
		true0[k] = d.Jobs[j].Speed
	}
	evals := 0
	best := struct {
		speeds [][]float64
		gain   float64
	}{nil, math.Inf(-1)}
	seen := map[string]bool{}
	// try evaluates one report; it returns a lie beyond the tolerance.
	try := func(speeds [][]float64) (*Misreport, error) {
		key := fmt.Sprint(speeds)
		if seen[key] || s.MaxEvals > 0 && evals >= s.MaxEvals || !d.runnable(jobs, speeds) {
			return nil, nil
		}
		seen[key] = true
		evals++
		rep := d.withSpeeds(u, speeds)
		if rep == nil {
			return nil, nil
		}
		out, err := mech(rep)
		if err != nil {
			return nil, fmt.Errorf("mechanism on a misreport of user %s: %w", d.Users[u].Name, err)
		}
		got := d.Utility(out, u)
		if got-base > best.gain {
			best.speeds, best.gain = speeds, got-base
		}
		if got-base > limit {
			return &Misreport{User: u, Speeds: speeds, Truthful: base, Lying: got}, nil
		}
		return nil, nil
	}
	var cands [][][]float64
	if len(s.Grid) > 0 {
		vec := make([]float64, m)
		var walk func(g int)
		walk = func(g int) {
			if g == m {
				cands = append(cands, mapSpeeds(true0, func(k, h int, t float64) float64 { return vec[h] }))
				return
			}
			for _, v := range s.Grid {
				vec[g] = v
				walk(g + 1)
			}
		}
		walk(0)
		// Reports that keep the true support (claim no type the job cannot
		// run on) first: such a lie is the more telling counterexample.
		sort.SliceStable(cands, func(a, b int) bool {
			return sameSupport(true0, cands[a]) && !sameSupport(true0, cands[b])
		})
	}
	for g := 0; g < m; g++ {
		for _, f := range s.Factors {
			if f == 1 {
				continue
			}
			cands = append(cands, mapSpeeds(true0, func(k, h int, t float64) float64 {
				if h == g {
					return t * f
				}
				return t
			}))
		}
	}
	cands = append(cands,
		mapSpeeds(true0, func(k, h int, t float64) float64 {
			if t > 0 {
				return maxOf(true0[k])
			}
			return 0
		}),
		mapSpeeds(true0, func(k, h int, t float64) float64 {
			if t == maxOf(true0[k]) {
				return t
			}
			return 0
		}))
	for g := 0; g < m; g++ {
		for h := g + 1; h < m; h++ {
			cands = append(cands, mapSpeeds(true0, func(k, i int, t float64) float64 {
				switch i {
				case g:
					return true0[k][h]
				case h:
					return true0[k][g]
				}
				return t
			}))
		}
	}
	for _, c := range cands {
		if lie, err := try(c); lie != nil || err != nil {
			return lie, err
		}
	}
	cur := best.speeds
	for step := 0; step < s.Climb && cur != nil; step++ {
		before := best.gain
		from := cur
		for g := 0; g < m; g++ {
			for _, f := range []float64{s.Step, 1 / s.Step} {
				c := mapSpeeds(from, func(k, h int, t float64) float64 {
					if h == g {
						return t * f
					}
					return t
				})
				if lie, err := try(c); lie != nil || err != nil {
					return lie, err
				}
			}
		}
		if best.gain <= before {
			break
		}
		cur = best.speeds
	}
	return nil, nil
}

// runnable reports whether every job of the report can still run somewhere.
func (d *Division) runnable(jobs []int, speeds [][]float64) bool {
	for k, j := range jobs {
		ok := false
		for g, t := range speeds[k] {
			if t > 0 && d.Jobs[j].Gang <= d.Capacity[g] {
				ok = true
			}
			if t < 0 || math.IsNaN(t) || math.IsInf(t, 0) {
				return false
			}
		}
		if !ok {
			return false
		}
	}
	return true
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
	m := 0.0
	for _, x := range xs {
		m = math.Max(m, x)
	}
	return m
}
