package sim

import (
	"fmt"
	"slices"
	"time"

	"fairbench/models"
	"fairbench/solvers"
)

// rounds is the engine's side of the round mechanism: the allocation in
// force, when it was computed, and the time every job (and pair) has run on
// each type since then — what PlanRound reads each round. Per-type slices are
// indexed like types (the cluster's GPU types, newest first).
type rounds struct {
	rules   solvers.RoundRules
	types   []string
	typeIdx map[string]int
	credit  float64 // the half round Gavel credits every unit at a reset, in seconds

	holding    bool          // an allocation has been computed
	fractional bool          // ... and it is fractional
	capped     bool          // ... and capped (models.TimeShares.Capped)
	at         time.Duration // when it was computed
	changed    bool          // jobs arrived or finished since then
	worker     []float64     // W[g]

	pairs map[[2]models.JobID]*pairState // the pairs of the allocation in force
	order [][2]models.JobID              // their keys, in allocation order

	work roundWork // the memory each round is decided in
}

// pairState is one space-sharing pair's share, time and deficit.
type pairState struct {
	share, clock, deficit []float64
}

func newRounds(c *models.Cluster, rules solvers.RoundRules, round time.Duration) rounds {
	r := rounds{rules: rules, types: c.TypeNames(), typeIdx: map[string]int{}, credit: round.Seconds() / 2}
	for k, g := range r.types {
		r.typeIdx[g] = k
	}
	r.worker = make([]float64, len(r.types))
	return r
}

// due reports whether the policy must be asked for a new allocation now:
// always without a re-solve cadence or before the first allocation; with
// one, when jobs arrived or finished since the last allocation and the
// cadence has passed since it, or it was computed at time 0 (Gavel's
// _update_priorities).
func (e *engine) due() bool {
	r := &e.rounds
	if !r.holding || r.rules.Resolve <= 0 {
		return true
	}
	return r.changed && (e.now-r.at >= r.rules.Resolve || r.at == 0)
}

// adopt makes a the allocation in force and realises it by the mechanism
// of its kind: time shares round by round (ShareRound), whole GPUs and
// co-located gangs once, kept until the next decision (PlaceGangs).
func (e *engine) adopt(a models.Allocation) error {
	k := a.Kind()
	_, e.whole = k.(models.WholeGPUs)
	e.hold(k)
	switch k := k.(type) {
	case models.TimeShares:
		return e.realiseRound()
	case models.CoLocated:
		return e.placeRun(k.Run)
	case models.WholeGPUs:
		return e.placeRun(k.Run)
	}
	return fmt.Errorf("allocation of unknown kind %T", k)
}

// placeRun places whole-GPU or co-located assignments.
func (e *engine) placeRun(run []models.Assignment) error {
	placed, err := e.place(run, nil)
	if err != nil {
		return e.roundErr(err)
	}
	e.apply(placed)
	return nil
}

// hold makes the allocation of kind k the one in force from now. For time
// shares it first settles every job's deficit under the allocation it
// replaces (share × time since then − time received), then credits every
// job and pair of a half round, as Gavel's _reset_time_run_so_far does.
func (e *engine) hold(k models.Kind) {
	a, fractional := k.(models.TimeShares)
	r := &e.rounds
	elapsed := (e.now - r.at).Seconds()
	if !r.holding {
		elapsed = e.now.Seconds()
	}
	// After a whole-GPU allocation (or none) every job's share is empty and
	// its clock at the credit (accrue counts nothing), so settling would add
	// 0 to every deficit: a whole-GPU allocation replacing one skips the
	// walk over the active jobs.
	if fractional || (r.holding && r.fractional) {
		for _, j := range e.active {
			for g := range r.types {
				j.deficit[g] += share(j.share, g)*elapsed - (j.clock[g] - r.credit)
				j.clock[g] = r.credit
			}
			j.inAlloc = true
			j.share = j.share[:0]
			if fr, ok := a.Fractions[j.spec.ID]; ok {
				for _, g := range r.types {
					j.share = append(j.share, fr[g])
				}
			}
		}
	}
	units := len(e.active)
	next := map[[2]models.JobID]*pairState{}
	var order [][2]models.JobID
	for _, sf := range a.Pairs {
		k := pairKey(sf.Jobs[0], sf.Jobs[1])
		p, ok := next[k]
		if !ok {
			p = r.pairs[k]
			if p == nil {
				p = &pairState{clock: make([]float64, len(r.types)), deficit: make([]float64, len(r.types))}
			} else {
				for g := range r.types {
					p.deficit[g] += share(p.share, g)*elapsed - (p.clock[g] - r.credit)
				}
			}
			p.share = make([]float64, len(r.types))
			for g := range p.clock {
				p.clock[g] = r.credit
			}
			next[k] = p
			order = append(order, k)
			units++
		}
		p.share[r.typeIdx[sf.Type]] += sf.X
	}
	r.pairs, r.order = next, order
	for g := range r.worker {
		r.worker[g] = r.credit * float64(units)
	}
	r.holding, r.fractional, r.capped = true, fractional, a.Capped
	r.at, r.changed = e.now, false
}

