package check

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Limits bound the random instances (docs/checker.md, "Instances"). Each
// of the wider instance classes comes with the chance that a drawn
// instance belongs to it, so that the default 100 cases hold a few dozen of
// each.
type Limits struct {
	MaxUsers       int `json:"max_users"`
	MaxTypes       int `json:"max_types"`
	MaxGPUs        int `json:"max_gpus"`
	MaxJobsPerUser int `json:"max_jobs_per_user"`
	// MaxJobs bounds the active jobs of an instance (0: no bound beyond
	// MaxUsers × MaxJobsPerUser).
	MaxJobs int       `json:"max_jobs,omitempty"`
	Gangs   []int     `json:"gangs"`
	Weights []float64 `json:"weights"`
	// Speeds are drawn from this grid; ZeroChance is the probability that a
	// job cannot run on a type.
	Speeds     []float64 `json:"speeds"`
	ZeroChance float64   `json:"zero_chance"`
	// IdleChance is the chance that a user has no active job; SplitChance
	// that a type with several GPUs is split into several servers;
	// KindChance that a job shares its job type (and figures) with an
	// earlier job; HistoryChance that the decision is at a later round (up
	// to MaxRound) with jobs that have history.
	IdleChance    float64 `json:"idle_chance"`
	SplitChance   float64 `json:"split_chance"`
	KindChance    float64 `json:"kind_chance"`
	HistoryChance float64 `json:"history_chance"`
	MaxRound      int     `json:"max_round"`
	// IdenticalJobs gives all jobs of a user the same gang and speeds
	// (Gandiva_fair's target case: a user's hyper-parameter search).
	IdenticalJobs bool `json:"identical_jobs,omitempty"`
}

// DefaultLimits: up to 3 users × 3 types × 4 GPUs per type, up to 3 jobs
// per user and 5 in all, gangs 1–2, weights 0.5, 1, 1.5, 2 and 3, speeds
// 1–8 with one figure in five 0; one user in six idle, one type in three
// split into servers, one job in four sharing an earlier job's type, one
// decision in three at a later round (up to 8) with history.
func DefaultLimits() Limits {
	return Limits{MaxUsers: 3, MaxTypes: 3, MaxGPUs: 4, MaxJobsPerUser: 3, MaxJobs: 5,
		Gangs: []int{1, 2}, Weights: []float64{0.5, 1, 1.5, 2, 3},
		Speeds: []float64{1, 2, 3, 4, 5, 6, 8}, ZeroChance: 0.2,
		IdleChance: 1.0 / 6, SplitChance: 1.0 / 3, KindChance: 0.25, HistoryChance: 1.0 / 3, MaxRound: 8}
}

// MaxLimit bounds every count of Limits and Bound: the checker refuses
// instance spaces whose single instances are not small.
const MaxLimit = 64

// Validate refuses limits no instance can be drawn from, naming the field.
func (l Limits) Validate() error {
	for _, c := range []struct {
		name string
		v    int
		lo   int
		hi   int
	}{{"max users", l.MaxUsers, 1, MaxLimit}, {"max types", l.MaxTypes, 1, MaxSpecTypes}, {"max GPUs", l.MaxGPUs, 1, MaxLimit},
		{"max jobs per user", l.MaxJobsPerUser, 1, MaxLimit}, {"max jobs", l.MaxJobs, 0, MaxLimit}, {"max round", l.MaxRound, 0, 1 << 20}} {
		if c.v < c.lo || c.v > c.hi {
			return fmt.Errorf("check: limits: %s must be in [%d, %d], got %d", c.name, c.lo, c.hi, c.v)
		}
	}
	if err := validGrid("gangs", l.Gangs, 1, MaxLimit); err != nil {
		return err
	}
	if err := validFloats("weights", l.Weights, false); err != nil {
		return err
	}
	if err := validFloats("speeds", l.Speeds, false); err != nil {
		return err
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"zero chance", l.ZeroChance}, {"idle chance", l.IdleChance}, {"split chance", l.SplitChance},
		{"kind chance", l.KindChance}, {"history chance", l.HistoryChance}} {
		if !(c.v >= 0 && c.v < 1) {
			return fmt.Errorf("check: limits: %s must be in [0, 1), got %v", c.name, c.v)
		}
	}
	return nil
}

// validGrid checks a non-empty list of integers in [lo, hi].
func validGrid(name string, vs []int, lo, hi int) error {
	if len(vs) == 0 || len(vs) > MaxLimit {
		return fmt.Errorf("check: %s: give 1 to %d values, got %d", name, MaxLimit, len(vs))
	}
	for _, v := range vs {
		if v < lo || v > hi {
			return fmt.Errorf("check: %s: %d is outside [%d, %d]", name, v, lo, hi)
		}
	}
	return nil
}

// validFloats checks a non-empty list of finite numbers, positive (or, with
// zero, non-negative) and at most 1e9.
func validFloats(name string, vs []float64, zero bool) error {
	if len(vs) == 0 || len(vs) > MaxLimit {
		return fmt.Errorf("check: %s: give 1 to %d values, got %d", name, MaxLimit, len(vs))
	}
	for _, v := range vs {
		if math.IsNaN(v) || v > 1e9 || v < 0 || v == 0 && !zero {
			return fmt.Errorf("check: %s: %v must be finite, at most 1e9 and positive", name, v)
		}
	}
	return nil
}

