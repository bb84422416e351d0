package fairness

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"fairbench/models"
)

// twoUsers is a cluster of 1 fast + 1 slow GPU and two single-job users:
// a gains 4× from the fast type, b only 2×.
func twoUsers() *Division {
	d := &Division{
		Types: []string{"fast", "slow"}, Capacity: []float64{1, 1},
		Users: []models.User{{Name: "a", Weight: 1}, {Name: "b", Weight: 1}},
		Jobs: []Job{
			{ID: 1, User: 0, Gang: 1, Speed: []float64{4, 1}},
			{ID: 2, User: 1, Gang: 1, Speed: []float64{2, 1}},
		},
	}
	if err := d.Index(); err != nil {
		panic(err)
	}
	return d
}

func outcome(d *Division, x [][]float64) *Outcome {
	o := NewOutcome(d)
	for j := range x {
		copy(o.X[j], x[j])
	}
	o.Hold(d)
	return o
}

var exact = Tolerance{Rel: 1e-9}

// market is Gandiva_fair's trading situation: 1 fast + 1 slow GPU; user a
// has one job that gains 4× from the fast type, user b two jobs that gain
// 2× (so b can use more GPUs than its share).
func market() *Division {
	d := &Division{
		Types: []string{"fast", "slow"}, Capacity: []float64{1, 1},
		Users: []models.User{{Name: "a", Weight: 1}, {Name: "b", Weight: 1}},
		Jobs: []Job{
			{ID: 1, User: 0, Gang: 1, Speed: []float64{4, 1}},
			{ID: 2, User: 1, Gang: 1, Speed: []float64{2, 1}},
			{ID: 3, User: 1, Gang: 1, Speed: []float64{2, 1}},
		},
	}
	if err := d.Index(); err != nil {
		panic(err)
	}
	return d
}

// The equal split is fair but not efficient: b gives a fast share for twice
// as much slow (a price between the two speedups, 2 ≤ p ≤ 4) and a gains
// while b is no worse off. Giving everything fast to a is efficient but
// unfair; leaving GPUs idle is neither.
func Example_fairnessPredicates() {
	d := market()
	for _, c := range []struct {
		name string
		x    [][]float64
	}{
		{"equal split", [][]float64{{0.5, 0.5}, {0.5, 0}, {0, 0.5}}},
		{"trade", [][]float64{{0.75, 0}, {0.25, 0.5}, {0, 0.5}}},
		{"all to a", [][]float64{{1, 0}, {0, 1}, {0, 0}}},
		{"idle", [][]float64{{0.5, 0}, {0.5, 0}, {0, 0}}},
	} {
		o := outcome(d, c.x)
		si, _, _ := SharingIncentive(d, o, exact)
		ef, _, _ := EnvyFree(d, o, exact)
		pe, _, _ := ParetoEfficient(d, o, exact)
		fmt.Printf("%-12s SI %-5v EF %-5v PE %v\n", c.name, si, ef, pe)
	}
	// Output:
	// equal split  SI true  EF true  PE false
	// trade        SI true  EF true  PE true
	// all to a     SI false EF false PE true
	// idle         SI false EF true  PE false
}

func TestReasonsCarryNumbers(t *testing.T) {
	t.Parallel()
	d := market()
	o := outcome(d, [][]float64{{1, 0}, {0, 1}, {0, 0}})
	ok, why, _ := SharingIncentive(d, o, exact)
	if ok || !strings.Contains(why, "user b") || !strings.Contains(why, "0.75") {
		t.Errorf("SI: %v %q", ok, why)
	}
	ok, why, _ = EnvyFree(d, o, exact)
	if ok || !strings.Contains(why, "envies a") {
		t.Errorf("EF: %v %q", ok, why)
	}
	o = outcome(d, [][]float64{{0.5, 0.5}, {0.5, 0}, {0, 0.5}})
	ok, why, err := ParetoEfficient(d, o, exact)
	if ok || err != nil || !strings.Contains(why, "raises") {
		t.Errorf("PE: %v %q %v", ok, why, err)
	}
}

