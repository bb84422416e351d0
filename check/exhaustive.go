package check

import (
	"fmt"
	"slices"
	"strings"
)

// Bound delimits the bounded exhaustive search (docs/checker.md,
// "Exhaustive search"): every instance with at most Users users, each with
// at most JobsPerUser jobs and at most Jobs jobs in all (at least one),
// at most Types GPU types with 1..GPUs GPUs each, job speeds from Speeds
// on every type (0 = cannot run), gangs from Gangs and user weights from
// Weights. With Idle a user may have no active job; with Split each type of
// several GPUs also comes as single-GPU servers (gangs then spread); with
// Kinds an instance whose jobs repeat a (gang, speeds) pair also comes with
// those jobs sharing one job type.
//
// The enumeration is symmetry-reduced: users are a multiset (a canonical
// order of user descriptors) and so are the jobs of one user, which
// assumes the policy treats users alike up to their names and order, and a
// user's jobs alike up to their ids and order. GPU types are not permuted
// (their rank order matters to some policies), nor are speeds rescaled (a
// policy may prefer faster jobs). Strategy-proofness tries every report
// whose speeds lie in Speeds, besides the random search's moves.
type Bound struct {
	Level       int       `json:"level"`
	Users       int       `json:"users"`
	Types       int       `json:"types"`
	GPUs        int       `json:"gpus"`
	JobsPerUser int       `json:"jobs_per_user"`
	Jobs        int       `json:"jobs"`
	Speeds      []float64 `json:"speeds"`
	Gangs       []int     `json:"gangs"`
	Weights     []float64 `json:"weights"`
	Idle        bool      `json:"idle,omitempty"`
	Split       bool      `json:"split,omitempty"`
	Kinds       bool      `json:"kinds,omitempty"`
}

// DefaultBound is the level `fairbench check` uses unless told otherwise.
const DefaultBound = 2

// MaxBound is the highest level.
const MaxBound = 4

// BoundLevel returns the bound of a level (instance counts from
// TestBoundCounts and, for level 3, `fairbench check --bound 3`):
//
//	0  no exhaustive search
//	1  ≤ 2 users × 1 job, ≤ 2 types × 1 GPU, speeds {1, 2}, gang 1, weight 1                        19 instances
//	2  ≤ 2 users × ≤ 2 jobs (≤ 2 in all), ≤ 2 types × ≤ 2 GPUs, speeds {0, 1, 2}, gangs {1, 2},
//	   weights {1, 1.5}, idle users, shared job types                                                 4,762 instances
//	3  ≤ 3 users × ≤ 2 jobs (≤ 3 in all), ≤ 2 types × ≤ 3 GPUs, speeds {0, 1, 2}, gang 1,
//	   weights {1, 2.5}, idle users, split servers, shared job types                              181,180 instances
//	4  ≤ 3 users × ≤ 2 jobs (≤ 4 in all), ≤ 3 types × ≤ 3 GPUs, speeds {0, 1, 2, 4}, gangs {1, 2},
//	   weights {1, 2.5}, idle users, split servers, shared job types                              (offline runs only)
func BoundLevel(level int) (Bound, error) {
	wide := func(b Bound) Bound {
		b.Idle, b.Split, b.Kinds = true, true, true
		return b
	}
	switch level {
	case 0:
		return Bound{Level: 0}, nil
	case 1:
		return Bound{Level: 1, Users: 2, Types: 2, GPUs: 1, JobsPerUser: 1, Jobs: 2, Speeds: []float64{1, 2}, Gangs: []int{1}, Weights: []float64{1}}, nil
	case 2:
		return Bound{Level: 2, Users: 2, Types: 2, GPUs: 2, JobsPerUser: 2, Jobs: 2, Speeds: []float64{0, 1, 2},
			Gangs: []int{1, 2}, Weights: []float64{1, 1.5}, Idle: true, Kinds: true}, nil
	case 3:
		return wide(Bound{Level: 3, Users: 3, Types: 2, GPUs: 3, JobsPerUser: 2, Jobs: 3, Speeds: []float64{0, 1, 2},
			Gangs: []int{1}, Weights: []float64{1, 2.5}}), nil
	case 4:
		return wide(Bound{Level: 4, Users: 3, Types: 3, GPUs: 3, JobsPerUser: 2, Jobs: 4, Speeds: []float64{0, 1, 2, 4},
			Gangs: []int{1, 2}, Weights: []float64{1, 2.5}}), nil
	}
	return Bound{}, fmt.Errorf("check: bound %d: levels are 0 to %d", level, MaxBound)
}

