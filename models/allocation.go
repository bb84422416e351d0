package models

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// Assignment runs one job's whole gang on GPUs of one type until the next
// decision.
type Assignment struct {
	Job  JobID  `json:"job"`
	Type string `json:"type"`
	// GPUs optionally names the GPUs (indices into the cluster); when empty the
	// simulator places the gang itself, consolidated where possible.
	GPUs []int `json:"gpus,omitempty"`
	// Accum runs the job with Accum-step gradient accumulation (sub-batches
	// of BatchSize/Accum; see AccumThroughput); 0 or 1 means none.
	Accum int `json:"accum,omitempty"`
}

// Allocation is a policy's decision. It is integral (Run: which gangs run now,
// in priority order) or fractional (Fractions: the share of time each job
// should spend on each GPU type, Gavel-style, which the simulator's round
// mechanism turns into placements). A policy sets one of the two. Kind
// reads which of the three kinds (WholeGPUs, CoLocated, TimeShares) the
// fields ask for; the simulator realises each by its own mechanism.
type Allocation struct {
	Run       []Assignment                 `json:"run,omitempty"`
	Fractions map[JobID]map[string]float64 `json:"fractions,omitempty"`
	// Shared adds space sharing to a fractional allocation (Gavel's
	// las-ss): the share of time two jobs should run together on the same
	// GPUs of one type.
	Shared []SharedFraction `json:"shared,omitempty"`
	// Capped makes fractions upper bounds as well as targets: a job that has
	// already had more than its share x[j][g] of its time in the system on
	// type g does not run there this round, even on GPUs nobody else wants. Without it
	// the round mechanism, like Gavel's, lets jobs use idle GPUs beyond
	// their share.
	Capped bool `json:"capped,omitempty"`
	// Colocate lets two jobs share a GPU: assignments that name their GPUs
	// may then overlap, at most MaxJobsPerGPU jobs on a GPU whose memory
	// holds both. Each runs at its co-located throughput (the matrix's pair
	// figures) while it shares. Without it a GPU named twice is an error.
	Colocate bool `json:"colocate,omitempty"`
}

// SharedFraction asks for jobs Jobs[0] and Jobs[1], of the same gang, to run
// together on the same GPUs of type Type for a fraction X of the time, each
// at its co-located throughput.
type SharedFraction struct {
	Jobs [2]JobID `json:"jobs"`
	Type string   `json:"type"`
	X    float64  `json:"x"`
}

// MaxJobsPerGPU is the most jobs that may share one GPU.
const MaxJobsPerGPU = 2

// Fractional reports whether a carries time fractions rather than placements.
func (a Allocation) Fractional() bool { return len(a.Fractions) > 0 || len(a.Shared) > 0 }

// Kind is one of the three kinds of allocation: WholeGPUs, CoLocated or
// TimeShares. Each asks the simulator for its own mechanism: whole GPUs are
// placed once and kept until the next decision; co-located gangs are placed
// the same way but two jobs may share a GPU; time shares are realised round
// by round by Gavel's round mechanism (sim.PlanRound). An Allocation says
// which kind it is through the fields it sets (Allocation.Kind), which keeps
// one JSON form for every policy, external ones included.
type Kind interface{ kind() }

// WholeGPUs runs each assigned gang on GPUs of its own (no GPU holds two
// jobs) until the next decision.
type WholeGPUs struct{ Run []Assignment }

// CoLocated runs each assigned gang on whole GPUs until the next decision,
// where two jobs (at most MaxJobsPerGPU) may share a GPU whose memory holds
// both, each at its co-located throughput (SJF-BSBF's sharing).
type CoLocated struct{ Run []Assignment }

// TimeShares asks for the share of time each job should spend on each GPU
// type, and each pair (Pairs, Gavel's las-ss) together on the same GPUs.
// Capped makes the shares upper bounds as well as targets (the isolated
// baseline; not Gavel's, whose mechanism lets jobs use idle GPUs).
type TimeShares struct {
	Fractions map[JobID]map[string]float64
	Pairs     []SharedFraction
	Capped    bool
}

func (WholeGPUs) kind()  {}
func (CoLocated) kind()  {}
func (TimeShares) kind() {}

