package fairness

import (
	"errors"
	"fmt"
	"math"

	"fairbench/models"
	"fairbench/solvers/lp"
)

// Division is the fair-division view of one decision (docs/checker.md,
// "The model"). It keeps what the predicates need from a Snapshot in dense
// slices, so that checking a small instance costs microseconds:
//
//   - m GPU types with capacities N_g (GPUs);
//   - n users with weights w_u (the users that have at least one active job);
//   - k jobs, each owned by one user, with gang d_j and speed T[j][g], the
//     steps per second of its whole gang on type g (0: cannot run there; a
//     type with fewer GPUs than the gang cannot run it either).
//
// A job's progress is measured in units of its best speed,
// a[j][g] = T[j][g] / max_h T[j][h], so that the jobs of one user can be
// added up; a user's utility of an outcome is
//
//	U_u(x) = Σ_{j∈u} Σ_g a[j][g]·K[j][g]·x[j][g],
//
// and the value of a bundle b of GPUs is the best utility the user can get
// from it,
//
//	V_u(b) = max Σ_{j∈u} Σ_g a[j][g]·y[j][g]
//	         s.t. Σ_g y[j][g] ≤ 1 for every job j of u, Σ_{j∈u} d_j·y[j][g] ≤ b[g], y ≥ 0,
//
// a fractional knapsack for a user with one job and a small transportation
// LP (solved with solvers/lp) otherwise. Build a Division with NewDivision
// or, field by field, followed by Index.
type Division struct {
	// Types are the GPU type names, in the cluster's TypeNames order, and
	// Capacity their GPUs N_g.
	Types    []string
	Capacity []float64
	// Users are the users that have at least one job.
	Users []models.User
	Jobs  []Job
	// LP solves the transportation and Pareto LPs; nil means lp.Default().
	LP lp.Solver

	byUser [][]int     // job indices of each user
	a      [][]float64 // a[j][g] = T[j][g] / best_j
	scale  []float64   // V_u(N), computed on first use (NaN until then)
}

// Job is one job of a Division.
type Job struct {
	ID models.JobID
	// User is the index of its user in Division.Users.
	User int
	Gang float64
	// Speed[g] is T[j][g]: steps per second with the whole gang on type g.
	Speed []float64
}

// NewDivision builds the division of s: the cluster's types and capacities,
// the users with active jobs (in s.Users order) and the active jobs with
// their speeds from s.Throughput. A job whose user is not in s.Users is an
// error.
func NewDivision(s *models.Snapshot) (*Division, error) {
	types := s.Cluster.TypeNames()
	d := &Division{Types: types, Capacity: make([]float64, len(types))}
	for g, t := range types {
		d.Capacity[g] = float64(s.Cluster.Capacity(t))
	}
	index := map[string]int{}
	active := map[string]bool{}
	for i := range s.Jobs {
		active[s.Jobs[i].User] = true
	}
	for _, u := range s.Users {
		if active[u.Name] {
			index[u.Name] = len(d.Users)
			d.Users = append(d.Users, u)
		}
	}
	for i := range s.Jobs {
		j := &s.Jobs[i]
		u, ok := index[j.User]
		if !ok {
			return nil, fmt.Errorf("fairness: division: job %d: unknown user %q", j.ID, j.User)
		}
		dj := Job{ID: j.ID, User: u, Gang: float64(j.Gang), Speed: make([]float64, len(types))}
		for g, t := range types {
			dj.Speed[g] = s.Throughput(&j.Job, t)
		}
		d.Jobs = append(d.Jobs, dj)
	}
	if err := d.Index(); err != nil {
		return nil, err
	}
	return d, nil
}

