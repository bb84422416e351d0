package scenarios

import (
	"fairbench/models"
	"fairbench/models/catalogue"
)

// Spec is one scenario: a cluster, its users, the policies to compare and a
// workload. It is what a scenario file holds; the YAML keys are the
// mapstructure tags below. Every duration is a whole number of seconds, in a
// key whose name ends in "seconds". Every scalar key except name may be
// written as a list to make it a grid axis (see Grid); a list-valued key
// (workload.job_types) becomes an axis when written as a list of lists.
//
// A key written with a null value (key: or key: ~) counts as absent. Unknown
// keys, duplicate keys and empty lists are refused; YAML anchors and aliases
// work (merge keys "<<" do not). A Run's Spec is fully concrete: defaults
// applied, one policy, one seed, user_count turned into users, file paths
// resolved.
//
// Example (the built-in default, see Default):
//
//	name: default
//	seed: 0
//	round_seconds: 360
//	cluster:
//	  servers:
//	    - {type: V100, count: 9, gpus_per_server: 4}
//	    - {type: P100, count: 9, gpus_per_server: 4}
//	    - {type: K80, count: 9, gpus_per_server: 4}
//	user_count: 8
//	workload:
//	  generator: philly
//	  jobs: 500
//	  arrival_rate_per_hour: 1.5
type Spec struct {
	// Name labels the scenario in reports. String; default: the scenario
	// file's base name without extension. It may not be a list and is not
	// part of the run ID.
	Name string `mapstructure:"name" json:"name,omitempty" grid:"none"`

	// Seed seeds every random stream of a run (see Stream). Integer; default
	// 0; any int64. A list of seeds is a grid axis.
	Seed int64 `mapstructure:"seed" json:"seed"`

	// RoundSeconds is the scheduling round length in whole seconds. Integer;
	// default 360 (Gavel's 6-minute rounds); between 1 and 86,400 (a day).
	RoundSeconds int `mapstructure:"round_seconds" json:"round_seconds"`

	// GPUTypes declares GPU types the catalogue lacks — a new generation
	// measured with `fairbench calibrate` — so that cluster.servers and a
	// throughputs file may name them. Each needs a name new to the
	// catalogue (up to case) and a positive memory_gb; rank orders
	// generations (the catalogue's run 1 for K80 to 9 for H200). Optional;
	// no grid axes inside.
	GPUTypes []GPUTypeSpec `mapstructure:"gpu_types" json:"gpu_types,omitempty"`

	// JobTypes declares job types the catalogue lacks — a model measured
	// with `fairbench calibrate` — so that a throughputs file may give
	// their figures: a job type in a throughputs file must be the
	// catalogue's or declared here (a misspelt name is refused, not taken
	// for a new model). Each needs a name new to the catalogue; memory_gb
	// and state_gb (GB, ≥ 0; 0: unknown) price memory fit and
	// checkpoint-restore. Optional; no grid axes inside.
	JobTypes []JobTypeSpec `mapstructure:"job_types" json:"job_types,omitempty"`

	// Cluster lists the servers. Required.
	Cluster ClusterSpec `mapstructure:"cluster" json:"cluster"`

	// Users lists the tenants. Optional; when absent, UserCount users named
	// u0..u(N-1) with weight 1 are used, and when that is absent too, the
	// users named by a CSV trace's user column, else one user u0. Names must
	// be unique. Users and UserCount are mutually exclusive.
	Users []UserSpec `mapstructure:"users" json:"users,omitempty"`

	// UserCount is the number of identical users u0..u(N-1) of weight 1 to
	// create when Users is absent. Integer ≥ 1. A Run's Spec always lists
	// Users instead.
	UserCount int `mapstructure:"user_count" json:"user_count,omitempty"`

	// Policies names the policies to run, one per run: the list is always a
	// grid axis (a single name may be written as a scalar). Names are
	// checked against the policy registry by the CLI, not here; duplicates
	// are refused. Absent: every registered policy (the CLI fills them in
	// with Grid.WithPolicies). An empty list is refused.
	Policies []string `mapstructure:"policies" json:"policies,omitempty" grid:"each"`

	// PolicyOptions maps a policy name to its options, passed to the policy
	// untouched (no grid axes inside). Optional. When Policies is given,
	// every key must be one of them. A Run's Spec keeps only the options of
	// its own policy.
	PolicyOptions map[string]map[string]any `mapstructure:"policy_options" json:"policy_options,omitempty"`

	// Throughputs is "catalogue" (default: the built-in catalogue of
	// catalogue.Builtin) or the path of a Gavel-format throughput JSON file
	// (catalogue.ReadGavelThroughputs), relative to the scenario file, whose
	// figures are merged over the catalogue's (the file wins on conflicts).
	// Job types known only from the file get a models.JobType with just a
	// name (no memory need, no state size).
	Throughputs string `mapstructure:"throughputs" json:"throughputs"`

	// Calibration names a calibration record (what `fairbench calibrate
	// run`, `colocate` or `merge` writes), relative to the scenario file,
	// whose measured job type memory and co-location pairs apply over the
	// catalogue's and the throughputs file's (see calibration.go and
	// docs/calibration.md). Optional; no grid axis.
	Calibration string `mapstructure:"calibration" json:"calibration,omitempty" grid:"none"`

	// Preemption prices checkpoint-restore on preemption and migration.
	Preemption PreemptionSpec `mapstructure:"preemption" json:"preemption"`

	// Workload says where the jobs come from.
	Workload WorkloadSpec `mapstructure:"workload" json:"workload"`

	// Measure restricts the job metrics (mean, median and p99 JCT, ρ, the
	// unfair fraction, starvation, per-user JCT and ρ) to the jobs whose
	// IDs lie in [from_job, to_job); jobs are numbered 0..n−1 in arrival
	// order. Gavel measures a steady state this way (jobs 4,000–5,000 of a
	// longer trace): the jobs before the window fill the cluster, those
	// after keep it loaded while the window's jobs run. Every job is
	// written to the per-job results; makespan, utilisation and shares
	// cover the simulated span. That is the whole run (stop: all_done, the
	// default), or, with stop: window_done, the run up to the moment the
	// window's last job finished, as Gavel's simulator stops (the window's
	// results are the same either way; jobs not finished then are listed
	// as unfinished). Optional (absent: every job); integers, 0 ≤ from_job
	// < to_job ≤ the number of jobs. No grid axes inside.
	Measure MeasureSpec `mapstructure:"measure" json:"measure,omitzero"`

	src *source            // where the spec was read, for error lines; nil when built in code
	cat *catalogue.Catalog // the catalogue it was checked against; nil: catalogue.Builtin()
	// read holds what the grid read and checked the spec with (prepared.go);
	// Build reuses it rather than reading the files again. nil: built in code.
	read *prepared
}

