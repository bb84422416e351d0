package models

import (
	"fmt"
	"math"
)

// The single-allocation fairness predicates (sharing incentive, envy-freeness,
// Pareto efficiency, strategy-proofness; DESIGN.md, "Properties") work on a
// Division: the fair-division view of one decision. It keeps what the
// predicates need from a Snapshot in dense slices, so that checking a small
// instance costs microseconds:
//
//   - m GPU types with capacities N_g (GPUs);
//   - n users with weights w_u (the users that have at least one active job);
//   - k jobs, each owned by one user, with gang d_j and speed T[j][g], the
//     steps per second of its whole gang on type g (0: cannot run there; a
//     type with fewer GPUs than the gang cannot run it either).
//
// An allocation is seen as an Outcome: X[j][g], the fraction of time job j
// runs on type g (Gavel's x[j][g]; an integral placement is x = 1 on its
// type), K[j][g], the speed factor it runs at there (1, or the co-located or
// gradient-accumulation throughput over the isolated one), and Held[u][g],
// the GPUs of type g user u holds (Σ_j d_j·x[j][g] over its jobs; a GPU
// shared by two jobs counts half to each).
//
// Utility. A job's progress is measured in units of its best speed,
// a[j][g] = T[j][g] / max_h T[j][h], so that the jobs of one user can be
// added up; a user's utility is
//
//	U_u(x) = Σ_{j∈u} Σ_g a[j][g]·K[j][g]·x[j][g].
//
// With one job per user this is the job's throughput up to a constant, and
// every predicate below is invariant under such constants.
//
// Value of a bundle. The best a user can do with b[g] GPUs of each type is
//
//	V_u(b) = max Σ_{j∈u} Σ_g a[j][g]·y[j][g]
//	         s.t. Σ_g y[j][g] ≤ 1 for every job j of u, Σ_{j∈u} d_j·y[j][g] ≤ b[g], y ≥ 0,
//
// a fractional knapsack for a user with one job (fastest types first, as in
// EqualShareThroughput) and a small transportation LP otherwise.

// Division is the fair-division view of one decision; see the comment above.
// Build it with NewDivision or, field by field, followed by Index.
type Division struct {
	// Types are the GPU type names, in the cluster's TypeNames order, and
	// Capacity their GPUs N_g.
	Types    []string
	Capacity []float64
	// Users are the users that have at least one job.
	Users []User
	Jobs  []DivisionJob

	byUser [][]int     // job indices of each user
	a      [][]float64 // a[j][g] = T[j][g] / best_j
	scale  []float64   // V_u(N): the user's value of the whole cluster
}

// DivisionJob is one job of a Division.
type DivisionJob struct {
	ID JobID
	// User is the index of its user in Division.Users.
	User int
	Gang float64
	// Speed[g] is T[j][g]: steps per second with the whole gang on type g.
	Speed []float64
}

// Outcome is an allocation in a Division's terms; see the comment above.
type Outcome struct {
	// X[j][g] is the fraction of time job j runs on type g.
	X [][]float64
	// K[j][g] is the speed factor while it does (nil: 1 everywhere).
	K [][]float64
	// Held[u][g] is the GPUs of type g user u holds, time-averaged.
	Held [][]float64
}

// NewDivision builds the division of s: the cluster's types and capacities,
// the users with active jobs (in s.Users order) and the active jobs with
// their speeds from s.Throughput. A job whose user is not in s.Users is an
// error.
func NewDivision(s *Snapshot) (*Division, error) {
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
			return nil, fmt.Errorf("models: division: job %d: unknown user %q", j.ID, j.User)
		}
		dj := DivisionJob{ID: j.ID, User: u, Gang: float64(j.Gang), Speed: make([]float64, len(types))}
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
// gang and at least one positive speed; capacities and weights must be
// finite, capacities ≥ 0 and weights > 0.
func (d *Division) Index() error {
	m := len(d.Types)
	if len(d.Capacity) != m {
		return fmt.Errorf("models: division: %d capacities for %d types", len(d.Capacity), m)
	}
	for g, c := range d.Capacity {
		if err := nonNegative("capacity of "+d.Types[g], c); err != nil {
			return fmt.Errorf("models: division: %w", err)
		}
	}
	for _, u := range d.Users {
		if err := u.Validate(); err != nil {
			return fmt.Errorf("models: division: %w", err)
		}
	}
	d.byUser = make([][]int, len(d.Users))
	d.a = make([][]float64, len(d.Jobs))
	for i := range d.Jobs {
		j := &d.Jobs[i]
		if j.User < 0 || j.User >= len(d.Users) {
			return fmt.Errorf("models: division: job %d: user index %d out of range", j.ID, j.User)
		}
		if len(j.Speed) != m {
			return fmt.Errorf("models: division: job %d: %d speeds for %d types", j.ID, len(j.Speed), m)
		}
		if err := positive("gang", j.Gang); err != nil {
			return fmt.Errorf("models: division: job %d: %w", j.ID, err)
		}
		best := 0.0
		for g, t := range j.Speed {
			if err := nonNegative("speed on "+d.Types[g], t); err != nil {
				return fmt.Errorf("models: division: job %d: %w", j.ID, err)
			}
			if j.Gang <= d.Capacity[g] {
				best = math.Max(best, t)
			}
		}
		if best <= 0 {
			return fmt.Errorf("models: division: job %d: no GPU type can run it", j.ID)
		}
		d.a[i] = make([]float64, m)
		for g, t := range j.Speed {
			if j.Gang <= d.Capacity[g] {
				d.a[i][g] = t / best
			}
		}
		d.byUser[j.User] = append(d.byUser[j.User], i)
	}
	d.scale = make([]float64, len(d.Users))
	var lp denseLP
	for u := range d.Users {
		d.scale[u] = d.value(u, d.Capacity, 1, &lp)
	}
	return nil
}