// Weights scale both the share and the envy comparison.
func TestWeights(t *testing.T) {
	t.Parallel()
	d := market()
	d.Users[0].Weight = 3
	if err := d.Index(); err != nil {
		t.Fatal(err)
	}
	// a entitled to 3/4 of each type.
	o := outcome(d, [][]float64{{0.75, 0.25}, {0.25, 0.75}, {0, 0}})
	if ok, why, _ := SharingIncentive(d, o, exact); !ok {
		t.Error(why)
	}
	if ok, why, _ := EnvyFree(d, o, exact); !ok {
		t.Error(why)
	}
	o = outcome(d, [][]float64{{0.5, 0.5}, {0.5, 0.5}, {0, 0}})
	if ok, _, _ := SharingIncentive(d, o, exact); ok {
		t.Error("the unweighted split gives the weight-3 user sharing incentive")
	}
}

// The knapsack is the transportation LP for one job: differential check on
// random bundles, and the LP of two identical-speed jobs equals twice one.
func TestKnapsackAgainstLP(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for it := 0; it < 2000; it++ {
		m := 1 + r.IntN(4)
		d := &Division{Types: make([]string, m), Capacity: make([]float64, m), Users: []models.User{{Name: "u", Weight: 1}}}
		sp := make([]float64, m)
		for g := range sp {
			d.Types[g] = fmt.Sprint("t", g)
			d.Capacity[g] = float64(1 + r.IntN(4))
			if r.IntN(4) > 0 {
				sp[g] = float64(r.IntN(8))
			}
		}
		sp[r.IntN(m)] += 1
		gang := float64(1 + r.IntN(2))
		for g := range d.Capacity {
			d.Capacity[g] = math.Max(d.Capacity[g], gang)
		}
		d.Jobs = []Job{{ID: 1, Gang: gang, Speed: sp}}
		if err := d.Index(); err != nil {
			t.Fatal(err)
		}
		b := make([]float64, m)
		for g := range b {
			b[g] = r.Float64() * 3
		}
		k := d.knapsack(0, b, 1)
		l, err := d.transport(0, b, 1)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(k-l) > 1e-9 {
			t.Fatalf("speeds %v gang %v bundle %v: knapsack %v, LP %v", sp, gang, b, k, l)
		}
	}
}

// Multi-job users value a bundle at its best use: the job that gains more
// from the fast type gets it.
func TestBundleValueSeveralJobs(t *testing.T) {
	t.Parallel()
	d := &Division{
		Types: []string{"fast", "slow"}, Capacity: []float64{1, 1},
		Users: []models.User{{Name: "u", Weight: 1}},
		Jobs: []Job{
			{ID: 1, User: 0, Gang: 1, Speed: []float64{10, 9}},
			{ID: 2, User: 0, Gang: 1, Speed: []float64{10, 1}},
		},
	}
	if err := d.Index(); err != nil {
		t.Fatal(err)
	}
	if v, err := d.Value(0, []float64{1, 1}, 1); err != nil || math.Abs(v-1.9) > 1e-9 {
		t.Errorf("V = %v, want 1.9 (job 2 on fast, job 1 on slow)", v)
	}
}

// A mechanism that hands out the fast type in proportion to reported
// speedups rewards exaggeration; one that ignores reports cannot be gamed.
func TestStrategyProofSearch(t *testing.T) {
	t.Parallel()
	d := twoUsers()
	proportional := func(rep *Division) (*Outcome, error) {
		o := NewOutcome(rep)
		r0 := rep.Jobs[0].Speed[0] / math.Max(rep.Jobs[0].Speed[1], 1e-9)
		r1 := rep.Jobs[1].Speed[0] / math.Max(rep.Jobs[1].Speed[1], 1e-9)
		f := r0 / (r0 + r1)
		o.X[0][0], o.X[0][1] = f, 1-f
		o.X[1][0], o.X[1][1] = 1-f, f
		o.Hold(rep)
		return o, nil
	}
	truth, _ := proportional(d)
	ok, why, lie, err := StrategyProof(d, truth, proportional, DefaultSearch(), Tolerance{Rel: 1e-6})
	if err != nil || ok || lie == nil || !strings.Contains(why, "misreporting") {
		t.Fatalf("proportional mechanism: ok=%v %q %v", ok, why, err)
	}
	if lie.Lying <= lie.Truthful {
		t.Errorf("lie does not pay: %+v", lie)
	}
	rep := lie.Reported(d)
	if rep == nil || rep.Jobs[lie.User].Speed[0] == d.Jobs[lie.User].Speed[0] && rep.Jobs[lie.User].Speed[1] == d.Jobs[lie.User].Speed[1] {
		t.Errorf("reported division does not carry the lie: %+v", rep)
	}
	equal := func(rep *Division) (*Outcome, error) {
		return outcome(rep, [][]float64{{0.5, 0.5}, {0.5, 0.5}}), nil
	}
	truth, _ = equal(d)
	if ok, why, _, err := StrategyProof(d, truth, equal, DefaultSearch(), Tolerance{Rel: 1e-6}); !ok || err != nil {
		t.Errorf("report-blind mechanism found manipulable: %s %v", why, err)
	}
}

