package sim

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"
	"time"

	"fairbench/models"
)

// randomConfig builds a random small heterogeneous cluster and workload. Each
// job type has figures on a random subset of types (at least one), so some
// jobs can only run on some types.
func randomConfig(rng *rand.Rand) Config {
	types := []models.GPUType{{Name: "A", MemoryGB: 80, Rank: 3}, {Name: "B", MemoryGB: 32, Rank: 2}, {Name: "C", MemoryGB: 16, Rank: 1}}
	var servers []models.Server
	for _, t := range types {
		for n := rng.Intn(3); n > 0; n-- {
			servers = append(servers, models.Server{Type: t.Name, GPUs: 1 << rng.Intn(3)})
		}
	}
	if len(servers) == 0 {
		servers = append(servers, models.Server{Type: "A", GPUs: 4})
	}
	c, _ := models.NewCluster(types, servers)
	m := models.NewMatrix()
	var jobTypes []string
	for k := 0; k < 3; k++ {
		name := fmt.Sprintf("job%d", k)
		jobTypes = append(jobTypes, name)
		for ti, t := range c.TypeNames() {
			if k > 0 && rng.Intn(3) == 0 && ti > 0 {
				continue // some types cannot run this job
			}
			base := 0.5 + rng.Float64()*4
			for _, g := range []int{1, 2, 4, 8} {
				_ = m.Set(models.Key{Job: name, GPU: t, Gang: g}, base*float64(g)*0.9, "random")
				_ = m.Set(models.Key{Job: name, GPU: t, Gang: g, Placement: models.Spread}, base*float64(g)*0.6, "random")
			}
		}
	}
	users := []models.User{{Name: "x", Weight: 1}, {Name: "y", Weight: 2}, {Name: "z", Weight: 0.5}}
	var jobs []models.Job
	var at time.Duration
	for i := 0; len(jobs) < 25 && i < 1000; i++ {
		at += time.Duration(rng.Intn(600)) * time.Second
		j := models.Job{ID: models.JobID(len(jobs)), User: users[rng.Intn(3)].Name, Type: jobTypes[rng.Intn(3)],
			Gang: 1 << rng.Intn(3), Steps: float64(100 + rng.Intn(5000)), Arrival: at}
		ok := false
		for _, g := range c.TypeNames() {
			ok = ok || models.ThroughputOn(c, m, nil, &j, g) > 0
		}
		if ok {
			jobs = append(jobs, j)
		}
	}
	return Config{Cluster: c, Users: users, Jobs: jobs, Matrix: m, Round: time.Duration(60+rng.Intn(600)) * time.Second,
		Costs: Costs{PerType: map[string]time.Duration{"job1": 7 * time.Second}}}
}

// segment is one stretch of a job holding the same GPUs at the same speed.
type segment struct {
	start, pausedTo time.Duration
	gpus            []int
	rate            float64
}

// TestInvariantsOnRandomScenarios replays the event log of random runs and
// checks, independently of the simulator's own bookkeeping, that no GPU holds
// more jobs than allowed (one, or two for a co-locating policy), no job runs
// before it arrives, every job finishes, a job alone on its GPUs runs at the
// matrix's figure for its placement, and the work done — the speed of each
// stretch times its length less any restore time — equals the job's steps.
func TestInvariantsOnRandomScenarios(t *testing.T) {
	shared := 0 // starts beside another job, over all runs
	for seed := int64(0); seed < 60; seed++ {
		rng := rand.New(rand.NewSource(seed))
		cfg := randomConfig(rng)
		policies := []interface {
			Name() string
			Allocate(*models.Snapshot) (models.Allocation, error)
		}{inOrder{everyEvent}, inOrder{models.AtRound}, fractional{}, sharing{}}
		p := policies[seed%4]
		rp := newReplay(&cfg)
		if _, ok := p.(sharing); ok {
			rp.limit = 2
			addRandomPairs(rng, cfg.Matrix)
		}
		cfg.OnEvent = rp.onEvent
		r, err := Run(cfg, p)
		if err != nil {
			t.Fatalf("seed %d (%s): %v", seed, p.Name(), err)
		}
		if rp.failure != "" {
			t.Fatalf("seed %d (%s): %s", seed, p.Name(), rp.failure)
		}
		for _, j := range cfg.Jobs {
			if !rp.finished[j.ID] {
				t.Errorf("seed %d: job %d never finished", seed, j.ID)
			}
			// Completion times round up to the nanosecond, so the replayed
			// work may exceed Steps by a hair.
			if w := rp.work[j.ID]; math.Abs(w-j.Steps) > 1e-6*j.Steps {
				t.Errorf("seed %d (%s): job %d replayed %v steps of work, want %v", seed, p.Name(), j.ID, w, j.Steps)
			}
		}
		if r.Summary.Jobs != len(cfg.Jobs) {
			t.Errorf("seed %d: %d job results for %d jobs", seed, r.Summary.Jobs, len(cfg.Jobs))
		}
		shared += rp.shared
	}
	if shared == 0 {
		t.Error("no run shared a GPU: the co-location paths went untested")
	}
	t.Logf("%d starts beside another job", shared)
}

