package gandivafair

import (
	"cmp"
	"slices"

	"fairbench/models"
)

// schedule picks the jobs that run until the next decision and their GPUs
// (package comment, steps 6–7). At a quantum start the central and local
// stride schedulers decide afresh; otherwise running jobs keep their GPUs and
// only free GPUs are filled. With changes, where every job running now
// keeps its GPUs, the assignments list only the jobs that start, and keep
// is true (solvers.Incremental).
func (st *state) schedule(s *models.Snapshot, quantum, changes bool) (run []models.Assignment, keep bool) {
	if n := s.Cluster.TotalGPUs(); len(st.taken) != n {
		st.taken = make([]bool, n)
	}
	clear(st.taken) // see gpus
	clear(st.started)
	st.started = st.started[:0]
	st.rejoin()
	for i := range st.srv {
		sv := &st.srv[i]
		sv.free, sv.local, sv.taken = sv.gpus, false, false
	}
	if quantum {
		for k := range st.types {
			st.central(k)
		}
		for i := range st.srv {
			if sv := &st.srv[i]; sv.local || (sv.taken && sv.free > 0) {
				st.runLocal(i)
			}
		}
		for k := range st.types {
			st.consolidate(k)
		}
		st.stick()
	} else {
		keep = st.keepRunning() && changes
		for i := range st.srv {
			if st.srv[i].free > 0 && !st.srv[i].taken {
				st.runLocal(i)
			}
		}
		for k := range st.types {
			st.fillLarge(k)
		}
	}
	for k := range st.types {
		st.backfill(k)
	}
	for i := range st.srv {
		st.srv[i].wasLocal = !st.srv[i].taken
	}
	return st.gpus(quantum, keep), keep
}

// central is type k's central stride scheduler over its large jobs and the
// pseudo-jobs of its servers holding small jobs: lowest pass first (ties: a
// large job before a pseudo-job, then the earlier job or lower server), a
// pseudo-job claims its server for its local scheduler unless a large job
// took it, a large job takes whole unclaimed servers or is skipped.
func (st *state) central(k int) {
	es := st.entities[:0]
	for _, j := range st.large[k] {
		es = append(es, entity{j.pass, j, -1})
	}
	for _, i := range st.tsrv[k] {
		if len(st.srv[i].members) > 0 {
			es = append(es, entity{st.srv[i].pass, nil, i})
		}
	}
	slices.SortStableFunc(es, func(a, b entity) int {
		if c := cmp.Compare(a.pass, b.pass); c != 0 {
			return c
		}
		if (a.j == nil) != (b.j == nil) {
			if a.j != nil {
				return -1
			}
			return 1
		}
		if a.j != nil {
			return int(a.j.pos - b.j.pos)
		}
		return a.srv - b.srv
	})
	for _, e := range es {
		if e.j == nil {
			if sv := &st.srv[e.srv]; !sv.taken {
				sv.local = true
			}
			continue
		}
		st.takeServers(k, e.j, false)
	}
	clear(es)
	st.entities = es[:0]
}

// entity is one of a central scheduler's entities: a large job, or a
// server's pseudo-job (j nil).
type entity struct {
	pass float64
	j    *job
	srv  int
}

// takeServers gives large job j of type k whole servers, neither claimed by
// a pseudo-job nor taken, until they hold its gang: first servers it runs on
// now, then servers without small jobs, then those whose pseudo-job has the
// highest pass, then the lowest index. With fullOnly (filling between quanta)
// only servers with every GPU free qualify. A job that cannot get enough
// servers is skipped; it reports whether j was placed.
func (st *state) takeServers(k int, j *job, fullOnly bool) bool {
	cands := st.cands[:0]
	defer func() { st.cands = cands[:0] }()
	for _, i := range st.tsrv[k] {
		sv := &st.srv[i]
		if sv.local || sv.taken || (fullOnly && sv.free < sv.gpus) {
			continue
		}
		cands = append(cands, i)
	}
	slices.SortStableFunc(cands, func(a, b int) int {
		if c := cmpBool(st.holds(j, a), st.holds(j, b)); c != 0 {
			return c
		}
		if c := cmpBool(len(st.srv[a].members) == 0, len(st.srv[b].members) == 0); c != 0 {
			return c
		}
		if c := cmp.Compare(st.srv[b].pass, st.srv[a].pass); c != 0 {
			return c
		}
		return a - b
	})
	chosen := st.enough(cands, j.gang)
	if chosen == nil {
		return false
	}
	st.claim(j, chosen)
	return true
}

// cmpBool orders true before false.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}