// Kind is the kind a asks for: TimeShares when it carries fractions or
// shared fractions, else CoLocated when Colocate is set, else WholeGPUs
// (an empty allocation runs nothing). Feasible refuses an allocation that
// sets both placements and fractions.
func (a Allocation) Kind() Kind {
	switch {
	case a.Fractional():
		return TimeShares{Fractions: a.Fractions, Pairs: a.Shared, Capped: a.Capped}
	case a.Colocate:
		return CoLocated{Run: a.Run}
	default:
		return WholeGPUs{Run: a.Run}
	}
}

// FractionTolerance is the slack allowed on the sums of an LP's fractions.
const FractionTolerance = 1e-6

// Violation is a constraint an allocation breaks, with the numbers.
type Violation struct {
	Constraint string // e.g. "capacity", "gang", "double-booked"
	Job        JobID  // the job concerned, or -1
	Type       string // the GPU type concerned, if any
	Detail     string // the numbers
}

func (v *Violation) Error() string {
	s := "violates " + v.Constraint
	if v.Job >= 0 {
		s += fmt.Sprintf(" (job %d", v.Job)
		if v.Type != "" {
			s += " on " + v.Type
		}
		s += ")"
	} else if v.Type != "" {
		s += " (" + v.Type + ")"
	}
	return s + ": " + v.Detail
}

// Feasible checks a against the snapshot it was computed from: every job is
// active and appears once, runs on a type that can run it, the per-type
// capacities hold, named GPUs are of the right type and not double-booked,
// and fractions lie in [0,1] with Σ_g x[j][g] ≤ 1 and Σ_j d_j·x[j][g] ≤ N_g.
// It returns a *Violation.
func Feasible(s *Snapshot, a Allocation) error { return new(Checker).Feasible(s, a) }

// Checker is Feasible with its work space kept from one check to the next,
// for a caller that checks an allocation at every decision (the
// simulator). The zero Checker is ready; it is not safe for concurrent use.
type Checker struct {
	// Locate, when set, says where the job with the given ID is in the
	// snapshot's Jobs: a guess, checked against the job's ID (a wrong or
	// negative one only costs the search it would have spared).
	Locate func(JobID) int
	// Held, when set, spares the checks of whole-GPU assignments that
	// leave a job as it runs (see Holdings); the verdict and the error
	// stay the full check's.
	Held Holdings

	used   []int       // GPUs taken per type, indexed like Cluster.TypeNames()
	seen   []uint8     // per job of the snapshot: assigned (isHeld: held as it runs)
	owners []gpuOwners // per GPU: the assignments naming it
	at     []int32     // per assignment: its job's index in the snapshot
	named  []int32     // with Held: the assignments naming GPUs it did not vouch for
}

// Holdings is what the caller that puts a Checker's allocations in force
// knows of them, for a check of the next allocation against the same
// environment.
type Holdings interface {
	// Holds reports that a's job is the snapshot's job i and runs now on
	// exactly a's GPUs (at least one), of a's type, with a's accumulation
	// setting, placed there under a whole-GPU allocation this Checker
	// passed (or kept since by one) and alone on each of them: a passes
	// every check of its own, and no other job holds its GPUs.
	Holds(a *Assignment) (i int, ok bool)
	// Holder is the snapshot index of the job running on GPU g, −1 for
	// none; asked only of GPUs no job of Holds shares.
	Holder(g int) int
}

// isHeld marks, in Checker.seen, a job whose assignment Holds vouched for.
const isHeld = 2

// Feasible is the package's Feasible.
func (c *Checker) Feasible(s *Snapshot, a Allocation) error {
	if len(a.Run) > 0 && a.Fractional() {
		return &Violation{Constraint: "form", Job: -1, Detail: "allocation sets both placements and fractions"}
	}
	switch k := a.Kind().(type) {
	case TimeShares:
		return feasibleFractions(s, k.Fractions, k.Pairs)
	case CoLocated:
		return c.run(s, k.Run, true, nil)
	default:
		if c.Held != nil && c.run(s, a.Run, false, c.Held) == nil && !c.heldNamed(s, a.Run) {
			return nil
		}
		return c.run(s, a.Run, false, nil)
	}
}

// heldNamed reports whether a GPU named by an assignment that Holds did not
// vouch for (c.named, from the last run with Held) is held by a job whose
// assignment it did: a GPU named twice, which run did not see.
func (c *Checker) heldNamed(s *Snapshot, run []Assignment) bool {
	for _, ai := range c.named {
		for _, g := range run[ai].GPUs {
			if h := c.Held.Holder(g); h >= 0 && h < len(s.Jobs) && c.seen[h] == isHeld {
				return true
			}
		}
	}
	return false
}