// replay rebuilds a run from its events and records the first broken
// invariant: no job runs before it arrives, a GPU holds at most limit jobs, a
// job alone runs at its matrix throughput and never faster, and the work
// done between events adds up.
type replay struct {
	cfg      *Config
	limit    int // jobs per GPU
	owners   map[int][]models.JobID
	open     map[models.JobID]*segment
	work     map[models.JobID]float64
	arrival  map[models.JobID]time.Duration
	finished map[models.JobID]bool
	failure  string
	shared   int // starts beside another job
}

func newReplay(cfg *Config) *replay {
	rp := &replay{cfg: cfg, limit: 1, owners: map[int][]models.JobID{}, open: map[models.JobID]*segment{},
		work: map[models.JobID]float64{}, arrival: map[models.JobID]time.Duration{}, finished: map[models.JobID]bool{}}
	for _, j := range cfg.Jobs {
		rp.arrival[j.ID] = j.Arrival
	}
	return rp
}

func (rp *replay) fail(f string, a ...any) {
	if rp.failure == "" {
		rp.failure = fmt.Sprintf(f, a...)
	}
}

// account adds the work of id's open segment up to now.
func (rp *replay) account(id models.JobID, now time.Duration) *segment {
	s := rp.open[id]
	if s == nil {
		rp.fail("job %d stops without running", id)
		return nil
	}
	if run := now - max(s.start, s.pausedTo); run > 0 {
		rp.work[id] += s.rate * run.Seconds()
	}
	return s
}

func (rp *replay) closeSeg(id models.JobID, now time.Duration) {
	if s := rp.account(id, now); s != nil {
		for _, g := range s.gpus {
			rp.owners[g] = slices.DeleteFunc(rp.owners[g], func(o models.JobID) bool { return o == id })
		}
	}
	delete(rp.open, id)
}

func (rp *replay) onEvent(ev Event) {
	now := time.Duration(math.Round(ev.Time * 1e9))
	switch ev.Kind {
	case Start, Resume, Migrate:
		rp.start(ev, now)
	case Rate:
		if s := rp.account(ev.Job, now); s != nil {
			s.start, s.rate = now, ev.Rate
		}
	case Preempt, Vacate:
		rp.closeSeg(ev.Job, now)
	case Finish:
		rp.closeSeg(ev.Job, now)
		rp.finished[ev.Job] = true
	}
}

// start opens a segment for a job taking GPUs.
func (rp *replay) start(ev Event, now time.Duration) {
	if now < rp.arrival[ev.Job] {
		rp.fail("job %d runs at %v before its arrival %v", ev.Job, now, rp.arrival[ev.Job])
	}
	alone := true
	for _, g := range ev.GPUs {
		if len(rp.owners[g]) >= rp.limit {
			rp.fail("GPU %d given to job %d while jobs %v hold it", g, ev.Job, rp.owners[g])
		}
		alone = alone && len(rp.owners[g]) == 0
		rp.owners[g] = append(rp.owners[g], ev.Job)
	}
	c := rp.cfg
	j := c.Jobs[ev.Job]
	place := models.Consolidated
	for _, g := range ev.GPUs {
		if c.Cluster.ServerOf(g) != c.Cluster.ServerOf(ev.GPUs[0]) {
			place = models.Spread
		}
	}
	want := c.Matrix.Throughput(models.Key{Job: j.Type, GPU: c.Cluster.TypeOfGPU(ev.GPUs[0]), Gang: j.Gang, Placement: place})
	if !alone {
		rp.shared++
	}
	if alone && ev.Rate != want {
		rp.fail("job %d alone on %v runs at %v, want %v", ev.Job, ev.GPUs, ev.Rate, want)
	}
	if ev.Rate > want {
		rp.fail("job %d runs at %v, faster than alone (%v)", ev.Job, ev.Rate, want)
	}
	cost := time.Duration(math.Round(ev.Cost * 1e9))
	rp.open[ev.Job] = &segment{start: now, pausedTo: now + cost, gpus: ev.GPUs, rate: ev.Rate}
}