// holds reports whether j runs on server i now.
func (st *state) holds(j *job, i int) bool {
	if !j.running() || j.lastTyp != st.srv[i].typ {
		return false
	}
	for _, g := range j.last {
		if st.cluster.ServerOf(g) == i {
			return true
		}
	}
	return false
}

// enough is the shortest prefix of servers holding gang GPUs, or nil.
func (st *state) enough(servers []int, gang int) []int {
	n := 0
	for c, i := range servers {
		n += st.srv[i].gpus
		if n >= gang {
			return servers[: c+1 : c+1]
		}
	}
	return nil
}

// claim plans large job j on the chosen whole servers: where it runs now if
// all its GPUs are on them, else filling them in order.
func (st *state) claim(j *job, chosen []int) {
	keep := j.running() && j.lastTyp == st.srv[chosen[0]].typ && len(j.last) == j.gang
	if keep {
		for _, g := range j.last {
			if !slices.Contains(chosen, st.cluster.ServerOf(g)) {
				keep = false
				break
			}
		}
	}
	left := j.gang
	for _, i := range chosen {
		sv := &st.srv[i]
		m := min(sv.gpus, left)
		if keep {
			m = 0 // the GPUs it holds there
			for _, g := range j.last {
				if st.cluster.ServerOf(g) == i {
					m++
				}
			}
		}
		left -= m
		sv.taken, sv.local = true, false
		sv.free -= m
		if m > 0 {
			j.plan = append(j.plan, use{i, m})
		}
	}
	st.started = append(st.started, j)
}

// consolidate lets a large job of type k that the central scheduler skipped
// run anyway when whole servers can be emptied for it without leaving out
// any small job planned this quantum: the servers it runs on now, then those
// with the fewest planned GPUs, are vacated if the small jobs planned there
// (largest gang first) fit in the free GPUs of the type's other untaken
// servers, each going back to the server it runs on now if it can, else to
// the server with the fewest free GPUs that holds its gang. Nobody planned
// loses its turn, so this only adds work (fairbench's work-conserving
// addition to the split scheduler, whose pseudo-jobs claim whole servers).
func (st *state) consolidate(k int) {
	for _, j := range st.byPass(st.large[k], nil) {
		if len(j.plan) > 0 {
			continue
		}
		var cands []int
		for _, i := range st.tsrv[k] {
			if !st.srv[i].taken {
				cands = append(cands, i)
			}
		}
		slices.SortStableFunc(cands, func(a, b int) int {
			if c := cmpBool(st.holds(j, a), st.holds(j, b)); c != 0 {
				return c
			}
			if c := cmp.Compare(st.srv[a].gpus-st.srv[a].free, st.srv[b].gpus-st.srv[b].free); c != 0 {
				return c
			}
			return a - b
		})
		vac := st.enough(cands, j.gang)
		if vac == nil {
			continue
		}
		var movers []*job // every small job planned on a server to vacate
		for _, i := range st.tsrv[k] {
			for _, m := range st.srv[i].members {
				if len(m.plan) == 1 && slices.Contains(vac, m.plan[0].srv) {
					movers = append(movers, m)
				}
			}
		}
		slices.SortStableFunc(movers, func(a, b *job) int {
			if a.gang != b.gang {
				return b.gang - a.gang
			}
			return int(a.pos - b.pos)
		})
		free := map[int]int{}
		var targets []int
		for _, i := range cands[len(vac):] {
			if st.srv[i].free > 0 {
				free[i] = st.srv[i].free
				targets = append(targets, i)
			}
		}
		dest := make([]int, len(movers))
		ok := true
		for n, m := range movers {
			to := -1
			for _, i := range targets {
				if free[i] >= m.gang && st.holds(m, i) {
					to = i
					break
				}
			}
			if to < 0 {
				for _, i := range targets {
					if free[i] >= m.gang && (to < 0 || free[i] < free[to]) {
						to = i
					}
				}
			}
			if to < 0 {
				ok = false
				break
			}
			free[to] -= m.gang
			dest[n] = to
		}
		if !ok {
			continue
		}
		for n, m := range movers {
			st.srv[m.plan[0].srv].free += m.gang
			m.plan[0].srv = dest[n]
			st.srv[dest[n]].free -= m.gang
			st.rep.borrowed++
		}
		st.claim(j, vac)
		st.rep.consolidations++
	}
}

// stick keeps a small job that the local schedulers planned on its home
// server, but that runs now on another server of its type with enough GPUs
// still free, where it runs: the same jobs run, none pays a restore, and the
// GPUs it leaves at home go to backfill.
func (st *state) stick() {
	for _, j := range st.active {
		if j.srv < 0 || len(j.plan) != 1 || j.plan[0].srv != j.srv || !j.running() || j.lastTyp != j.typ {
			continue
		}
		to := st.cluster.ServerOf(j.last[0])
		if to == j.srv || st.srv[to].free < j.gang || !st.runsOn(j, to) || st.srv[to].taken {
			continue
		}
		st.srv[j.srv].free += j.gang
		st.srv[to].free -= j.gang
		j.plan[0].srv = to
	}
}

