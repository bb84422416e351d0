package sim

import (
	"math"
	"slices"

	"fairbench/models"
	"fairbench/solvers"
)

// This file is the round mechanism: the pure function that turns a
// fractional allocation (Gavel-style time shares x[j][g]) and what each job
// has received since the allocation was computed into one round's
// placements. It is Gavel's (Narayanan et al., OSDI 2020, its round-based
// scheduling mechanism; the exact rules, as Gavel's simulator applies them,
// are in docs/algorithms/gavel.md, "Round mechanism"):
//
//   - the priority of unit u (a job, or two jobs sharing GPUs) on type g is
//     x[u][g] divided by the fraction of type g's time since the last
//     allocation that u received, x[u][g] · W[g] / J[u][g]; 0 when x is 0,
//     when u cannot run on g, or when u is not in the allocation;
//   - each type's units are sorted by (priority, deficit, share), highest
//     first, ties in the units' order;
//   - the per-type lists are concatenated in the visiting order of the types
//     and walked once: a unit is placed on a type when it is not placed yet,
//     can run there, and its gang fits in the GPUs left of that type. A unit
//     that does not fit is passed over (backfill).
//
// Units with zero priority are still candidates, after every unit with a
// positive one: GPUs that the allocation leaves idle are filled by any
// runnable job (work conservation), which is how Gavel's simulator behaves.

// Unit is one candidate of a round: a job alone, or the two jobs of a
// space-sharing pair, which run on the same GPUs.
type Unit struct {
	// Jobs are the job and, for a pair, its partner (Jobs[1] is -1 for a
	// job alone).
	Jobs [2]models.JobID
	// Gang is the GPUs the unit needs (a pair's jobs have the same gang).
	Gang int
	// InAllocation is false for a job that arrived after the allocation in
	// force was computed: the allocation does not know it.
	InAllocation bool
	// Share, Runnable, Time and Deficit are indexed like RoundInput.Types.
	// Share is x[u][g]; Runnable says whether the unit can run on g at all
	// (a measured positive throughput, for a pair both jobs'); Time is
	// J[u][g], the seconds the unit has run on g since the allocation was
	// computed plus the initial credit (Gavel credits every unit half a round when it arrives and when an
	// allocation is computed); Deficit is the
	// time on g the unit has fallen short of its shares over earlier
	// allocations, a tie-breaker.
	Share    []float64
	Runnable []bool
	Time     []float64
	Deficit  []float64
	// Over, when the allocation is capped, marks the types on which the
	// unit has already had more than its share and must not run this round.
	Over []bool
}

// Single reports whether u is one job rather than a pair.
func (u *Unit) Single() bool { return u.Jobs[1] < 0 }

// RoundInput is everything one round's decision reads.
type RoundInput struct {
	// Types are the GPU types in the order the walk visits them.
	Types []string
	// Free is the GPUs of each type available to the round.
	Free []int
	// WorkerTime is W[g]: the time all units together have run on each
	// type since the allocation was computed, plus the initial credits.
	WorkerTime []float64
	// Units are the candidates; their order breaks ties.
	Units []Unit
	// Capped leaves out, on each type, the units with a zero share or with
	// Over set (fractions are caps as well as targets; not Gavel's).
	Capped bool
	// SkipZero leaves units with priority 0 out (Gavel's rule for its FIFO
	// policies).
	SkipZero bool
	// Arrivals says what to do with units not in the allocation.
	Arrivals solvers.Arrivals
}

// Pick is one placement decided by PlanRound: unit Unit runs on type
// Types[Type] this round.
type Pick struct {
	Unit, Type int
}

// Plan is PlanRound's outcome: the units placed, in the order they were
// picked, and, per type, the GPUs claimed by units that are then not placed
// (ArrivalsBlock), which stay idle.
type Plan struct {
	Picks   []Pick
	Blocked []int
}

// priorityScale stands in for an infinite priority (a share whose type has
// no time recorded yet), as Gavel does: large, and still proportional to the
// share so that larger shares come first.
const priorityScale = 1e9

