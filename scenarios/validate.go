package scenarios

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"fairbench/models"
	"fairbench/models/catalogue"
)

// figures is the catalogue's view of a spec's types and throughputs: the
// same for every run of a grid that uses the same throughput file, and
// read-only once built.
type figures struct {
	matrix   *models.Matrix            // the catalogue's figures merged with the throughput file's
	jobTypes map[string]models.JobType // every known job type
	known    []string                  // their names, sorted
	gpuNames []string                  // the catalogue's GPU type names, in catalogue order
	cat      catalogue.Catalog
}

// newFigures merges a throughput file's figures (fileMatrix, nil for none)
// over cat's. fileMatrix becomes the figures' matrix, filled in with cat's
// figures rather than copied (Gavel's file holds five times the
// catalogue's co-location figures): the caller gives it up.
func newFigures(cat catalogue.Catalog, fileMatrix *models.Matrix) *figures {
	f := &figures{matrix: models.NewMatrix(), jobTypes: map[string]models.JobType{}, cat: cat}
	switch {
	case fileMatrix != nil:
		f.matrix = fileMatrix
		if cat.Matrix != nil {
			f.matrix.Fill(cat.Matrix)
		}
	case cat.Matrix != nil:
		f.matrix = cat.Matrix.Clone()
	}
	for _, t := range cat.JobTypes {
		f.jobTypes[t.Name] = t
	}
	for _, name := range f.matrix.JobTypes() {
		if _, ok := f.jobTypes[name]; !ok {
			f.jobTypes[name] = models.JobType{Name: name}
		}
	}
	f.known = slices.Sorted(maps.Keys(f.jobTypes))
	for _, t := range cat.GPUTypes {
		f.gpuNames = append(f.gpuNames, t.Name)
	}
	return f
}

// env is what validating a spec establishes, and what Build works from.
type env struct {
	*figures
	cluster *models.Cluster
	allowed []string         // philly: the job types drawn from, in draw order
	byGang  map[int][]string // philly: the allowed types runnable at each gang size
}

// environment is the cluster with the figures' matrix and job types.
func (e *env) environment() models.Environment {
	return models.Environment{Cluster: e.cluster, Matrix: e.matrix, JobTypes: e.jobTypes}
}

// validate checks s against the figures of its catalogue and throughput
// file, canonicalises GPU type names, and returns the environment Build
// needs.
func (s *Spec) validate(f *figures) (*env, *fieldError) {
	e := &env{figures: f}
	cat := f.cat
	if s.RoundSeconds <= 0 || s.RoundSeconds > MaxRoundSeconds {
		return nil, errf("round_seconds", "must be between 1 and %d seconds (a day), got %d", MaxRoundSeconds, s.RoundSeconds)
	}
	if err := s.validateCluster(cat, e); err != nil {
		return nil, err
	}
	if err := s.validateUsers(); err != nil {
		return nil, err
	}
	for i, p := range s.Policies {
		if strings.TrimSpace(p) == "" {
			return nil, errf(index("policies", i), "empty policy name")
		}
	}
	if s.Throughputs == "" {
		return nil, errf("throughputs", "empty: write %q or the path of a Gavel-format throughput file", DefaultThroughputs)
	}
	if err := s.validatePreemption(e); err != nil {
		return nil, err
	}
	if err := s.validateWorkload(e); err != nil {
		return nil, err
	}
	if err := s.validateMeasure(); err != nil {
		return nil, err
	}
	return e, nil
}

// validateMeasure checks the window's bounds; that it holds jobs is
// checked when they are built (a trace's length is known only then).
func (s *Spec) validateMeasure() *fieldError {
	m := s.Measure
	if m == (MeasureSpec{}) {
		return nil
	}
	if m.Stop != "" && m.Stop != StopAllDone && m.Stop != StopWindowDone {
		return errf("measure.stop", "unknown choice %q (known: %s, %s)", m.Stop, StopAllDone, StopWindowDone)
	}
	if m.FromJob == 0 && m.ToJob == 0 {
		return errf("measure", "needs a window of jobs: set measure.from_job and measure.to_job")
	}
	if m.FromJob < 0 || m.FromJob > MaxJobs {
		return errf("measure.from_job", "must be between 0 and %d, got %d", MaxJobs, m.FromJob)
	}
	if m.ToJob <= m.FromJob || m.ToJob > MaxJobs {
		return errf("measure.to_job", "must be above from_job (%d) and at most %d, got %d", m.FromJob, MaxJobs, m.ToJob)
	}
	if s.Workload.Generator == GeneratorPhilly && m.ToJob > s.Workload.Jobs {
		return errf("measure.to_job", "must be at most workload.jobs (%d), got %d", s.Workload.Jobs, m.ToJob)
	}
	return nil
}