func TestOutcomeOfPlacementsAndFractions(t *testing.T) {
	t.Parallel()
	s := feasibilitySnapshot(t)
	d, err := NewDivision(s)
	if err != nil {
		t.Fatal(err)
	}
	a := models.Allocation{Fractions: map[models.JobID]map[string]float64{}}
	for _, j := range s.Jobs {
		for _, g := range s.Cluster.TypeNames() {
			if s.Throughput(&j.Job, g) > 0 {
				a.Fractions[j.ID] = map[string]float64{g: 0.1}
				break
			}
		}
	}
	if err := models.Feasible(s, a); err != nil {
		t.Fatal(err)
	}
	o, err := OutcomeOf(s, d, a, 2)
	if err != nil {
		t.Fatal(err)
	}
	for j := range d.Jobs {
		sum := 0.0
		for _, x := range o.X[j] {
			sum += x
		}
		if math.Abs(sum-0.1) > 1e-12 {
			t.Errorf("job %d: Σx = %v", d.Jobs[j].ID, sum)
		}
	}
	if _, err := OutcomeOf(s, d, models.Allocation{Run: []models.Assignment{{Job: 999, Type: "V100"}}}, 2); err == nil {
		t.Error("unknown job accepted")
	}
}

func TestDivisionRefusesBadInput(t *testing.T) {
	t.Parallel()
	for name, d := range map[string]*Division{
		"no speed":  {Types: []string{"t"}, Capacity: []float64{1}, Users: []models.User{{Name: "u", Weight: 1}}, Jobs: []Job{{ID: 1, Gang: 1, Speed: []float64{0}}}},
		"gang":      {Types: []string{"t"}, Capacity: []float64{1}, Users: []models.User{{Name: "u", Weight: 1}}, Jobs: []Job{{ID: 1, Gang: 2, Speed: []float64{1}}}},
		"user":      {Types: []string{"t"}, Capacity: []float64{1}, Users: []models.User{{Name: "u", Weight: 1}}, Jobs: []Job{{ID: 1, User: 3, Gang: 1, Speed: []float64{1}}}},
		"weight":    {Types: []string{"t"}, Capacity: []float64{1}, Users: []models.User{{Name: "u"}}, Jobs: []Job{{ID: 1, Gang: 1, Speed: []float64{1}}}},
		"neg speed": {Types: []string{"t"}, Capacity: []float64{1}, Users: []models.User{{Name: "u", Weight: 1}}, Jobs: []Job{{ID: 1, Gang: 1, Speed: []float64{-1}}}},
	} {
		if err := d.Index(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// feasibilitySnapshot is a small cluster with jobs of several gangs.
func feasibilitySnapshot(t *testing.T) *models.Snapshot {
	t.Helper()
	in := &models.Instance{
		GPUTypes: []models.GPUType{{Name: "V100", MemoryGB: 16, Rank: 3}, {Name: "K80", MemoryGB: 12, Rank: 1}},
		Servers:  []models.ServerGroup{{Type: "V100", Count: 1, GPUs: 4}, {Type: "K80", Count: 2, GPUs: 2}},
		Users:    []models.User{{Name: "a", Weight: 1}},
		Jobs: []models.InstanceJob{
			{ID: 1, User: "a", Gang: 2, Steps: 10, Throughputs: map[string]float64{"V100": 4, "K80": 1}},
			{ID: 2, User: "a", Gang: 4, Steps: 10, Throughputs: map[string]float64{"V100": 8}},
			{ID: 5, User: "a", Gang: 1, Steps: 10, Throughputs: map[string]float64{"V100": 2, "K80": 1}},
		},
	}
	s, err := in.Snapshot(nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