// Priority is unit u's priority on type g given W[g] = worker: Gavel's
// x[u][g] / (J[u][g] / W[g]), 0 when u is not in the allocation, its share
// is 0 or it cannot run on g, and x·1e9 when no time is recorded yet.
func Priority(u *Unit, g int, worker float64) float64 {
	x := u.Share[g]
	if !u.InAllocation || x <= 0 || !u.Runnable[g] {
		return 0
	}
	if worker <= 0 || u.Time[g] <= 0 {
		return x * priorityScale
	}
	return x / (u.Time[g] / worker)
}

// PlanRound decides one round: see the comment at the top of this file. It
// does not modify in.
func PlanRound(in RoundInput) Plan { return planRound(in, &roundWork{}) }

// planEntry is one unit on one type in the walk's order.
type planEntry struct {
	unit, typ     int
	prio, deficit float64
	share         float64
}

// roundWork is the memory one round's decision works in, kept by the
// engine from one round to the next (the round mechanism runs every round):
// what planRound and shareRound return lives in it until the next round.
type roundWork struct {
	queue   []planEntry
	free    []int
	blocked []int
	placed  jobMarks
	picks   []Pick
	run     []models.Assignment
	pairs   [][2]models.JobID
	// roundInput's: the units, their per-type slices cut from two slabs,
	// and the per-type figures.
	units      []Unit
	floats     []float64
	bools      []bool
	perm       []int
	types      []string
	inFree     []int
	workerTime []float64
}

func byPlanKey(a, b planEntry) int {
	switch {
	case a.prio != b.prio:
		return cmpDesc(a.prio, b.prio)
	case a.deficit != b.deficit:
		return cmpDesc(a.deficit, b.deficit)
	}
	return cmpDesc(a.share, b.share)
}

// planRound is PlanRound in w's memory. Each type's list is walked in its
// sorted order (plansort.go) and the walk of a type ends once the type is
// full, so the list is drawn from a heap one entry at a time rather than
// sorted whole: the same entries in the same order, where a full cluster
// takes a few of a hundred-odd units a type.
func planRound(in RoundInput, w *roundWork) Plan {
	free := append(w.free[:0], in.Free...)
	w.free = free
	plan := Plan{Blocked: resize(&w.blocked, len(in.Types)), Picks: w.picks[:0]}
	placed := &w.placed
	placed.reset(in.Units)
	place := func(e planEntry) {
		u := &in.Units[e.unit]
		switch {
		case free[e.typ] == 0,
			placed.has(u.Jobs[0]) || (!u.Single() && placed.has(u.Jobs[1])),
			!u.Runnable[e.typ],
			in.SkipZero && e.prio <= 0,
			u.Gang > free[e.typ]:
			return
		}
		free[e.typ] -= u.Gang
		placed.set(u.Jobs[0])
		if !u.Single() {
			placed.set(u.Jobs[1])
		}
		if !u.InAllocation && in.Arrivals == solvers.ArrivalsBlock {
			plan.Blocked[e.typ] += u.Gang
			return
		}
		plan.Picks = append(plan.Picks, Pick{Unit: e.unit, Type: e.typ})
	}
	for g := range in.Types {
		list, nan := w.queue[:0], false
		for i := range in.Units {
			u := &in.Units[i]
			if !u.InAllocation && in.Arrivals == solvers.ArrivalsWait {
				continue
			}
			if in.Capped && (u.Share[g] <= 0 || (u.Over != nil && u.Over[g])) {
				continue
			}
			e := planEntry{i, g, Priority(u, g, in.WorkerTime[g]), u.Deficit[g], u.Share[g]}
			nan = nan || math.IsNaN(e.prio) || math.IsNaN(e.deficit) || math.IsNaN(e.share)
			list = append(list, e)
		}
		w.queue = list
		if nan { // byPlanKey is then no strict order: keep the stable sort's answer
			slices.SortStableFunc(list, byPlanKey)
			for _, e := range list {
				place(e)
			}
			continue
		}
		// Ties in the units' order, as a stable sort leaves them (the list
		// is in unit order): planBefore's order, a strict one. Entries the
		// walk would pass over whatever comes before them (units placed on
		// an earlier type, or that cannot run here or fit what is free) are
		// left out first: the others keep their order.
		list = slices.DeleteFunc(list, func(e planEntry) bool {
			u := &in.Units[e.unit]
			return placed.has(u.Jobs[0]) || (!u.Single() && placed.has(u.Jobs[1])) ||
				!u.Runnable[g] || (in.SkipZero && e.prio <= 0) || u.Gang > free[g]
		})
		heapifyPlan(list)
		for len(list) > 0 && free[g] > 0 {
			place(list[0])
			list = popPlan(list)
		}
	}
	w.picks = plan.Picks
	return plan
}