// find is the index in s.Jobs of the job with the given ID, looked for
// first at next (assignments often follow the snapshot's order), then where
// Locate says, then by search.
func (c *Checker) find(s *Snapshot, id JobID, next int) (int, bool) {
	if next < len(s.Jobs) && s.Jobs[next].ID == id {
		return next, true
	}
	if c.Locate != nil {
		if i := c.Locate(id); i >= 0 && i < len(s.Jobs) && s.Jobs[i].ID == id {
			return i, true
		}
	}
	return s.jobIndexAfter(id, next)
}

// run checks placements: colocate lets two jobs share a GPU. With held,
// an assignment that held.Holds is only found, counted once and its GPUs
// counted against its type; the others, whose named GPUs are listed in
// c.named, are checked in full but against each other only (heldNamed
// checks them against the held ones). An error found with held is not
// necessarily the first the full check finds: Feasible checks again
// without held.
func (c *Checker) run(s *Snapshot, run []Assignment, colocate bool, held Holdings) error {
	types := s.Cluster.TypeNames()
	used := slices.Grow(c.used[:0], len(types))[:len(types)]
	clear(used)
	seen := slices.Grow(c.seen[:0], len(s.Jobs))[:len(s.Jobs)]
	clear(seen)
	c.used, c.seen, c.named = used, seen, c.named[:0]
	// The snapshot's rows of figures, when it has them, are indexed like
	// types: the index found for the capacity count reads the figure.
	rows := s.Rates.For(&s.Environment) != nil && slices.Equal(s.Rates.types, types)
	var owners []gpuOwners // per GPU, made ready at the first named GPU
	at := c.at[:0]         // made ready with owners
	total := s.Cluster.TotalGPUs()
	next := 0
	for ai, as := range run {
		if i, ok := c.heldIndex(held, &run[ai]); ok {
			if seen[i] != 0 {
				return &Violation{Constraint: "one placement per job", Job: as.Job, Detail: "job assigned twice"}
			}
			seen[i], next = isHeld, i+1
			used[s.Cluster.TypeIndexOfGPU(as.GPUs[0])] += len(as.GPUs)
			continue
		}
		i, ok := c.find(s, as.Job, next)
		next = i + 1
		if !ok {
			return &Violation{Constraint: "active job", Job: as.Job, Detail: "no such active job"}
		}
		j := &s.Jobs[i]
		if seen[i] != 0 {
			return &Violation{Constraint: "one placement per job", Job: as.Job, Detail: "job assigned twice"}
		}
		seen[i] = 1
		t := s.Cluster.TypeIndex(as.Type)
		if err := runnableOn(s, j, as, t, rows); err != nil {
			return err
		}
		// A type that passed the checks above has GPUs (else the job could
		// not run there), so t ≥ 0 but for a gang of 0, which takes none.
		if len(as.GPUs) == 0 {
			if t >= 0 {
				used[t] += j.Gang
			}
			continue
		}
		if len(as.GPUs) != j.Gang {
			return &Violation{Constraint: "gang", Job: as.Job, Type: as.Type,
				Detail: fmt.Sprintf("%d GPUs named for a gang of %d", len(as.GPUs), j.Gang)}
		}
		if owners == nil {
			owners = c.gpuTable(s.Cluster.TotalGPUs())
			at = slices.Grow(at, len(run))[:len(run)]
			c.at = at
		}
		at[ai] = int32(i)
		if held != nil {
			c.named = append(c.named, int32(ai))
		}
		if err := c.claimGPUs(s, run, ai, t, total, owners, colocate); err != nil {
			return err
		}
	}
	return overCapacity(s, types, used)
}

// heldIndex is the snapshot index of a's job when held vouches for a (an
// assignment naming GPUs, of a job in the snapshot); ok is false otherwise,
// a then being checked in full.
func (c *Checker) heldIndex(held Holdings, a *Assignment) (i int, ok bool) {
	if held == nil || len(a.GPUs) == 0 {
		return 0, false
	}
	i, ok = held.Holds(a)
	return i, ok && i < len(c.seen)
}

