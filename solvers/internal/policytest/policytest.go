// Package policytest is the small heterogeneous test fixture the policy
// packages share in their tests: three GPU types, a few Job types with
// throughputs chosen for easy arithmetic, and helpers to build snapshots,
// jobs and end-to-end runs.
package policytest

import (
	"fmt"
	"math"
	"testing"
	"time"

	"fairbench/models"
	"fairbench/sim"
	"fairbench/solvers"
)

// The fixture: GPU types V100 (rank 3), P100 (rank 2) and K80 (rank 1), and
// Job types whose throughput is the same at every gang size and placement,
// so that the hand arithmetic stays simple.
var GPUTypes = []models.GPUType{
	{Name: "V100", MemoryGB: 32, Rank: 3},
	{Name: "P100", MemoryGB: 16, Rank: 2},
	{Name: "K80", MemoryGB: 12, Rank: 1},
}

// Rates are steps per second per Job type and GPU type; a missing entry
// means the Job type cannot run there.
var Rates = map[string]map[string]float64{
	"resnet": {"V100": 3, "P100": 2, "K80": 1}, // V100 fastest
	"unit":   {"V100": 1, "P100": 1, "K80": 1}, // the same everywhere
	"recsys": {"V100": 1, "P100": 2, "K80": 1}, // P100 fastest (cf. Gavel's Recommendation)
	"k80":    {"K80": 1},                       // runs only on K80
}

// Snap builds a snapshot at now on a Cluster of the given servers.
func Snap(t testing.TB, now time.Duration, users []models.User, servers []models.Server, jobs ...models.JobState) *models.Snapshot {
	t.Helper()
	if users == nil {
		users = []models.User{{Name: "u", Weight: 1}}
	}
	return &models.Snapshot{Now: now, RoundLength: 360 * time.Second, Environment: models.Environment{Cluster: Cluster(t, servers), Matrix: Matrix(t), JobTypes: map[string]models.JobType{}}, Users: users,
		Jobs: jobs}
}

// Cluster is a cluster of the fixture's GPU types.
func Cluster(t testing.TB, servers []models.Server) *models.Cluster {
	t.Helper()
	c, err := models.NewCluster(GPUTypes, servers)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Matrix holds Rates for gangs 1–16, consolidated and spread alike.
func Matrix(t testing.TB) *models.Matrix { t.Helper(); return MatrixOf(t, Rates) }

// MatrixOf holds rates (steps per second per job type and GPU type) for
// gangs 1–16, consolidated and spread alike: the same figure at every gang
// keeps hand arithmetic simple.
func MatrixOf(t testing.TB, rates map[string]map[string]float64) *models.Matrix {
	t.Helper()
	m := models.NewMatrix()
	for jt, byGPU := range rates {
		for g, r := range byGPU {
			for gang := 1; gang <= 16; gang++ {
				for _, p := range []models.Placement{models.Consolidated, models.Spread} {
					if err := m.Set(models.Key{Job: jt, GPU: g, Gang: gang, Placement: p}, r, "test fixture"); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
	return m
}

func Sec(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// Job is a waiting Job that has never run.
func Job(id int, arrival float64, typ string, gang int, steps float64) models.JobState {
	return models.JobState{Job: models.Job{ID: models.JobID(id), User: "u", Type: typ, Gang: gang, Steps: steps,
		Arrival: Sec(arrival)}, FirstRun: -1}
}

// Running marks j as Running on gpu since its first start at first, having
// run executed seconds and done its steps at the given rate.
func Running(j models.JobState, gpu string, first, executed, done float64) models.JobState {
	j = Ran(j, first, executed, done)
	j.LastType = gpu
	j.LastGPUs = make([]int, j.Gang)
	return j
}

// Ran marks j as having run executed seconds since first, now waiting.
func Ran(j models.JobState, first, executed, done float64) models.JobState {
	j.FirstRun = Sec(first)
	j.Executed = Sec(executed)
	j.Attained = Sec(executed) * time.Duration(j.Gang)
	j.Done = done
	return j
}

func Owner(j models.JobState, user string) models.JobState { j.User = user; return j }

// IDs lists the assignments as "id/type".
func IDs(a models.Allocation) []string {
	var out []string
	for _, x := range a.Run {
		out = append(out, fmt.Sprintf("%d/%s", x.Job, x.Type))
	}
	return out
}

// Simulate runs jobs (zero restore cost: the Job types have no state size)
// under p with 360 s rounds and returns the results by Job ID.
func Simulate(t testing.TB, p solvers.Policy, servers []models.Server, users []models.User, jobs ...models.Job) (map[models.JobID]sim.JobResult, *sim.Result) {
	t.Helper()
	if users == nil {
		users = []models.User{{Name: "u", Weight: 1}}
	}
	r, err := sim.Run(sim.Config{Environment: models.Environment{Cluster: Cluster(t, servers), Matrix: Matrix(t)}, Users: users, Jobs: jobs, Round: 360 * time.Second}, p)
	if err != nil {
		t.Fatal(err)
	}
	out := map[models.JobID]sim.JobResult{}
	for _, j := range r.Jobs {
		out[j.ID] = j
	}
	return out, r
}

// WantJCT compares JCTs in seconds to the nanosecond the simulator rounds to.
func WantJCT(t testing.TB, got map[models.JobID]sim.JobResult, want map[models.JobID]float64) {
	t.Helper()
	for id, w := range want {
		if g := got[id].JCT; math.Abs(g-w) > 1e-6 {
			t.Errorf("Job %d: JCT %v s, want %v s", id, g, w)
		}
	}
}
