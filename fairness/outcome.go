package fairness

import (
	"fmt"
	"maps"
	"slices"

	"fairbench/models"
)

// Outcome is an allocation in a Division's terms: X[j][g], the fraction of
// time job j runs on type g (Gavel's x[j][g]; an integral placement is x = 1
// on its type), K[j][g], the speed factor it runs at there (1, or the
// co-located or gradient-accumulation throughput over the isolated one), and
// Held[u][g], the GPUs of type g user u holds (Σ_j d_j·x[j][g] over its
// jobs; a GPU shared by two jobs counts half to each).
type Outcome struct {
	// X[j][g] is the fraction of time job j runs on type g.
	X [][]float64
	// K[j][g] is the speed factor while it does (nil: 1 everywhere).
	K [][]float64
	// Held[u][g] is the GPUs of type g user u holds, time-averaged.
	Held [][]float64
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

// SetFactor sets K[j][g], creating K (all ones) on first use.
func (o *Outcome) SetFactor(j, g int, k float64) {
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
// figures. a must pass models.Feasible first (the checker always checks it
// first); jobs and types it names that d lacks are an error.
func OutcomeOf(s *models.Snapshot, d *Division, a models.Allocation, slowdown float64) (*Outcome, error) {
	r := outcomeReader{s: s, d: d, o: NewOutcome(d), slowdown: slowdown,
		jobIdx: make(map[models.JobID]int, len(d.Jobs)), typeIdx: make(map[string]int, len(d.Types))}
	for i := range d.Jobs {
		r.jobIdx[d.Jobs[i].ID] = i
	}
	for g, t := range d.Types {
		r.typeIdx[t] = g
	}
	for _, f := range []func(models.Allocation) error{r.fractions, r.shared, r.placements} {
		if err := f(a); err != nil {
			return nil, err
		}
	}
	return r.o, nil
}

// outcomeReader turns one allocation into an outcome.
type outcomeReader struct {
	s        *models.Snapshot
	d        *Division
	o        *Outcome
	slowdown float64
	jobIdx   map[models.JobID]int
	typeIdx  map[string]int
}

func (r *outcomeReader) lookup(id models.JobID, t string) (int, int, error) {
	j, ok := r.jobIdx[id]
	if !ok {
		return 0, 0, fmt.Errorf("fairness: outcome: job %d is not in the division", id)
	}
	g, ok := r.typeIdx[t]
	if !ok {
		return 0, 0, fmt.Errorf("fairness: outcome: job %d: GPU type %q is not in the cluster", id, t)
	}
	return j, g, nil
}

func (r *outcomeReader) held(j, g int, x float64) {
	r.o.Held[r.d.Jobs[j].User][g] += r.d.Jobs[j].Gang * x
}

func (r *outcomeReader) fractions(a models.Allocation) error {
	for _, id := range slices.Sorted(maps.Keys(a.Fractions)) {
		for _, t := range slices.Sorted(maps.Keys(a.Fractions[id])) {
			x := a.Fractions[id][t]
			if x == 0 {
				continue
			}
			j, g, err := r.lookup(id, t)
			if err != nil {
				return err
			}
			r.o.X[j][g] += x
			r.held(j, g, x)
		}
	}
	return nil
}

func (r *outcomeReader) shared(a models.Allocation) error {
	for _, sf := range a.Shared {
		for k, id := range sf.Jobs {
			j, g, err := r.lookup(id, sf.Type)
			if err != nil {
				return err
			}
			js, _ := r.s.Job(id)
			other, _ := r.s.Job(sf.Jobs[1-k])
			f := pairFactor(r.s, js, other, sf.Type, r.slowdown)
			// A shared fraction adds time at the co-located speed: fold it
			// into X at the equivalent full-speed time.
			r.o.X[j][g] += sf.X * f
			r.held(j, g, sf.X/2)
		}
	}
	return nil
}

func (r *outcomeReader) placements(a models.Allocation) error {
	sharers := map[int][]*models.JobState{}
	for _, as := range a.Run {
		js, _ := r.s.Job(as.Job)
		for _, gpu := range as.GPUs {
			if js != nil {
				sharers[gpu] = append(sharers[gpu], js)
			}
		}
	}
	for _, as := range a.Run {
		j, g, err := r.lookup(as.Job, as.Type)
		if err != nil {
			return err
		}
		js, _ := r.s.Job(as.Job)
		k := 1.0
		if as.Accum > 1 {
			k = accumFactor(r.s, js, as)
		}
		share := 1.0
		var partner *models.JobState
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
			k *= pairFactor(r.s, js, partner, as.Type, r.slowdown)
		}
		r.o.X[j][g] = 1
		if k != 1 {
			r.o.SetFactor(j, g, k)
		}
		r.held(j, g, share)
	}
	return nil
}

// pairFactor is j's co-located throughput beside other on type t over its
// isolated one: the matrix's pair figure, or 1/slowdown when unmeasured.
func pairFactor(s *models.Snapshot, j, other *models.JobState, t string, slowdown float64) float64 {
	iso := s.Throughput(&j.Job, t)
	if iso <= 0 {
		return 0
	}
	k := models.PairKey{Key: models.Key{Job: j.Type, GPU: t, Gang: j.Gang}, Other: other.Type}
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
func accumFactor(s *models.Snapshot, j *models.JobState, as models.Assignment) float64 {
	iso := s.Throughput(&j.Job, as.Type)
	for _, p := range []models.Placement{models.Consolidated, models.Spread} {
		if t, ok := models.AccumThroughput(s.JobTypes, s.Matrix, &j.Job, as.Type, p, as.Accum); ok && iso > 0 {
			return t / iso
		}
	}
	return 0
}