// GPUTypeSpec declares one GPU type.
type GPUTypeSpec struct {
	Name     string  `mapstructure:"name" json:"name"`
	MemoryGB float64 `mapstructure:"memory_gb" json:"memory_gb"`
	Rank     int     `mapstructure:"rank" json:"rank"`
	// Source says where the memory figure comes from (a datasheet).
	Source string `mapstructure:"source" json:"source,omitempty"`
}

// gpuTypesAny is GPUTypes in the template's untyped form.
func (s *Spec) gpuTypesAny() []any {
	var out []any
	for _, t := range s.GPUTypes {
		out = append(out, map[string]any{"name": t.Name, "memory_gb": t.MemoryGB, "rank": t.Rank, "source": t.Source})
	}
	return out
}

// JobTypeSpec declares one job type.
type JobTypeSpec struct {
	Name     string  `mapstructure:"name" json:"name"`
	MemoryGB float64 `mapstructure:"memory_gb" json:"memory_gb,omitempty"`
	StateGB  float64 `mapstructure:"state_gb" json:"state_gb,omitempty"`
	// Source says where the figures come from.
	Source string `mapstructure:"source" json:"source,omitempty"`
}

// ClusterSpec is the cluster as groups of identical servers.
type ClusterSpec struct {
	// Servers lists server groups; the cluster's servers are the groups'
	// servers in this order. Required, at least one group, and the cluster
	// must hold at least one GPU.
	Servers []ServerGroup `mapstructure:"servers" json:"servers"`
}

// ServerGroup is Count servers, each with GPUsPerServer GPUs of one type.
type ServerGroup struct {
	// Type is a catalogue GPU type name (K80, P100, V100, T4, A10,
	// A100-40GB, A100-80GB, H100, H200), matched up to case. Required.
	Type string `mapstructure:"type" json:"type"`
	// Count is the number of servers. Integer; default 1; must be ≥ 0 (0
	// removes the group, which is useful as a grid axis).
	Count int `mapstructure:"count" json:"count"`
	// GPUsPerServer is the number of GPUs in each server. Integer; required;
	// between 1 and 1,024 (models.MaxGPUsPerServer).
	GPUsPerServer int `mapstructure:"gpus_per_server" json:"gpus_per_server"`
}

