package scenarios

import (
	"math"
	"reflect"
	"testing"
	"time"

	"fairbench/models"
)

const phillyScenario = `cluster:
  servers:
    - {type: V100, count: 2, gpus_per_server: 4}
    - {type: P100, count: 2, gpus_per_server: 4}
    - {type: K80, count: 2, gpus_per_server: 4}
user_count: 3
workload:
  jobs: 200
  arrival_rate_per_hour: 2
`

func TestPhillyDeterministic(t *testing.T) {
	t.Parallel()
	g := parse(t, phillyScenario, "p.yaml")
	r := g.Runs[0]
	a, b := build(t, r), build(t, r)
	if !reflect.DeepEqual(a.Jobs, b.Jobs) {
		t.Fatalf("the same seed gave different jobs")
	}
	other, err := r.Spec.Build(1)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(a.Jobs, other.Jobs) {
		t.Errorf("seeds 0 and 1 gave the same jobs")
	}
	for i, j := range a.Jobs {
		if j.ID != models.JobID(i) || (i > 0 && j.Arrival < a.Jobs[i-1].Arrival) {
			t.Fatalf("job %d: ID %d, arrival %v after %v", i, j.ID, j.Arrival, a.Jobs[i-1].Arrival)
		}
		if want := []string{"u0", "u1", "u2"}[i%3]; j.User != want {
			t.Errorf("job %d: user %s, want %s (round robin)", i, j.User, want)
		}
		if !a.runsSomewhere(j) {
			t.Errorf("job %d (%s, gang %d) cannot run on the cluster", i, j.Type, j.Gang)
		}
		if j.Arrival%time.Millisecond != 0 {
			t.Errorf("job %d: arrival %v not whole milliseconds", i, j.Arrival)
		}
	}
}

func (w *Workload) runsSomewhere(j models.Job) bool {
	for _, g := range w.Cluster.TypeNames() {
		if models.ThroughputOn(w.Cluster, w.Matrix, w.JobTypes, &j, g) > 0 {
			return true
		}
	}
	return false
}

// TestPhillyStreamsIndependent: each quantity has its own stream, so
// changing the arrival rate changes only the arrivals.
func TestPhillyStreamsIndependent(t *testing.T) {
	t.Parallel()
	a := build(t, parse(t, phillyScenario, "p.yaml").Runs[0])
	b := build(t, parse(t, phillyScenario+"  user_assignment: uniform\n", "p.yaml").Runs[0])
	spec := parse(t, phillyScenario, "p.yaml").Runs[0].Spec
	spec.Workload.ArrivalRatePerHour = 0
	c, err := spec.Build(0)
	if err != nil {
		t.Fatal(err)
	}
	sameUsers, sameArrivals := true, true
	for i := range a.Jobs {
		ja, jb, jc := a.Jobs[i], b.Jobs[i], c.Jobs[i]
		if ja.Type != jc.Type || ja.Gang != jc.Gang || ja.Steps != jc.Steps || ja.User != jc.User {
			t.Fatalf("job %d changed with the arrival rate: %+v vs %+v", i, ja, jc)
		}
		if jc.Arrival != 0 {
			t.Fatalf("job %d: arrival %v with rate 0", i, jc.Arrival)
		}
		if ja.Type != jb.Type || ja.Gang != jb.Gang || ja.Steps != jb.Steps {
			t.Fatalf("job %d changed with the user assignment", i)
		}
		sameUsers = sameUsers && ja.User == jb.User
		sameArrivals = sameArrivals && ja.Arrival == jb.Arrival
	}
	if sameUsers || !sameArrivals {
		t.Errorf("uniform assignment: users unchanged %v, arrivals unchanged %v", sameUsers, sameArrivals)
	}
}

