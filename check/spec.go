package check

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"fairbench/models"
)

// Spec is one small single-decision instance as the searches generate,
// enumerate and shrink it (docs/checker.md, "Instances"):
//
//   - GPU types with their GPU counts, each type in Servers[g] equal servers
//     (0 or 1: one server holding them all; more: a gang larger than a
//     server spreads, at its spread throughput);
//   - users with weights (any positive number) and 0 or more active jobs;
//   - jobs with a gang and one speed per type in steps per second (0: cannot
//     run there), in a job type of their own or one shared with the other
//     jobs of the same Kind;
//   - a decision round: 0 is the first decision, with no history; at a later
//     round a job may carry history (the rounds it has received on each
//     type, the type it ran on last, when it arrived).
//
// Spec.Instance writes it down in the instance format of `fairbench solve`.
type Spec struct {
	GPUs    []int      `json:"gpus"`
	Servers []int      `json:"servers,omitempty"`
	Users   []UserSpec `json:"users"`
	// Round is the decision's round number (time Round × 360 s).
	Round int `json:"round,omitempty"`
}

// UserSpec is one user of a Spec; a user without jobs has none active.
type UserSpec struct {
	Weight float64   `json:"weight"`
	Jobs   []JobSpec `json:"jobs"`
}

// JobSpec is one job of a Spec.
type JobSpec struct {
	Gang  int       `json:"gang"`
	Speed []float64 `json:"speed"`
	// Kind > 0 puts the job in the job type "kind-<Kind>", shared with every
	// job of the same Kind (which must have the same gang and speeds); 0
	// gives it a type of its own.
	Kind int `json:"kind,omitempty"`
	// Age is the rounds since the job arrived (at most Spec.Round);
	// Received[g] the rounds it has run on type g (Σ ≤ Age), Last the type
	// it ran on last (index + 1; 0: none). All zero at round 0.
	Age      float64   `json:"age,omitempty"`
	Received []float64 `json:"received,omitempty"`
	Last     int       `json:"last,omitempty"`
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
const MaxSpecTypes = 4

// specSteps is every job's size: large enough that no job of a realised
// (simulated) decision finishes within the horizon.
const specSteps = 1e12

// specRound is a Spec's round length in seconds (Gavel's).
const specRound = 360.0

// Valid reports why s cannot be an instance: the type count, GPU and server
// counts, weights, jobs whose speeds do not match the types or that no type
// can run, jobs of one Kind that differ, or history that does not add up.
func (s Spec) Valid() error {
	if err := s.validCluster(); err != nil {
		return err
	}
	if len(s.Users) == 0 {
		return fmt.Errorf("spec: no users")
	}
	if s.Round < 0 {
		return fmt.Errorf("spec: round %d", s.Round)
	}
	kinds := map[int]JobSpec{}
	jobs := 0
	for u, us := range s.Users {
		if !(us.Weight > 0) || math.IsInf(us.Weight, 0) {
			return fmt.Errorf("spec: user %d: weight %v", u, us.Weight)
		}
		for k, j := range us.Jobs {
			if err := s.validJob(j); err != nil {
				return fmt.Errorf("spec: user %d job %d: %w", u, k, err)
			}
			if first, ok := kinds[j.Kind]; ok && j.Kind > 0 && (first.Gang != j.Gang || !slices.Equal(first.Speed, j.Speed)) {
				return fmt.Errorf("spec: user %d job %d: kind %d with other figures than another job of that kind", u, k, j.Kind)
			}
			kinds[j.Kind] = j
			jobs++
		}
	}
	if jobs == 0 {
		return fmt.Errorf("spec: no active job")
	}
	return nil
}

func (s Spec) validCluster() error {
	if len(s.GPUs) == 0 || len(s.GPUs) > MaxSpecTypes {
		return fmt.Errorf("spec: %d GPU types (1 to %d)", len(s.GPUs), MaxSpecTypes)
	}
	if len(s.Servers) > 0 && len(s.Servers) != len(s.GPUs) {
		return fmt.Errorf("spec: %d server counts for %d types", len(s.Servers), len(s.GPUs))
	}
	for g, n := range s.GPUs {
		if n <= 0 {
			return fmt.Errorf("spec: type %d has %d GPUs", g, n)
		}
		if k := s.servers(g); k < 1 || n%k != 0 {
			return fmt.Errorf("spec: type %d: %d GPUs do not split into %d equal servers", g, n, k)
		}
	}
	return nil
}

func (s Spec) validJob(j JobSpec) error {
	if len(j.Speed) != len(s.GPUs) || j.Gang <= 0 || j.Kind < 0 {
		return fmt.Errorf("gang %d, kind %d, %d speeds for %d types", j.Gang, j.Kind, len(j.Speed), len(s.GPUs))
	}
	ok := false
	for g, t := range j.Speed {
		if t < 0 || math.IsNaN(t) || math.IsInf(t, 0) {
			return fmt.Errorf("speed %v", t)
		}
		ok = ok || t > 0 && j.Gang <= s.GPUs[g]
	}
	if !ok {
		return fmt.Errorf("no type can run it")
	}
	return s.validHistory(j)
}

func (s Spec) validHistory(j JobSpec) error {
	if len(j.Received) > 0 && len(j.Received) != len(s.GPUs) {
		return fmt.Errorf("%d received figures for %d types", len(j.Received), len(s.GPUs))
	}
	got := 0.0
	for g, r := range j.Received {
		if r < 0 || math.IsNaN(r) || math.IsInf(r, 0) || r > 0 && j.Speed[g] == 0 {
			return fmt.Errorf("received %v rounds on type %d", r, g)
		}
		got += r
	}
	switch {
	case j.Age < 0 || math.IsNaN(j.Age) || j.Age > float64(s.Round):
		return fmt.Errorf("age %v rounds at round %d", j.Age, s.Round)
	case got > j.Age+1e-9:
		return fmt.Errorf("received %v rounds in an age of %v", got, j.Age)
	case j.Last < 0 || j.Last > len(s.GPUs) || j.Last > 0 && (len(j.Received) == 0 || j.Received[j.Last-1] == 0):
		return fmt.Errorf("last type %d has received nothing", j.Last)
	}
	return nil
}

// servers is the number of servers of type g.
func (s Spec) servers(g int) int {
	if g < len(s.Servers) && s.Servers[g] > 1 {
		return s.Servers[g]
	}
	return 1
}

// Jobs is the number of active jobs.
func (s Spec) Jobs() int {
	n := 0
	for _, u := range s.Users {
		n += len(u.Jobs)
	}
	return n
}

// Key is a canonical text of s, used to memoise decisions.
func (s Spec) Key() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v/", s.GPUs)
	for g := range s.GPUs {
		fmt.Fprintf(&b, "%d,", s.servers(g))
	}
	fmt.Fprintf(&b, "@%d", s.Round)
	for _, u := range s.Users {
		fmt.Fprintf(&b, "|%g:", u.Weight)
		for _, j := range u.Jobs {
			fmt.Fprintf(&b, "%d%vk%d", j.Gang, j.Speed, j.Kind)
			if j.Age > 0 {
				fmt.Fprintf(&b, "h%g%vl%d", j.Age, j.Received, j.Last)
			}
			b.WriteByte(';')
		}
	}
	return b.String()
}

