package sim

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"fairbench/models"
	"fairbench/solvers"
)

// The engine keeps some state up to date as jobs take and leave GPUs
// (holding, vacant, shared, the jobs to re-rate) and places by marking the
// jobs that keep their GPUs (placeFast) instead of listing every placement.
// These tests pin both against the from-scratch forms on random runs.

// churn is a test policy that changes its mind at random: at each decision
// it leaves some jobs out (preempting running ones), keeps most running jobs
// on their type, sometimes with their GPUs named or their gradient
// accumulation switched, moves others to another type, starts waiting jobs
// on random types, and (share) sometimes puts a waiting job on a running
// job's GPUs. With name set it also names, for most jobs it places anew,
// GPUs of its own choosing (not named yet in the allocation: they may be
// those of a running job kept without named GPUs, which then moves), and
// for most jobs it keeps on their type, the GPUs they hold, as gandiva-fair
// does. An allocation that models.Feasible refuses is retried without named
// GPUs and accumulation, and else is empty.
type churn struct {
	rng         *rand.Rand
	share, name bool
}

func (p *churn) Name() string             { return "churn" }
func (p *churn) Triggers() models.Trigger { return everyEvent }
func (p *churn) Allocate(s *models.Snapshot) (models.Allocation, error) {
	rng := p.rng
	a := models.Allocation{Colocate: p.share && rng.Intn(2) == 0}
	free := map[string]int{}
	for _, g := range s.Cluster.TypeNames() {
		free[g] = s.Cluster.Capacity(g)
	}
	named := make([]bool, s.Cluster.TotalGPUs())
	take := func(j *models.JobState, g string, gpus []int, accum int) bool {
		if free[g] < j.Gang || s.Throughput(&j.Job, g) <= 0 {
			return false
		}
		if p.name && gpus == nil && rng.Intn(4) != 0 {
			gpus = p.choose(s, named, g, j.Gang)
		}
		if slices.ContainsFunc(gpus, func(g int) bool { return named[g] }) {
			gpus = nil // named already: placed by the simulator
		}
		for _, g := range gpus {
			named[g] = true
		}
		free[g] -= j.Gang
		a.Run = append(a.Run, models.Assignment{Job: j.ID, Type: g, GPUs: gpus, Accum: accum})
		return true
	}
	for _, i := range rng.Perm(len(s.Jobs)) {
		j := &s.Jobs[i]
		if rng.Intn(6) == 0 {
			continue // left out
		}
		accum := 0
		if j.Type == "job0" && rng.Intn(4) == 0 {
			accum = 2 << rng.Intn(2)
		}
		if j.Running() && rng.Intn(5) != 0 {
			k := j.LastAccum
			if rng.Intn(6) == 0 {
				k = accum
			}
			var gpus []int
			if rng.Intn(4) == 0 || (p.name && rng.Intn(4) != 0) {
				gpus = j.LastGPUs
			}
			if take(j, j.LastType, gpus, k) {
				continue
			}
		}
		if a.Colocate && !j.Running() && rng.Intn(3) == 0 {
			for k := range s.Jobs {
				o := &s.Jobs[k]
				if o.Running() && o.Gang == j.Gang && s.Throughput(&j.Job, o.LastType) > 0 {
					a.Run = append(a.Run, models.Assignment{Job: j.ID, Type: o.LastType, GPUs: o.LastGPUs})
					break
				}
			}
			if n := len(a.Run); n > 0 && a.Run[n-1].Job == j.ID {
				continue
			}
		}
		types := s.Cluster.TypeNames()
		for _, t := range rng.Perm(len(types)) {
			if take(j, types[t], nil, accum) {
				break
			}
		}
	}
	if models.Feasible(s, a) != nil {
		for i := range a.Run {
			a.Run[i].GPUs, a.Run[i].Accum = nil, 0
		}
		a.Colocate = false
		if models.Feasible(s, a) != nil {
			return models.Allocation{}, nil
		}
	}
	return a, nil
}

// choose is gang GPUs of type g not named yet, at random.
func (p *churn) choose(s *models.Snapshot, named []bool, g string, gang int) []int {
	var gpus []int
	for _, k := range p.rng.Perm(len(named)) {
		if len(gpus) < gang && !named[k] && s.Cluster.TypeOfGPU(k) == g {
			gpus = append(gpus, k)
		}
	}
	slices.Sort(gpus)
	return gpus
}

