package models

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
)

// Instance is one allocation decision written down: a cluster, users, and
// active jobs with their progress and their throughputs. `fairbench solve`
// reads it and the checker writes its counterexamples in it, so a failing
// case can be replayed exactly. It is encoded as JSON (or YAML with the same
// keys). Times are in seconds.
type Instance struct {
	// Time is the decision time; Round its round number; RoundSeconds the
	// round length (default 360).
	Time         float64 `json:"time_s,omitempty" yaml:"time_s,omitempty"`
	Round        int     `json:"round,omitempty" yaml:"round,omitempty"`
	RoundSeconds float64 `json:"round_s,omitempty" yaml:"round_s,omitempty"`
	// GPUTypes lists the GPU types the servers use (name, memory_gb, rank);
	// when empty, the caller supplies them (the CLI uses the catalogue).
	GPUTypes []GPUType     `json:"gpu_types,omitempty" yaml:"gpu_types,omitempty"`
	Servers  []ServerGroup `json:"servers" yaml:"servers"`
	Users    []User        `json:"users" yaml:"users"`
	Jobs     []InstanceJob `json:"jobs" yaml:"jobs"`
	// Note says where the instance came from (e.g. the property it breaks).
	Note string `json:"note,omitempty" yaml:"note,omitempty"`
	// JobTypes optionally describes the job types (memory, state size).
	JobTypes []JobType `json:"job_types,omitempty" yaml:"job_types,omitempty"`
	// Policy and Options name the policy the instance is meant for, and
	// Result what it answered, when the file records a decision.
	Policy  string          `json:"policy,omitempty" yaml:"policy,omitempty"`
	Options map[string]any  `json:"options,omitempty" yaml:"options,omitempty"`
	Result  *InstanceResult `json:"result,omitempty" yaml:"result,omitempty"`
	// Check is what the checker recorded when it wrote the instance as a
	// counterexample (the property, the claims, a lie); nil otherwise.
	Check *CheckRecord `json:"check,omitempty" yaml:"check,omitempty"`
}

// InstanceResult records what a policy answered, for replay files.
type InstanceResult struct {
	Allocation Allocation `json:"allocation" yaml:"allocation"`
	Reason     string     `json:"reason,omitempty" yaml:"reason,omitempty"`
}

// ServerGroup is Count servers of one type with GPUs GPUs each.
type ServerGroup struct {
	Type  string `json:"type" yaml:"type"`
	Count int    `json:"count" yaml:"count"`
	GPUs  int    `json:"gpus_per_server" yaml:"gpus_per_server"`
}

// InstanceJob is a job with its state and its throughputs.
type InstanceJob struct {
	ID       JobID   `json:"id" yaml:"id"`
	User     string  `json:"user" yaml:"user"`
	Type     string  `json:"type,omitempty" yaml:"type,omitempty"`
	Gang     int     `json:"gang" yaml:"gang"`
	Steps    float64 `json:"steps" yaml:"steps"`
	Arrival  float64 `json:"arrival_s,omitempty" yaml:"arrival_s,omitempty"`
	Priority float64 `json:"priority,omitempty" yaml:"priority,omitempty"`
	MemoryGB float64 `json:"memory_gb,omitempty" yaml:"memory_gb,omitempty"`
	Done     float64 `json:"done,omitempty" yaml:"done,omitempty"`
	Attained float64 `json:"attained_gpu_s,omitempty" yaml:"attained_gpu_s,omitempty"`
	Executed float64 `json:"executed_s,omitempty" yaml:"executed_s,omitempty"`
	// FirstRun is when the job first ran; omit (or negative) if it has not.
	FirstRun *float64 `json:"first_run_s,omitempty" yaml:"first_run_s,omitempty"`
	LastType string   `json:"last_type,omitempty" yaml:"last_type,omitempty"`
	LastGPUs []int    `json:"last_gpus,omitempty" yaml:"last_gpus,omitempty"`
	// Received is the time (s) run on each GPU type so far.
	Received map[string]float64 `json:"received_s,omitempty" yaml:"received_s,omitempty"`
	// Throughputs are steps/s with the whole gang on each GPU type
	// (consolidated); Spread the same when the gang spans servers.
	Throughputs map[string]float64 `json:"throughputs" yaml:"throughputs"`
	Spread      map[string]float64 `json:"spread_throughputs,omitempty" yaml:"spread_throughputs,omitempty"`
}