// String is a compact description: "2×V100 (2 servers) 1×K80; u1 (w1.5):
// job d1 [4 1]; ...".
func (s Spec) String() string {
	var parts []string
	for g, n := range s.GPUs {
		p := fmt.Sprintf("%d×%s", n, specTypes[g].Name)
		if k := s.servers(g); k > 1 {
			p += fmt.Sprintf(" (%d servers)", k)
		}
		parts = append(parts, p)
	}
	out := strings.Join(parts, " ")
	if s.Round > 0 {
		out += fmt.Sprintf(" at round %d", s.Round)
	}
	for u, us := range s.Users {
		var jobs []string
		for _, j := range us.Jobs {
			jobs = append(jobs, j.String())
		}
		if len(jobs) == 0 {
			jobs = []string{"no active job"}
		}
		out += fmt.Sprintf("; u%d (w%g): %s", u+1, us.Weight, strings.Join(jobs, ", "))
	}
	return out
}

func (j JobSpec) String() string {
	s := fmt.Sprintf("d%d %v", j.Gang, j.Speed)
	if j.Kind > 0 {
		s += fmt.Sprintf(" kind %d", j.Kind)
	}
	if j.Age > 0 {
		s += fmt.Sprintf(" age %g received %v", j.Age, j.Received)
		if j.Last > 0 {
			s += " last " + specTypes[j.Last-1].Name
		}
	}
	return s
}