// watched runs a policy and checks the engine's bookkeeping at each of its
// decisions.
type watched struct {
	solvers.Policy
	e       *engine
	checked int
	failure string
	// namedFast counts the allocations naming GPUs that were placed by
	// marks (lastNamed: the last allocation named GPUs; byMarks: the
	// engine's count of places by marks before it).
	namedFast, byMarks int
	lastNamed          bool
}

func (w *watched) Triggers() models.Trigger       { return solvers.TriggersOf(w.Policy) }
func (w *watched) RoundRules() solvers.RoundRules { return solvers.RoundsOf(w.Policy) }

func (w *watched) Allocate(s *models.Snapshot) (models.Allocation, error) {
	if err := w.e.checkBookkeeping(); err != nil && w.failure == "" {
		w.failure = fmt.Sprintf("t=%v: %v", s.Now, err)
	}
	w.checked++
	if w.lastNamed && w.e.byMarks > w.byMarks {
		w.namedFast++
	}
	a, err := w.Policy.Allocate(s)
	w.lastNamed = slices.ContainsFunc(a.Run, func(a models.Assignment) bool { return len(a.GPUs) > 0 })
	w.byMarks = w.e.byMarks
	return a, err
}

// checkBookkeeping recomputes from the GPUs' occupants what the engine keeps
// up to date: the users' holdings, the vacant and shared GPUs, the running
// list (every job on GPUs, in arrival order), and every running job's
// speed; and from the active list where locate finds each job.
func (e *engine) checkBookkeeping() error {
	holding := make([]float64, len(e.holding))
	shared := 0
	var on []*job
	for g, js := range e.occ {
		for _, j := range js {
			holding[j.user] += 1 / float64(len(js))
			if !slices.Contains(on, j) {
				on = append(on, j)
			}
			if !slices.Contains(j.gpus, g) {
				return fmt.Errorf("GPU %d holds job %d, which runs on %v", g, j.spec.ID, j.gpus)
			}
		}
		if e.vacant[g] != (len(js) == 0) {
			return fmt.Errorf("GPU %d: vacant %v with %d jobs", g, e.vacant[g], len(js))
		}
		if len(js) == 2 {
			shared++
		}
	}
	if !slices.Equal(holding, e.holding) {
		return fmt.Errorf("holdings %v, recomputed %v", e.holding, holding)
	}
	if shared != e.shared {
		return fmt.Errorf("%d GPUs shared, counted %d", shared, e.shared)
	}
	slices.SortFunc(on, func(a, b *job) int { return a.seq - b.seq })
	if !slices.Equal(on, e.running) {
		return fmt.Errorf("running list of %d jobs, %d on GPUs or out of order", len(e.running), len(on))
	}
	for i, j := range e.active {
		if got := e.locate(j.spec.ID); got != i {
			return fmt.Errorf("job %d is active[%d], located at %d", j.spec.ID, i, got)
		}
	}
	for _, j := range e.jobs {
		if (!j.arrived || j.finished) && e.locate(j.spec.ID) != -1 {
			return fmt.Errorf("job %d, not active, located at %d", j.spec.ID, e.locate(j.spec.ID))
		}
	}
	if len(e.dirty) > 0 {
		return fmt.Errorf("%d jobs left to re-rate", len(e.dirty))
	}
	for _, j := range e.running {
		if j.dirty || j.rate != e.speed(j) {
			return fmt.Errorf("job %d runs at %v, speed %v (dirty %v)", j.spec.ID, j.rate, e.speed(j), j.dirty)
		}
	}
	return nil
}

// runWatched runs p on cfg, with place's general path only when general is
// set, and returns the event log with the result.
func runWatched(t *testing.T, cfg Config, p solvers.Policy, general bool) (string, *Result, *watched) {
	t.Helper()
	var log strings.Builder
	cfg.OnEvent = func(ev Event) { fmt.Fprintf(&log, "%+v\n", ev) }
	cfg.defaults()
	if err := cfg.validate(); err != nil {
		t.Fatal(err)
	}
	w := &watched{Policy: p}
	var run solvers.Policy = w
	if _, ok := p.(solvers.Incremental); ok {
		run = watchedChanges{w}
	}
	e := newEngine(cfg, run)
	w.e, e.general = e, general
	if err := e.loop(); err != nil {
		t.Fatalf("%s (general %v): %v", p.Name(), general, err)
	}
	return log.String(), e.result(), w
}