// runLocal is server i's local stride scheduler: its waiting small jobs,
// lowest pass first (ties: the earlier job), each started if its gang fits
// the GPUs still free, else skipped.
func (st *state) runLocal(i int) {
	sv := &st.srv[i]
	// Only jobs without a plan whose gang fits the GPUs free now can start
	// (free only shrinks): the others are left out of the order (between
	// quanta, the running ones), which keeps the rest's.
	waiting := st.waiting[:0]
	for _, j := range sv.members {
		if len(j.plan) == 0 && j.gang <= sv.free {
			waiting = append(waiting, j)
		}
	}
	if len(waiting) == 0 {
		return
	}
	order := st.byPass(waiting, nil)
	clear(waiting)
	st.waiting = waiting[:0]
	for _, j := range order {
		if sv.free == 0 {
			break
		}
		if len(j.plan) == 0 && j.gang <= sv.free {
			j.plan = append(j.plan, use{i, j.gang})
			sv.free -= j.gang
			st.started = append(st.started, j)
		}
	}
}

// byPass lists js by pass (minus base[j.srv] when base is given) and then
// snapshot position. The list is valid until the next call (no caller
// calls it again while walking it). Positions differ, so the order is total
// and any sort gives it; each job's key is read once, beside it.
func (st *state) byPass(js []*job, base []float64) []*job {
	keyed := st.keyed[:0]
	for _, j := range js {
		k := j.pass
		if base != nil {
			k -= base[j.srv]
		}
		keyed = append(keyed, passKey{k, j.pos, j})
	}
	slices.SortFunc(keyed, func(a, b passKey) int {
		if c := cmp.Compare(a.pass, b.pass); c != 0 {
			return c
		}
		return int(a.pos - b.pos)
	})
	clear(st.order)
	out := st.order[:0]
	for _, e := range keyed {
		out = append(out, e.j)
	}
	clear(keyed)
	st.order, st.keyed = out, keyed[:0]
	return out
}

// passKey is a job with byPass's sort key.
type passKey struct {
	pass float64
	pos  int32
	j    *job
}

// keepRunning keeps every running job on its GPUs between quanta. It
// reports whether it kept every job the snapshot shows running and no other
// (a job the policy placed that did not start, for want of a figure, is
// not), so that the others' assignments can stand for the decision's.
func (st *state) keepRunning() bool {
	all := true
	for _, j := range st.active {
		if !j.running() || j.typ < 0 || j.lastTyp != j.typ || len(j.last) != j.gang {
			all = all && !j.running() && !j.shown
			continue
		}
		all = all && j.shown
		// j.last is ascending and a server's GPUs are consecutive, so each
		// server's GPUs form one run.
		for a := 0; a < len(j.last); {
			i := st.cluster.ServerOf(j.last[a])
			b := a + 1
			for b < len(j.last) && st.cluster.ServerOf(j.last[b]) == i {
				b++
			}
			sv := &st.srv[i]
			sv.free -= b - a
			if j.srv < 0 {
				sv.taken = true
			}
			j.plan = append(j.plan, use{i, b - a})
			a = b
		}
		j.kept = true
		for _, g := range j.last {
			st.taken[g] = true
		}
	}
	return all
}

// fillLarge starts waiting large jobs of type k, lowest pass first, on
// servers with every GPU free (between quanta).
func (st *state) fillLarge(k int) {
	for _, j := range st.byPass(st.large[k], nil) {
		if len(j.plan) == 0 {
			st.takeServers(k, j, true)
		}
	}
}