// gpuType canonicalises a GPU type name (matched up to case).
func (e *env) gpuType(cat catalogue.Catalog, path, name string) (models.GPUType, *fieldError) {
	for _, t := range cat.GPUTypes {
		if strings.EqualFold(t.Name, name) {
			return t, nil
		}
	}
	return models.GPUType{}, errf(path, "unknown GPU type %q (known: %s)", name, knownList(e.gpuNames))
}

func knownList(names []string) string {
	if len(names) == 0 {
		return "none: the catalogue is empty"
	}
	return strings.Join(names, ", ")
}

func (s *Spec) validateCluster(cat catalogue.Catalog, e *env) *fieldError {
	if len(s.Cluster.Servers) == 0 {
		return errf("cluster.servers", "required: at least one server group {type, count, gpus_per_server}")
	}
	used := map[string]bool{}
	var servers []models.Server
	total := 0
	gpus := 0
	for i, g := range s.Cluster.Servers {
		p := index("cluster.servers", i)
		if g.Count > MaxServers || total+max(g.Count, 0) > MaxServers {
			return errf(p+".count", "the cluster would have more than %d servers, the limit (got count %d)", MaxServers, g.Count)
		}
		total += max(g.Count, 0)
		if g.GPUsPerServer > models.MaxGPUsPerServer {
			return errf(p+".gpus_per_server", "must be at most %d, the limit, got %d", models.MaxGPUsPerServer, g.GPUsPerServer)
		}
		if gpus += max(g.Count, 0) * max(g.GPUsPerServer, 0); gpus > models.MaxGPUs {
			return errf(p+".count", "the cluster would have more than %d GPUs, the limit", models.MaxGPUs)
		}
	}
	for i, g := range s.Cluster.Servers {
		p := index("cluster.servers", i)
		if g.Type == "" {
			return errf(p+".type", "required: a GPU type (known: %s)", knownList(e.gpuNames))
		}
		t, err := e.gpuType(cat, p+".type", g.Type)
		if err != nil {
			return err
		}
		if g.Type != t.Name {
			s.Cluster.Servers[i].Type = t.Name // only before the spec is shared by runs
		}
		if g.Count < 0 {
			return errf(p+".count", "must not be negative, got %d", g.Count)
		}
		if g.GPUsPerServer <= 0 {
			return errf(p+".gpus_per_server", "must be ≥ 1 (a server needs GPUs), got %d", g.GPUsPerServer)
		}
		for k := 0; k < g.Count; k++ {
			servers = append(servers, models.Server{Type: t.Name, GPUs: g.GPUsPerServer})
		}
		used[t.Name] = true
	}
	if len(servers) == 0 {
		return errf("cluster.servers", "the cluster has zero GPUs: every group has count 0")
	}
	var types []models.GPUType
	for _, t := range cat.GPUTypes {
		if used[t.Name] {
			types = append(types, t)
		}
	}
	c, err := models.NewCluster(types, servers)
	if err != nil {
		return errf("cluster", "%v", err)
	}
	e.cluster = c
	return nil
}

func (s *Spec) validateUsers() *fieldError {
	if len(s.Users) > MaxUsers {
		return errf("users", "%d users, more than the limit of %d", len(s.Users), MaxUsers)
	}
	if s.UserCount != 0 {
		if len(s.Users) > 0 {
			return errf("user_count", "users and user_count are mutually exclusive")
		}
		if s.UserCount > MaxUsers {
			return errf("user_count", "at most %d, got %d", MaxUsers, s.UserCount)
		}
		return errf("user_count", "must be ≥ 1, got %d", s.UserCount)
	}
	seen := map[string]int{}
	for i, u := range s.Users {
		p := index("users", i)
		if strings.TrimSpace(u.Name) == "" {
			return errf(p+".name", "required: a non-empty name")
		}
		if first, dup := seen[u.Name]; dup {
			return errf(p+".name", "duplicate user %q (also users[%d])", u.Name, first)
		}
		seen[u.Name] = i
		if err := weight(p+".weight", u.Weight); err != nil {
			return err
		}
	}
	return nil
}