// Random draws a valid spec within l.
func (l Limits) Random(r *rand.Rand) Spec {
	for {
		if s := l.draw(r); s.Valid() == nil {
			return s
		}
	}
}

func (l Limits) draw(r *rand.Rand) Spec {
	s := Spec{GPUs: make([]int, 1+r.IntN(l.MaxTypes))}
	for g := range s.GPUs {
		s.GPUs[g] = 1 + r.IntN(l.MaxGPUs)
	}
	l.split(r, &s)
	if l.HistoryChance > 0 && l.MaxRound > 0 && r.Float64() < l.HistoryChance {
		s.Round = 1 + r.IntN(l.MaxRound)
	}
	nu := 1 + r.IntN(l.MaxUsers)
	if l.MaxUsers > 1 && nu == 1 && r.IntN(2) == 0 {
		nu = 2 // one user alone is rarely interesting
	}
	maxJobs := l.MaxJobs
	if maxJobs == 0 {
		maxJobs = l.MaxUsers * l.MaxJobsPerUser
	}
	var all []jobRef // every job drawn so far
	var copies [][2]int
	for u := 0; u < nu; u++ {
		s.Users = append(s.Users, UserSpec{Weight: l.Weights[r.IntN(len(l.Weights))]})
		if r.Float64() < l.IdleChance {
			continue
		}
		for k := 1 + r.IntN(l.MaxJobsPerUser); k > 0 && len(all) < maxJobs; k-- {
			j, from := l.job(r, &s, s.Users[u].Jobs, all)
			if from >= 0 {
				copies = append(copies, [2]int{from, len(all)})
			}
			if s.Round > 0 {
				l.history(r, &s, &j)
			}
			all = append(all, jobRef{u, len(s.Users[u].Jobs)})
			s.Users[u].Jobs = append(s.Users[u].Jobs, j)
		}
	}
	assignKinds(&s, all, copies)
	return s
}

// jobRef addresses a job of a spec: user and index.
type jobRef struct{ u, k int }

// split makes some types several servers (a divisor of their GPUs).
func (l Limits) split(r *rand.Rand, s *Spec) {
	for g, n := range s.GPUs {
		var divs []int
		for k := 2; k <= n; k++ {
			if n%k == 0 {
				divs = append(divs, k)
			}
		}
		if len(divs) > 0 && r.Float64() < l.SplitChance {
			if s.Servers == nil {
				s.Servers = make([]int, len(s.GPUs))
			}
			s.Servers[g] = divs[r.IntN(len(divs))]
		}
	}
}

// job draws one job's figures: a copy of the user's first job
// (IdenticalJobs), a copy of an earlier job that will share its job type
// (KindChance; from is its index in all), or fresh ones (from = −1).
func (l Limits) job(r *rand.Rand, s *Spec, mine []JobSpec, all []jobRef) (JobSpec, int) {
	switch {
	case l.IdenticalJobs && len(mine) > 0:
		return JobSpec{Gang: mine[0].Gang, Speed: slices.Clone(mine[0].Speed)}, -1
	case len(all) > 0 && r.Float64() < l.KindChance:
		from := r.IntN(len(all))
		src := s.Users[all[from].u].Jobs[all[from].k]
		return JobSpec{Gang: src.Gang, Speed: slices.Clone(src.Speed)}, from
	}
	j := JobSpec{Gang: l.Gangs[r.IntN(len(l.Gangs))], Speed: make([]float64, len(s.GPUs))}
	for g := range j.Speed {
		if r.Float64() >= l.ZeroChance {
			j.Speed[g] = l.Speeds[r.IntN(len(l.Speeds))]
		}
	}
	return j, -1
}

// assignKinds puts every job and the jobs copied from it in one job type:
// the groups of copies (joined transitively) get kinds 1, 2, … in order.
func assignKinds(s *Spec, all []jobRef, copies [][2]int) {
	group := make([]int, len(all))
	for i := range group {
		group[i] = i
	}
	find := func(i int) int {
		for group[i] != i {
			i = group[i]
		}
		return i
	}
	for _, c := range copies {
		a, b := find(c[0]), find(c[1])
		group[max(a, b)] = min(a, b)
	}
	size := map[int]int{}
	for i := range all {
		size[find(i)]++
	}
	kind := map[int]int{}
	for i, ref := range all {
		root := find(i)
		if size[root] < 2 {
			continue
		}
		if kind[root] == 0 {
			kind[root] = len(kind) + 1
		}
		s.Users[ref.u].Jobs[ref.k].Kind = kind[root]
	}
}

// history gives j an age and the rounds it received on its runnable types.
func (l Limits) history(r *rand.Rand, s *Spec, j *JobSpec) {
	j.Age = float64(r.IntN(s.Round + 1))
	if j.Age == 0 {
		return
	}
	j.Received = make([]float64, len(s.GPUs))
	left := j.Age * r.Float64()
	for g := range j.Received {
		if j.Speed[g] > 0 && j.Gang <= s.GPUs[g] && left > 0 {
			v := math.Round(4*left*r.Float64()) / 4
			j.Received[g] = v
			left -= v
		}
	}
	var ran []int
	for g, v := range j.Received {
		if v > 0 {
			ran = append(ran, g)
		}
	}
	if len(ran) == 0 {
		j.Received = nil
		return
	}
	j.Last = 1 + ran[r.IntN(len(ran))]
}