// runnableOn checks that job j can run as the assignment as says: a
// measured throughput on type as.Type (index t; read from the snapshot's row
// of figures when rows), or, with gradient accumulation, enough memory and
// GPUs (accumRunnable).
func runnableOn(s *Snapshot, j *JobState, as Assignment, t int, rows bool) error {
	var thr float64
	if row := s.RowOf(j); rows && row != nil && t >= 0 {
		thr = row[t]
	} else {
		thr = s.ThroughputOf(j, as.Type)
	}
	if thr <= 0 && as.Accum <= 1 {
		return &Violation{Constraint: "runnable", Job: as.Job, Type: as.Type,
			Detail: fmt.Sprintf("no measured throughput for %s at gang %d, or not enough memory or GPUs", j.Type, j.Gang)}
	}
	if as.Accum > 1 {
		if err := accumRunnable(s, j, as); err != nil {
			return err
		}
	}
	return nil
}

// claimGPUs checks the GPUs that assignment ai (of type index t, its job
// recorded in c.at) names, out of total, and enters it among each one's
// owners: a GPU must exist, be of the type, be named once and, when it is
// taken already, be shared only where colocate allows and the pair fits.
// A GPU taken first counts against its type in c.used.
func (c *Checker) claimGPUs(s *Snapshot, run []Assignment, ai, t, total int, owners []gpuOwners, colocate bool) error {
	as := &run[ai]
	j := &s.Jobs[c.at[ai]]
	for _, g := range as.GPUs {
		if g < 0 || g >= total {
			return &Violation{Constraint: "gpu index", Job: as.Job, Detail: fmt.Sprintf("GPU %d does not exist", g)}
		}
		// t is as.Type's index (−1 for a type without GPUs).
		if s.Cluster.TypeIndexOfGPU(g) != t {
			return &Violation{Constraint: "gpu type", Job: as.Job, Type: as.Type, Detail: fmt.Sprintf("GPU %d is a %s", g, s.Cluster.TypeOfGPU(g))}
		}
		o := owners[g].list()
		if len(o) > 0 && o[len(o)-1] == int32(ai) { // this assignment named it already
			return &Violation{Constraint: "gang", Job: as.Job, Type: as.Type, Detail: fmt.Sprintf("GPU %d named twice", g)}
		}
		if len(o) > 0 {
			first := c.sharerOf(s, run, o[0])
			switch {
			case !colocate:
				return &Violation{Constraint: "double-booked", Job: as.Job, Type: as.Type,
					Detail: fmt.Sprintf("GPU %d also given to job %d", g, first.job.ID)}
			case len(o) >= MaxJobsPerGPU:
				return &Violation{Constraint: "at most 2 jobs per GPU", Job: as.Job, Type: as.Type,
					Detail: fmt.Sprintf("GPU %d already shared by jobs %d and %d", g, first.job.ID, c.sharerOf(s, run, o[1]).job.ID)}
			}
			if err := pairFits(s, first.job, j, first.accum, as.Accum, s.Cluster.TypeOfGPU(g)); err != nil {
				return err
			}
		} else {
			c.used[t]++
		}
		owners[g].add(int32(ai))
	}
	return nil
}

// sharerOf is the sharer of a GPU that assignment k named: its job (found
// in c.at) with the assignment's accumulation setting.
func (c *Checker) sharerOf(s *Snapshot, run []Assignment, k int32) sharer {
	return sharer{&s.Jobs[c.at[k]], run[k].Accum}
}

// overCapacity reports the first type, by name, whose GPUs used exceed its
// capacity; nil when none does.
func overCapacity(s *Snapshot, types []string, used []int) error {
	over := false
	for t, n := range used {
		over = over || n > s.Cluster.Capacity(types[t])
	}
	if !over {
		return nil
	}
	// Report the first type over capacity by name.
	for _, t := range byName(types) {
		if c := s.Cluster.Capacity(types[t]); used[t] > c {
			return &Violation{Constraint: "capacity", Job: -1, Type: types[t],
				Detail: fmt.Sprintf("Σ gang = %d > %d GPUs", used[t], c)}
		}
	}
	return nil
}

// gpuTable is the owners table for n GPUs, empty.
func (c *Checker) gpuTable(n int) []gpuOwners {
	c.owners = slices.Grow(c.owners[:0], n)[:n]
	clear(c.owners)
	return c.owners
}

// sharer is a job on a GPU, with its gradient-accumulation setting.
type sharer struct {
	job   *JobState
	accum int
}

// gpuOwners are the assignments (indices into the run) given one GPU so
// far. It holds no pointers, so a run's table costs the collector nothing.
type gpuOwners struct {
	n   int32
	asg [MaxJobsPerGPU]int32
}

