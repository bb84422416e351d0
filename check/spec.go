package check

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"fairbench/models"
)

// Spec is one small single-decision instance as the searches generate,
// enumerate and shrink it: GPU types with their GPU counts (one server per
// type, so a gang never spreads), and users with weights and jobs, each job
// a gang and one speed per type in steps per second (0: cannot run there).
// Spec.Instance writes it down in the instance format of `fairbench solve`.
type Spec struct {
	GPUs  []int      `json:"gpus"`
	Users []UserSpec `json:"users"`
}

// UserSpec is one user of a Spec.
type UserSpec struct {
	Weight float64   `json:"weight"`
	Jobs   []JobSpec `json:"jobs"`
}

// JobSpec is one job of a Spec.
type JobSpec struct {
	Gang  int       `json:"gang"`
	Speed []float64 `json:"speed"`
}

// specTypes are the GPU types a Spec uses, fastest-ranked first: the
// catalogue's names and memory (Gavel's three generations, then the T4), so
// that policies that rank types (Gandiva_fair's profiling) see the order they
// expect. The speeds are the spec's own, not the catalogue's.
var specTypes = []models.GPUType{
	{Name: "V100", MemoryGB: 16, Rank: 3},
	{Name: "P100", MemoryGB: 16, Rank: 2},
	{Name: "K80", MemoryGB: 12, Rank: 1},
	{Name: "T4", MemoryGB: 16, Rank: 0},
}

// MaxSpecTypes is the most GPU types a Spec may have.
var MaxSpecTypes = len(specTypes)

// specSteps is every job's size: large enough that no job of a realised
// (simulated) decision finishes within the horizon.
const specSteps = 1e12

// Valid reports why s cannot be an instance: no type or more than
// MaxSpecTypes, a type without GPUs, no user, a user without jobs or with a
// non-positive weight, a job whose speeds do not match the types, or a job
// that no type can run (a positive speed on a type with at least its gang
// of GPUs).
func (s Spec) Valid() error {
	if len(s.GPUs) == 0 || len(s.GPUs) > MaxSpecTypes {
		return fmt.Errorf("spec: %d GPU types (1 to %d)", len(s.GPUs), MaxSpecTypes)
	}
	for g, n := range s.GPUs {
		if n <= 0 {
			return fmt.Errorf("spec: type %d has %d GPUs", g, n)
		}
	}
	if len(s.Users) == 0 {
		return fmt.Errorf("spec: no users")
	}
	for u, us := range s.Users {
		if !(us.Weight > 0) || math.IsInf(us.Weight, 0) {
			return fmt.Errorf("spec: user %d: weight %v", u, us.Weight)
		}
		if len(us.Jobs) == 0 {
			return fmt.Errorf("spec: user %d has no jobs", u)
		}
		for k, j := range us.Jobs {
			if len(j.Speed) != len(s.GPUs) || j.Gang <= 0 {
				return fmt.Errorf("spec: user %d job %d: gang %d, %d speeds for %d types", u, k, j.Gang, len(j.Speed), len(s.GPUs))
			}
			ok := false
			for g, t := range j.Speed {
				if t < 0 || math.IsNaN(t) || math.IsInf(t, 0) {
					return fmt.Errorf("spec: user %d job %d: speed %v", u, k, t)
				}
				ok = ok || t > 0 && j.Gang <= s.GPUs[g]
			}
			if !ok {
				return fmt.Errorf("spec: user %d job %d: no type can run it", u, k)
			}
		}
	}
	return nil
}

// Key is a canonical text of s, used to memoise decisions.
func (s Spec) Key() string {
	var b strings.Builder
	fmt.Fprint(&b, s.GPUs)
	for _, u := range s.Users {
		fmt.Fprintf(&b, "|%g:", u.Weight)
		for _, j := range u.Jobs {
			fmt.Fprintf(&b, "%d%v", j.Gang, j.Speed)
		}
	}
	return b.String()
}

// String is a compact description: "2×V100 1×K80; u1 (w1): job d1 [4 1]; ...".
func (s Spec) String() string {
	var parts []string
	for g, n := range s.GPUs {
		parts = append(parts, fmt.Sprintf("%d×%s", n, specTypes[g].Name))
	}
	out := strings.Join(parts, " ")
	for u, us := range s.Users {
		var jobs []string
		for _, j := range us.Jobs {
			jobs = append(jobs, fmt.Sprintf("d%d %v", j.Gang, j.Speed))
		}
		out += fmt.Sprintf("; u%d (w%g): %s", u+1, us.Weight, strings.Join(jobs, ", "))
	}
	return out
}

