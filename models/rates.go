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
	rows  map[rateKey][]float64
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
	return &Rates{env: env, types: slices.Clone(env.Cluster.TypeNames()), rows: map[rateKey][]float64{}}
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
	r.rows[k] = row
}

// Row is j's figures indexed like Cluster.TypeNames(), or nil when j was not
// added or the cluster's list of types is no longer in the order the row
// was made in. The caller must not modify it.
func (r *Rates) Row(j *Job) []float64 {
	if !slices.Equal(r.types, r.env.Cluster.TypeNames()) {
		return nil
	}
	return r.rows[keyOf(j)]
}

// Throughput is Environment.Throughput(j, gpu).
func (r *Rates) Throughput(j *Job, gpu string) float64 {
	if row, ok := r.rows[keyOf(j)]; ok {
		for i, g := range r.types {
			if g == gpu {
				return row[i]
			}
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
