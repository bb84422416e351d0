package sjfbsbf_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"fairbench/models"
	"fairbench/sim"
	"fairbench/solvers"
	"fairbench/solvers/sjfbsbf"
)

// The fixture: one GPU type, V100 with 16 GB, and job types whose
// throughput is the same at every gang and placement.
var gpuTypes = []models.GPUType{{Name: "V100", MemoryGB: 16, Rank: 3}, {Name: "K80", MemoryGB: 12, Rank: 1}}

// rates are steps per second on the V100 (K80: half).
var rates = map[string]float64{
	"short": 1, "long": 1, "hog": 1, "big": 1, "plain": 1,
	// Model R at three batch sizes: the batch-size curve for accumulation.
	"R64": 4, "R32": 7, "R16": 12,
}

// jobTypes give the memory figures the accumulation tests use: R64 needs
// 9 GB of which 3 are fixed (R64 with k-step accumulation: 3 + 6/k GB); big
// needs 10 GB.
var jobTypes = map[string]models.JobType{
	"R64": {Name: "R64", Model: "R", BatchSize: 64, MemoryGB: 9, FixedMemoryGB: 3},
	"R32": {Name: "R32", Model: "R", BatchSize: 32, MemoryGB: 6, FixedMemoryGB: 3},
	"R16": {Name: "R16", Model: "R", BatchSize: 16, MemoryGB: 4.5, FixedMemoryGB: 3},
	"big": {Name: "big", Model: "big", MemoryGB: 10},
}

// pairs are [self, other] co-located throughputs on one V100 (gang 1; plain
// has none, so the default ξ = 2 applies to it):
// short and long slow each other by ξ = 1.25; hog slows everything (and is
// slowed) by ξ = 4; R64 beside big runs at 2 (ξ = 4/2 = 2), big beside it
// at 0.8 (ξ = 1.25).
var pairs = map[[2]string][2]float64{
	{"short", "long"}:  {0.8, 0.8},
	{"short", "short"}: {0.8, 0.8},
	{"long", "long"}:   {0.8, 0.8},
	{"short", "hog"}:   {0.25, 0.25},
	{"long", "hog"}:    {0.25, 0.25},
	{"R64", "big"}:     {2, 0.8},
}

func matrix(t testing.TB) *models.Matrix {
	t.Helper()
	m := models.NewMatrix()
	for jt, r := range rates {
		for gang := 1; gang <= 16; gang++ {
			for _, p := range []models.Placement{models.Consolidated, models.Spread} {
				if err := m.Set(models.Key{Job: jt, GPU: "V100", Gang: gang, Placement: p}, r, "test fixture"); err != nil {
					t.Fatal(err)
				}
				if err := m.Set(models.Key{Job: jt, GPU: "K80", Gang: gang, Placement: p}, r/2, "test fixture"); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for k, p := range pairs {
		for _, dir := range [][2]int{{0, 1}, {1, 0}} {
			key := models.PairKey{Key: models.Key{Job: k[dir[0]], GPU: "V100", Gang: 1}, Other: k[dir[1]]}
			if err := m.SetPair(key, p[dir[0]], p[dir[1]]); err != nil {
				t.Fatal(err)
			}
		}
	}
	return m
}

func cluster(t testing.TB, servers ...models.Server) *models.Cluster {
	t.Helper()
	c, err := models.NewCluster(gpuTypes, servers)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func sec(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// job is a waiting job that has never run.
func job(id int, arrival float64, typ string, gang int, steps float64) models.JobState {
	return models.JobState{Job: models.Job{ID: models.JobID(id), User: "u", Type: typ, Gang: gang, Steps: steps,
		Arrival: sec(arrival)}, FirstRun: -1}
}

// running marks j as running on gpus (V100) having done done steps.
func running(j models.JobState, done float64, gpus ...int) models.JobState {
	j.FirstRun, j.Done = 0, done
	j.LastType, j.LastGPUs = "V100", gpus
	return j
}

func snap(t testing.TB, c *models.Cluster, jobs ...models.JobState) *models.Snapshot {
	t.Helper()
	return &models.Snapshot{Cluster: c, Users: []models.User{{Name: "u", Weight: 1}}, Jobs: jobs,
		Matrix: matrix(t), JobTypes: jobTypes, RoundLength: 360 * time.Second}
}

func build(t testing.TB, f solvers.Factory) solvers.Policy {
	t.Helper()
	p, err := f(solvers.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// variants are the four policies.
var variants = []struct {
	name string
	f    solvers.Factory
}{
	{sjfbsbf.Name, sjfbsbf.New}, {sjfbsbf.ConsolidatedName, sjfbsbf.NewConsolidated},
	{sjfbsbf.FFSName, sjfbsbf.NewFFS}, {sjfbsbf.FFSConsolidatedName, sjfbsbf.NewFFSConsolidated},
}

// gpusPairing builds f's policy with pairing: gpus (the original specification's reading:
// a gang made GPU by GPU of idle GPUs and GPUs of running jobs of any gang).
func gpusPairing(f solvers.Factory) solvers.Factory {
	return func(c solvers.Config) (solvers.Policy, error) {
		return f(solvers.Config{Options: map[string]any{"pairing": "gpus"}, Rand: c.Rand})
	}
}

// allocate runs one decision, checks it with models.Feasible, and returns
// the started jobs as "id:gpus[/k]" (running jobs are checked to be re-listed
// unchanged and left out).
func allocate(t *testing.T, f solvers.Factory, s *models.Snapshot) []string {
	t.Helper()
	a, err := build(t, f).Allocate(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := models.Feasible(s, a); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, as := range a.Run {
		j, _ := s.Job(as.Job)
		if j.Running() {
			if fmt.Sprint(as.GPUs) != fmt.Sprint(j.LastGPUs) || as.Type != j.LastType || as.Accum != j.LastAccum {
				t.Errorf("running job %d re-listed as %+v", j.ID, as)
			}
			continue
		}
		s := fmt.Sprintf("%d:%v", as.Job, as.GPUs)
		if as.Accum > 1 {
			s += fmt.Sprintf("/%d", as.Accum)
		}
		out = append(out, s)
	}
	return out
}

// simulate runs jobs under p and returns the JCTs by job ID.
func simulate(t testing.TB, p solvers.Policy, c *models.Cluster, jobs ...models.JobState) (map[models.JobID]float64, *sim.Result) {
	t.Helper()
	var js []models.Job
	for _, j := range jobs {
		js = append(js, j.Job)
	}
	r, err := sim.Run(sim.Config{Cluster: c, Users: []models.User{{Name: "u", Weight: 1}}, Jobs: js,
		Matrix: matrix(t), JobTypes: jobTypes}, p)
	if err != nil {
		t.Fatal(err)
	}
	out := map[models.JobID]float64{}
	for _, j := range r.Jobs {
		out[j.ID] = j.JCT
	}
	return out, r
}

func wantJCT(t *testing.T, got map[models.JobID]float64, want map[models.JobID]float64) {
	t.Helper()
	for id, w := range want {
		if g := got[id]; math.Abs(g-w) > 1e-6 {
			t.Errorf("job %d: JCT %v s, want %v s", id, g, w)
		}
	}
}
