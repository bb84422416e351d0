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
// counts GPUs per type; the simulator picks the servers. The zero Packer is
// ready for Reset.
type Packer struct {
	s     *models.Snapshot
	types []string       // s.Cluster.TypeNames()
	left  []int          // free GPUs per type, indexed like types
	free  map[string]int // the same by name, for the choosers; made by the first Place
	stale []bool         // per type: free does not show left yet
	most  int            // max over types of left
	run   []models.Assignment
}

// NewPacker starts with every GPU of s's cluster free.
func NewPacker(s *models.Snapshot) *Packer {
	p := new(Packer)
	p.Reset(s)
	return p
}

// Reset starts p again on s with every GPU free, keeping its work space: it
// places into the storage of the Assignments it returned last, so a policy
// that keeps its Packer packs without allocating them again, and then owns
// the Run it returns only until its next Allocate (solvers.Policy allows
// that).
func (p *Packer) Reset(s *models.Snapshot) {
	p.s, p.types, p.run, p.most = s, s.Cluster.TypeNames(), p.run[:0], 0
	p.left = slices.Grow(p.left[:0], len(p.types))[:len(p.types)]
	for i, g := range p.types {
		p.left[i] = s.Cluster.Capacity(g)
		p.most = max(p.most, p.left[i])
	}
	if p.free != nil {
		clear(p.free)
		p.stale = slices.Grow(p.stale[:0], len(p.types))[:len(p.types)]
		for i := range p.stale {
			p.stale[i] = true
		}
	}
	if cap(p.run) > 0 {
		return
	}
	// Room for the running jobs and one job per free GPU: what a
	// non-preemptive decision places at most, and usually about what a
	// preemptive one does.
	n, held := 0, 0
	for i := range s.Jobs {
		if j := &s.Jobs[i]; j.Running() {
			n, held = n+1, held+j.Gang
		}
	}
	p.run = make([]models.Assignment, 0, min(len(s.Jobs), n+max(0, s.Cluster.TotalGPUs()-held)))
}

// Place asks choose for a type with room for j's gang and, when there is one,
// assigns j to it and reports true.
func (p *Packer) Place(j *models.JobState, choose Chooser) bool {
	if j.Gang > p.most {
		return false // no type has room: spare the chooser
	}
	if p.free == nil {
		p.free = make(map[string]int, len(p.types))
		p.stale = make([]bool, len(p.types))
		for i := range p.stale {
			p.stale[i] = true
		}
	}
	for i, stale := range p.stale {
		if stale {
			p.free[p.types[i]], p.stale[i] = p.left[i], false
		}
	}
	g, ok := choose(p.s, j, p.free)
	if !ok {
		return false
	}
	i := slices.Index(p.types, g)
	if i < 0 || p.left[i] < j.Gang || p.s.ThroughputOf(j, g) <= 0 {
		return false
	}
	p.take(j, i)
	return true
}

// Stay is Place(j, StayOrFastest), on the Packer's own counts.
func (p *Packer) Stay(j *models.JobState) bool {
	if j.Gang > p.most {
		return false
	}
	if j.Running() && j.LastType != "" {
		if i := p.s.Cluster.TypeIndex(j.LastType); i >= 0 && p.left[i] >= j.Gang && p.rate(j, i) > 0 {
			p.take(j, i)
			return true
		}
	}
	return p.Fastest(j)
}

// Fastest is Place(j, Fastest), on the Packer's own counts.
func (p *Packer) Fastest(j *models.JobState) bool {
	if j.Gang > p.most {
		return false
	}
	best, bt := -1, 0.0
	for i, n := range p.left {
		if n >= j.Gang {
			if t := p.rate(j, i); t > bt {
				best, bt = i, t
			}
		}
	}
	if best < 0 {
		return false
	}
	p.take(j, best)
	return true
}

// rate is j's throughput on types[i].
func (p *Packer) rate(j *models.JobState, i int) float64 {
	if row := p.s.RowOf(j); row != nil {
		return row[i]
	}
	return p.s.Throughput(&j.Job, p.types[i])
}

// take assigns j to types[i], which has room for its gang.
func (p *Packer) take(j *models.JobState, i int) {
	p.left[i] -= j.Gang
	if p.stale != nil {
		p.stale[i] = true
	}
	if p.left[i]+j.Gang == p.most {
		p.most = slices.Max(p.left)
	}
	p.run = append(p.run, models.Assignment{Job: j.ID, Type: p.types[i]})
}

// Free is the number of GPUs of type g not yet assigned.
func (p *Packer) Free(g string) int {
	if i := slices.Index(p.types, g); i >= 0 {
		return p.left[i]
	}
	return 0
}

// Assignments are the placed jobs, in the order they were placed.
func (p *Packer) Assignments() []models.Assignment { return p.run }

// Finish is Assignments for a policy that keeps its Packer: it also drops
// the Packer's reference to the snapshot, which a policy must not keep
// beyond its Allocate.
func (p *Packer) Finish() []models.Assignment {
	p.s = nil
	return p.run
}

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
	return p.PlaceSeqBy(order, func(j *models.JobState) bool { return p.Place(j, choose) }, strict)
}

// PlaceSeqBy is PlaceSeq with place placing one job and reporting whether
// it did: p.Stay or p.Fastest (the choosers' rules on the Packer's own
// counts), or a Place with another chooser.
func (p *Packer) PlaceSeqBy(order iter.Seq[*models.JobState], place func(*models.JobState) bool, strict bool) bool {
	all := true
	for j := range order {
		if p.most == 0 {
			return false // the cluster is full and j is still waiting
		}
		if place(j) {
			continue
		}
		all = false
		if strict && runnable(p.s, j) {
			return false
		}
	}
	return all
}
