package registry_test

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"reflect"
	"sync"
	"testing"
	"time"

	"fairbench/models"
	"fairbench/sim"
	"fairbench/solvers"
	"fairbench/solvers/registry"
)

// simFixture is a small heterogeneous cluster (three GPU types, one split
// over two servers), three job types with different type preferences and
// three users, one of weight 2.
func simFixture(t *testing.T) sim.Config {
	t.Helper()
	types := []models.GPUType{{Name: "V100", MemoryGB: 32, Rank: 3}, {Name: "P100", MemoryGB: 16, Rank: 2}, {Name: "K80", MemoryGB: 12, Rank: 1}}
	c, err := models.NewCluster(types, []models.Server{
		{Type: "V100", GPUs: 4}, {Type: "P100", GPUs: 4}, {Type: "P100", GPUs: 2}, {Type: "K80", GPUs: 8},
	})
	if err != nil {
		t.Fatal(err)
	}
	m := models.NewMatrix()
	speed := map[string]map[string]float64{
		"a": {"V100": 4, "P100": 2, "K80": 1},
		"b": {"V100": 1.5, "P100": 2.5, "K80": 1},
		"c": {"V100": 3, "K80": 0.5},
	}
	for jt, by := range speed {
		for g, v := range by {
			for gang := 1; gang <= 8; gang++ {
				_ = m.Set(models.Key{Job: jt, GPU: g, Gang: gang, Placement: models.Consolidated}, v*float64(gang), "test")
				_ = m.Set(models.Key{Job: jt, GPU: g, Gang: gang, Placement: models.Spread}, 0.8*v*float64(gang), "test")
			}
		}
	}
	users := []models.User{{Name: "x", Weight: 1}, {Name: "y", Weight: 2}, {Name: "z", Weight: 1}}
	return sim.Config{Cluster: c, Users: users, Matrix: m}
}

// randomJobs draws n jobs of the fixture's types and users arriving within
// the first hour.
func randomJobs(seed int64, n int, users []models.User) []models.Job {
	rng := rand.New(rand.NewSource(seed))
	var jobs []models.Job
	for i := 0; i < n; i++ {
		jt := []string{"a", "b", "c"}[rng.Intn(3)]
		gang := []int{1, 1, 1, 2, 4, 8}[rng.Intn(6)]
		jobs = append(jobs, models.Job{
			ID: models.JobID(i), User: users[rng.Intn(len(users))].Name, Type: jt, Gang: gang,
			Steps:   float64(100 + rng.Intn(20000)),
			Arrival: time.Duration(rng.Intn(3600)) * time.Second,
		})
	}
	return jobs
}