// share is s[g], 0 when s is empty (a job the allocation does not know).
func share(s []float64, g int) float64 {
	if g < len(s) {
		return s[g]
	}
	return 0
}

// accrue adds the progress time of every running job between from and to
// to its clock (or its pair's) and to the worker time of its type.
func (e *engine) accrue(from, to time.Duration) {
	r := &e.rounds
	if !r.fractional {
		return
	}
	for _, j := range e.running {
		start := max(from, j.pausedTo)
		if to <= start {
			continue
		}
		dt := (to - start).Seconds()
		g := r.typeIdx[j.typ]
		if o := e.partner(j); o != nil {
			if p := r.pairs[pairKey(j.spec.ID, o.spec.ID)]; p != nil {
				if j.spec.ID < o.spec.ID {
					p.clock[g] += dt
					r.worker[g] += dt
				}
				continue
			}
		}
		j.clock[g] += dt
		r.worker[g] += dt
	}
}

// partner is the job sharing exactly j's GPUs, or nil.
func (e *engine) partner(j *job) *job {
	occ := e.occ[j.gpus[0]]
	if len(occ) != 2 {
		return nil
	}
	o := occ[0]
	if o == j {
		o = occ[1]
	}
	if !slices.Equal(j.gpus, o.gpus) {
		return nil
	}
	return o
}

// roundInput is the state one round of the time shares in force is
// realised from: every active job and pair as a unit, with its shares, run
// times and deficits, in the policy's visiting order of the types.
func (e *engine) roundInput() RoundInput {
	r := &e.rounds
	w := &r.work
	order := r.types
	if r.rules.Order != nil {
		w.types = append(w.types[:0], r.types...)
		order = r.rules.Order(w.types)
	}
	perm := resize(&w.perm, len(order)) // visiting position → index into r.types
	in := RoundInput{Types: order, Free: resize(&w.inFree, len(order)), WorkerTime: resize(&w.workerTime, len(order)),
		Capped: r.capped, SkipZero: r.rules.SkipZero, Arrivals: r.rules.Arrivals}
	for k, g := range order {
		perm[k] = r.typeIdx[g]
		in.Free[k] = e.cfg.Cluster.Capacity(g)
		in.WorkerTime[k] = r.worker[perm[k]]
	}
	// The units' per-type slices are cut from two slabs, kept from one
	// round to the next, rather than four allocations per unit.
	nt, nu := len(perm), len(e.active)+len(r.order)
	floats, bools := resize(&w.floats, 3*nt*nu)[:0], resize(&w.bools, 2*nt*nu)[:0]
	pick := func(v []float64) []float64 {
		out := floats[len(floats) : len(floats)+nt : len(floats)+nt]
		floats = floats[:len(floats)+nt]
		for k, g := range perm {
			out[k] = share(v, g)
		}
		return out
	}
	flags := func() []bool {
		out := bools[len(bools) : len(bools)+nt : len(bools)+nt]
		bools = bools[:len(bools)+nt]
		return out
	}
	units := w.units[:0]
	for _, j := range e.active {
		u := Unit{Jobs: [2]models.JobID{j.spec.ID, -1}, Gang: j.spec.Gang, InAllocation: j.inAlloc,
			Share: pick(j.share), Time: pick(j.clock), Deficit: pick(j.deficit), Runnable: flags()}
		for k, g := range perm {
			u.Runnable[k] = j.runnable[g]
		}
		if r.capped {
			u.Over = flags()
			for k, g := range order {
				u.Over[k] = overShare(u.Share[k], j.received.On(g), e.now-j.spec.Arrival)
			}
		}
		units = append(units, u)
	}
	for _, k := range r.order {
		p := r.pairs[k]
		a, b := e.byID[k[0]], e.byID[k[1]]
		u := Unit{Jobs: k, Gang: a.spec.Gang, InAllocation: true, Share: pick(p.share), Time: pick(p.clock),
			Deficit: pick(p.deficit), Runnable: flags()}
		for i, g := range perm {
			u.Runnable[i] = a.runnable[g] && b.runnable[g]
		}
		if r.capped {
			u.Over = flags()
			for i, g := range order {
				u.Over[i] = overShare(u.Share[i], e.pairTime[k][g], e.now-max(a.spec.Arrival, b.spec.Arrival))
			}
		}
		units = append(units, u)
	}
	w.units = units
	in.Units = units
	return in
}

// overShare reports whether a unit with share x of a type has had more than
// that share of its time in the system there (got of in): a capped
// allocation leaves it out of the round.
func overShare(x float64, got, in time.Duration) bool {
	if x <= 0 || got <= 0 || in <= 0 {
		return false
	}
	return x/(got.Seconds()/in.Seconds()) < 1-models.FractionTolerance
}

// roundErr names the round and time of a realisation's error.
func (e *engine) roundErr(err error) error {
	return fmt.Errorf("round %d (t=%gs): %w", e.round, seconds(e.now), err)
}