func (s *Spec) validatePreemption(e *env) *fieldError {
	bw := s.Preemption.BandwidthGBPerSecond
	if err := nonNegativeFinite("preemption.bandwidth_gb_per_second", bw); err != nil {
		return err
	}
	if bw > MaxBandwidthGBps {
		return errf("preemption.bandwidth_gb_per_second", "must be at most %g GB/s, the limit, got %v", float64(MaxBandwidthGBps), bw)
	}
	if bw > 0 {
		for _, name := range e.known {
			t := e.jobTypes[name]
			if _, over := s.Preemption.Seconds[name]; !over && t.StateGB/bw > MaxRestoreSeconds {
				return errf("preemption.bandwidth_gb_per_second", "%v GB/s makes restoring %q (%g GB of state) take %.4g s, more than the limit of %d s (a day)",
					bw, name, t.StateGB, t.StateGB/bw, MaxRestoreSeconds)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.Preemption.Seconds)) {
		p := field("preemption.seconds", name, true)
		if _, ok := e.jobTypes[name]; !ok {
			return errf(p, "unknown job type %q (known: %s)", name, knownList(e.known))
		}
		if v := s.Preemption.Seconds[name]; v < 0 || v > MaxRestoreSeconds {
			return errf(p, "must be between 0 and %d seconds (a day), got %d", MaxRestoreSeconds, v)
		}
	}
	return nil
}

func (s *Spec) validateWorkload(e *env) *fieldError {
	w := &s.Workload
	switch w.UserAssignment {
	case AssignRoundRobin, AssignUniform:
	default:
		return errf("workload.user_assignment", "unknown rule %q (known: %s, %s)", w.UserAssignment, AssignRoundRobin, AssignUniform)
	}
	if w.ReferenceGPU != "" {
		found := false
		for _, n := range e.gpuNames {
			if strings.EqualFold(n, w.ReferenceGPU) {
				w.ReferenceGPU, found = n, true
			}
		}
		if !found {
			return errf("workload.reference_gpu", "unknown GPU type %q (known: %s)", w.ReferenceGPU, knownList(e.gpuNames))
		}
	}
	switch w.Generator {
	case GeneratorPhilly:
		return s.validatePhilly(e)
	case GeneratorTrace:
		if w.Trace == "" {
			return errf("workload.trace", "required for generator %q: the path of a trace file", GeneratorTrace)
		}
		if w.TraceFormat != FormatGavel && w.TraceFormat != FormatCSV {
			return errf("workload.trace_format", "unknown format %q (known: %s, %s)", w.TraceFormat, FormatGavel, FormatCSV)
		}
		if w.Jobs < 0 || w.Jobs > MaxJobs {
			return errf("workload.jobs", "must be between 0 (all) and %d, got %d", MaxJobs, w.Jobs)
		}
		if w.ArrivalRatePerHour != 0 {
			return errf("workload.arrival_rate_per_hour", "only for generator %q (a trace has its own arrivals)", GeneratorPhilly)
		}
		if len(w.Gangs) > 0 {
			return errf("workload.gangs", "only for generator %q", GeneratorPhilly)
		}
		if len(w.JobTypes) > 0 {
			return errf("workload.job_types", "only for generator %q", GeneratorPhilly)
		}
		if w.Unrunnable != UnrunnableRefuse && w.Unrunnable != UnrunnableSkip {
			return errf("workload.unrunnable", "unknown choice %q (known: %s, %s)", w.Unrunnable, UnrunnableRefuse, UnrunnableSkip)
		}
		return nil
	}
	return errf("workload.generator", "unknown generator %q (known: %s, %s)", w.Generator, GeneratorPhilly, GeneratorTrace)
}

func (s *Spec) validatePhilly(e *env) *fieldError {
	w := &s.Workload
	if w.Trace != "" {
		return errf("workload.trace", "only for generator %q", GeneratorTrace)
	}
	if w.TraceFormat != "" {
		return errf("workload.trace_format", "only for generator %q", GeneratorTrace)
	}
	if w.Unrunnable != "" {
		return errf("workload.unrunnable", "only for generator %q", GeneratorTrace)
	}
	if w.Jobs < 1 || w.Jobs > MaxJobs {
		return errf("workload.jobs", "must be between 1 and %d, got %d", MaxJobs, w.Jobs)
	}
	if err := w.validateRate(); err != nil {
		return err
	}
	if len(w.Gangs) == 0 {
		return errf("workload.gangs", "required: at least one gang size")
	}
	sizes := map[int]int{}
	for i, g := range w.Gangs {
		p := index("workload.gangs", i)
		if g.Size < 1 {
			return errf(p+".size", "must be ≥ 1, got %d", g.Size)
		}
		if first, dup := sizes[g.Size]; dup {
			return errf(p+".size", "duplicate gang size %d (also workload.gangs[%d])", g.Size, first)
		}
		sizes[g.Size] = i
		if err := weight(p+".weight", g.Weight); err != nil {
			return err
		}
		if big, typ := e.largestType(); g.Size > big {
			return errf(p+".size", "gang %d is larger than any GPU type of this cluster can hold (largest: %d GPUs of %s); set workload.gangs to change the gang size distribution",
				g.Size, big, typ)
		}
	}
	runsAtSomeGang := func(t string) bool {
		for _, g := range w.Gangs {
			if e.runnable(t, g.Size) {
				return true
			}
		}
		return false
	}
	if len(w.JobTypes) > 0 {
		seen := map[string]int{}
		for i, t := range w.JobTypes {
			p := index("workload.job_types", i)
			if _, ok := e.jobTypes[t]; !ok {
				return errf(p, "unknown job type %q (known: %s)", t, knownList(e.known))
			}
			if first, dup := seen[t]; dup {
				return errf(p, "duplicate job type %q (also workload.job_types[%d])", t, first)
			}
			seen[t] = i
			if !runsAtSomeGang(t) {
				return errf(p, "job type %q cannot run on any GPU type of this cluster at any gang size of workload.gangs: %s",
					t, e.whyNot(&models.Job{Type: t, Gang: w.Gangs[0].Size}))
			}
		}
		e.allowed = append([]string(nil), w.JobTypes...)
	} else {
		types := e.cluster.TypeNames()
		for _, t := range e.known {
			everywhere := true
			for _, gpu := range types {
				everywhere = everywhere && e.runsOn(t, gpu, w.Gangs)
			}
			if everywhere {
				e.allowed = append(e.allowed, t)
			}
		}
		if len(e.allowed) == 0 {
			return errf("workload.job_types", "no known job type can run on every GPU type of this cluster (%s); list the job types to draw from (known: %s)",
				strings.Join(types, ", "), knownList(e.known))
		}
	}
	e.byGang = map[int][]string{}
	for i, g := range w.Gangs {
		for _, t := range e.allowed {
			if e.runnable(t, g.Size) {
				e.byGang[g.Size] = append(e.byGang[g.Size], t)
			}
		}
		if len(e.byGang[g.Size]) == 0 {
			return errf(index("workload.gangs", i)+".size", "no allowed job type can run at gang %d on this cluster (allowed: %s)",
				g.Size, strings.Join(e.allowed, ", "))
		}
	}
	return nil
}

// validateRate checks the arrival rate: finite, at most MaxArrivalRate,
// and fast enough that the jobs arrive within the horizon on average.
func (w *WorkloadSpec) validateRate() *fieldError {
	const path = "workload.arrival_rate_per_hour"
	λ := w.ArrivalRatePerHour
	if err := nonNegativeFinite(path, λ); err != nil {
		return err
	}
	if λ > MaxArrivalRate {
		return errf(path, "must be at most %g jobs per hour, the limit, got %v", float64(MaxArrivalRate), λ)
	}
	if span := float64(w.Jobs) * 3600 / λ; λ > 0 && span > models.MaxHorizonSeconds {
		return errf(path, "at %v jobs per hour, %d jobs arrive over about %.4g s, more than %s (%g s), the limit",
			λ, w.Jobs, span, models.Describe(models.MaxHorizon), models.MaxHorizonSeconds)
	}
	return nil
}

// largestType is the largest capacity of any GPU type of the cluster.
func (e *env) largestType() (int, string) {
	big, typ := 0, ""
	for _, t := range e.cluster.TypeNames() {
		if c := e.cluster.Capacity(t); c > big {
			big, typ = c, t
		}
	}
	return big, typ
}

// runnable reports whether a job of type t and gang g can run on some GPU
// type of the cluster.
func (e *env) runnable(t string, g int) bool {
	j := models.Job{Type: t, Gang: g}
	return e.runsSomewhere(&j)
}

// runsOn reports whether a job of type t can run on GPU type gpu at one of
// the gang sizes gs.
func (e *env) runsOn(t, gpu string, gs []GangWeight) bool {
	for _, g := range gs {
		j := models.Job{Type: t, Gang: g.Size}
		if e.environment().Throughput(&j, gpu) > 0 {
			return true
		}
	}
	return false
}

func (e *env) runsSomewhere(j *models.Job) bool {
	for _, g := range e.cluster.TypeNames() {
		if e.environment().Throughput(j, g) > 0 {
			return true
		}
	}
	return false
}

// whyNot explains, per GPU type of the cluster, why j cannot run there.
func (e *env) whyNot(j *models.Job) string {
	var parts []string
	for _, g := range e.cluster.TypeNames() {
		t, _ := e.cluster.Type(g)
		var why string
		switch {
		case !e.environment().FitsMemory(j, t):
			why = fmt.Sprintf("needs %g GB per GPU, has %g GB", e.environment().MemoryNeed(j), t.MemoryGB)
		case e.cluster.Capacity(g) < j.Gang:
			why = fmt.Sprintf("gang %d > %d GPUs", j.Gang, e.cluster.Capacity(g))
		default:
			pl := models.Consolidated
			if j.Gang > e.cluster.MaxServerGPUs(g) {
				pl = models.Spread
			}
			k := models.Key{Job: j.Type, GPU: g, Gang: j.Gang, Placement: pl}
			if f, ok := e.matrix.Lookup(k); !ok {
				why = fmt.Sprintf("no measured throughput at gang %d (%s)", j.Gang, pl)
			} else if f.Value <= 0 {
				why = fmt.Sprintf("measured throughput at gang %d (%s) is 0", j.Gang, pl)
			} else {
				why = "runs"
			}
		}
		parts = append(parts, g+": "+why)
	}
	return strings.Join(parts, "; ")
}

// reference is the steps per second that turns a duration into steps for
// job j (see WorkloadSpec.ReferenceGPU); 0 when j cannot run on the cluster.
func (e *env) reference(ref string, j *models.Job) float64 {
	if ref != "" {
		if t := e.matrix.Throughput(models.Key{Job: j.Type, GPU: ref, Gang: j.Gang, Placement: models.Consolidated}); t > 0 {
			return t
		}
	}
	best := 0.0
	for _, g := range e.cluster.TypeNames() {
		best = math.Max(best, e.environment().Throughput(j, g))
	}
	return best
}

// weight checks a user's or gang size's weight: positive, finite and
// within models' range.
func weight(path string, v float64) *fieldError {
	if err := positiveFinite(path, v); err != nil {
		return err
	}
	if v < models.MinWeight || v > models.MaxWeight {
		return errf(path, "must be between %g and %g, the limits, got %v", models.MinWeight, models.MaxWeight, v)
	}
	return nil
}

func positiveFinite(path string, v float64) *fieldError {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return errf(path, "must be a finite number, got %v", v)
	}
	if v <= 0 {
		return errf(path, "must be > 0, got %v", v)
	}
	return nil
}

func nonNegativeFinite(path string, v float64) *fieldError {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return errf(path, "must be a finite number, got %v", v)
	}
	if v < 0 {
		return errf(path, "must not be negative, got %v", v)
	}
	return nil
}
