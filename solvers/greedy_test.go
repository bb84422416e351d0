package solvers_test

import (
	"fmt"
	"testing"
	"time"

	"fairbench/models"
	"fairbench/solvers"
	"reflect"
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
	c, err := models.NewCluster(gpuTypes, servers)
	if err != nil {
		t.Fatal(err)
	}
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
	if users == nil {
		users = []models.User{{Name: "u", Weight: 1}}
	}
	return &models.Snapshot{Now: now, RoundLength: 360 * time.Second, Cluster: c, Users: users, Jobs: jobs, Matrix: m,
		JobTypes: map[string]models.JobType{}}
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

// ids lists the assignments as "id/type".
func ids(a models.Allocation) []string {
	var out []string
	for _, x := range a.Run {
		out = append(out, fmt.Sprintf("%d/%s", x.Job, x.Type))
	}
	return out
}

func TestFastest(t *testing.T) {
	t.Parallel()
	servers := []models.Server{{Type: "V100", GPUs: 4}, {Type: "P100", GPUs: 4}, {Type: "K80", GPUs: 4}}
	tests := []struct {
		name string
		j    models.JobState
		free map[string]int
		want string // "" for none
	}{
		// resnet: 3 / 2 / 1 steps/s on V100 / P100 / K80.
		{"fastest has room", job(1, 0, "resnet", 2, 10), map[string]int{"V100": 2, "P100": 4, "K80": 4}, "V100"},
		{"fastest too full", job(1, 0, "resnet", 2, 10), map[string]int{"V100": 1, "P100": 2, "K80": 4}, "P100"},
		{"only slowest has room", job(1, 0, "resnet", 4, 10), map[string]int{"V100": 3, "P100": 3, "K80": 4}, "K80"},
		{"no room anywhere", job(1, 0, "resnet", 4, 10), map[string]int{"V100": 3, "P100": 3, "K80": 3}, ""},
		// recsys is fastest on P100 (2 steps/s), not on the newest type.
		{"not monotonic in rank", job(1, 0, "recsys", 1, 10), map[string]int{"V100": 4, "P100": 4, "K80": 4}, "P100"},
		// unit runs at 1 step/s everywhere: ties go to TypeNames order, V100 first.
		{"tie by type order", job(1, 0, "unit", 1, 10), map[string]int{"V100": 4, "P100": 4, "K80": 4}, "V100"},
		{"tie, first full", job(1, 0, "unit", 1, 10), map[string]int{"V100": 0, "P100": 4, "K80": 4}, "P100"},
		// k80 runs only on K80, even with the others free.
		{"cannot run elsewhere", job(1, 0, "k80", 1, 10), map[string]int{"V100": 4, "P100": 4, "K80": 0}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := snap(t, 0, nil, servers, tc.j)
			got, ok := solvers.Fastest(s, &s.Jobs[0], tc.free)
			if ok != (tc.want != "") || got != tc.want {
				t.Fatalf("Fastest = %q, %v; want %q", got, ok, tc.want)
			}
		})
	}
}

func TestStayOrFastest(t *testing.T) {
	t.Parallel()
	servers := []models.Server{{Type: "V100", GPUs: 4}, {Type: "K80", GPUs: 4}}
	tests := []struct {
		name string
		j    models.JobState
		free map[string]int
		want string
	}{
		{"running keeps its slow type", running(job(1, 0, "resnet", 2, 100), "K80", 0, 10, 10), map[string]int{"V100": 4, "K80": 4}, "K80"},
		{"running, own type full, moves", running(job(1, 0, "resnet", 2, 100), "K80", 0, 10, 10), map[string]int{"V100": 4, "K80": 1}, "V100"},
		{"waiting job goes fastest", ran(job(1, 0, "resnet", 2, 100), 0, 10, 10), map[string]int{"V100": 4, "K80": 4}, "V100"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := snap(t, 0, nil, servers, tc.j)
			got, ok := solvers.StayOrFastest(s, &s.Jobs[0], tc.free)
			if !ok || got != tc.want {
				t.Fatalf("StayOrFastest = %q, %v; want %q", got, ok, tc.want)
			}
		})
	}
}

func TestPack(t *testing.T) {
	t.Parallel()
	// 4 V100 + 2 K80; resnet prefers V100.
	servers := []models.Server{{Type: "V100", GPUs: 4}, {Type: "K80", GPUs: 2}}
	jobs := []models.JobState{
		job(1, 0, "resnet", 2, 10), // V100: 4 → 2 free
		job(2, 1, "resnet", 4, 10), // V100 2 < 4, K80 2 < 4: does not fit
		job(3, 2, "resnet", 2, 10), // V100: 2 → 0
		job(4, 3, "resnet", 2, 10), // K80: 2 → 0
		job(5, 4, "resnet", 1, 10), // nothing left
	}
	tests := []struct {
		strict bool
		want   []string
	}{
		{true, []string{"1/V100"}},                     // job 2 blocks the rest
		{false, []string{"1/V100", "3/V100", "4/K80"}}, // job 2 and 5 skipped
	}
	for _, tc := range tests {
		s := snap(t, 0, nil, servers, jobs...)
		order := make([]*models.JobState, len(s.Jobs))
		for i := range s.Jobs {
			order[i] = &s.Jobs[i]
		}
		a := models.Allocation{Run: solvers.Pack(s, order, solvers.Fastest, tc.strict)}
		if got := ids(a); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("strict=%v: Pack = %v, want %v", tc.strict, got, tc.want)
		}
		if err := models.Feasible(s, a); err != nil {
			t.Errorf("strict=%v: %v", tc.strict, err)
		}
	}
}

func TestPackStrictSkipsUnrunnable(t *testing.T) {
	t.Parallel()
	// Job 1 (k80) cannot run on a V100-only cluster: it never blocks job 2.
	s := snap(t, 0, nil, []models.Server{{Type: "V100", GPUs: 2}}, job(1, 0, "k80", 1, 10), job(2, 1, "resnet", 1, 10))
	order := []*models.JobState{&s.Jobs[0], &s.Jobs[1]}
	got := ids(models.Allocation{Run: solvers.Pack(s, order, solvers.Fastest, true)})
	if want := []string{"2/V100"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Pack = %v, want %v", got, want)
	}
}

func TestPackerFree(t *testing.T) {
	t.Parallel()
	s := snap(t, 0, nil, []models.Server{{Type: "V100", GPUs: 4}, {Type: "V100", GPUs: 4}}, job(1, 0, "resnet", 3, 10))
	p := solvers.NewPacker(s)
	if p.Free("V100") != 8 {
		t.Fatalf("Free = %d, want 8", p.Free("V100"))
	}
	if !p.Place(&s.Jobs[0], solvers.Fastest) || p.Free("V100") != 5 {
		t.Fatalf("after placing a gang of 3: Free = %d, want 5", p.Free("V100"))
	}
	// A chooser that names a type without room is not trusted.
	full := func(*models.Snapshot, *models.JobState, map[string]int) (string, bool) { return "K80", true }
	if p.Place(&s.Jobs[0], full) {
		t.Fatal("placed on a type the cluster does not have")
	}
}