func (o *gpuOwners) list() []int32 { return o.asg[:o.n] }
func (o *gpuOwners) add(a int32)   { o.asg[o.n] = a; o.n++ }

// byName is the indices of names in the order of the names.
func byName(names []string) []int {
	idx := make([]int, len(names))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return strings.Compare(names[a], names[b]) })
	return idx
}

// accumRunnable checks a job run with gradient accumulation: a measured
// sub-batch throughput exists, and the smaller footprint fits the GPU type.
func accumRunnable(s *Snapshot, j *JobState, as Assignment) error {
	t, ok := s.Cluster.Type(as.Type)
	if !ok || s.Cluster.Capacity(as.Type) < j.Gang {
		return &Violation{Constraint: "runnable", Job: j.ID, Type: as.Type, Detail: "no such GPU type, or too few GPUs"}
	}
	if need := s.AccumMemory(&j.Job, as.Accum); need > t.MemoryGB {
		return &Violation{Constraint: "memory", Job: j.ID, Type: as.Type,
			Detail: fmt.Sprintf("needs %g GB with %d-step accumulation, a %s has %g GB", need, as.Accum, as.Type, t.MemoryGB)}
	}
	for _, p := range []Placement{Consolidated, Spread} {
		if _, ok := s.AccumThroughput(&j.Job, as.Type, p, as.Accum); ok {
			return nil
		}
	}
	return &Violation{Constraint: "runnable", Job: j.ID, Type: as.Type,
		Detail: fmt.Sprintf("no measured throughput for %s at sub-batch 1/%d", j.Type, as.Accum)}
}

// pairFits checks that jobs a and b, run with ka- and kb-step accumulation,
// may share a GPU of type typ: their memory needs fit in it together, and the
// matrix does not say that they cannot run together (a measured co-located
// throughput of 0).
func pairFits(s *Snapshot, a, b *JobState, ka, kb int, typ string) error {
	t, _ := s.Cluster.Type(typ)
	if need := s.AccumMemory(&a.Job, ka) + s.AccumMemory(&b.Job, kb); need > t.MemoryGB && !measuredTogether(s, a, b, ka, kb, typ) {
		return &Violation{Constraint: "memory", Job: b.ID, Type: t.Name,
			Detail: fmt.Sprintf("jobs %d and %d need %g GB together on a %s GPU, which has %g GB", a.ID, b.ID, need, t.Name, t.MemoryGB)}
	}
	for _, p := range [][2]*JobState{{a, b}, {b, a}} {
		k := PairKey{Key: Key{Job: p[0].Type, GPU: t.Name, Gang: p[0].Gang}, Other: p[1].Type}
		if v, ok := s.Matrix.Pair(k); ok && v[0] <= 0 {
			return &Violation{Constraint: "co-location", Job: b.ID, Type: t.Name,
				Detail: fmt.Sprintf("%s cannot run beside %s (measured co-located throughput 0)", p[0].Type, p[1].Type)}
		}
	}
	return nil
}

// measuredTogether reports whether the matrix holds a positive co-located
// throughput for a beside b and b beside a on typ at their gangs, both run
// without gradient accumulation: the two were measured running together on
// that GPU, which is direct evidence that they fit in its memory. It
// overrides the job types' memory figures, which are upper bounds (a
// process's whole footprint, allocator cache included; see
// models/catalogue/memory.go).
func measuredTogether(s *Snapshot, a, b *JobState, ka, kb int, typ string) bool {
	if ka > 1 || kb > 1 {
		return false
	}
	for _, p := range [][2]*JobState{{a, b}, {b, a}} {
		k := PairKey{Key: Key{Job: p[0].Type, GPU: typ, Gang: p[0].Gang}, Other: p[1].Type}
		if v, ok := s.Matrix.Pair(k); !ok || v[0] <= 0 {
			return false
		}
	}
	return true
}