// Instance writes s down: Servers[g] servers per type; users u1..un; jobs
// numbered from 1 in user order, each of its own job type ("job-<id>") or
// of its kind's ("kind-<k>"), with priority w_u / (number of jobs of u), so
// that policies that weigh jobs by priority (Gavel) and those that weigh
// users by tickets (Gandiva_fair, isolated) see the same entitlements; at
// a later round, with the job's history (arrival, time received per type,
// last type, and the steps, executed time and attained GPU time it adds up
// to at the job's speeds).
func (s Spec) Instance() *models.Instance {
	in := &models.Instance{GPUTypes: append([]models.GPUType(nil), specTypes[:len(s.GPUs)]...)}
	if s.Round > 0 {
		in.Round, in.Time = s.Round, float64(s.Round)*specRound
	}
	for g, n := range s.GPUs {
		k := s.servers(g)
		in.Servers = append(in.Servers, models.ServerGroup{Type: specTypes[g].Name, Count: k, GPUs: n / k})
	}
	id := models.JobID(1)
	for u, us := range s.Users {
		name := fmt.Sprintf("u%d", u+1)
		in.Users = append(in.Users, models.User{Name: name, Weight: us.Weight})
		for _, j := range us.Jobs {
			ij := s.instanceJob(j, id, name, us.Weight/float64(len(us.Jobs)))
			in.Jobs = append(in.Jobs, ij)
			id++
		}
	}
	return in
}

func (s Spec) instanceJob(j JobSpec, id models.JobID, user string, priority float64) models.InstanceJob {
	ij := models.InstanceJob{ID: id, User: user, Gang: j.Gang, Steps: specSteps, Priority: priority,
		Throughputs: map[string]float64{}}
	if j.Kind > 0 {
		ij.Type = fmt.Sprintf("kind-%d", j.Kind)
	}
	for g, t := range j.Speed {
		if t <= 0 {
			continue
		}
		ij.Throughputs[specTypes[g].Name] = t
		if j.Gang > s.GPUs[g]/s.servers(g) {
			if ij.Spread == nil {
				ij.Spread = map[string]float64{}
			}
			ij.Spread[specTypes[g].Name] = t
		}
	}
	if s.Round == 0 {
		return ij
	}
	ij.Arrival = (float64(s.Round) - j.Age) * specRound
	executed, done := 0.0, 0.0
	for g, r := range j.Received {
		if r > 0 {
			if ij.Received == nil {
				ij.Received = map[string]float64{}
			}
			ij.Received[specTypes[g].Name] = r * specRound
			executed += r * specRound
			done += r * specRound * j.Speed[g]
		}
	}
	if executed > 0 {
		first := ij.Arrival
		ij.FirstRun = &first
		ij.Executed, ij.Attained, ij.Done = executed, executed*float64(j.Gang), done
	}
	if j.Last > 0 {
		ij.LastType = specTypes[j.Last-1].Name
	}
	return ij
}

func (s Spec) clone() Spec {
	c := Spec{GPUs: slices.Clone(s.GPUs), Servers: slices.Clone(s.Servers), Users: make([]UserSpec, len(s.Users)), Round: s.Round}
	for u, us := range s.Users {
		c.Users[u] = UserSpec{Weight: us.Weight, Jobs: make([]JobSpec, len(us.Jobs))}
		for k, j := range us.Jobs {
			c.Users[u].Jobs[k] = JobSpec{Gang: j.Gang, Speed: slices.Clone(j.Speed), Kind: j.Kind,
				Age: j.Age, Received: slices.Clone(j.Received), Last: j.Last}
		}
	}
	return c
}