// TestPhillyDistribution checks 20,000 jobs against Gavel's distribution:
// gang sizes within ±0.02 of 0.7/0.1/0.15/0.05, the long-job fraction within
// 0.2 ± 0.02, durations inside [60·10^1.5, 60·10^4] s, and the mean
// inter-arrival time within 3% of 3600/λ (its standard error is 0.7%).
func TestPhillyDistribution(t *testing.T) {
	t.Parallel()
	const n, lambda = 20000, 6.0
	g := parse(t, `cluster:
  servers:
    - {type: V100, count: 2, gpus_per_server: 4}
    - {type: P100, count: 2, gpus_per_server: 4}
    - {type: K80, count: 2, gpus_per_server: 4}
workload:
  jobs: 20000
  arrival_rate_per_hour: 6
`, "p.yaml")
	w := build(t, g.Runs[0])
	gangs := map[int]int{}
	long := 0
	types := map[string]int{}
	for _, j := range w.Jobs {
		gangs[j.Gang]++
		types[j.Type]++
		// Steps = round(duration × T on the fastest type) in this cluster.
		best := 0.0
		for _, gt := range w.Cluster.TypeNames() {
			best = math.Max(best, models.ThroughputOn(w.Cluster, w.Matrix, w.JobTypes, &j, gt))
		}
		d := j.Steps / best
		if d < 60*math.Pow(10, 1.5)-1 || d > 60*1e4+1 {
			t.Fatalf("job %d: duration %.0f s out of range", j.ID, d)
		}
		if d >= 60*1e3 {
			long++
		}
		if j.Gang > 1 && (j.Type == a3c || j.Type == big) {
			t.Errorf("job %d: %s drawn at gang %d, where it cannot run", j.ID, j.Type, j.Gang)
		}
	}
	for size, p := range map[int]float64{1: 0.7, 2: 0.1, 4: 0.15, 8: 0.05} {
		if f := float64(gangs[size]) / n; math.Abs(f-p) > 0.02 {
			t.Errorf("gang %d: frequency %.4f, want %.2f ± 0.02", size, f, p)
		}
	}
	if f := float64(long) / n; math.Abs(f-0.2) > 0.02 {
		t.Errorf("long jobs: fraction %.4f, want 0.2 ± 0.02", f)
	}
	mean := w.Jobs[n-1].Arrival.Seconds() / n
	if want := 3600 / lambda; math.Abs(mean/want-1) > 0.03 {
		t.Errorf("mean inter-arrival %.1f s, want %.1f ± 3%%", mean, want)
	}
	// By default only the types that run on every GPU type of the cluster
	// are drawn: not Transformer (0 on K80) nor Big (too big for K80).
	// A3C runs at gang 1 only, so it is drawn for about half of the gang-1
	// jobs: 0.7·n/2.
	if len(types) != 2 || math.Abs(float64(types[a3c])/n-0.35) > 0.02 {
		t.Errorf("job types drawn: %v", types)
	}
}

// TestPhillyJobTypes: an explicit list allows types that run on part of the
// cluster; each gang draws from the listed types that can run at it.
func TestPhillyJobTypes(t *testing.T) {
	t.Parallel()
	g := parse(t, `cluster:
  servers:
    - {type: V100, count: 2, gpus_per_server: 4}
    - {type: K80, count: 2, gpus_per_server: 4}
workload:
  jobs: 2000
  job_types: [Transformer (batch size 128), Big (batch size 1), ResNet-50 (batch size 64)]
`, "p.yaml")
	w := build(t, g.Runs[0])
	types := map[string]map[int]int{}
	for _, j := range w.Jobs {
		if types[j.Type] == nil {
			types[j.Type] = map[int]int{}
		}
		types[j.Type][j.Gang]++
	}
	// Transformer has no gang-8 figure, Big is gang 1 only; ResNet runs at
	// every gang, so it takes all the gang-8 jobs.
	if types[transformer][8] != 0 || len(types[big]) != 1 || types[big][1] == 0 || types[resnet][8] == 0 || len(types) != 3 {
		t.Errorf("types by gang: %v", types)
	}
}

// TestStepsFromReference: steps = round(duration × reference throughput).
func TestStepsFromReference(t *testing.T) {
	t.Parallel()
	base := `cluster:
  servers:
    - {type: P100, count: 1, gpus_per_server: 4}
    - {type: K80, count: 1, gpus_per_server: 4}
workload:
  jobs: 50
  job_types: [A3C]
  gangs: [{size: 1, weight: 1}]
`
	fastest := build(t, parse(t, base, "s.yaml").Runs[0])
	k80 := build(t, parse(t, base+"  reference_gpu: k80\n", "s.yaml").Runs[0])
	v100 := build(t, parse(t, base+"  reference_gpu: V100\n", "s.yaml").Runs[0])
	for i := range fastest.Jobs {
		// A3C: P100 3.5 (the fastest here), K80 1, V100 3 (not in the
		// cluster, but its figure is the reference when asked for).
		d := fastest.Jobs[i].Steps / 3.5
		if got, want := k80.Jobs[i].Steps, math.Max(1, math.Round(d*1)); math.Abs(got-want) > 1 {
			t.Errorf("job %d: K80 reference: %v steps, want ≈ %v", i, got, want)
		}
		if got, want := v100.Jobs[i].Steps, math.Max(1, math.Round(d*3)); math.Abs(got-want) > 1 {
			t.Errorf("job %d: V100 reference: %v steps, want ≈ %v", i, got, want)
		}
	}
}

func TestStreamsDiffer(t *testing.T) {
	t.Parallel()
	seen := map[uint64]string{}
	for _, p := range []string{StreamArrivals, StreamDurations, StreamGangs, StreamJobTypes, StreamUsers} {
		for _, seed := range []int64{0, 1, -1} {
			v := Stream(seed, p).Uint64()
			if prev, dup := seen[v]; dup {
				t.Errorf("streams %s and %s/%d start alike", prev, p, seed)
			}
			seen[v] = p
		}
	}
	if Stream(7, StreamGangs).Uint64() != Stream(7, StreamGangs).Uint64() {
		t.Errorf("a stream is not reproducible")
	}
}
