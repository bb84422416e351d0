package models

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// twoUsers is a cluster of 1 fast + 1 slow GPU and two single-job users:
// a gains 4× from the fast type, b only 2×.
func twoUsers() *Division {
	d := &Division{
		Types: []string{"fast", "slow"}, Capacity: []float64{1, 1},
		Users: []User{{Name: "a", Weight: 1}, {Name: "b", Weight: 1}},
		Jobs: []DivisionJob{
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
		Users: []User{{Name: "a", Weight: 1}, {Name: "b", Weight: 1}},
		Jobs: []DivisionJob{
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
	imp := &DenseImprover{}
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
		si, _ := SharingIncentive(d, o, exact)
		ef, _ := EnvyFree(d, o, exact)
		pe, _, _ := ParetoEfficient(d, o, exact, imp)
		fmt.Printf("%-12s SI %-5v EF %-5v PE %v\n", c.name, si, ef, pe)
	}
	// Output:
	// equal split  SI true  EF true  PE false
	// trade        SI true  EF true  PE true
	// all to a     SI false EF false PE true
	// idle         SI false EF true  PE false
}

func TestReasonsCarryNumbers(t *testing.T) {
	d := market()
	o := outcome(d, [][]float64{{1, 0}, {0, 1}, {0, 0}})
	ok, why := SharingIncentive(d, o, exact)
	if ok || !strings.Contains(why, "user b") || !strings.Contains(why, "0.75") {
		t.Errorf("SI: %v %q", ok, why)
	}
	ok, why = EnvyFree(d, o, exact)
	if ok || !strings.Contains(why, "envies a") {
		t.Errorf("EF: %v %q", ok, why)
	}
	o = outcome(d, [][]float64{{0.5, 0.5}, {0.5, 0}, {0, 0.5}})
	ok, why, err := ParetoEfficient(d, o, exact, &DenseImprover{})
	if ok || err != nil || !strings.Contains(why, "raises") {
		t.Errorf("PE: %v %q %v", ok, why, err)
	}
}

// Weights scale both the share and the envy comparison.
func TestWeights(t *testing.T) {
	d := market()
	d.Users[0].Weight = 3
	if err := d.Index(); err != nil {
		t.Fatal(err)
	}
	// a entitled to 3/4 of each type.
	o := outcome(d, [][]float64{{0.75, 0.25}, {0.25, 0.75}, {0, 0}})
	if ok, why := SharingIncentive(d, o, exact); !ok {
		t.Error(why)
	}
	if ok, why := EnvyFree(d, o, exact); !ok {
		t.Error(why)
	}
	o = outcome(d, [][]float64{{0.5, 0.5}, {0.5, 0.5}, {0, 0}})
	if ok, _ := SharingIncentive(d, o, exact); ok {
		t.Error("the unweighted split gives the weight-3 user sharing incentive")
	}
}

// The knapsack is the transportation LP for one job: differential check on
// random bundles, and the LP of two identical-speed jobs equals twice one.
func TestKnapsackAgainstLP(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for it := 0; it < 2000; it++ {
		m := 1 + r.IntN(4)
		d := &Division{Types: make([]string, m), Capacity: make([]float64, m), Users: []User{{Name: "u", Weight: 1}}}
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
		d.Jobs = []DivisionJob{{ID: 1, Gang: gang, Speed: sp}}
		if err := d.Index(); err != nil {
			t.Fatal(err)
		}
		b := make([]float64, m)
		for g := range b {
			b[g] = r.Float64() * 3
		}
		var lp denseLP
		k := d.knapsack(0, b, 1)
		l := lp.bundle(d, []int{0}, b, 1)
		if math.Abs(k-l) > 1e-9 {
			t.Fatalf("speeds %v gang %v bundle %v: knapsack %v, LP %v", sp, gang, b, k, l)
		}
	}
}

// Multi-job users value a bundle at its best use: the job that gains more
// from the fast type gets it.
func TestBundleValueSeveralJobs(t *testing.T) {
	d := &Division{
		Types: []string{"fast", "slow"}, Capacity: []float64{1, 1},
		Users: []User{{Name: "u", Weight: 1}},
		Jobs: []DivisionJob{
			{ID: 1, User: 0, Gang: 1, Speed: []float64{10, 9}},
			{ID: 2, User: 0, Gang: 1, Speed: []float64{10, 1}},
		},
	}
	if err := d.Index(); err != nil {
		t.Fatal(err)
	}
	if v := d.Value(0, []float64{1, 1}); math.Abs(v-1.9) > 1e-9 {
		t.Errorf("V = %v, want 1.9 (job 2 on fast, job 1 on slow)", v)
	}
}

// A mechanism that hands out the fast type in proportion to reported
// speedups rewards exaggeration; one that ignores reports cannot be gamed.
func TestStrategyProofSearch(t *testing.T) {
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
	ok, why, lie, err := StrategyProof(d, truth, proportional, DefaultMisreportSearch(), Tolerance{Rel: 1e-6})
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
	if ok, why, _, err := StrategyProof(d, truth, equal, DefaultMisreportSearch(), Tolerance{Rel: 1e-6}); !ok || err != nil {
		t.Errorf("report-blind mechanism found manipulable: %s %v", why, err)
	}
}

func TestOutcomeOfPlacementsAndFractions(t *testing.T) {
	s := feasibilitySnapshot(t)
	d, err := NewDivision(s)
	if err != nil {
		t.Fatal(err)
	}
	a := Allocation{Fractions: map[JobID]map[string]float64{}}
	for _, j := range s.Jobs {
		for _, g := range s.Cluster.TypeNames() {
			if s.Throughput(&j.Job, g) > 0 {
				a.Fractions[j.ID] = map[string]float64{g: 0.1}
				break
			}
		}
	}
	if err := Feasible(s, a); err != nil {
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
	if _, err := OutcomeOf(s, d, Allocation{Run: []Assignment{{Job: 999, Type: "V100"}}}, 2); err == nil {
		t.Error("unknown job accepted")
	}
}

func TestDivisionRefusesBadInput(t *testing.T) {
	for name, d := range map[string]*Division{
		"no speed":  {Types: []string{"t"}, Capacity: []float64{1}, Users: []User{{Name: "u", Weight: 1}}, Jobs: []DivisionJob{{ID: 1, Gang: 1, Speed: []float64{0}}}},
		"gang":      {Types: []string{"t"}, Capacity: []float64{1}, Users: []User{{Name: "u", Weight: 1}}, Jobs: []DivisionJob{{ID: 1, Gang: 2, Speed: []float64{1}}}},
		"user":      {Types: []string{"t"}, Capacity: []float64{1}, Users: []User{{Name: "u", Weight: 1}}, Jobs: []DivisionJob{{ID: 1, User: 3, Gang: 1, Speed: []float64{1}}}},
		"weight":    {Types: []string{"t"}, Capacity: []float64{1}, Users: []User{{Name: "u"}}, Jobs: []DivisionJob{{ID: 1, Gang: 1, Speed: []float64{1}}}},
		"neg speed": {Types: []string{"t"}, Capacity: []float64{1}, Users: []User{{Name: "u", Weight: 1}}, Jobs: []DivisionJob{{ID: 1, Gang: 1, Speed: []float64{-1}}}},
	} {
		if err := d.Index(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