// Snapshot turns the instance into the view a policy decides on. Jobs without
// a type get the type name "job-<id>". Types that appear in several jobs must
// agree on their throughputs at a given gang size. The instance is checked
// first (see Validate), so no value out of range reaches a policy.
func (in *Instance) Snapshot(defaultTypes []GPUType) (*Snapshot, error) {
	types := in.GPUTypes
	if len(types) == 0 {
		types = defaultTypes
	}
	c, err := in.cluster(types)
	if err != nil {
		return nil, err
	}
	if err := in.validate(c); err != nil {
		return nil, err
	}
	round := in.RoundSeconds
	if round == 0 {
		round = 360
	}
	s := &Snapshot{
		Now: Seconds(in.Time), Round: in.Round, RoundLength: Seconds(round), Trigger: AtRound,
		Environment: Environment{Cluster: c, Matrix: NewMatrix(), JobTypes: map[string]JobType{}}, Users: in.Users,
	}
	for _, jt := range in.JobTypes {
		s.JobTypes[jt.Name] = jt
	}
	for i, ij := range in.Jobs {
		js, err := ij.state(s.Matrix)
		if err != nil {
			return nil, fmt.Errorf("instance: jobs[%d]: %w", i, err)
		}
		s.Jobs = append(s.Jobs, js)
	}
	return s, nil
}

// Validate checks the instance against its GPU types (or defaultTypes
// when it lists none): every value finite and within the limits of
// limits.go, unique user names, job IDs and job type names, done ≤ steps,
// throughputs only for GPU types, and last_gpus naming distinct GPUs of
// last_type, one per worker of the gang. Errors name the field, as in
// jobs[2].last_gpus[1].
func (in *Instance) Validate(defaultTypes []GPUType) error {
	types := in.GPUTypes
	if len(types) == 0 {
		types = defaultTypes
	}
	c, err := in.cluster(types)
	if err != nil {
		return err
	}
	return in.validate(c)
}

// cluster checks the servers and builds the cluster.
func (in *Instance) cluster(types []GPUType) (*Cluster, error) {
	for i, t := range in.GPUTypes {
		if err := t.Validate(); err != nil {
			return nil, fmt.Errorf("instance: gpu_types[%d]: %w", i, err)
		}
	}
	if len(in.Servers) == 0 {
		return nil, errors.New("instance: servers: none given")
	}
	total := 0
	for i, g := range in.Servers {
		if g.Count <= 0 || g.GPUs <= 0 {
			return nil, fmt.Errorf("instance: servers[%d]: count and gpus_per_server must be positive, got %d and %d", i, g.Count, g.GPUs)
		}
		if g.GPUs > MaxGPUsPerServer {
			return nil, fmt.Errorf("instance: servers[%d].gpus_per_server: %d is more than %d, the limit", i, g.GPUs, MaxGPUsPerServer)
		}
		if g.Count > MaxServers || total+g.Count > MaxServers {
			return nil, fmt.Errorf("instance: servers[%d].count: the instance has more than %d servers, the limit", i, MaxServers)
		}
		total += g.Count
	}
	var servers []Server
	for _, g := range in.Servers {
		for k := 0; k < g.Count; k++ {
			servers = append(servers, Server{Type: g.Type, GPUs: g.GPUs})
		}
	}
	c, err := NewCluster(types, servers)
	if err != nil {
		return nil, fmt.Errorf("instance: %w", err)
	}
	return c, nil
}

// validate is Validate on the instance's cluster.
func (in *Instance) validate(c *Cluster) error {
	if err := CheckSeconds("instance: time_s", in.Time, MaxHorizon); err != nil {
		return err
	}
	if in.Round < 0 || in.Round > MaxRounds {
		return fmt.Errorf("instance: round: must be between 0 and %d, got %d", MaxRounds, in.Round)
	}
	if err := CheckSeconds("instance: round_s", in.RoundSeconds, MaxRound); err != nil {
		return err
	}
	if len(in.Users) == 0 {
		return errors.New("instance: users: none given")
	}
	if len(in.Users) > MaxUsers {
		return fmt.Errorf("instance: users: %d users, more than the limit of %d", len(in.Users), MaxUsers)
	}
	users := map[string]int{}
	for i, u := range in.Users {
		if err := u.Validate(); err != nil {
			return fmt.Errorf("instance: users[%d]: %w", i, err)
		}
		if first, dup := users[u.Name]; dup {
			return fmt.Errorf("instance: users[%d]: duplicate user %q (also users[%d])", i, u.Name, first)
		}
		users[u.Name] = i
	}
	jobTypes := map[string]int{}
	for i, jt := range in.JobTypes {
		if err := jt.Validate(); err != nil {
			return fmt.Errorf("instance: job_types[%d]: %w", i, err)
		}
		if first, dup := jobTypes[jt.Name]; dup {
			return fmt.Errorf("instance: job_types[%d]: duplicate job type %q (also job_types[%d])", i, jt.Name, first)
		}
		jobTypes[jt.Name] = i
	}
	if len(in.Jobs) > MaxInstanceJobs {
		return fmt.Errorf("instance: jobs: %d jobs, more than the limit of %d", len(in.Jobs), MaxInstanceJobs)
	}
	ids := map[JobID]int{}
	for i := range in.Jobs {
		ij := &in.Jobs[i]
		if first, dup := ids[ij.ID]; dup {
			return fmt.Errorf("instance: jobs[%d]: duplicate id %d (also jobs[%d])", i, ij.ID, first)
		}
		ids[ij.ID] = i
		if err := ij.validate(c, users); err != nil {
			return fmt.Errorf("instance: jobs[%d] (id %d): %w", i, ij.ID, err)
		}
	}
	return nil
}