// Instance writes s down: one server per type holding its GPUs; users
// u1..un; jobs numbered from 1 in user order, each of its own job type
// ("job-<id>"), with priority w_u / (number of jobs of u), so that policies
// that weigh jobs by priority (Gavel) and those that weigh users by tickets
// (Gandiva_fair, isolated) see the same entitlements.
func (s Spec) Instance() *models.Instance {
	in := &models.Instance{GPUTypes: append([]models.GPUType(nil), specTypes[:len(s.GPUs)]...)}
	for g, n := range s.GPUs {
		in.Servers = append(in.Servers, models.ServerGroup{Type: specTypes[g].Name, Count: 1, GPUs: n})
	}
	id := models.JobID(1)
	for u, us := range s.Users {
		name := fmt.Sprintf("u%d", u+1)
		in.Users = append(in.Users, models.User{Name: name, Weight: us.Weight})
		for _, j := range us.Jobs {
			ij := models.InstanceJob{ID: id, User: name, Gang: j.Gang, Steps: specSteps,
				Priority: us.Weight / float64(len(us.Jobs)), Throughputs: map[string]float64{}}
			for g, t := range j.Speed {
				if t > 0 {
					ij.Throughputs[specTypes[g].Name] = t
				}
			}
			in.Jobs = append(in.Jobs, ij)
			id++
		}
	}
	return in
}

// Limits bound the random instances.
type Limits struct {
	MaxUsers       int       `json:"max_users"`
	MaxTypes       int       `json:"max_types"`
	MaxGPUs        int       `json:"max_gpus"`
	MaxJobsPerUser int       `json:"max_jobs_per_user"`
	Gangs          []int     `json:"gangs"`
	Weights        []float64 `json:"weights"`
	// Speeds are drawn from this grid; ZeroChance is the probability that a
	// job cannot run on a type.
	Speeds     []float64 `json:"speeds"`
	ZeroChance float64   `json:"zero_chance"`
	// IdenticalJobs gives all jobs of a user the same gang and speeds
	// (Gandiva_fair's target case: a user's hyper-parameter search).
	IdenticalJobs bool `json:"identical_jobs,omitempty"`
}

// DefaultLimits: up to 3 users × 3 types × 4 GPUs per type, one job per
// user (users and jobs coincide, so job-level and user-level policies are
// judged alike), gangs 1–2, weights 1–3, speeds 1–8 with one in five
// figures 0.
func DefaultLimits() Limits {
	return Limits{MaxUsers: 3, MaxTypes: 3, MaxGPUs: 4, MaxJobsPerUser: 1,
		Gangs: []int{1, 2}, Weights: []float64{1, 2, 3},
		Speeds: []float64{1, 2, 3, 4, 5, 6, 8}, ZeroChance: 0.2}
}

// Random draws a valid spec within l.
func (l Limits) Random(r *rand.Rand) Spec {
	for {
		s := Spec{GPUs: make([]int, 1+r.IntN(l.MaxTypes))}
		for g := range s.GPUs {
			s.GPUs[g] = 1 + r.IntN(l.MaxGPUs)
		}
		nu := 1 + r.IntN(l.MaxUsers)
		if l.MaxUsers > 1 && nu == 1 && r.IntN(2) == 0 {
			nu = 2 // one user alone is rarely interesting
		}
		for u := 0; u < nu; u++ {
			us := UserSpec{Weight: l.Weights[r.IntN(len(l.Weights))]}
			for k := 1 + r.IntN(l.MaxJobsPerUser); k > 0; k-- {
				if l.IdenticalJobs && len(us.Jobs) > 0 {
					us.Jobs = append(us.Jobs, JobSpec{Gang: us.Jobs[0].Gang, Speed: slices.Clone(us.Jobs[0].Speed)})
					continue
				}
				j := JobSpec{Gang: l.Gangs[r.IntN(len(l.Gangs))], Speed: make([]float64, len(s.GPUs))}
				for g := range j.Speed {
					if r.Float64() >= l.ZeroChance {
						j.Speed[g] = l.Speeds[r.IntN(len(l.Speeds))]
					}
				}
				us.Jobs = append(us.Jobs, j)
			}
			s.Users = append(s.Users, us)
		}
		if s.Valid() == nil {
			return s
		}
	}
}

