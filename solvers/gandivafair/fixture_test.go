package gandivafair_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"fairbench/solvers/internal/policytest"

	"fairbench/models"
	"fairbench/sim"
	"fairbench/solvers"
	"fairbench/solvers/gandivafair"
)

// The fixture: GPU types V100 (rank 3), P100 (rank 2) and K80 (rank 1), and
// job types whose throughput is the same at every gang size and placement,
// so that the hand arithmetic stays simple.
var gpuTypes = []models.GPUType{
	{Name: "V100", MemoryGB: 32, Rank: 3},
	{Name: "P100", MemoryGB: 16, Rank: 2},
	{Name: "K80", MemoryGB: 12, Rank: 1},
}

// rates are steps per second per job type and GPU type. With K80 at 1 step/s
// a user's steps per second are its throughput in K80 equivalents.
var rates = map[string]map[string]float64{
	"unit": {"V100": 1, "P100": 1, "K80": 1},     // the same everywhere
	"r4":   {"V100": 4, "P100": 2, "K80": 1},     // V100/K80 speedup 4
	"r2":   {"V100": 2, "P100": 1.5, "K80": 1},   // 2
	"r15":  {"V100": 1.5, "P100": 1.2, "K80": 1}, // 1.5
	"r125": {"V100": 1.25, "P100": 1.1, "K80": 1},
	"p100": {"V100": 1, "P100": 2, "K80": 1}, // fastest on P100 (cf. Gavel's Recommendation)
}

func cluster(t testing.TB, servers ...models.Server) *models.Cluster {
	t.Helper()
	c, err := models.NewCluster(gpuTypes, servers)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// matrix holds rates for gangs 1–16, consolidated and spread alike.
func matrix(t testing.TB) *models.Matrix {
	t.Helper()
	return policytest.MatrixOf(t, rates)
}

func sec(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func users(names ...string) []models.User {
	var out []models.User
	for _, n := range names {
		out = append(out, models.User{Name: n, Weight: 1})
	}
	return out
}

// job is a waiting job that has never run.
func job(id int, user, typ string, gang int) models.JobState {
	return models.JobState{Job: models.Job{ID: models.JobID(id), User: user, Type: typ, Gang: gang, Steps: 1e12},
		FirstRun: -1}
}

func newGF(t testing.TB, opts map[string]any) *gandivafair.GandivaFair {
	t.Helper()
	p, err := gandivafair.New(solvers.Config{Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	return p.(*gandivafair.GandivaFair)
}

func newNoTrade(t testing.TB, opts map[string]any) *gandivafair.GandivaFair {
	t.Helper()
	p, err := gandivafair.NewNoTrade(solvers.Config{Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	return p.(*gandivafair.GandivaFair)
}

// round is the fixture's round length.
const round = 360 * time.Second

// driver feeds a policy snapshots the way the simulator does: what an
// allocation runs holds its GPUs (LastType, LastGPUs) until the next
// decision, and Received grows by the time run. Jobs never finish unless a
// test removes them.
type driver struct {
	t     testing.TB
	p     solvers.Policy
	c     *models.Cluster
	m     *models.Matrix
	users []models.User
	jobs  []models.JobState
	last  time.Duration
	began bool
}

func newDriver(t testing.TB, p solvers.Policy, us []models.User, servers ...models.Server) *driver {
	return &driver{t: t, p: p, c: cluster(t, servers...), m: matrix(t), users: us}
}

func (d *driver) add(js ...models.JobState) {
	for _, j := range js {
		j.Received = nil
		d.jobs = append(d.jobs, j)
	}
}

func (d *driver) remove(ids ...int) {
	d.jobs = slices.DeleteFunc(d.jobs, func(j models.JobState) bool { return slices.Contains(ids, int(j.ID)) })
}

// decide asks for a decision at now (seconds) and applies it; at a whole
// number of rounds the trigger is a round start, else an arrival.
func (d *driver) decide(now float64) models.Allocation {
	d.t.Helper()
	t := sec(now)
	for i := range d.jobs {
		j := &d.jobs[i]
		if j.Running() && d.began {
			j.Received = j.Received.Add(j.LastType, t-d.last)
			j.Executed += t - d.last
			j.Attained += time.Duration(j.Gang) * (t - d.last)
		}
	}
	trig := models.AtArrival
	if t%round == 0 {
		trig = models.AtRound
	}
	s := &models.Snapshot{Now: t, Round: int(t / round), RoundLength: round, Trigger: trig, Environment: models.Environment{Cluster: d.c, Matrix: d.m, JobTypes: map[string]models.JobType{}},
		Users: d.users, Jobs: d.jobs}
	a, err := d.p.Allocate(s)
	if err != nil {
		d.t.Fatal(err)
	}
	if gf, ok := d.p.(*gandivafair.GandivaFair); ok {
		if err := gf.CheckBookkeeping(s); err != nil {
			d.t.Fatalf("t=%v: %v", now, err)
		}
	}
	if err := models.Feasible(s, a); err != nil {
		d.t.Fatalf("t=%v: %v", now, err)
	}
	for _, as := range a.Run {
		if len(as.GPUs) == 0 {
			d.t.Fatalf("t=%v: job %d assigned without GPUs", now, as.Job)
		}
	}
	byID := map[models.JobID]models.Assignment{}
	for _, as := range a.Run {
		byID[as.Job] = as
	}
	for i := range d.jobs {
		j := &d.jobs[i]
		as, ok := byID[j.ID]
		if !ok {
			j.LastType, j.LastGPUs = "", nil
			continue
		}
		if j.FirstRun < 0 {
			j.FirstRun = t
		}
		j.LastType, j.LastGPUs = as.Type, slices.Clone(as.GPUs)
	}
	d.last, d.began = t, true
	return a
}

// quantum decides at the start of round k.
func (d *driver) quantum(k int) models.Allocation {
	d.t.Helper()
	return d.decide(float64(k) * round.Seconds())
}

// running lists the jobs holding GPUs as "id@type[gpus]" in job order.
func (d *driver) running() []string {
	var out []string
	for _, j := range d.jobs {
		if j.Running() {
			out = append(out, fmt.Sprintf("%d@%s%v", j.ID, j.LastType, j.LastGPUs))
		}
	}
	return out
}

// runIDs lists the IDs of the running jobs in job order.
func (d *driver) runIDs() []int {
	var out []int
	for _, j := range d.jobs {
		if j.Running() {
			out = append(out, int(j.ID))
		}
	}
	return out
}

// simulate runs jobs through the simulator (no restore cost: the job types
// have no state size) with 360 s rounds.
func simulate(t testing.TB, p solvers.Policy, c *models.Cluster, us []models.User, onEvent func(sim.Event), jobs ...models.Job) *sim.Result {
	t.Helper()
	r, err := sim.Run(sim.Config{Environment: models.Environment{Cluster: c, Matrix: matrix(t)}, Users: us, Jobs: jobs, Round: round, OnEvent: onEvent}, p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