// MaxInstanceJobs bounds the jobs of an instance: one decision, which an
// LP policy solves with a variable per job and GPU type.
const MaxInstanceJobs = 10_000

// MaxAttained bounds attained_gpu_s: GPU time held in a time.Duration.
const MaxAttained = 250 * 365 * 24 * time.Hour

// validate checks one job of an instance on cluster c.
func (ij *InstanceJob) validate(c *Cluster, users map[string]int) error {
	for _, f := range []struct {
		name  string
		v     float64
		limit time.Duration
	}{{"arrival_s", ij.Arrival, MaxHorizon}, {"attained_gpu_s", ij.Attained, MaxAttained}, {"executed_s", ij.Executed, MaxHorizon}} {
		if err := CheckSeconds(f.name, f.v, f.limit); err != nil {
			return err
		}
	}
	if ij.FirstRun != nil && *ij.FirstRun >= 0 {
		if err := CheckSeconds("first_run_s", *ij.FirstRun, MaxHorizon); err != nil {
			return err
		}
	} else if ij.FirstRun != nil && math.IsNaN(*ij.FirstRun) {
		return errors.New("first_run_s: must be a number")
	}
	j := Job{ID: ij.ID, User: ij.User, Type: ij.Type, Gang: ij.Gang, Steps: ij.Steps, Arrival: Seconds(ij.Arrival),
		Priority: ij.Priority, MemoryGB: ij.MemoryGB}
	if j.Type == "" {
		j.Type = "job"
	}
	if err := j.Validate(); err != nil {
		return err
	}
	if _, ok := users[j.User]; !ok {
		return fmt.Errorf("user: unknown user %q", j.User)
	}
	if err := nonNegative("done", ij.Done); err != nil {
		return err
	}
	if ij.Done > ij.Steps {
		return fmt.Errorf("done: %v steps done of %v: more than the job's steps", ij.Done, ij.Steps)
	}
	if len(ij.Throughputs) == 0 {
		return errors.New("throughputs: none given")
	}
	for _, set := range []struct {
		name string
		figs map[string]float64
	}{{"throughputs", ij.Throughputs}, {"spread_throughputs", ij.Spread}, {"received_s", ij.Received}} {
		for _, g := range slices.Sorted(maps.Keys(set.figs)) {
			if _, ok := c.Type(g); !ok {
				return fmt.Errorf("%s.%s: not a GPU type of the instance (%s)", set.name, g, typeList(c))
			}
			var err error
			if set.name == "received_s" {
				err = CheckSeconds(set.name+"."+g, set.figs[g], MaxHorizon)
			} else {
				err = CheckThroughput(set.name+"."+g, set.figs[g])
			}
			if err != nil {
				return err
			}
		}
	}
	return ij.validateLast(c)
}

// validateLast checks last_type and last_gpus: the GPUs the job held, one
// per worker, distinct, of last_type.
func (ij *InstanceJob) validateLast(c *Cluster) error {
	if ij.LastType != "" {
		if c.Capacity(ij.LastType) == 0 {
			return fmt.Errorf("last_type: %q is not a GPU type with servers in the instance (%s)", ij.LastType, strings.Join(c.TypeNames(), ", "))
		}
	}
	if len(ij.LastGPUs) == 0 {
		return nil
	}
	if ij.LastType == "" {
		return errors.New("last_gpus: given without last_type")
	}
	if len(ij.LastGPUs) != ij.Gang {
		return fmt.Errorf("last_gpus: %d GPUs for a gang of %d", len(ij.LastGPUs), ij.Gang)
	}
	seen := map[int]int{}
	for k, g := range ij.LastGPUs {
		if g < 0 || g >= c.TotalGPUs() {
			return fmt.Errorf("last_gpus[%d]: GPU %d does not exist (the instance has GPUs 0 to %d)", k, g, c.TotalGPUs()-1)
		}
		if first, dup := seen[g]; dup {
			return fmt.Errorf("last_gpus[%d]: GPU %d is listed twice (also last_gpus[%d])", k, g, first)
		}
		seen[g] = k
		if t := c.TypeOfGPU(g); t != ij.LastType {
			return fmt.Errorf("last_gpus[%d]: GPU %d is a %s, not a %s (last_type)", k, g, t, ij.LastType)
		}
	}
	return nil
}