// Validate refuses a bound the enumeration cannot use, naming the field.
func (b Bound) Validate() error {
	if b.Users == 0 {
		return nil
	}
	for _, c := range []struct {
		name   string
		v, max int
	}{{"users", b.Users, 8}, {"types", b.Types, MaxSpecTypes}, {"GPUs per type", b.GPUs, 16},
		{"jobs per user", b.JobsPerUser, 8}, {"jobs", b.Jobs, 16}} {
		if c.v < 1 || c.v > c.max {
			return fmt.Errorf("check: bound: %s must be in [1, %d], got %d", c.name, c.max, c.v)
		}
	}
	if err := validGrid("bound gangs", b.Gangs, 1, 16); err != nil {
		return err
	}
	if err := validFloats("bound weights", b.Weights, false); err != nil {
		return err
	}
	return validFloats("bound speeds", b.Speeds, true)
}

func (b Bound) String() string {
	if b.Users == 0 {
		return "no exhaustive search"
	}
	var extra []string
	for _, f := range []struct {
		on   bool
		name string
	}{{b.Idle, "idle users"}, {b.Split, "split servers"}, {b.Kinds, "shared job types"}} {
		if f.on {
			extra = append(extra, f.name)
		}
	}
	s := fmt.Sprintf("bound %d: ≤ %d users × ≤ %d jobs (≤ %d in all), ≤ %d types × ≤ %d GPUs, speeds %v, gangs %v, weights %v",
		b.Level, b.Users, b.JobsPerUser, b.Jobs, b.Types, b.GPUs, b.Speeds, b.Gangs, b.Weights)
	if len(extra) > 0 {
		s += ", " + strings.Join(extra, ", ")
	}
	return s
}

// Each calls yield with every valid instance within b, in a fixed order
// (smallest first: by types, GPU counts, servers, number of users, then the
// users' descriptors), until yield returns false.
func (b Bound) Each(yield func(Spec) bool) {
	if b.Users == 0 {
		return
	}
	for nt := 1; nt <= b.Types; nt++ {
		for _, gpus := range tuples(nt, b.GPUs) {
			for _, servers := range b.splits(gpus) {
				cluster := Spec{GPUs: gpus, Servers: servers}
				if !b.eachOnCluster(cluster, yield) {
					return
				}
			}
		}
	}
}

// Count is the number of instances within b.
func (b Bound) Count() int {
	n := 0
	b.Each(func(Spec) bool { n++; return true })
	return n
}

// Specs lists every instance within b (for small bounds and tests).
func (b Bound) Specs() []Spec {
	var out []Spec
	b.Each(func(s Spec) bool { out = append(out, s); return true })
	return out
}

// splits lists the server layouts of a cluster: one server per type, and
// with Split every type of several GPUs as single-GPU servers as well.
func (b Bound) splits(gpus []int) [][]int {
	out := [][]int{nil}
	if !b.Split {
		return out
	}
	for g, n := range gpus {
		if n < 2 {
			continue
		}
		for _, prev := range out {
			c := slices.Clone(prev)
			if c == nil {
				c = make([]int, len(gpus))
			}
			c[g] = n
			out = append(out, c)
		}
	}
	return out
}