// Shrinks lists the specs one step smaller than s, most drastic first:
// a user removed, a job removed, a GPU type removed, a type with one GPU
// less, a weight set to 1, a gang set to 1, a speed lowered to a smaller
// value of the grid (or to 1) or set to 0, two speeds of a job made equal.
// Only valid specs are listed. Shrinking repeats the first step that keeps
// the property failing, so counterexamples end up locally minimal.
func (s Spec) Shrinks(grid []float64) []Spec {
	var out []Spec
	add := func(c Spec) {
		if c.Valid() == nil {
			out = append(out, c)
		}
	}
	for u := range s.Users {
		if len(s.Users) > 1 {
			c := s.clone()
			c.Users = slices.Delete(c.Users, u, u+1)
			add(c)
		}
	}
	for u := range s.Users {
		for k := range s.Users[u].Jobs {
			if len(s.Users[u].Jobs) > 1 {
				c := s.clone()
				c.Users[u].Jobs = slices.Delete(c.Users[u].Jobs, k, k+1)
				add(c)
			}
		}
	}
	if len(s.GPUs) > 1 {
		for g := range s.GPUs {
			c := s.clone()
			c.GPUs = slices.Delete(c.GPUs, g, g+1)
			for u := range c.Users {
				for k := range c.Users[u].Jobs {
					c.Users[u].Jobs[k].Speed = slices.Delete(c.Users[u].Jobs[k].Speed, g, g+1)
				}
			}
			add(c)
		}
	}
	for g := range s.GPUs {
		if s.GPUs[g] > 1 {
			c := s.clone()
			c.GPUs[g]--
			add(c)
		}
	}
	for u := range s.Users {
		if s.Users[u].Weight != 1 {
			c := s.clone()
			c.Users[u].Weight = 1
			add(c)
		}
	}
	for u := range s.Users {
		for k, j := range s.Users[u].Jobs {
			if j.Gang > 1 {
				c := s.clone()
				c.Users[u].Jobs[k].Gang = 1
				add(c)
			}
		}
	}
	for u := range s.Users {
		for k, j := range s.Users[u].Jobs {
			for g, t := range j.Speed {
				for _, v := range smaller(t, grid) {
					c := s.clone()
					c.Users[u].Jobs[k].Speed[g] = v
					add(c)
				}
			}
		}
	}
	for u := range s.Users {
		for k, j := range s.Users[u].Jobs {
			for g := range j.Speed {
				for h := g + 1; h < len(j.Speed); h++ {
					if j.Speed[g] != j.Speed[h] && j.Speed[g] > 0 && j.Speed[h] > 0 {
						c := s.clone()
						v := math.Min(j.Speed[g], j.Speed[h])
						c.Users[u].Jobs[k].Speed[g], c.Users[u].Jobs[k].Speed[h] = v, v
						add(c)
					}
				}
			}
		}
	}
	return out
}

// smaller lists the values a speed t shrinks to: 0, 1, and the grid values
// below t, smallest first.
func smaller(t float64, grid []float64) []float64 {
	var out []float64
	if t > 0 {
		out = append(out, 0)
	}
	if t > 1 {
		out = append(out, 1)
	}
	for _, v := range grid {
		if v > 1 && v < t {
			out = append(out, v)
		}
	}
	return out
}

func (s Spec) clone() Spec {
	c := Spec{GPUs: slices.Clone(s.GPUs), Users: make([]UserSpec, len(s.Users))}
	for u, us := range s.Users {
		c.Users[u] = UserSpec{Weight: us.Weight, Jobs: make([]JobSpec, len(us.Jobs))}
		for k, j := range us.Jobs {
			c.Users[u].Jobs[k] = JobSpec{Gang: j.Gang, Speed: slices.Clone(j.Speed)}
		}
	}
	return c
}

// SpecOf reads an instance back as a spec when it has the shape Spec.Instance
// writes (one server per type, types among specTypes in that order, jobs of
// their own types); ok is false otherwise. Replayed counterexamples that were
// edited by hand still replay; they just cannot be shrunk further.
func SpecOf(in *models.Instance) (Spec, bool) {
	var s Spec
	if len(in.Servers) == 0 || len(in.Servers) > MaxSpecTypes {
		return s, false
	}
	for g, sg := range in.Servers {
		if sg.Type != specTypes[g].Name || sg.Count != 1 {
			return s, false
		}
		s.GPUs = append(s.GPUs, sg.GPUs)
	}
	user := map[string]int{}
	for _, u := range in.Users {
		user[u.Name] = len(s.Users)
		s.Users = append(s.Users, UserSpec{Weight: u.Weight})
	}
	for _, ij := range in.Jobs {
		u, ok := user[ij.User]
		if !ok || ij.Type != "" && ij.Type != fmt.Sprintf("job-%d", ij.ID) || len(ij.Spread) > 0 {
			return s, false
		}
		j := JobSpec{Gang: ij.Gang, Speed: make([]float64, len(s.GPUs))}
		for g := range s.GPUs {
			j.Speed[g] = ij.Throughputs[specTypes[g].Name]
		}
		s.Users[u].Jobs = append(s.Users[u].Jobs, j)
	}
	return s, s.Valid() == nil
}
