package scenarios

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"fairbench/models"
	"fairbench/models/catalogue"
)

// Workload is everything a simulation of one run needs.
type Workload struct {
	// Name is the scenario's name.
	Name string
	// Seed is the seed the jobs were generated with.
	Seed int64
	// Environment: Cluster holds the spec's servers, group by group, and its
	// Types are the catalogue's GPU types that have servers, in catalogue
	// order; Matrix is the catalogue's matrix with the throughput file's
	// figures merged over it; JobTypes holds every job type of the catalogue
	// and of the throughput file.
	models.Environment
	// Users are the tenants (see Spec.Users for the defaults).
	Users []models.User
	// Jobs are sorted by arrival time, then by generation or trace line
	// order; IDs are 0..n−1 in that order. Every job can run on at least
	// one GPU type of Cluster at its gang.
	Jobs []models.Job
	// Round is the scheduling round length.
	Round time.Duration
	// BandwidthGBPerSecond is the checkpoint transfer bandwidth.
	BandwidthGBPerSecond float64
	// Restore is the checkpoint-restore cost of each job type in JobTypes:
	// preemption.seconds where given, else StateGB / bandwidth (0 when the
	// bandwidth is 0), kept to the millisecond.
	Restore map[string]time.Duration
	// PolicyOptions maps a policy name to its options (see Options).
	PolicyOptions map[string]map[string]any
	// Measure is the window of job IDs the job metrics are over (zero:
	// every job).
	Measure MeasureSpec
	// TraceSkipped counts trace lines skipped (Gavel scale factor 0).
	TraceSkipped int
	// UnrunnableSkipped counts trace jobs left out because they cannot run
	// on this cluster (workload.unrunnable: skip).
	UnrunnableSkipped int
}

// Options returns the options for policy (nil when none).
func (w *Workload) Options(policy string) map[string]any { return w.PolicyOptions[policy] }

// Build validates s and produces its workload, generating or reading the
// jobs with seed (normally the run's Spec.Seed). It validates s first, so
// a Spec changed in code is checked again. Errors are *Error: a spec field,
// or a trace file's line — a job whose type is unknown, or that cannot run
// at its gang on any GPU type of the cluster (no positive figure, too little
// memory, or a gang larger than the type's capacity), is refused.
func (s *Spec) Build(seed int64) (*Workload, error) {
	cat := s.cat
	if cat == nil {
		decl := map[string]any{"gpu_types": s.gpuTypesAny(), "job_types": s.jobTypesAny()}
		c, err := declareGPUTypes(catalogue.Builtin(), decl, nil, s.src)
		if err != nil {
			return nil, err
		}
		if c, err = declareJobTypes(c, decl, nil, s.src); err != nil {
			return nil, err
		}
		cat = &c
	}
	figs, err := s.figures(cat)
	if err != nil {
		return nil, err
	}
	e, ferr := s.validate(figs)
	if ferr != nil {
		return nil, s.src.locate(ferr)
	}
	w := &Workload{
		Name:                 s.Name,
		Seed:                 seed,
		Environment:          e.environment(),
		Round:                time.Duration(s.RoundSeconds) * time.Second,
		BandwidthGBPerSecond: s.Preemption.BandwidthGBPerSecond,
		Restore:              map[string]time.Duration{},
	}
	for _, u := range s.Users {
		w.Users = append(w.Users, models.User{Name: u.Name, Weight: u.Weight})
	}
	for name, t := range e.jobTypes {
		if v, ok := s.Preemption.Seconds[name]; ok {
			w.Restore[name] = time.Duration(v) * time.Second
		} else if s.Preemption.BandwidthGBPerSecond > 0 {
			w.Restore[name] = seconds(t.StateGB / s.Preemption.BandwidthGBPerSecond)
		} else {
			w.Restore[name] = 0
		}
	}
	if len(s.PolicyOptions) > 0 {
		w.PolicyOptions = s.PolicyOptions
	}
	var named []string // users named by the trace, in order of first appearance
	switch s.Workload.Generator {
	case GeneratorPhilly:
		var ferr *fieldError
		if w.Jobs, ferr = s.philly(e, seed); ferr != nil {
			return nil, s.src.locate(ferr)
		}
	case GeneratorTrace:
		tr, err := s.trace()
		if err != nil {
			return nil, err
		}
		w.TraceSkipped = tr.Skipped
		if w.Jobs, named, w.UnrunnableSkipped, err = s.traceJobs(e, tr); err != nil {
			return nil, err
		}
	}
	s.assignUsers(w, named, seed)
	if m := s.Measure; m != (MeasureSpec{}) {
		if m.ToJob > len(w.Jobs) {
			return nil, s.src.locate(errf("measure.to_job", "must be at most the number of jobs built (%d), got %d", len(w.Jobs), m.ToJob))
		}
		w.Measure = m
	}
	for i := range w.Jobs {
		if err := w.Jobs[i].Validate(); err != nil {
			// The readers and the generator prevent this; an error (not a
			// panic) keeps one bad run from taking a grid down.
			return nil, s.src.locate(errf("workload", "built an invalid job: %v", err))
		}
	}
	return w, nil
}

