package check

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"fairbench/models"
)

// Condition is a claim's condition as the checker searches under it
// (docs/checker.md, "Claims and conditions"): which single-decision
// instances it admits, how to turn any instance into one it admits (for the
// random search), and how it changes the over-time workloads.
type Condition struct {
	Name string
	// Doc says what the condition admits, in words.
	Doc string
	// admits reports whether a spec meets the condition.
	admits func(Spec) bool
	// project returns a spec that meets it, close to s.
	project func(Spec) Spec
	// workload changes a workload's instance to meet it (nil: the
	// workloads meet it as generated).
	workload func(w *Workload, cfg *Config)
}

// Conditions lists every condition the checker knows, by name.
func Conditions() []Condition {
	return []Condition{
		{Name: models.EqualWeights, Doc: "every user has the same weight",
			admits: func(s Spec) bool { return s.equalWeights() }, project: projectEqualWeights, workload: equalWeightsWorkload},
		{Name: models.OneJobPerUser, Doc: "every user has at most one active job",
			admits: func(s Spec) bool { return s.jobsPerUser() <= 1 }, project: projectOneJob, workload: oneJobWorkload},
		{Name: models.IdenticalJobsPerUser, Doc: "the jobs of a user have the same gang and speeds",
			admits: func(s Spec) bool { return s.identicalJobs() }, project: projectIdentical},
		{Name: models.SingleGPUJobs, Doc: "every job's gang is one GPU",
			admits: func(s Spec) bool { return s.maxGang() <= 1 }, project: projectSingleGPU, workload: singleGPUWorkload},
		{Name: models.MonotoneSpeeds, Doc: "every job is at least as fast on a higher-ranked GPU type as on a lower-ranked one",
			admits: func(s Spec) bool { return s.monotone() }, project: projectMonotone},
		{Name: models.AllUsersActive, Doc: "every user has at least one active job",
			admits: func(s Spec) bool { return s.allActive() }, project: projectAllActive},
		{Name: models.NoHistory, Doc: "the first decision, before any job has run (round 0)",
			admits: func(s Spec) bool { return s.Round == 0 }, project: projectNoHistory},
		{Name: models.Divisible, Doc: "jobs are divisible: an allocation's time fractions are judged as stated " +
			"(every single decision; a policy that answers with placements is judged on its realised shares, within their slack)",
			admits: func(Spec) bool { return true }, project: func(s Spec) Spec { return s }},
		{Name: models.LoadBelowCapacity, Doc: "over time, the work arriving per round is below what the cluster serves per round " +
			"(the starvation workload arrives at TemporalConfig.Underload of its capacity)",
			admits: func(Spec) bool { return true }, project: func(s Spec) Spec { return s }, workload: underloadWorkload},
	}
}

// ConditionNames lists the names of Conditions.
func ConditionNames() []string {
	var out []string
	for _, c := range Conditions() {
		out = append(out, c.Name)
	}
	return out
}

// lookupConditions resolves condition names, refusing unknown ones.
func lookupConditions(names []string) ([]Condition, error) {
	all := map[string]Condition{}
	for _, c := range Conditions() {
		all[c.Name] = c
	}
	var out []Condition
	for _, n := range names {
		c, ok := all[n]
		if !ok {
			return nil, fmt.Errorf("check: unknown condition %q (known: %s)", n, strings.Join(ConditionNames(), ", "))
		}
		out = append(out, c)
	}
	return out, nil
}

// Scope is a set of conditions: the instances a verdict is about. The
// empty scope is every instance.
type Scope []Condition

// Names lists the scope's condition names, sorted.
func (sc Scope) Names() []string {
	var out []string
	for _, c := range sc {
		out = append(out, c.Name)
	}
	sort.Strings(out)
	return out
}

func (sc Scope) String() string {
	if len(sc) == 0 {
		return "unconditional"
	}
	return "under " + strings.Join(sc.Names(), ", ")
}

// Admits reports whether s meets every condition.
func (sc Scope) Admits(s Spec) bool {
	for _, c := range sc {
		if !c.admits(s) {
			return false
		}
	}
	return true
}

// Project turns s into a spec that meets every condition, or reports that
// it cannot (the projection left no valid instance).
func (sc Scope) Project(s Spec) (Spec, bool) {
	for _, c := range sc {
		s = c.project(s.clone())
	}
	s = repairHistory(s)
	return s, s.Valid() == nil && sc.Admits(s)
}

// Workload changes w to meet every condition.
func (sc Scope) Workload(w *Workload, cfg *Config) {
	for _, c := range sc {
		if c.workload != nil {
			c.workload(w, cfg)
		}
	}
}

func (s Spec) equalWeights() bool {
	for _, u := range s.Users {
		if u.Weight != s.Users[0].Weight {
			return false
		}
	}
	return true
}

func (s Spec) jobsPerUser() int {
	m := 0
	for _, u := range s.Users {
		m = max(m, len(u.Jobs))
	}
	return m
}

func (s Spec) identicalJobs() bool {
	for _, u := range s.Users {
		for _, j := range u.Jobs {
			if j.Gang != u.Jobs[0].Gang || !slices.Equal(j.Speed, u.Jobs[0].Speed) {
				return false
			}
		}
	}
	return true
}

func (s Spec) maxGang() int {
	m := 0
	for _, u := range s.Users {
		for _, j := range u.Jobs {
			m = max(m, j.Gang)
		}
	}
	return m
}