// jobMarks are the jobs placed in a round: a slice by ID when the units'
// IDs are small and not negative (a run numbers its jobs from 0), a map
// otherwise; a lookup in the map was a fifth of the walk.
type jobMarks struct {
	byID   []bool
	marked []models.JobID // the IDs marked in byID, to clear
	big    map[models.JobID]bool
	// small: this round's IDs index byID.
	small bool
}

// maxMarks is the largest ID marked in the slice (its size bounds the
// memory kept).
const maxMarks = 1 << 20

// reset unmarks every job and sizes the marks for units' IDs.
func (m *jobMarks) reset(units []Unit) {
	for _, id := range m.marked {
		m.byID[id] = false
	}
	m.marked = m.marked[:0]
	clear(m.big)
	hi := models.JobID(-1)
	m.small = true
	for i := range units {
		for k, id := range units[i].Jobs {
			if k == 1 && units[i].Single() {
				break
			}
			if id < 0 || id >= maxMarks {
				m.small = false
			}
			hi = max(hi, id)
		}
	}
	if !m.small {
		if m.big == nil {
			m.big = map[models.JobID]bool{}
		}
		return
	}
	if int(hi) >= len(m.byID) {
		m.byID = make([]bool, int(hi)+1+len(m.byID))
	}
}

func (m *jobMarks) has(id models.JobID) bool {
	if m.small {
		return m.byID[id]
	}
	return m.big[id]
}

func (m *jobMarks) set(id models.JobID) {
	if m.small {
		m.byID[id] = true
		m.marked = append(m.marked, id)
		return
	}
	m.big[id] = true
}

// resize makes *s n long, zeroed, reusing its memory, and returns it.
func resize[T any](s *[]T, n int) []T {
	if cap(*s) < n {
		*s = make([]T, n)
	}
	*s = (*s)[:n]
	clear(*s)
	return *s
}

// cmpDesc orders a before b when a is larger.
func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// ShareRound realises one round of a models.TimeShares allocation from the
// state in: PlanRound's picks, in pick order, as assignments (the unit's job,
// or both jobs of a pair, on the picked type, GPUs left to PlaceGangs), and
// the pairs among them. It does not modify in.
func ShareRound(in RoundInput) ([]models.Assignment, [][2]models.JobID) {
	return shareRound(in, &roundWork{})
}

// shareRound is ShareRound in w's memory.
func shareRound(in RoundInput, w *roundWork) ([]models.Assignment, [][2]models.JobID) {
	run, pairs := w.run[:0], w.pairs[:0]
	for _, p := range planRound(in, w).Picks {
		u := &in.Units[p.Unit]
		g := in.Types[p.Type]
		run = append(run, models.Assignment{Job: u.Jobs[0], Type: g})
		if !u.Single() {
			run = append(run, models.Assignment{Job: u.Jobs[1], Type: g})
			pairs = append(pairs, u.Jobs)
		}
	}
	w.run, w.pairs = run, pairs
	if len(run) == 0 {
		run = nil
	}
	if len(pairs) == 0 {
		pairs = nil
	}
	return run, pairs
}