// JobsOf lists the indices (into Jobs) of user u's jobs.
func (d *Division) JobsOf(u int) []int { return d.byUser[u] }

// Value is V_u(b), the best utility user u can get from b[g] GPUs of each
// type (see the comment at the top of this file).
func (d *Division) Value(u int, b []float64) float64 {
	var lp denseLP
	return d.value(u, b, 1, &lp)
}

// Scale is V_u(N), user u's value of the whole cluster: the unit in which
// Pareto gains are measured.
func (d *Division) Scale(u int) float64 { return d.scale[u] }

// value is V_u(f·b). A user with one job fills its fastest types first (a
// fractional knapsack, exact); several jobs solve the transportation LP.
func (d *Division) value(u int, b []float64, f float64, lp *denseLP) float64 {
	jobs := d.byUser[u]
	if len(jobs) == 1 {
		return d.knapsack(jobs[0], b, f)
	}
	return lp.bundle(d, jobs, b, f)
}

// knapsack is Σ_g a[j][g]·y_g maximised over Σ y ≤ 1, d_j·y_g ≤ f·b[g]:
// the types in descending a, each filled as far as its GPUs allow.
func (d *Division) knapsack(j int, b []float64, f float64) float64 {
	a := d.a[j]
	gang := d.Jobs[j].Gang
	left, val := 1.0, 0.0
	var used [16]bool
	big := len(a) > len(used)
	var usedBig []bool
	if big {
		usedBig = make([]bool, len(a))
	}
	for left > 0 {
		best := -1
		for g := range a {
			taken := big && usedBig[g] || !big && used[g]
			if !taken && a[g] > 0 && b[g] > 0 && (best < 0 || a[g] > a[best]) {
				best = g
			}
		}
		if best < 0 {
			break
		}
		if big {
			usedBig[best] = true
		} else {
			used[best] = true
		}
		y := math.Min(left, f*b[best]/gang)
		val += a[best] * y
		left -= y
	}
	return val
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

// NewOutcome returns an all-zero outcome shaped for d.
func NewOutcome(d *Division) *Outcome {
	o := &Outcome{X: make([][]float64, len(d.Jobs)), Held: make([][]float64, len(d.Users))}
	for j := range o.X {
		o.X[j] = make([]float64, len(d.Types))
	}
	for u := range o.Held {
		o.Held[u] = make([]float64, len(d.Types))
	}
	return o
}

// Hold recomputes Held from X: Held[u][g] = Σ_{j∈u} d_j·X[j][g].
func (o *Outcome) Hold(d *Division) {
	for u := range o.Held {
		clear(o.Held[u])
	}
	for j := range d.Jobs {
		u := d.Jobs[j].User
		for g, x := range o.X[j] {
			o.Held[u][g] += d.Jobs[j].Gang * x
		}
	}
}

// factor sets K[j][g], creating K on first use.
func (o *Outcome) factor(j, g int, k float64) {
	if o.K == nil {
		o.K = make([][]float64, len(o.X))
		for i := range o.K {
			o.K[i] = make([]float64, len(o.X[i]))
			for h := range o.K[i] {
				o.K[i][h] = 1
			}
		}
	}
	o.K[j][g] = k
}

// OutcomeOf reads allocation a, computed on snapshot s (with division d =
// NewDivision(s)), as an outcome. Placements count x = 1 on their type, at
// the gradient-accumulation throughput when they accumulate and, when two
// jobs name the same GPU, at the matrix's co-located figure (or the isolated
// one divided by slowdown, the simulator's default ξ, when the pair was not
// measured); fractions count as given, shared fractions at the co-located
// figures. a should pass Feasible first; jobs and types it names that d lacks
// are an error.
func OutcomeOf(s *Snapshot, d *Division, a Allocation, slowdown float64) (*Outcome, error) {
	o := NewOutcome(d)
	jobIdx := make(map[JobID]int, len(d.Jobs))
	for i := range d.Jobs {
		jobIdx[d.Jobs[i].ID] = i
	}
	typeIdx := make(map[string]int, len(d.Types))
	for g, t := range d.Types {
		typeIdx[t] = g
	}
	lookup := func(id JobID, t string) (int, int, error) {
		j, ok := jobIdx[id]
		if !ok {
			return 0, 0, fmt.Errorf("models: outcome: job %d is not in the division", id)
		}
		g, ok := typeIdx[t]
		if !ok {
			return 0, 0, fmt.Errorf("models: outcome: job %d: GPU type %q is not in the cluster", id, t)
		}
		return j, g, nil
	}
	held := func(j, g int, x float64) { o.Held[d.Jobs[j].User][g] += d.Jobs[j].Gang * x }
	for _, id := range sortedJobIDs(a.Fractions) {
		for _, t := range sortedTypeNames(a.Fractions[id]) {
			x := a.Fractions[id][t]
			if x == 0 {
				continue
			}
			j, g, err := lookup(id, t)
			if err != nil {
				return nil, err
			}
			o.X[j][g] += x
			held(j, g, x)
		}
	}
	for _, sf := range a.Shared {
		for k, id := range sf.Jobs {
			j, g, err := lookup(id, sf.Type)
			if err != nil {
				return nil, err
			}
			js, _ := s.Job(id)
			other, _ := s.Job(sf.Jobs[1-k])
			f := pairFactor(s, js, other, sf.Type, slowdown)
			// A shared fraction adds time at the co-located speed: fold it
			// into X at the equivalent full-speed time.
			o.X[j][g] += sf.X * f
			held(j, g, sf.X/2)
		}
	}
	sharers := map[int][]*JobState{}
	for _, as := range a.Run {
		js, _ := s.Job(as.Job)
		for _, gpu := range as.GPUs {
			if js != nil {
				sharers[gpu] = append(sharers[gpu], js)
			}
		}
	}
	for _, as := range a.Run {
		j, g, err := lookup(as.Job, as.Type)
		if err != nil {
			return nil, err
		}
		js, _ := s.Job(as.Job)
		k := 1.0
		if as.Accum > 1 {
			k = accumFactor(s, js, as)
		}
		share := 1.0
		var partner *JobState
		for _, gpu := range as.GPUs {
			if sh := sharers[gpu]; len(sh) > 1 {
				share = 0.5
				for _, p := range sh {
					if p.ID != js.ID {
						partner = p
					}
				}
			}
		}
		if partner != nil {
			k *= pairFactor(s, js, partner, as.Type, slowdown)
		}
		o.X[j][g] = 1
		if k != 1 {
			o.factor(j, g, k)
		}
		held(j, g, share)
	}
	return o, nil
}

// pairFactor is j's co-located throughput beside other on type t over its
// isolated one: the matrix's pair figure, or 1/slowdown when unmeasured.
func pairFactor(s *Snapshot, j, other *JobState, t string, slowdown float64) float64 {
	iso := s.Throughput(&j.Job, t)
	if iso <= 0 {
		return 0
	}
	k := PairKey{Key: Key{Job: j.Type, GPU: t, Gang: j.Gang}, Other: other.Type}
	if v, ok := s.Matrix.Pair(k); ok {
		return v[0] / iso
	}
	if slowdown < 1 {
		slowdown = 1
	}
	return 1 / slowdown
}

// accumFactor is j's throughput with as.Accum-step accumulation over its
// isolated one (0 when neither is measured).
func accumFactor(s *Snapshot, j *JobState, as Assignment) float64 {
	iso := s.Throughput(&j.Job, as.Type)
	for _, p := range []Placement{Consolidated, Spread} {
		if t, ok := AccumThroughput(s.JobTypes, s.Matrix, &j.Job, as.Type, p, as.Accum); ok && iso > 0 {
			return t / iso
		}
	}
	return 0
}