func feasibleFractions(s *Snapshot, fr map[JobID]map[string]float64, shared []SharedFraction) error {
	var load typeLoads
	ids := make([]JobID, 0, len(fr))
	for id := range fr {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	sums := make([]float64, len(ids)) // by ids' index
	var typeBuf [8]string             // a job's types, sorted (a job runs on a few)
	for k, id := range ids {
		j, ok := s.Job(id)
		if !ok {
			return &Violation{Constraint: "active job", Job: id, Detail: "no such active job"}
		}
		types := typeBuf[:0]
		for t := range fr[id] {
			types = append(types, t)
		}
		slices.Sort(types)
		for _, t := range types {
			x := fr[id][t]
			if err := fraction(s, j, t, x); err != nil {
				return err
			}
			sums[k] += x
			load.add(t, float64(j.Gang)*x)
		}
	}
	if len(shared) > 0 {
		return feasibleShared(s, ids, sums, load, shared)
	}
	for k, id := range ids {
		if err := jobSum(id, sums[k]); err != nil {
			return err
		}
	}
	return load.check(s)
}

// feasibleShared goes on with feasibleFractions where some fractions are
// shared: ids' sums and load so far are the unshared fractions'.
func feasibleShared(s *Snapshot, ids []JobID, sums []float64, load typeLoads, shared []SharedFraction) error {
	sum := make(map[JobID]float64, len(ids))
	for k, id := range ids {
		sum[id] = sums[k]
	}
	for i, sf := range shared {
		a, okA := s.Job(sf.Jobs[0])
		b, okB := s.Job(sf.Jobs[1])
		switch {
		case !okA || !okB:
			return &Violation{Constraint: "active job", Job: -1, Detail: fmt.Sprintf("shared[%d]: jobs %v are not both active", i, sf.Jobs)}
		case a.ID == b.ID:
			return &Violation{Constraint: "pair", Job: a.ID, Detail: fmt.Sprintf("shared[%d]: a job cannot share with itself", i)}
		case a.Gang != b.Gang:
			return &Violation{Constraint: "pair", Job: a.ID, Detail: fmt.Sprintf("shared[%d]: jobs %d and %d have gangs %d and %d", i, a.ID, b.ID, a.Gang, b.Gang)}
		}
		for _, j := range []*JobState{a, b} {
			if err := fraction(s, j, sf.Type, sf.X); err != nil {
				return err
			}
			sum[j.ID] += sf.X
		}
		if err := pairFits(s, a, b, 1, 1, sf.Type); err != nil {
			return err
		}
		load.add(sf.Type, float64(a.Gang)*sf.X)
	}
	for _, id := range slices.Sorted(maps.Keys(sum)) {
		if err := jobSum(id, sum[id]); err != nil {
			return err
		}
	}
	return load.check(s)
}

// jobSum checks a job's fractions' sum.
func jobSum(id JobID, sum float64) error {
	if sum > 1+FractionTolerance {
		return &Violation{Constraint: "Σ_g x[j][g] ≤ 1", Job: id, Detail: fmt.Sprintf("Σ = %.6g", sum)}
	}
	return nil
}

// typeLoads is each GPU type's load Σ_j d_j·x[j][g], in the order the types
// were first added (a cluster has a few types).
type typeLoads struct {
	types []string
	loads []float64
}

func (l *typeLoads) add(t string, v float64) {
	if i := slices.Index(l.types, t); i >= 0 {
		l.loads[i] += v
		return
	}
	l.types = append(l.types, t)
	l.loads = append(l.loads, v)
}

// check checks each type's load against its capacity, in the types' order.
func (l *typeLoads) check(s *Snapshot) error {
	order := make([]int, len(l.types))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(l.types[a], l.types[b]) })
	for _, i := range order {
		t, load := l.types[i], l.loads[i]
		if c := float64(s.Cluster.Capacity(t)); load > c*(1+FractionTolerance)+FractionTolerance {
			return &Violation{Constraint: "Σ_j d_j·x[j][g] ≤ N_g", Job: -1, Type: t,
				Detail: fmt.Sprintf("Σ = %.6g > %g", load, c)}
		}
	}
	return nil
}

// fraction checks one time fraction x of job j on type t.
func fraction(s *Snapshot, j *JobState, t string, x float64) error {
	if math.IsNaN(x) || math.IsInf(x, 0) || x < -FractionTolerance || x > 1+FractionTolerance {
		return &Violation{Constraint: "0 ≤ x ≤ 1", Job: j.ID, Type: t, Detail: fmt.Sprintf("x = %v", x)}
	}
	if x > FractionTolerance && s.ThroughputOf(j, t) <= 0 {
		return &Violation{Constraint: "runnable", Job: j.ID, Type: t,
			Detail: fmt.Sprintf("x = %.4g but %s cannot run there", x, j.Type)}
	}
	return nil
}