// addRandomPairs gives some pairs of job types co-located figures below
// their isolated ones; the rest run at the default slowdown.
func addRandomPairs(rng *rand.Rand, m *models.Matrix) {
	for _, k := range m.Keys() {
		for _, other := range m.JobTypes() {
			if rng.Intn(2) == 0 {
				iso := m.Throughput(k)
				_ = m.SetPair(models.PairKey{Key: k, Other: other}, iso*(0.4+0.5*rng.Float64()), 1)
			}
		}
	}
}

// sharing keeps running jobs on their GPUs and starts waiting jobs on free
// GPUs of their fastest type, or else on the GPUs of a running job of the
// same type and gang that shares with no one yet.
type sharing struct{}

func (sharing) Name() string             { return "sharing" }
func (sharing) Triggers() models.Trigger { return everyEvent }
func (sharing) Allocate(s *models.Snapshot) (models.Allocation, error) {
	a := models.Allocation{Colocate: true}
	used := map[int]int{}
	free := map[string]int{}
	for _, g := range s.Cluster.TypeNames() {
		free[g] = s.Cluster.Capacity(g)
	}
	for i := range s.Jobs {
		j := &s.Jobs[i]
		if j.Running() {
			a.Run = append(a.Run, models.Assignment{Job: j.ID, Type: j.LastType, GPUs: j.LastGPUs})
			for _, g := range j.LastGPUs {
				if used[g]++; used[g] == 1 {
					free[j.LastType]--
				}
			}
		}
	}
	for i := range s.Jobs {
		j := &s.Jobs[i]
		if j.Running() {
			continue
		}
		if g, _ := s.BestThroughput(&j.Job); free[g] >= j.Gang {
			free[g] -= j.Gang
			a.Run = append(a.Run, models.Assignment{Job: j.ID, Type: g})
			continue
		}
		for k := range s.Jobs {
			o := &s.Jobs[k]
			if !o.Running() || o.Gang != j.Gang || o.Type != j.Type || s.Throughput(&j.Job, o.LastType) <= 0 || used[o.LastGPUs[0]] != 1 {
				continue
			}
			a.Run = append(a.Run, models.Assignment{Job: j.ID, Type: o.LastType, GPUs: o.LastGPUs})
			for _, g := range o.LastGPUs {
				used[g]++
			}
			break
		}
	}
	return a, nil
}

// fractional gives each job an equal time share of its fastest type, scaled
// to fit, and lets the round mechanism realise it.
type fractional struct{}

func (fractional) Name() string { return "fractional" }
func (fractional) Allocate(s *models.Snapshot) (models.Allocation, error) {
	need := map[string]float64{}
	best := map[models.JobID]string{}
	for i := range s.Jobs {
		g, _ := s.BestThroughput(&s.Jobs[i].Job)
		best[s.Jobs[i].ID] = g
		need[g] += float64(s.Jobs[i].Gang)
	}
	a := models.Allocation{Fractions: map[models.JobID]map[string]float64{}}
	for i := range s.Jobs {
		g := best[s.Jobs[i].ID]
		a.Fractions[s.Jobs[i].ID] = map[string]float64{g: math.Min(1, float64(s.Cluster.Capacity(g))/need[g])}
	}
	return a, nil
}

// TestDeterminism: the same config and policy give identical results.
func TestDeterminism(t *testing.T) {
	for seed := int64(0); seed < 5; seed++ {
		a, err := Run(randomConfig(rand.New(rand.NewSource(seed))), fractional{})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Run(randomConfig(rand.New(rand.NewSource(seed))), fractional{})
		if fmt.Sprintf("%+v", a) != fmt.Sprintf("%+v", b) {
			t.Fatalf("seed %d: two runs differ", seed)
		}
	}
}