// monotone: speeds do not increase from a higher-ranked type (a lower
// index of specTypes) to a lower-ranked one.
func (s Spec) monotone() bool {
	for _, u := range s.Users {
		for _, j := range u.Jobs {
			for g := 1; g < len(j.Speed); g++ {
				if j.Speed[g] > j.Speed[g-1] {
					return false
				}
			}
		}
	}
	return true
}

func (s Spec) allActive() bool {
	for _, u := range s.Users {
		if len(u.Jobs) == 0 {
			return false
		}
	}
	return true
}

func projectEqualWeights(s Spec) Spec {
	for u := range s.Users {
		s.Users[u].Weight = s.Users[0].Weight
	}
	return s
}

func projectOneJob(s Spec) Spec {
	for u := range s.Users {
		if len(s.Users[u].Jobs) > 1 {
			s.Users[u].Jobs = s.Users[u].Jobs[:1]
		}
	}
	return s
}

func projectIdentical(s Spec) Spec {
	for u := range s.Users {
		jobs := s.Users[u].Jobs
		for k := 1; k < len(jobs); k++ {
			jobs[k].Gang, jobs[k].Speed, jobs[k].Kind = jobs[0].Gang, slices.Clone(jobs[0].Speed), jobs[0].Kind
		}
	}
	return s
}

func projectSingleGPU(s Spec) Spec {
	for u := range s.Users {
		for k := range s.Users[u].Jobs {
			s.Users[u].Jobs[k].Gang = 1
		}
	}
	return s
}

func projectMonotone(s Spec) Spec {
	for u := range s.Users {
		for k := range s.Users[u].Jobs {
			sp := s.Users[u].Jobs[k].Speed
			sort.Sort(sort.Reverse(sort.Float64Slice(sp)))
		}
	}
	return s
}

func projectAllActive(s Spec) Spec {
	var users []UserSpec
	for _, u := range s.Users {
		if len(u.Jobs) > 0 {
			users = append(users, u)
		}
	}
	s.Users = users
	return s
}

func projectNoHistory(s Spec) Spec {
	s.Round = 0
	for u := range s.Users {
		for k := range s.Users[u].Jobs {
			j := &s.Users[u].Jobs[k]
			j.Age, j.Received, j.Last = 0, nil, 0
		}
	}
	return s
}

// repairHistory drops the history of jobs whose history a projection made
// invalid (time received on a type the job can no longer run on).
func repairHistory(s Spec) Spec {
	for u := range s.Users {
		for k := range s.Users[u].Jobs {
			j := &s.Users[u].Jobs[k]
			if s.validHistory(*j) != nil {
				j.Received, j.Last = nil, 0
			}
		}
	}
	return s
}

func equalWeightsWorkload(w *Workload, _ *Config) {
	for u := range w.Instance.Users {
		w.Instance.Users[u].Weight = 1
	}
	perUser := map[string]int{}
	for _, j := range w.Instance.Jobs {
		perUser[j.User]++
	}
	for k := range w.Instance.Jobs {
		w.Instance.Jobs[k].Priority = 1 / float64(perUser[w.Instance.Jobs[k].User])
	}
}

// oneJobWorkload gives every job a user of its own, of its old user's
// weight over its jobs (so entitlements keep their proportions).
func oneJobWorkload(w *Workload, _ *Config) {
	in := w.Instance
	weight := map[string]float64{}
	perUser := map[string]int{}
	for _, u := range in.Users {
		weight[u.Name] = u.Weight
	}
	for _, j := range in.Jobs {
		perUser[j.User]++
	}
	in.Users = nil
	for k := range in.Jobs {
		j := &in.Jobs[k]
		name := fmt.Sprintf("j%d", j.ID)
		in.Users = append(in.Users, models.User{Name: name, Weight: weight[j.User] / float64(perUser[j.User])})
		j.User, j.Priority = name, 0
	}
}

func singleGPUWorkload(w *Workload, _ *Config) {
	for k := range w.Instance.Jobs {
		j := &w.Instance.Jobs[k]
		if j.Gang > 1 {
			for t, v := range j.Throughputs {
				j.Throughputs[t] = v / float64(j.Gang)
			}
			j.Spread, j.Gang = nil, 1
		}
	}
}

// underloadWorkload redraws a dynamic workload at the underloaded rate.
func underloadWorkload(w *Workload, cfg *Config) {
	if w.Kind != Dynamic || w.redraw == nil {
		return
	}
	*w = *w.redraw(cfg.Temporal.Underload)
}

// ParseClaims reads claims written as PROPERTY or
// PROPERTY:CONDITION+CONDITION (the --claims flag), refusing unknown
// properties and conditions.
func ParseClaims(specs []string) ([]models.Claim, error) {
	var out []models.Claim
	for _, spec := range specs {
		name, conds, _ := strings.Cut(strings.TrimSpace(spec), ":")
		if _, err := Lookup(&Config{}, []string{name}); err != nil {
			return nil, err
		}
		c := models.Claim{Property: name, Source: "claimed on the command line"}
		if conds != "" {
			c.Conditions = strings.Split(conds, "+")
			if _, err := lookupConditions(c.Conditions); err != nil {
				return nil, err
			}
		}
		out = append(out, c)
	}
	return out, nil
}