// UserSpec is one tenant.
type UserSpec struct {
	// Name identifies the user; required, unique.
	Name string `mapstructure:"name" json:"name"`
	// Weight is the user's tickets. Number; default 1; between 1e-6 and 1e6
	// (models.MinWeight, models.MaxWeight).
	Weight float64 `mapstructure:"weight" json:"weight"`
}

// MeasureSpec is the window of job IDs the job metrics are over.
type MeasureSpec struct {
	FromJob int `mapstructure:"from_job" json:"from_job" grid:"none"`
	ToJob   int `mapstructure:"to_job" json:"to_job" grid:"none"`
	// Stop is when a run ends: StopAllDone ("all_done", the default, also
	// written as "") or StopWindowDone ("window_done": when the window's
	// jobs are done, sim.Window.StopWhenDone).
	Stop string `mapstructure:"stop" json:"stop,omitempty" grid:"none"`
}

// When a run with a measured window ends (MeasureSpec.Stop).
const (
	StopAllDone    = "all_done"
	StopWindowDone = "window_done"
)

// PreemptionSpec prices the checkpoint-restore a job pays when it is
// preempted and resumed or migrated to other GPUs.
type PreemptionSpec struct {
	// BandwidthGBPerSecond is the checkpoint transfer bandwidth in GB per
	// second (gigabytes, not gigabits). A job type's restore cost is
	// JobType.StateGB / BandwidthGBPerSecond seconds. Number; default 1.25
	// (a 10 Gbit/s network, as sim.DefaultBandwidthGBps: FFT's testbed, Mo
	// et al., ICS 2025, §6.1); must be finite and ≥ 0; 0 makes every cost 0
	// except the overrides in Seconds.
	BandwidthGBPerSecond float64 `mapstructure:"bandwidth_gb_per_second" json:"bandwidth_gb_per_second"`
	// Seconds overrides the restore cost of named job types, in whole
	// seconds: {"ResNet-50 (batch size 64)": 30}. Keys must be known job
	// types; values integers between 0 and 86,400 (a day). A bandwidth
	// that makes a job type's restore take longer than a day is refused.
	Seconds map[string]int `mapstructure:"seconds" json:"seconds,omitempty"`
}

// Generator names.
const (
	GeneratorPhilly = "philly" // the synthetic Philly-like generator (see PhillyShortProbability)
	GeneratorTrace  = "trace"  // jobs read from Workload.Trace
)

// Trace formats.
const (
	FormatGavel = "gavel" // Gavel's tab-separated .trace (ReadGavelTrace)
	FormatCSV   = "csv"   // the documented CSV (ReadCSVTrace)
)

// User assignment rules.
const (
	AssignRoundRobin = "round_robin" // job i (IDs in arrival order) → users[i mod n]
	AssignUniform    = "uniform"     // each job → a user drawn uniformly (stream "users")
)

