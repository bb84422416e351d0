package fifo_test

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
// job types whose throughput is the same at every gang size and placement,
// so that the hand arithmetic stays simple.
var gpuTypes = []models.GPUType{
	{Name: "V100", MemoryGB: 32, Rank: 3},
	{Name: "P100", MemoryGB: 16, Rank: 2},
	{Name: "K80", MemoryGB: 12, Rank: 1},
}

// rates are steps per second per job type and GPU type; a missing entry
// means the job type cannot run there.
var rates = map[string]map[string]float64{
	"resnet": {"V100": 3, "P100": 2, "K80": 1}, // V100 fastest
	"unit":   {"V100": 1, "P100": 1, "K80": 1}, // the same everywhere
	"recsys": {"V100": 1, "P100": 2, "K80": 1}, // P100 fastest (cf. Gavel's Recommendation)
	"k80":    {"K80": 1},                       // runs only on K80
}

// snap builds a snapshot at now on a cluster of the given servers.
func snap(t *testing.T, now time.Duration, users []models.User, servers []models.Server, jobs ...models.JobState) *models.Snapshot {
	t.Helper()
	if users == nil {
		users = []models.User{{Name: "u", Weight: 1}}
	}
	return &models.Snapshot{Now: now, RoundLength: 360 * time.Second, Cluster: cluster(t, servers), Users: users,
		Jobs: jobs, Matrix: matrix(t), JobTypes: map[string]models.JobType{}}
}

func cluster(t *testing.T, servers []models.Server) *models.Cluster {
	t.Helper()
	c, err := models.NewCluster(gpuTypes, servers)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// matrix holds rates for gangs 1–16, consolidated and spread alike.
func matrix(t *testing.T) *models.Matrix {
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

func sec(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// job is a waiting job that has never run.
func job(id int, arrival float64, typ string, gang int, steps float64) models.JobState {
	return models.JobState{Job: models.Job{ID: models.JobID(id), User: "u", Type: typ, Gang: gang, Steps: steps,
		Arrival: sec(arrival)}, FirstRun: -1}
}

// running marks j as running on gpu since its first start at first, having
// run executed seconds and done its steps at the given rate.
func running(j models.JobState, gpu string, first, executed, done float64) models.JobState {
	j = ran(j, first, executed, done)
	j.LastType = gpu
	j.LastGPUs = make([]int, j.Gang)
	return j
}

// ran marks j as having run executed seconds since first, now waiting.
func ran(j models.JobState, first, executed, done float64) models.JobState {
	j.FirstRun = sec(first)
	j.Executed = sec(executed)
	j.Attained = sec(executed) * time.Duration(j.Gang)
	j.Done = done
	return j
}

func owner(j models.JobState, user string) models.JobState { j.User = user; return j }

// ids lists the assignments as "id/type".
func ids(a models.Allocation) []string {
	var out []string
	for _, x := range a.Run {
		out = append(out, fmt.Sprintf("%d/%s", x.Job, x.Type))
	}
	return out
}

// simulate runs jobs (zero restore cost: the job types have no state size)
// under p with 360 s rounds and returns the results by job ID.
func simulate(t *testing.T, p solvers.Policy, servers []models.Server, users []models.User, jobs ...models.Job) (map[models.JobID]sim.JobResult, *sim.Result) {
	t.Helper()
	if users == nil {
		users = []models.User{{Name: "u", Weight: 1}}
	}
	r, err := sim.Run(sim.Config{Cluster: cluster(t, servers), Users: users, Jobs: jobs, Matrix: matrix(t),
		Round: 360 * time.Second}, p)
	if err != nil {
		t.Fatal(err)
	}
	out := map[models.JobID]sim.JobResult{}
	for _, j := range r.Jobs {
		out[j.ID] = j
	}
	return out, r
}

// wantJCT compares JCTs in seconds to the nanosecond the simulator rounds to.
func wantJCT(t *testing.T, got map[models.JobID]sim.JobResult, want map[models.JobID]float64) {
	t.Helper()
	for id, w := range want {
		if g := got[id].JCT; math.Abs(g-w) > 1e-6 {
			t.Errorf("job %d: JCT %v s, want %v s", id, g, w)
		}
	}
}