func typeList(c *Cluster) string {
	var names []string
	for _, t := range c.Types {
		names = append(names, t.Name)
	}
	return strings.Join(names, ", ")
}

func (ij InstanceJob) state(m *Matrix) (JobState, error) {
	typ := ij.Type
	if typ == "" {
		typ = fmt.Sprintf("job-%d", ij.ID)
	}
	j := Job{ID: ij.ID, User: ij.User, Type: typ, Gang: ij.Gang, Steps: ij.Steps, Arrival: Seconds(ij.Arrival),
		Priority: ij.Priority, MemoryGB: ij.MemoryGB}
	for _, set := range []struct {
		figs  map[string]float64
		place Placement
	}{{ij.Throughputs, Consolidated}, {ij.Spread, Spread}} {
		for _, g := range slices.Sorted(maps.Keys(set.figs)) {
			k := Key{Job: typ, GPU: g, Gang: j.Gang, Placement: set.place}
			if old, ok := m.Lookup(k); ok && old.Value != set.figs[g] {
				return JobState{}, fmt.Errorf("job %d: throughputs.%s: %v disagrees with %v given for another %s job", j.ID, g, set.figs[g], old.Value, typ)
			}
			if err := m.Set(k, set.figs[g], "instance"); err != nil {
				return JobState{}, fmt.Errorf("job %d: throughputs.%s: %w", j.ID, g, err)
			}
		}
	}
	js := JobState{Job: j, Done: ij.Done, Attained: Seconds(ij.Attained), Executed: Seconds(ij.Executed), FirstRun: -1,
		LastType: ij.LastType, LastGPUs: ij.LastGPUs}
	if ij.FirstRun != nil && *ij.FirstRun >= 0 {
		js.FirstRun = Seconds(*ij.FirstRun)
	}
	for _, g := range slices.Sorted(maps.Keys(ij.Received)) {
		js.Received = js.Received.Add(g, Seconds(ij.Received[g]))
	}
	return js, nil
}

// InstanceOf writes a snapshot down as an instance (the inverse of Snapshot
// for what an instance can express).
func InstanceOf(s *Snapshot) *Instance {
	in := &Instance{Time: s.Now.Seconds(), Round: s.Round, RoundSeconds: s.RoundLength.Seconds(),
		GPUTypes: s.Cluster.Types, Users: s.Users}
	for _, srv := range s.Cluster.Servers {
		n := len(in.Servers)
		if n > 0 && in.Servers[n-1].Type == srv.Type && in.Servers[n-1].GPUs == srv.GPUs {
			in.Servers[n-1].Count++
			continue
		}
		in.Servers = append(in.Servers, ServerGroup{Type: srv.Type, Count: 1, GPUs: srv.GPUs})
	}
	for i := range s.Jobs {
		j := &s.Jobs[i]
		ij := InstanceJob{ID: j.ID, User: j.User, Type: j.Type, Gang: j.Gang, Steps: j.Steps, Arrival: j.Arrival.Seconds(),
			Priority: j.Priority, MemoryGB: j.MemoryGB, Done: j.Done, Attained: j.Attained.Seconds(),
			Executed: j.Executed.Seconds(), LastType: j.LastType, LastGPUs: j.LastGPUs,
			Throughputs: map[string]float64{}}
		if j.FirstRun >= 0 {
			f := j.FirstRun.Seconds()
			ij.FirstRun = &f
		}
		// Every type the instance lists, with servers or not, so that
		// writing a snapshot down keeps every figure it was read with.
		for _, t := range s.Cluster.Types {
			g := t.Name
			if f, ok := s.Matrix.Lookup(Key{Job: j.Type, GPU: g, Gang: j.Gang}); ok {
				ij.Throughputs[g] = f.Value
			}
			if f, ok := s.Matrix.Lookup(Key{Job: j.Type, GPU: g, Gang: j.Gang, Placement: Spread}); ok {
				if ij.Spread == nil {
					ij.Spread = map[string]float64{}
				}
				ij.Spread[g] = f.Value
			}
			if r := j.Received.On(g); r > 0 {
				if ij.Received == nil {
					ij.Received = map[string]float64{}
				}
				ij.Received[g] = r.Seconds()
			}
		}
		in.Jobs = append(in.Jobs, ij)
	}
	for _, name := range slices.Sorted(maps.Keys(s.JobTypes)) {
		in.JobTypes = append(in.JobTypes, s.JobTypes[name])
	}
	return in
}
