package solvers

import (
	"iter"
	"slices"

	"fairbench/models"
)

// Chooser picks the GPU type job j should run on, given the GPUs still free
// per type, and reports false when no type can take its whole gang. It must
// be deterministic and may only read free.
type Chooser func(s *models.Snapshot, j *models.JobState, free map[string]int) (string, bool)

// Fastest chooses, among the types with at least j.Gang free GPUs that can
// run j, the one where j is fastest (s.Throughput); ties go to the type that
// comes first in s.Cluster.TypeNames() (newest generation, then name).
func Fastest(s *models.Snapshot, j *models.JobState, free map[string]int) (string, bool) {
	best, bt := "", 0.0
	types := s.Cluster.TypeNames()
	if row := s.RowOf(j); row != nil {
		for i, t := range row {
			if t > bt && free[types[i]] >= j.Gang {
				best, bt = types[i], t
			}
		}
		return best, best != ""
	}
	for _, g := range types {
		if free[g] < j.Gang {
			continue
		}
		if t := s.Throughput(&j.Job, g); t > bt {
			best, bt = g, t
		}
	}
	return best, best != ""
}

// StayOrFastest keeps a running job on the type it runs on (j.LastType) when
// that type still has room for its gang, so that the simulator leaves it on
// its GPUs; otherwise, and for a job that is not running, it is Fastest.
func StayOrFastest(s *models.Snapshot, j *models.JobState, free map[string]int) (string, bool) {
	if j.Running() && j.LastType != "" && free[j.LastType] >= j.Gang && s.ThroughputOf(j, j.LastType) > 0 {
		return j.LastType, true
	}
	return Fastest(s, j, free)
}

// Packer fills the cluster gang by gang: each placed job takes Gang GPUs of
// the type its Chooser names, counted against the type's capacity. It only
// counts GPUs per type; the simulator picks the servers.
type Packer struct {
	s     *models.Snapshot
	types []string       // s.Cluster.TypeNames()
	left  []int          // free GPUs per type, indexed like types
	free  map[string]int // the same by name, for the choosers
	most  int            // max over types of left
	run   []models.Assignment
}

// NewPacker starts with every GPU of s's cluster free.
func NewPacker(s *models.Snapshot) *Packer {
	p := &Packer{s: s, types: s.Cluster.TypeNames(), free: map[string]int{}}
	p.left = make([]int, len(p.types))
	for i, g := range p.types {
		p.left[i] = s.Cluster.Capacity(g)
		p.free[g] = p.left[i]
		p.most = max(p.most, p.left[i])
	}
	return p
}

// Place asks choose for a type with room for j's gang and, when there is one,
// assigns j to it and reports true.
func (p *Packer) Place(j *models.JobState, choose Chooser) bool {
	if j.Gang > p.most {
		return false // no type has room: spare the chooser
	}
	g, ok := choose(p.s, j, p.free)
	if !ok {
		return false
	}
	i := slices.Index(p.types, g)
	if i < 0 || p.left[i] < j.Gang || p.s.ThroughputOf(j, g) <= 0 {
		return false
	}
	p.left[i] -= j.Gang
	p.free[g] = p.left[i]
	if p.left[i]+j.Gang == p.most {
		p.most = slices.Max(p.left)
	}
	p.run = append(p.run, models.Assignment{Job: j.ID, Type: g})
	return true
}

// Free is the number of GPUs of type g not yet assigned.
func (p *Packer) Free(g string) int { return p.free[g] }

// Assignments are the placed jobs, in the order they were placed.
func (p *Packer) Assignments() []models.Assignment { return p.run }

// runnable reports whether any type of s's cluster can run j at all. A job
// that no type can run never blocks others in a strict Pack.
func runnable(s *models.Snapshot, j *models.JobState) bool {
	_, t := s.BestThroughput(&j.Job)
	return t > 0
}

// Pack places the jobs of order one by one with choose (see Packer). With
// strict it stops at the first job that cannot be placed (head-of-line
// blocking, skipping only jobs no type of the cluster can ever run);
// otherwise it skips that job and tries the next (backfilling).
func Pack(s *models.Snapshot, order []*models.JobState, choose Chooser, strict bool) []models.Assignment {
	p := NewPacker(s)
	p.PlaceAll(order, choose, strict)
	return p.Assignments()
}

// PlaceAll is Pack on a Packer that may already hold placements; it reports
// whether every job of order was placed.
func (p *Packer) PlaceAll(order []*models.JobState, choose Chooser, strict bool) bool {
	return p.PlaceSeq(slices.Values(order), choose, strict)
}

// PlaceSeq is PlaceAll over a sequence, which it stops reading as soon as the
// outcome is settled (the cluster is full, or a strict walk is blocked), so a
// long queue costs only the jobs actually looked at.
func (p *Packer) PlaceSeq(order iter.Seq[*models.JobState], choose Chooser, strict bool) bool {
	all := true
	for j := range order {
		if p.most == 0 {
			return false // the cluster is full and j is still waiting
		}
		if p.Place(j, choose) {
			continue
		}
		all = false
		if strict && runnable(p.s, j) {
			return false
		}
	}
	return all
}