// runFresh simulates cfg under a policy freshly built by the registry.
func runFresh(t *testing.T, name string, cfg sim.Config) *sim.Result {
	t.Helper()
	p, err := registry.Default().New(name, solvers.Config{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := sim.Run(cfg, p)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return r
}

// Every registered policy runs random small workloads on a
// heterogeneous cluster to completion (the simulator checks each allocation
// with models.Feasible), and gives the same result twice.
func TestSimRandomWorkloads(t *testing.T) {
	t.Parallel()
	cfg := simFixture(t)
	names := registry.Default().Names()
	for seed := int64(1); seed <= 5; seed++ {
		cfg.Jobs = randomJobs(seed, 25, cfg.Users)
		for _, n := range names {
			a, b := runFresh(t, n, cfg), runFresh(t, n, cfg)
			if len(a.Jobs) != len(cfg.Jobs) {
				t.Fatalf("seed %d, %s: %d of %d jobs finished", seed, n, len(a.Jobs), len(cfg.Jobs))
			}
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("seed %d, %s: two runs differ", seed, n)
			}
		}
	}
}

// TestReportTypes: a policy that reports (solvers.Reporter) declares the
// type of its report in its registry entry, and a policy that does not
// declares none; a report written to JSON, as a run record holds it,
// decodes into that type through Registry.DecodeReport and encodes back to
// the same bytes, so readers (package reports) get every field typed.
func TestReportTypes(t *testing.T) {
	t.Parallel()
	reg := registry.Default()
	cfg := simFixture(t)
	cfg.Jobs = randomJobs(1, 25, cfg.Users)
	reporting := 0
	for _, n := range reg.Names() {
		e, _ := reg.Lookup(n)
		p, err := reg.New(n, solvers.Config{})
		if err != nil {
			t.Fatal(err)
		}
		rp, isReporter := p.(solvers.Reporter)
		switch {
		case isReporter && e.Report == nil:
			t.Errorf("%s reports (%T) but its registry entry declares no report type: set Report: solvers.ReportAs[...]", n, rp.Report())
			continue
		case !isReporter && e.Report != nil:
			t.Errorf("%s declares the report type %T but is not a solvers.Reporter", n, e.Report())
			continue
		case !isReporter:
			if _, ok, err := reg.DecodeReport(n, []byte(`{}`)); ok || err != nil {
				t.Errorf("%s: DecodeReport = ok %v, err %v; want nothing decoded", n, ok, err)
			}
			continue
		}
		reporting++
		r := runFresh(t, n, cfg)
		if got, want := reflect.TypeOf(r.PolicyReport), reflect.TypeOf(e.Report()); got != want {
			t.Errorf("%s: Report returns %v, its entry declares %v", n, got, want)
			continue
		}
		stored, err := json.Marshal(r.PolicyReport)
		if err != nil {
			t.Fatal(err)
		}
		back, ok, err := reg.DecodeReport(n, stored)
		if err != nil || !ok {
			t.Fatalf("%s: DecodeReport = ok %v, err %v", n, ok, err)
		}
		if reflect.TypeOf(back) != reflect.TypeOf(r.PolicyReport) {
			t.Errorf("%s: decoded a %T, the run reported a %T", n, back, r.PolicyReport)
		}
		again, _ := json.Marshal(back)
		if !bytes.Equal(stored, again) {
			t.Errorf("%s: the report does not survive JSON:\n%s\n%s", n, stored, again)
		}
		if _, ok, err := reg.DecodeReport(n, []byte(`[1, 2]`)); ok || err == nil {
			t.Errorf("%s: a list decoded as its report (ok %v, err %v)", n, ok, err)
		}
	}
	// gandiva-fair, gandiva-fair-notrade, fft, fft-exact and the four
	// sjf-bsbf variants.
	if reporting < 8 {
		t.Errorf("%d reporting policies, want at least 8", reporting)
	}
	if _, ok, err := reg.DecodeReport("no-such-policy", []byte(`{}`)); ok || err != nil {
		t.Errorf("unregistered policy: ok %v, err %v; want nothing decoded", ok, err)
	}
}

// lockstep lets two runs take turns: each wrapped policy decides only on
// its turn, so the decisions of two simulations interleave one for one
// (the one left alone when the other finishes).
type lockstep struct {
	mu   sync.Mutex
	cond *sync.Cond
	turn int
	done [2]bool
}

func newLockstep() *lockstep {
	l := &lockstep{}
	l.cond = sync.NewCond(&l.mu)
	return l
}

// finish marks run me finished, so the other no longer waits for it.
func (l *lockstep) finish(me int) {
	l.mu.Lock()
	l.done[me] = true
	l.cond.Broadcast()
	l.mu.Unlock()
}

// turnTaker is a policy that decides on its run's turn; it keeps the
// wrapped policy's triggers and report.
type turnTaker struct {
	solvers.Policy
	l  *lockstep
	me int
}

func (p *turnTaker) Triggers() models.Trigger { return solvers.TriggersOf(p.Policy) }

func (p *turnTaker) Report() any {
	if r, ok := p.Policy.(solvers.Reporter); ok {
		return r.Report()
	}
	return nil
}

func (p *turnTaker) Allocate(s *models.Snapshot) (models.Allocation, error) {
	l := p.l
	l.mu.Lock()
	for l.turn != p.me && !l.done[1-p.me] {
		l.cond.Wait()
	}
	l.mu.Unlock()
	a, err := p.Policy.Allocate(s)
	l.mu.Lock()
	l.turn = 1 - p.me
	l.cond.Broadcast()
	l.mu.Unlock()
	return a, err
}

// TestInstancesAreIndependent: one instance per run (solvers.Policy). Two
// instances built from the same Config keep independent state: run on two
// different workloads with their decisions interleaved one for one, each
// gives exactly the result it gives alone.
func TestInstancesAreIndependent(t *testing.T) {
	t.Parallel()
	reg := registry.Default()
	base := simFixture(t)
	w := [2]sim.Config{base, base}
	w[0].Jobs = randomJobs(11, 20, base.Users)
	w[1].Jobs = randomJobs(12, 20, base.Users)
	for _, n := range reg.Names() {
		var alone [2]*sim.Result
		for i := range w {
			alone[i] = runFresh(t, n, w[i])
		}
		shared := solvers.Config{Options: map[string]any{}}
		l := newLockstep()
		var together [2]*sim.Result
		var errs [2]error
		var wg sync.WaitGroup
		for i := range w {
			p, err := reg.New(n, shared)
			if err != nil {
				t.Fatal(err)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer l.finish(i)
				together[i], errs[i] = sim.Run(w[i], &turnTaker{Policy: p, l: l, me: i})
			}()
		}
		wg.Wait()
		for i := range w {
			if errs[i] != nil {
				t.Fatalf("%s, workload %d: %v", n, i, errs[i])
			}
			if !reflect.DeepEqual(alone[i], together[i]) {
				t.Errorf("%s: workload %d gives another result beside a second instance than alone", n, i)
			}
		}
	}
}