// withAccum lets job0 (batch 64) run with 2-step accumulation on job1's
// figures (the same model at batch 32), and with 4-step accumulation on the
// figures of a batch-16 sibling measured consolidated only (a spread gang
// then has no figure and does not run).
func withAccum(cfg *Config) {
	cfg.JobTypes = map[string]models.JobType{
		"job0":  {Name: "job0", Model: "M", BatchSize: 64},
		"job1":  {Name: "job1", Model: "M", BatchSize: 32},
		"job2":  {Name: "job2", Model: "N", BatchSize: 16},
		"job0q": {Name: "job0q", Model: "M", BatchSize: 16},
	}
	for _, g := range cfg.Cluster.TypeNames() {
		for _, gang := range []int{1, 2, 4} {
			_ = cfg.Matrix.Set(models.Key{Job: "job0q", GPU: g, Gang: gang}, float64(gang), "test")
		}
	}
}

// churnConfig is a random scenario for churn with accumulation figures
// (withAccum); for one seed in five, with job IDs too large for the
// engine's dense tables.
func churnConfig(rng *rand.Rand, seed int64) Config {
	cfg := randomConfig(rng)
	withAccum(&cfg)
	if seed%5 == 2 {
		for i := range cfg.Jobs {
			cfg.Jobs[i].ID = cfg.Jobs[i].ID*1000 + 7
		}
	}
	return cfg
}

// TestIncrementalPlacementMatchesGeneral runs random policies on random
// scenarios twice, placing by marks where place can (the default) and by
// the general path only, and requires the same event logs and results; and
// at every decision of both, the bookkeeping kept up to date equals its
// recomputation from the GPUs' occupants.
func TestIncrementalPlacementMatchesGeneral(t *testing.T) {
	fast, unplaced := 0, 0 // places by marks, and placements without a figure
	namedFast, declined := 0, 0
	moves := map[EventKind]int{}
	for seed := int64(0); seed < 48; seed++ {
		rng := rand.New(rand.NewSource(seed))
		cfg := churnConfig(rng, seed)
		share := seed%4 == 3
		if share {
			addRandomPairs(rng, cfg.Matrix)
		}
		policy := func() solvers.Policy {
			switch seed % 6 {
			case 4:
				return fractional{}
			case 5:
				return sharing{}
			}
			return &churn{rng: rand.New(rand.NewSource(seed)), share: share, name: seed%3 == 1}
		}
		logA, resA, wA := runWatched(t, cfg, policy(), false)
		logB, resB, wB := runWatched(t, cfg, policy(), true)
		for _, w := range []*watched{wA, wB} {
			if w.failure != "" {
				t.Fatalf("seed %d (%s): %s", seed, w.Name(), w.failure)
			}
			if w.checked == 0 {
				t.Fatalf("seed %d: no decision was checked", seed)
			}
		}
		if logA != logB {
			t.Fatalf("seed %d (%s): the event logs differ:\n%s", seed, wA.Name(), firstDiff(logA, logB))
		}
		if a, b := fmt.Sprintf("%+v", resA), fmt.Sprintf("%+v", resB); a != b {
			t.Fatalf("seed %d (%s): the results differ", seed, wA.Name())
		}
		fast += wA.e.byMarks
		namedFast += wA.namedFast
		declined += wA.e.marks - wA.e.byMarks
		unplaced += resA.Summary.Unplaced
		for _, k := range []EventKind{Preempt, Migrate, Resume, Rate} {
			moves[k] += strings.Count(logA, "Kind:"+string(k)+" ")
		}
	}
	if fast == 0 {
		t.Error("no decision was placed by marks: the incremental path went untested")
	}
	if namedFast == 0 {
		t.Error("no allocation naming GPUs was placed by marks")
	}
	if declined == 0 {
		t.Error("placeFast never declined: GPUs named that a kept job holds went untested")
	}
	if unplaced == 0 {
		t.Error("no placement lacked a figure: that path went untested")
	}
	for k, n := range moves {
		if n == 0 {
			t.Errorf("no %s event in any run: that path went untested", k)
		}
	}
	t.Logf("%d places by marks (%d naming GPUs, %d declined), %d placements without a figure; events %v",
		fast, namedFast, declined, unplaced, moves)
}

// firstDiff is the first line where two logs differ, with both versions.
func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d:\n  marks:   %s\n  general: %s", i+1, la[i], lb[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d lines", len(la), len(lb))
}