// tooLong explains why job j runs longer than models.MaxHorizon alone on its
// fastest GPU type of the cluster; "" when it does not.
func (e *env) tooLong(j *models.Job) string {
	on, best := e.environment().BestThroughput(j)
	if best <= 0 || j.Steps/best <= models.MaxHorizonSeconds {
		return ""
	}
	return fmt.Sprintf("%s with %g steps runs %.4g s alone on its fastest GPU type here (%s, %g steps/s), more than %s (%g s), the limit",
		j.Type, j.Steps, j.Steps/best, on, best, models.Describe(models.MaxHorizon), models.MaxHorizonSeconds)
}

// traceJobs checks a trace's jobs against the cluster and returns them
// sorted by arrival (then line), cut to workload.jobs, with IDs, the
// trace's users and the number of unrunnable jobs skipped. Every line is
// checked, in file order, before any is cut, so the first bad line is named.
func (s *Spec) traceJobs(e *env, tr *Trace) ([]models.Job, []string, int, error) {
	tjs := make([]TraceJob, 0, len(tr.Jobs))
	unrunnable := 0
	for _, tj := range tr.Jobs {
		j := models.Job{Type: tj.Type, Gang: tj.Gang, MemoryGB: tj.MemoryGB, Steps: tj.Steps}
		if _, ok := e.jobTypes[j.Type]; !ok {
			return nil, nil, 0, &Error{File: tr.File, Line: tj.Line, Path: "job type",
				Reason: fmt.Sprintf("unknown job type %q (known: %s)", j.Type, knownList(e.known))}
		}
		if !e.runsSomewhere(&j) {
			if s.Workload.Unrunnable == UnrunnableSkip {
				unrunnable++
				continue
			}
			return nil, nil, 0, &Error{File: tr.File, Line: tj.Line, Path: "job",
				Reason: fmt.Sprintf("%s with gang %d cannot run on any GPU type of this cluster: %s (workload.unrunnable: skip leaves such jobs out)",
					j.Type, j.Gang, e.whyNot(&j))}
		}
		if j.Steps == 0 {
			j.Steps = stepsFor(tj.DurationSeconds, e.reference(s.Workload.ReferenceGPU, &j))
		}
		if why := e.tooLong(&j); why != "" {
			return nil, nil, 0, &Error{File: tr.File, Line: tj.Line, Path: "job", Reason: why}
		}
		tjs = append(tjs, tj)
	}
	if len(tjs) == 0 {
		return nil, nil, 0, &Error{File: tr.File, Reason: fmt.Sprintf("the trace has no jobs that can run here (%d lines skipped for scale factor 0, %d jobs unrunnable)",
			tr.Skipped, unrunnable)}
	}
	sort.SliceStable(tjs, func(a, b int) bool { return tjs[a].Arrival < tjs[b].Arrival })
	if n := s.Workload.Jobs; n > 0 && n < len(tjs) {
		tjs = tjs[:n]
	}
	jobs := make([]models.Job, len(tjs))
	var named []string
	seen := map[string]bool{}
	for i, tj := range tjs {
		j := models.Job{ID: models.JobID(i), User: tj.User, Type: tj.Type, Gang: tj.Gang, Steps: tj.Steps,
			Arrival: tj.Arrival, MemoryGB: tj.MemoryGB, Priority: tj.Priority}
		if j.Steps == 0 {
			j.Steps = stepsFor(tj.DurationSeconds, e.reference(s.Workload.ReferenceGPU, &j))
		}
		if tj.User != "" && !seen[tj.User] {
			if len(named) == MaxUsers {
				return nil, nil, 0, &Error{File: tr.File, Line: tj.Line, Path: ColUser,
					Reason: fmt.Sprintf("user %q is the trace's %dth distinct user, more than the limit of %d", tj.User, MaxUsers+1, MaxUsers)}
			}
			seen[tj.User] = true
			named = append(named, tj.User)
		}
		jobs[i] = j
	}
	// Users are checked in file order so that the first offending line is named.
	if len(s.Users) > 0 {
		declared := map[string]bool{}
		var names []string
		for _, u := range s.Users {
			declared[u.Name] = true
			names = append(names, u.Name)
		}
		for _, tj := range tr.Jobs {
			if tj.User != "" && !declared[tj.User] {
				return nil, nil, 0, &Error{File: tr.File, Line: tj.Line, Path: ColUser,
					Reason: fmt.Sprintf("user %q is not one of the scenario's users (%s)", tj.User, strings.Join(names, ", "))}
			}
		}
	}
	return jobs, named, unrunnable, nil
}

// assignUsers fills in w.Users when the spec lists none and gives every job
// without a user one, by workload.user_assignment over the job IDs.
func (s *Spec) assignUsers(w *Workload, named []string, seed int64) {
	if len(w.Users) == 0 {
		if len(named) > 0 {
			for _, n := range named {
				w.Users = append(w.Users, models.User{Name: n, Weight: 1})
			}
		} else {
			w.Users = []models.User{{Name: "u0", Weight: 1}}
		}
	}
	r := Stream(seed, StreamUsers)
	for i := range w.Jobs {
		if w.Jobs[i].User != "" {
			continue
		}
		k := i % len(w.Users)
		if s.Workload.UserAssignment == AssignUniform {
			k = intn(r, len(w.Users))
		}
		w.Jobs[i].User = w.Users[k].Name
	}
}
