package gavel_test

import (
	"fmt"
	"math"
	"sort"
	"testing"
	"time"

	"fairbench/solvers/internal/policytest"

	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/gavel"
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
// means the matrix has no figure there.
var rates = map[string]map[string]float64{
	"fast":   {"V100": 4, "P100": 2, "K80": 1},   // gains most from a V100
	"mid":    {"V100": 2, "P100": 1.5, "K80": 1}, // gains less
	"flat":   {"V100": 1, "P100": 1, "K80": 1},   // the same everywhere
	"recsys": {"V100": 1, "P100": 2, "K80": 1},   // P100 fastest (cf. Gavel's Recommendation)
	"k80":    {"K80": 1},                         // measured on K80 only
	"zero":   {"V100": 0, "P100": 3, "K80": 1},   // measured 0 on V100: cannot run there
}

// pairRates are co-located throughputs [self, other] of job type a beside b
// on a GPU type, for every gang and placement.
var pairRates = map[[3]string][2]float64{
	{"flat", "flat", "V100"}: {0.6, 0.6}, // 1.2 together: pairs pay
	{"fast", "flat", "V100"}: {3, 0.5},   // 0.75 + 0.5 = 1.25: pays
	{"flat", "fast", "V100"}: {0.5, 3},
	{"mid", "flat", "V100"}:  {0.8, 0.1}, // 0.4 + 0.1 = 0.5: dominated, never used
	{"flat", "mid", "V100"}:  {0.1, 0.8},
}

func cluster(t testing.TB, servers ...models.Server) *models.Cluster {
	t.Helper()
	c, err := models.NewCluster(gpuTypes, servers)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// matrix holds rates and pairRates for gangs 1–16, consolidated and spread
// alike.
func matrix(t testing.TB) *models.Matrix {
	t.Helper()
	m := policytest.MatrixOf(t, rates)
	for k, v := range pairRates {
		for gang := 1; gang <= 16; gang++ {
			for _, p := range []models.Placement{models.Consolidated, models.Spread} {
				if err := m.SetPair(models.PairKey{Key: models.Key{Job: k[0], GPU: k[2], Gang: gang, Placement: p}, Other: k[1]}, v[0], v[1]); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return m
}

func sec(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// job is a job of user "u" that arrived at arrival seconds and has not run.
func job(id int, arrival float64, typ string, gang int, steps float64) models.JobState {
	return models.JobState{Job: models.Job{ID: models.JobID(id), User: "u", Type: typ, Gang: gang, Steps: steps,
		Arrival: sec(arrival)}, FirstRun: -1}
}

func owner(j models.JobState, user string) models.JobState { j.User = user; return j }

func weighted(j models.JobState, w float64) models.JobState { j.Priority = w; return j }

func done(j models.JobState, steps float64) models.JobState { j.Done = steps; return j }

// snap builds a snapshot at now seconds on the given servers.
func snap(t testing.TB, now float64, users []models.User, servers []models.Server, jobs ...models.JobState) *models.Snapshot {
	t.Helper()
	if users == nil {
		users = []models.User{{Name: "u", Weight: 1}}
	}
	return &models.Snapshot{Now: sec(now), RoundLength: 360 * time.Second, Environment: models.Environment{Cluster: cluster(t, servers...), Matrix: matrix(t), JobTypes: map[string]models.JobType{}},
		Users: users, Jobs: jobs}
}

// objective is what every Gavel policy reports about its last decision.
type objective interface {
	solvers.Policy
	Objective() float64
}

// build makes the named Gavel policy with the given options.
func build(t testing.TB, name string, opts map[string]any) objective {
	t.Helper()
	for _, e := range gavel.Entries() {
		if e.Name == name {
			p, err := e.New(solvers.Config{Options: opts})
			if err != nil {
				t.Fatal(err)
			}
			return p.(objective)
		}
	}
	t.Fatalf("no Gavel policy %q", name)
	return nil
}

// allocate runs p on s and checks what every Gavel allocation must satisfy:
// fractional, feasible (models.Feasible), and no time where the job cannot
// run.
func allocate(t testing.TB, p solvers.Policy, s *models.Snapshot) models.Allocation {
	t.Helper()
	a, err := p.Allocate(s)
	if err != nil {
		t.Fatalf("%s: %v", p.Name(), err)
	}
	check(t, p.Name(), s, a)
	return a
}

func check(t testing.TB, name string, s *models.Snapshot, a models.Allocation) {
	t.Helper()
	if len(a.Run) != 0 {
		t.Fatalf("%s returned placements %v", name, a.Run)
	}
	if err := models.Feasible(s, a); err != nil {
		t.Fatalf("%s: infeasible allocation: %v\n%v", name, err, a)
	}
	for id, xs := range a.Fractions {
		j, _ := s.Job(id)
		for g, x := range xs {
			if x <= 0 || s.Throughput(&j.Job, g) <= 0 {
				t.Fatalf("%s: job %d (%s) gets x = %v on %s, where its throughput is %v", name, id, j.Type, x, g, s.Throughput(&j.Job, g))
			}
		}
	}
	for _, sf := range a.Shared {
		for _, id := range sf.Jobs {
			j, _ := s.Job(id)
			if sf.X <= 0 || s.Throughput(&j.Job, sf.Type) <= 0 {
				t.Fatalf("%s: pair %v gets x = %v on %s, where job %d cannot run", name, sf.Jobs, sf.X, sf.Type, id)
			}
		}
	}
}

// share is job id's total time share on type g, alone and in pairs.
func share(a models.Allocation, id models.JobID, g string) float64 {
	x := a.Fractions[id][g]
	for _, sf := range a.Shared {
		if sf.Type == g && (sf.Jobs[0] == id || sf.Jobs[1] == id) {
			x += sf.X
		}
	}
	return x
}

// near reports whether got is within tol of want, relative to max(1, |want|).
func near(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}

// wantShares compares the fractions with want, type by type, within tol.
func wantShares(t testing.TB, a models.Allocation, want map[models.JobID]map[string]float64, tol float64) {
	t.Helper()
	ids := map[models.JobID]bool{}
	for id := range want {
		ids[id] = true
	}
	for id := range a.Fractions {
		ids[id] = true
	}
	var keys []int
	for id := range ids {
		keys = append(keys, int(id))
	}
	sort.Ints(keys)
	for _, k := range keys {
		id := models.JobID(k)
		for _, g := range []string{"V100", "P100", "K80"} {
			if got, w := a.Fractions[id][g], want[id][g]; !near(got, w, tol) {
				t.Errorf("job %d on %s: x = %.9g, want %.9g (all: %v)", id, g, got, w, fmt.Sprint(a.Fractions))
			}
		}
	}
}
