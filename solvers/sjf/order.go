package sjf

import (
	"cmp"
	"slices"
	"time"

	"fairbench/models"
)

// order keeps the active jobs sorted by a key that does not change while a
// job is active (sjf's total duration estimate), from decision to decision:
// a decision computes the keys of the jobs that arrived since the previous
// one and merges them in, instead of computing every key and sorting every
// waiting job again. It serves one run (one cluster and matrix); a snapshot
// of another starts it afresh.
type order struct {
	key     func(*models.Snapshot, *models.JobState) float64
	cluster *models.Cluster
	matrix  *models.Matrix
	sorted  []*entry // by (key, arrival, ID)
	snap    []*entry // in the last snapshot's order
	byID    map[models.JobID]*entry
	gen     int
	// Work space: the storage of the previous snap and sorted, which the
	// next step fills and swaps in.
	spareSnap, spareSorted []*entry
}

// entry is one active job: its key and, for the decision being made, its
// position in the snapshot.
type entry struct {
	job     models.Job // as keyed
	id      models.JobID
	arrival time.Duration
	key     float64
	gen     int // order.gen of the last snapshot that held it
	pos     int // index into that snapshot's Jobs
}

// compare is sortBy's order: ascending key, ties by arrival and then ID.
func compare(a, b *entry) int {
	if a.key != b.key {
		if a.key < b.key {
			return -1
		}
		return 1
	}
	if c := cmp.Compare(a.arrival, b.arrival); c != 0 {
		return c
	}
	return cmp.Compare(a.id, b.id)
}

// update brings the order to snapshot s: jobs that left are dropped, new
// ones keyed and merged in. The snapshot's jobs come in arrival order, so
// each is found by walking the last snapshot's list alongside; a job not
// found there (new, or a snapshot in another order) is looked up by ID. A
// known ID whose job differs from the one keyed (a snapshot of another run)
// starts the order afresh.
func (o *order) update(s *models.Snapshot) {
	if o.byID == nil || o.cluster != s.Cluster || o.matrix != s.Matrix || !o.step(s) {
		*o = order{key: o.key, cluster: s.Cluster, matrix: s.Matrix, byID: map[models.JobID]*entry{}}
		o.step(s)
	}
}

// step is update on a known run; it reports false, having changed
// nothing the next step relies on, when s holds a known ID with another job.
func (o *order) step(s *models.Snapshot) bool {
	o.gen++
	var fresh []*entry
	snap := slices.Grow(o.spareSnap[:0], len(s.Jobs))
	k := 0
	for i := range s.Jobs {
		j := &s.Jobs[i]
		for k < len(o.snap) && o.snap[k].id != j.ID && (o.snap[k].arrival < j.Arrival || (o.snap[k].arrival == j.Arrival && o.snap[k].id < j.ID)) {
			k++ // left since, or found out of order
		}
		var e *entry
		if k < len(o.snap) && o.snap[k].id == j.ID {
			e = o.snap[k]
			k++
		} else if e = o.byID[j.ID]; e == nil {
			e = &entry{job: j.Job, id: j.ID, arrival: j.Arrival, key: o.key(s, j)}
			o.byID[j.ID] = e
			fresh = append(fresh, e)
		}
		if e.job != j.Job {
			return false
		}
		e.gen, e.pos = o.gen, i
		snap = append(snap, e)
	}
	for _, e := range o.snap {
		if e.gen != o.gen {
			delete(o.byID, e.id)
		}
	}
	clear(o.snap)
	o.snap, o.spareSnap = snap, o.snap[:0]
	kept := slices.DeleteFunc(o.sorted, func(e *entry) bool { return e.gen != o.gen })
	if len(fresh) == 0 {
		o.sorted = kept
		return true
	}
	slices.SortFunc(fresh, compare)
	merged := slices.Grow(o.spareSorted[:0], len(kept)+len(fresh))
	a, b := 0, 0
	for a < len(kept) && b < len(fresh) {
		if compare(fresh[b], kept[a]) < 0 {
			merged = append(merged, fresh[b])
			b++
		} else {
			merged = append(merged, kept[a])
			a++
		}
	}
	merged = append(append(merged, kept[a:]...), fresh[b:]...)
	clear(o.sorted[:cap(o.sorted)])
	o.sorted, o.spareSorted = merged, o.sorted[:0]
	return true
}

// waiting yields the jobs of s that do not run, in key order (s is the
// snapshot update was last given).
func (o *order) waiting(s *models.Snapshot) func(yield func(*models.JobState) bool) {
	return func(yield func(*models.JobState) bool) {
		for _, e := range o.sorted {
			if j := &s.Jobs[e.pos]; !j.Running() && !yield(j) {
				return
			}
		}
	}
}