// eachOnCluster enumerates the users on one cluster.
func (b Bound) eachOnCluster(cluster Spec, yield func(Spec) bool) bool {
	users := b.userDescriptors(cluster)
	for nu := 1; nu <= b.Users; nu++ {
		for _, pick := range multisets(len(users), nu) {
			s := Spec{GPUs: slices.Clone(cluster.GPUs), Servers: slices.Clone(cluster.Servers)}
			jobs := 0
			for _, i := range pick {
				s.Users = append(s.Users, users[i].clone())
				jobs += len(users[i].Jobs)
			}
			if jobs == 0 || jobs > b.Jobs {
				continue
			}
			if !yield(s) {
				return false
			}
			if b.Kinds {
				if k, ok := shareKinds(s); ok && !yield(k) {
					return false
				}
			}
		}
	}
	return true
}

// userDescriptors are the users the cluster can hold: a weight and a
// multiset of 0 (with Idle) to JobsPerUser job descriptors.
func (b Bound) userDescriptors(cluster Spec) []UserSpec {
	jobs := b.jobDescriptors(cluster)
	var out []UserSpec
	for _, w := range b.Weights {
		lo := 1
		if b.Idle {
			lo = 0
		}
		for n := lo; n <= min(b.JobsPerUser, b.Jobs); n++ {
			for _, pick := range multisets(len(jobs), n) {
				us := UserSpec{Weight: w}
				for _, i := range pick {
					us.Jobs = append(us.Jobs, JobSpec{Gang: jobs[i].Gang, Speed: slices.Clone(jobs[i].Speed)})
				}
				out = append(out, us)
			}
		}
	}
	return out
}

// jobDescriptors are the (gang, speeds) pairs the cluster can run.
func (b Bound) jobDescriptors(cluster Spec) []JobSpec {
	var out []JobSpec
	for _, gang := range b.Gangs {
		for _, sp := range speedVectors(len(cluster.GPUs), b.Speeds) {
			j := JobSpec{Gang: gang, Speed: sp}
			if cluster.validJob(j) == nil {
				out = append(out, j)
			}
		}
	}
	return out
}

// shareKinds returns s with every group of identical jobs (same gang and
// speeds) in one shared job type, when s has such a group.
func shareKinds(s Spec) (Spec, bool) {
	c := s.clone()
	kinds := map[string]int{}
	count := map[string]int{}
	for _, u := range c.Users {
		for _, j := range u.Jobs {
			count[fmt.Sprint(j.Gang, j.Speed)]++
		}
	}
	shared := false
	for u := range c.Users {
		for k := range c.Users[u].Jobs {
			j := &c.Users[u].Jobs[k]
			key := fmt.Sprint(j.Gang, j.Speed)
			if count[key] < 2 {
				continue
			}
			if kinds[key] == 0 {
				kinds[key] = len(kinds) + 1
			}
			j.Kind, shared = kinds[key], true
		}
	}
	return c, shared
}

func (u UserSpec) clone() UserSpec {
	return Spec{Users: []UserSpec{u}}.clone().Users[0]
}

// tuples lists every vector of n values in 1..max.
func tuples(n, max int) [][]int {
	out := [][]int{{}}
	for i := 0; i < n; i++ {
		var next [][]int
		for _, t := range out {
			for v := 1; v <= max; v++ {
				next = append(next, append(slices.Clone(t), v))
			}
		}
		out = next
	}
	return out
}

// speedVectors lists every vector of n speeds from grid.
func speedVectors(n int, grid []float64) [][]float64 {
	out := [][]float64{{}}
	for i := 0; i < n; i++ {
		var next [][]float64
		for _, t := range out {
			for _, v := range grid {
				next = append(next, append(slices.Clone(t), v))
			}
		}
		out = next
	}
	return out
}

// multisets lists the non-decreasing index vectors of length k over 0..n-1.
func multisets(n, k int) [][]int {
	var out [][]int
	cur := make([]int, k)
	var rec func(pos, from int)
	rec = func(pos, from int) {
		if pos == k {
			out = append(out, slices.Clone(cur))
			return
		}
		for i := from; i < n; i++ {
			cur[pos] = i
			rec(pos+1, i)
		}
	}
	rec(0, 0)
	return out
}