// WorkloadSpec says where the jobs come from.
type WorkloadSpec struct {
	// Generator is "philly" (default; the synthetic generator, see PhillyShortProbability)
	// or "trace" (jobs read from Trace).
	Generator string `mapstructure:"generator" json:"generator"`

	// Jobs is, for philly, the number of jobs to generate (integer; default
	// 500; must be ≥ 1); for trace, the number of jobs to keep, the first by
	// arrival (default 0: all).
	Jobs int `mapstructure:"jobs" json:"jobs"`

	// ArrivalRatePerHour is λ, the Poisson arrival rate in jobs per hour:
	// inter-arrival times are exponential with mean 3600/λ seconds and the
	// first job arrives one inter-arrival time after 0. 0 (default) puts
	// every job at t = 0 (Gavel's "static" workloads). Philly only; finite
	// and ≥ 0.
	ArrivalRatePerHour float64 `mapstructure:"arrival_rate_per_hour" json:"arrival_rate_per_hour"`

	// JobTypes restricts the job types the generator draws from, in this
	// order. Default: every job type known to the catalogue or the
	// throughput file that can run on every GPU type of the cluster (each
	// at one gang size of Gangs or more), sorted by name — for Gavel's
	// K80/P100/V100 clusters, Gavel's 26 job types. When no job type runs
	// on every type of the cluster (say it has a GPU type without figures),
	// the scenario is refused: list the job types. Each listed type must be
	// known, listed once, and runnable on some GPU type of the cluster at
	// one of the gang sizes. Either way, a job of gang g is drawn only from
	// the allowed types that can run at g somewhere in the cluster (see
	// PhillyShortProbability). Philly only. A list of lists is a grid axis.
	JobTypes []string `mapstructure:"job_types" json:"job_types,omitempty"`

	// Gangs is the gang size distribution: sizes with relative weights
	// (normalised to sum to 1). Default: Gavel's Philly distribution 1, 2, 4,
	// 8 with 0.7, 0.1, 0.15, 0.05. Sizes must be ≥ 1 and distinct, weights
	// positive and finite, and each size must fit on some GPU type of the
	// cluster with at least one allowed job type. Philly only.
	Gangs []GangWeight `mapstructure:"gangs" json:"gangs,omitempty"`

	// ReferenceGPU is the GPU type whose isolated throughput turns a
	// duration into steps (philly durations, CSV duration_seconds). Default
	// "": the fastest GPU type of the cluster that can run the job at its
	// gang (placement as in models.Environment.Throughput). When set, the type's
	// consolidated figure at the job's gang is used where it is positive
	// (even when the cluster has no such GPU: V100 reproduces Gavel, whose
	// reference_worker_type is v100), else the default rule applies.
	ReferenceGPU string `mapstructure:"reference_gpu" json:"reference_gpu,omitempty"`

	// UserAssignment assigns jobs without a user to users: "round_robin"
	// (default; job i in arrival order → users[i mod n]) or "uniform" (each
	// job to a user drawn uniformly at random, weights ignored).
	UserAssignment string `mapstructure:"user_assignment" json:"user_assignment"`

	// Trace is the trace file, relative to the scenario file. Required for
	// generator trace; refused for philly.
	Trace string `mapstructure:"trace" json:"trace,omitempty"`

	// TraceFormat is "gavel" (ReadGavelTrace) or "csv" (ReadCSVTrace).
	// Default: csv when Trace ends in ".csv", else gavel. Trace only.
	TraceFormat string `mapstructure:"trace_format" json:"trace_format,omitempty"`

	// Unrunnable says what to do with a trace job that cannot run on any
	// GPU type of the cluster at its gang (no positive figure, too little
	// memory, or a gang above every type's capacity): "refuse" (default;
	// Build fails naming the trace line) or "skip" (the job is left out
	// and counted in Workload.UnrunnableSkipped). A job of an unknown type
	// is refused either way. Trace only.
	Unrunnable string `mapstructure:"unrunnable" json:"unrunnable,omitempty"`
}

// Unrunnable trace job handling.
const (
	UnrunnableRefuse = "refuse"
	UnrunnableSkip   = "skip"
)

// GangWeight is one gang size of the generator's distribution.
type GangWeight struct {
	// Size is the gang size (GPUs). Integer ≥ 1.
	Size int `mapstructure:"size" json:"size"`
	// Weight is its relative probability. Positive finite number.
	Weight float64 `mapstructure:"weight" json:"weight"`
}

// PhillyGangs is Gavel's gang size distribution for Philly-like jobs
// (Narayanan et al., OSDI 2020, §7.1; scheduler/utils.py
// _generate_scale_factor): 1, 2, 4, 8 GPUs with probabilities 0.7, 0.1, 0.15,
// 0.05.
func PhillyGangs() []GangWeight {
	return []GangWeight{{1, 0.7}, {2, 0.1}, {4, 0.15}, {8, 0.05}}
}

// Limits: a file beyond them is refused, naming the key, rather than
// allowed to exhaust memory, overflow a time or run for centuries
// (docs/limits.md lists them all). The cluster, user, job, throughput and
// time limits are those of package models.
const (
	MaxRuns           = 100_000           // runs in one grid
	MaxUsers          = models.MaxUsers   // user_count, users
	MaxJobs           = models.MaxJobs    // workload.jobs, jobs in a trace
	MaxServers        = models.MaxServers // servers in one cluster
	MaxRoundSeconds   = 86_400            // round_seconds: a day
	MaxRestoreSeconds = 86_400            // preemption.seconds values: a day
	MaxArrivalRate    = 1e6               // workload.arrival_rate_per_hour
	MaxBandwidthGBps  = 1e6               // preemption.bandwidth_gb_per_second
	MaxYAMLValues     = 1_000_000         // values in a scenario, aliases expanded
)

// Defaults of the optional keys.
const (
	DefaultRoundSeconds   = 360
	DefaultBandwidthGBps  = 1.25
	DefaultPhillyJobs     = 500
	DefaultThroughputs    = "catalogue"
	DefaultUserAssignment = AssignRoundRobin
)