// backfill offers the GPUs of type k still free to the type's waiting small
// jobs of every server, least lead over their home's minimum pass first
// (ties: the earlier job): a job goes back to the server it runs on if it
// can, else to the server with the fewest free GPUs that hold its gang (then
// the lowest index). It runs there until the next decision; its home does
// not change.
func (st *state) backfill(k int) {
	free := 0
	for _, i := range st.tsrv[k] {
		free += st.srv[i].free
	}
	if free == 0 {
		return
	}
	// Only waiting jobs whose gang some server's free GPUs hold now can be
	// placed (free only shrinks): the others are left out of the order,
	// which keeps the rest's.
	most := 0
	for _, i := range st.tsrv[k] {
		most = max(most, st.srv[i].free)
	}
	waiting := st.waiting[:0]
	if len(st.base) != len(st.srv) {
		st.base = make([]float64, len(st.srv))
	}
	base := st.base
	for _, i := range st.tsrv[k] {
		sv := &st.srv[i]
		n := len(waiting)
		for _, j := range sv.members {
			if len(j.plan) == 0 && j.gang <= most {
				waiting = append(waiting, j)
			}
		}
		if len(waiting) > n { // its home's minimum, read by byPass
			base[i] = minPass(sv.members)
		}
	}
	for _, j := range st.byPass(waiting, base) {
		if free == 0 {
			break
		}
		to := -1
		if j.running() {
			if i := st.cluster.ServerOf(j.last[0]); st.srv[i].typ == k && st.srv[i].free >= j.gang && st.runsOn(j, i) {
				to = i
			}
		}
		if to < 0 {
			for _, i := range st.tsrv[k] {
				if f := st.srv[i].free; f >= j.gang && (to < 0 || f < st.srv[to].free) {
					to = i
				}
			}
		}
		if to < 0 {
			continue
		}
		j.plan = append(j.plan, use{to, j.gang})
		st.started = append(st.started, j)
		st.srv[to].free -= j.gang
		free -= j.gang
		if to != j.srv {
			st.rep.borrowed++
		}
	}
	clear(waiting)
	st.waiting = waiting[:0]
}

// gpus turns the plans into assignments with explicit GPUs: a job whose plan
// matches where it runs now keeps its GPUs (no restore cost); the others take
// the lowest free GPUs of their planned servers. Assignments come in
// snapshot order, GPUs ascending. Between quanta the jobs that keep their
// GPUs are those keepRunning kept, whose GPUs it marked taken (a job it did
// not keep fails the same test: its plan came from elsewhere); at a quantum
// start they are found here. With changes (every job running now kept by
// keepRunning, so that the others hold no GPUs) the jobs that keep their
// GPUs are left out, and only the jobs planned in this decision are looked
// at (every decision leaves each job's lastTyp at its type, so only the
// jobs homed in this one have a new type).
func (st *state) gpus(quantum, changes bool) []models.Assignment {
	taken := st.taken
	if quantum {
		for _, j := range st.active {
			if len(j.plan) == 0 || !j.running() || j.lastTyp != j.typ || len(j.last) != j.gang || !st.sameServers(j) {
				continue
			}
			j.kept = true
			for _, g := range j.last {
				taken[g] = true
			}
		}
	}
	// A job that keeps its GPUs is assigned its own list (j.last, which the
	// policy replaces rather than changes; the caller only reads it). The
	// others' GPUs are cut from one slab, each with its length as its
	// capacity, so that appending to one never touches another (the slab
	// holds every GPU at most once, so it is never reallocated). The slab
	// and the Run are the last decision's storage, grown where needed.
	slab := slices.Grow(st.slab[:0], len(taken))
	run := slices.Grow(st.run[:0], len(st.active))
	jobs := st.active
	if changes {
		for _, j := range st.homeless {
			j.setLastTyp()
		}
		slices.SortFunc(st.started, func(a, b *job) int { return int(a.pos - b.pos) })
		jobs = st.started
	}
	for _, j := range jobs {
		if len(j.plan) == 0 {
			if j.last != nil {
				j.last = nil // it does not run
			}
			j.setLastTyp()
			continue
		}
		if !j.kept {
			from := len(slab)
			for _, u := range j.plan {
				sv := &st.srv[u.srv]
				for g, c := sv.first, 0; g < sv.first+sv.gpus && c < u.n; g++ {
					if !taken[g] {
						taken[g] = true
						slab = append(slab, g)
						c++
					}
				}
			}
			var got []int
			if len(slab) > from {
				got = slab[from:len(slab):len(slab)]
			}
			slices.Sort(got)
			if !slices.Equal(got, j.last) {
				j.last = slices.Clone(got)
			}
			run = append(run, models.Assignment{Job: j.id, Type: st.types[j.typ], GPUs: got})
		} else if !changes {
			run = append(run, models.Assignment{Job: j.id, Type: st.types[j.typ], GPUs: j.last})
		}
		j.setLastTyp()
	}
	st.run, st.slab = run, slab
	return run
}

// setLastTyp records that j was given GPUs of its home type (or none).
func (j *job) setLastTyp() {
	if j.lastTyp != j.typ {
		j.lastTyp, j.lastKnown = j.typ, false
	}
}

// sameServers reports whether j's plan puts as many GPUs on each of its
// servers as j holds there now.
func (st *state) sameServers(j *job) bool {
	same := true
	for _, u := range j.plan {
		c := 0
		for _, g := range j.last {
			if st.cluster.ServerOf(g) == u.srv {
				c++
			}
		}
		same = same && c == u.n
	}
	return same
}
