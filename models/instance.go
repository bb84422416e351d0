package models

import (
	"errors"
	"fmt"
	"math"
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
// agree on their throughputs at a given gang size.
func (in *Instance) Snapshot(defaultTypes []GPUType) (*Snapshot, error) {
	types := in.GPUTypes
	if len(types) == 0 {
		types = defaultTypes
	}
	var servers []Server
	for i, g := range in.Servers {
		if g.Count <= 0 || g.GPUs <= 0 {
			return nil, fmt.Errorf("instance: servers[%d]: count and gpus_per_server must be positive, got %d and %d", i, g.Count, g.GPUs)
		}
		for k := 0; k < g.Count; k++ {
			servers = append(servers, Server{Type: g.Type, GPUs: g.GPUs})
		}
	}
	c, err := NewCluster(types, servers)
	if err != nil {
		return nil, fmt.Errorf("instance: %w", err)
	}
	if len(in.Users) == 0 {
		return nil, errors.New("instance: users: none given")
	}
	users := map[string]bool{}
	for i, u := range in.Users {
		if err := u.Validate(); err != nil {
			return nil, fmt.Errorf("instance: users[%d]: %w", i, err)
		}
		users[u.Name] = true
	}
	for _, f := range []float64{in.Time, in.RoundSeconds} {
		if err := nonNegative("time", f); err != nil {
			return nil, fmt.Errorf("instance: %w", err)
		}
	}
	round := in.RoundSeconds
	if round == 0 {
		round = 360
	}
	s := &Snapshot{
		Now: dur(in.Time), Round: in.Round, RoundLength: dur(round), Trigger: AtRound,
		Cluster: c, Users: in.Users, Matrix: NewMatrix(), JobTypes: map[string]JobType{},
	}
	for _, jt := range in.JobTypes {
		if err := jt.Validate(); err != nil {
			return nil, fmt.Errorf("instance: job_types: %w", err)
		}
		s.JobTypes[jt.Name] = jt
	}
	ids := map[JobID]bool{}
	for i, ij := range in.Jobs {
		js, err := ij.state(s.Matrix, users)
		if err != nil {
			return nil, fmt.Errorf("instance: jobs[%d]: %w", i, err)
		}
		if ids[js.ID] {
			return nil, fmt.Errorf("instance: jobs[%d]: duplicate id %d", i, js.ID)
		}
		ids[js.ID] = true
		s.Jobs = append(s.Jobs, js)
	}
	return s, nil
}

func (ij InstanceJob) state(m *Matrix, users map[string]bool) (JobState, error) {
	typ := ij.Type
	if typ == "" {
		typ = fmt.Sprintf("job-%d", ij.ID)
	}
	j := Job{ID: ij.ID, User: ij.User, Type: typ, Gang: ij.Gang, Steps: ij.Steps, Arrival: dur(ij.Arrival),
		Priority: ij.Priority, MemoryGB: ij.MemoryGB}
	if err := j.Validate(); err != nil {
		return JobState{}, err
	}
	if !users[j.User] {
		return JobState{}, fmt.Errorf("job %d: unknown user %q", j.ID, j.User)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"arrival_s", ij.Arrival}, {"done", ij.Done}, {"attained_gpu_s", ij.Attained}, {"executed_s", ij.Executed}} {
		if err := nonNegative(f.name, f.v); err != nil {
			return JobState{}, fmt.Errorf("job %d: %w", j.ID, err)
		}
	}
	if len(ij.Throughputs) == 0 {
		return JobState{}, fmt.Errorf("job %d: throughputs: none given", j.ID)
	}
	for _, set := range []struct {
		figs  map[string]float64
		place Placement
	}{{ij.Throughputs, Consolidated}, {ij.Spread, Spread}} {
		for _, g := range sortedTypeNames(set.figs) {
			k := Key{Job: typ, GPU: g, Gang: j.Gang, Placement: set.place}
			if old, ok := m.Lookup(k); ok && old.Value != set.figs[g] {
				return JobState{}, fmt.Errorf("job %d: throughputs.%s: %v disagrees with %v given for another %s job", j.ID, g, set.figs[g], old.Value, typ)
			}
			if err := m.Set(k, set.figs[g], "instance"); err != nil {
				return JobState{}, fmt.Errorf("job %d: throughputs.%s: %w", j.ID, g, err)
			}
		}
	}
	js := JobState{Job: j, Done: ij.Done, Attained: dur(ij.Attained), Executed: dur(ij.Executed), FirstRun: -1,
		LastType: ij.LastType, LastGPUs: ij.LastGPUs, Received: map[string]time.Duration{}}
	if ij.FirstRun != nil && *ij.FirstRun >= 0 {
		js.FirstRun = dur(*ij.FirstRun)
	}
	for _, g := range sortedTypeNames(ij.Received) {
		js.Received[g] = dur(ij.Received[g])
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
		for _, g := range s.Cluster.TypeNames() {
			if f, ok := s.Matrix.Lookup(Key{Job: j.Type, GPU: g, Gang: j.Gang}); ok {
				ij.Throughputs[g] = f.Value
			}
			if f, ok := s.Matrix.Lookup(Key{Job: j.Type, GPU: g, Gang: j.Gang, Placement: Spread}); ok {
				if ij.Spread == nil {
					ij.Spread = map[string]float64{}
				}
				ij.Spread[g] = f.Value
			}
			if r := j.Received[g]; r > 0 {
				if ij.Received == nil {
					ij.Received = map[string]float64{}
				}
				ij.Received[g] = r.Seconds()
			}
		}
		in.Jobs = append(in.Jobs, ij)
	}
	for _, name := range sortedTypeNames(s.JobTypes) {
		in.JobTypes = append(in.JobTypes, s.JobTypes[name])
	}
	return in
}

func dur(s float64) time.Duration {
	if math.IsNaN(s) || math.IsInf(s, 0) {
		return 0
	}
	return time.Duration(math.Round(s * float64(time.Second)))
}
