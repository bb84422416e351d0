package models

import "slices"

// Rates memoises Environment.Throughput for the jobs of one run: one row of
// figures, indexed like Cluster.TypeNames(), per distinct job type, gang and
// memory figure. The simulator fills it before it hands out a snapshot
// (Add), and it is only read afterwards, so concurrent readers are safe. A
// job it does not hold is computed as Environment.Throughput does; either
// way the figure is the same.
type Rates struct {
	env   Environment
	types []string
	rows  map[rateKey]*rateRow
}

// rateRow is one row of a Rates, with the key it was made for.
type rateRow struct {
	owner *Rates
	key   rateKey
	row   []float64
}

// rateKey is what Environment.Throughput reads of a job.
type rateKey struct {
	typ  string
	gang int
	mem  float64
}

func keyOf(j *Job) rateKey { return rateKey{j.Type, j.Gang, j.MemoryGB} }

// NewRates starts an empty memo of env's figures.
func NewRates(env Environment) *Rates {
	return &Rates{env: env, types: slices.Clone(env.Cluster.TypeNames()), rows: map[rateKey]*rateRow{}}
}

// Add computes j's figures on every type, unless a job of the same type,
// gang and memory figure was added before.
func (r *Rates) Add(j *Job) {
	k := keyOf(j)
	if _, ok := r.rows[k]; ok {
		return
	}
	row := make([]float64, len(r.types))
	for i, g := range r.types {
		row[i] = r.env.Throughput(j, g)
	}
	r.rows[k] = &rateRow{owner: r, key: k, row: row}
}

// Row is j's figures indexed like Cluster.TypeNames(), or nil when j was not
// added. The caller must not modify it.
func (r *Rates) Row(j *Job) []float64 {
	if rr := r.rows[keyOf(j)]; rr != nil {
		return rr.row
	}
	return nil
}

// Current reports whether the cluster's list of types is still in the
// order the rows were made in (a policy that sorts Cluster.TypeNames() in
// place, against its contract, reorders it).
func (r *Rates) Current() bool { return slices.Equal(r.types, r.env.Cluster.TypeNames()) }

// Attach gives j its row, which RowOf and ThroughputOf then read without a
// lookup; it adds j first.
func (r *Rates) Attach(j *JobState) {
	r.Add(&j.Job)
	j.rates = r.rows[keyOf(&j.Job)]
}

// Throughput is Environment.Throughput(j, gpu).
func (r *Rates) Throughput(j *Job, gpu string) float64 {
	if rr, ok := r.rows[keyOf(j)]; ok {
		if i := slices.Index(r.types, gpu); i >= 0 {
			return rr.row[i]
		}
	}
	return r.env.Throughput(j, gpu)
}

// For is r when it memoises env's cluster and matrix, else nil.
func (r *Rates) For(env *Environment) *Rates {
	if r == nil || r.env.Cluster != env.Cluster || r.env.Matrix != env.Matrix {
		return nil
	}
	return r
}

// Throughput is Environment.Throughput, from the snapshot's Rates when it
// has them.
func (s *Snapshot) Throughput(j *Job, gpu string) float64 {
	if r := s.Rates.For(&s.Environment); r != nil {
		return r.Throughput(j, gpu)
	}
	return s.Environment.Throughput(j, gpu)
}

// BestThroughput is Environment.BestThroughput, from the snapshot's Rates
// when it has them.
func (s *Snapshot) BestThroughput(j *Job) (string, float64) {
	r := s.Rates.For(&s.Environment)
	if r == nil {
		return s.Environment.BestThroughput(j)
	}
	row := r.Row(j)
	if row == nil {
		return s.Environment.BestThroughput(j)
	}
	best, bt := "", 0.0
	types := s.Cluster.TypeNames()
	for i, t := range row {
		if t > bt {
			best, bt = types[i], t
		}
	}
	return best, bt
}

// RowOf is j's figures indexed like Cluster.TypeNames() when the
// snapshot's Rates hold them (j is one of its jobs, given its row by
// Attach), else nil. The caller must not modify it.
func (s *Snapshot) RowOf(j *JobState) []float64 {
	rr := j.rates
	if rr == nil || rr.owner != s.Rates || rr.key != keyOf(&j.Job) || s.Rates.For(&s.Environment) == nil {
		return nil
	}
	return rr.row
}

// ThroughputOf is Throughput(&j.Job, gpu), read from j's row when it has
// one (RowOf).
func (s *Snapshot) ThroughputOf(j *JobState, gpu string) float64 {
	if row := s.RowOf(j); row != nil {
		if i := slices.Index(s.Rates.types, gpu); i >= 0 {
			return row[i]
		}
	}
	return s.Throughput(&j.Job, gpu)
}
