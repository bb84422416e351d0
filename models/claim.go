package models

// Claim is a fairness property a policy claims to keep (a property name of
// the checker, e.g. "sharing-incentive"), with the conditions under which
// its paper states it (condition names of the checker, e.g.
// "equal-weights") and the citation. The checker verifies a claim on the
// instances that meet its conditions, and reports the unconditional result
// beside it (docs/checker.md, "Claims and conditions").
type Claim struct {
	Property   string   `json:"property" yaml:"property"`
	Conditions []string `json:"conditions,omitempty" yaml:"conditions,omitempty"`
	Source     string   `json:"source,omitempty" yaml:"source,omitempty"`
}

// CheckRecord is what `fairbench check` records in a counterexample file
// besides the instance, so that the file replays on its own: the property
// it breaks, the conditions it was searched under, the claims of the policy
// when it was written (an external policy has no registry entry to take
// them from), and, for a profitable lie, the lie itself: the throughputs
// each job of the lying user reported (job id → GPU type → steps/s; a type
// left out was reported as one the job cannot run on).
type CheckRecord struct {
	Property   string                       `json:"property" yaml:"property"`
	Conditions []string                     `json:"conditions,omitempty" yaml:"conditions,omitempty"`
	Claims     []Claim                      `json:"claims,omitempty" yaml:"claims,omitempty"`
	Misreport  map[JobID]map[string]float64 `json:"misreport,omitempty" yaml:"misreport,omitempty"`
}

// Condition names, as claims state them (docs/checker.md, "Claims and
// conditions", says what each admits; the checker knows how to search
// under each).
const (
	// EqualWeights: every user has the same weight.
	EqualWeights = "equal-weights"
	// OneJobPerUser: every user has at most one active job.
	OneJobPerUser = "one-job-per-user"
	// IdenticalJobsPerUser: the jobs of a user have the same gang and
	// speeds (Gandiva_fair's per-user speedups).
	IdenticalJobsPerUser = "identical-jobs-per-user"
	// SingleGPUJobs: every gang is one GPU.
	SingleGPUJobs = "single-gpu-jobs"
	// MonotoneSpeeds: every job is at least as fast on a higher-ranked
	// (newer) GPU type as on a lower-ranked one.
	MonotoneSpeeds = "monotone-speeds"
	// AllUsersActive: every user has at least one active job.
	AllUsersActive = "all-users-active"
	// NoHistory: the first decision, before any job has run.
	NoHistory = "no-history"
	// LoadBelowCapacity: over time, the work arriving per round is below
	// what the cluster can serve per round.
	LoadBelowCapacity = "load-below-capacity"
	// Divisible: jobs are divisible goods, their time fractions realised as
	// stated (the checker's decision mode judges a policy's fractions so).
	Divisible = "divisible"
)