// Index validates d and builds its lookup tables; call it after filling or
// changing the fields by hand. Every job needs a user in range, a positive
// gang and at least one positive speed on a type with at least its gang of
// GPUs; capacities and weights must be finite, capacities ≥ 0 and weights
// > 0.
func (d *Division) Index() error {
	m := len(d.Types)
	if len(d.Capacity) != m {
		return fmt.Errorf("fairness: division: %d capacities for %d types", len(d.Capacity), m)
	}
	for g, c := range d.Capacity {
		if c < 0 || math.IsNaN(c) || math.IsInf(c, 0) {
			return fmt.Errorf("fairness: division: capacity of %s: must be finite and not negative, got %v", d.Types[g], c)
		}
	}
	for _, u := range d.Users {
		if err := u.Validate(); err != nil {
			return fmt.Errorf("fairness: division: %w", err)
		}
	}
	d.byUser = make([][]int, len(d.Users))
	d.a = make([][]float64, len(d.Jobs))
	for i := range d.Jobs {
		if err := d.indexJob(i); err != nil {
			return err
		}
	}
	d.scale = make([]float64, len(d.Users))
	for u := range d.scale {
		d.scale[u] = math.NaN()
	}
	return nil
}

// indexJob validates job i and fills its normalised speeds.
func (d *Division) indexJob(i int) error {
	j := &d.Jobs[i]
	if j.User < 0 || j.User >= len(d.Users) {
		return fmt.Errorf("fairness: division: job %d: user index %d out of range", j.ID, j.User)
	}
	if len(j.Speed) != len(d.Types) {
		return fmt.Errorf("fairness: division: job %d: %d speeds for %d types", j.ID, len(j.Speed), len(d.Types))
	}
	if !(j.Gang > 0) || math.IsInf(j.Gang, 0) {
		return fmt.Errorf("fairness: division: job %d: gang must be positive, got %v", j.ID, j.Gang)
	}
	best := 0.0
	for g, t := range j.Speed {
		if t < 0 || math.IsNaN(t) || math.IsInf(t, 0) {
			return fmt.Errorf("fairness: division: job %d: speed on %s: must be finite and not negative, got %v", j.ID, d.Types[g], t)
		}
		if j.Gang <= d.Capacity[g] {
			best = math.Max(best, t)
		}
	}
	if best <= 0 {
		return fmt.Errorf("fairness: division: job %d: no GPU type can run it", j.ID)
	}
	d.a[i] = make([]float64, len(d.Types))
	for g, t := range j.Speed {
		if j.Gang <= d.Capacity[g] {
			d.a[i][g] = t / best
		}
	}
	d.byUser[j.User] = append(d.byUser[j.User], i)
	return nil
}

// JobsOf lists the indices (into Jobs) of user u's jobs.
func (d *Division) JobsOf(u int) []int { return d.byUser[u] }

// Scale is V_u(N), user u's value of the whole cluster: the unit in which
// Pareto gains and the gains of lies are measured. It is NaN when the LP
// backend fails on it, so that every comparison with it fails loudly
// downstream (an LP refuses NaN coefficients).
func (d *Division) Scale(u int) float64 {
	if math.IsNaN(d.scale[u]) {
		v, err := d.Value(u, d.Capacity, 1)
		if err != nil {
			return math.NaN()
		}
		d.scale[u] = v
	}
	return d.scale[u]
}

// Utility is U_u(o) = Σ_{j∈u} Σ_g a[j][g]·K[j][g]·X[j][g].
func (d *Division) Utility(o *Outcome, u int) float64 {
	s := 0.0
	for _, j := range d.byUser[u] {
		for g, x := range o.X[j] {
			if x == 0 {
				continue
			}
			k := 1.0
			if o.K != nil {
				k = o.K[j][g]
			}
			s += d.a[j][g] * k * x
		}
	}
	return s
}

// Entitlement is user u's weighted share of every type, w_u / Σ_v w_v, the
// sum running over the division's users (those with active jobs).
func (d *Division) Entitlement(u int) float64 {
	total := 0.0
	for _, v := range d.Users {
		total += v.Weight
	}
	return d.Users[u].Weight / total
}

// solver is d.LP or the build's default backend.
func (d *Division) solver() lp.Solver {
	if d.LP != nil {
		return d.LP
	}
	return lp.Default()
}

// errLP wraps a failure of the LP backend: never a property violation.
var errLP = errors.New("fairness: LP backend failed")
