package nash

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"fairbench/fairness"
	"fairbench/models"
	"fairbench/solvers"
)

var testTypes = []models.GPUType{{Name: "V100", MemoryGB: 32, Rank: 3}, {Name: "P100", MemoryGB: 32, Rank: 2}, {Name: "K80", MemoryGB: 32, Rank: 1}}

// randomInstance draws a small heterogeneous instance like the checker's:
// 1–3 types with 1–4 GPUs, 1–3 users of weight 1–3 with 1–3 jobs each,
// gangs 1–2, speeds from {0, 1, 2, 4} (jobs of a user may share a type).
// With linear set, every user's jobs are of one type and gang and together
// could occupy the whole cluster (a linear Fisher market).
func randomInstance(r *rand.Rand, linear bool) *models.Instance {
	in := &models.Instance{GPUTypes: testTypes}
	nt := 1 + r.IntN(3)
	total := 0
	for g := 0; g < nt; g++ {
		n := 1 + r.IntN(4)
		total += n
		in.Servers = append(in.Servers, models.ServerGroup{Type: testTypes[g].Name, Count: 1, GPUs: n})
	}
	speeds := []float64{0, 1, 2, 4}
	id := 0
	for u := 0; u < 1+r.IntN(3); u++ {
		name := fmt.Sprintf("u%d", u)
		in.Users = append(in.Users, models.User{Name: name, Weight: float64(1 + r.IntN(3))})
		jobs, gang := 1+r.IntN(3), 1+r.IntN(2)
		if linear {
			jobs = (total + gang - 1) / gang
		}
		tput := map[string]float64{}
		for k := 0; k < jobs; k++ {
			if !linear || k == 0 {
				if !linear {
					gang = 1 + r.IntN(2)
				}
				tput = map[string]float64{}
				for g := 0; g < nt; g++ {
					if v := speeds[r.IntN(4)]; v > 0 {
						tput[testTypes[g].Name] = v
					}
				}
				tput[testTypes[r.IntN(nt)].Name] = 1 + float64(r.IntN(4))
			}
			id++
			typ := fmt.Sprintf("%s-t%d", name, k)
			if linear {
				typ = name
			}
			in.Jobs = append(in.Jobs, models.InstanceJob{ID: models.JobID(id), User: name, Type: typ, Gang: gang, Steps: 1e9, Throughputs: tput})
		}
	}
	return in
}

// outcome runs policy p on in and returns the division and the outcome, or
// nil when some job fits no type (the instance is then skipped).
func outcome(t *testing.T, p solvers.Policy, in *models.Instance) (*fairness.Division, *fairness.Outcome) {
	t.Helper()
	s, err := in.Snapshot(nil)
	if err != nil {
		t.Fatal(err)
	}
	_, speeds, err := Speeds(s)
	if err != nil || slices.ContainsFunc(speeds, func(v []float64) bool { return v == nil }) {
		return nil, nil
	}
	a, err := p.Allocate(s)
	if err != nil {
		t.Fatalf("%s: %v", p.Name(), err)
	}
	if err := models.Feasible(s, a); err != nil {
		t.Fatalf("%s: infeasible: %v", p.Name(), err)
	}
	d, err := fairness.NewDivision(s)
	if err != nil {
		t.Fatal(err)
	}
	o, err := fairness.OutcomeOf(s, d, a, 2)
	if err != nil {
		t.Fatal(err)
	}
	return d, o
}

// ceei's allocations keep sharing incentive, envy-freeness and Pareto
// efficiency on random heterogeneous instances, judged by the predicates
// of package fairness (the checker's), with users of several jobs.
func TestCEEIPropertiesRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 1))
	p, err := NewCEEI(solvers.Config{})
	if err != nil {
		t.Fatal(err)
	}
	tol := fairness.Tolerance{Rel: 1e-6}
	n := 0
	for trial := 0; trial < 300; trial++ {
		in := randomInstance(r, false)
		d, o := outcome(t, p, in)
		if d == nil {
			continue
		}
		n++
		if ok, why, err := fairness.SharingIncentive(d, o, tol); err != nil || !ok {
			t.Fatalf("instance %d: sharing incentive: %s %v", trial, why, err)
		}
		if ok, why, err := fairness.EnvyFree(d, o, tol); err != nil || !ok {
			t.Fatalf("instance %d: envy-free: %s %v", trial, why, err)
		}
		if ok, why, err := fairness.ParetoEfficient(d, o, tol); err != nil || !ok {
			t.Fatalf("instance %d: Pareto: %s %v", trial, why, err)
		}
	}
	if n < 200 {
		t.Fatalf("only %d usable instances", n)
	}
}

// nash's allocations are Pareto efficient on every instance, and envy-free
// with sharing incentive on linear markets (no time cap binds: each user's
// identical jobs could fill the cluster), where the Eisenberg–Gale optimum
// is the competitive equilibrium.
func TestNashPropertiesRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 1))
	p, err := New(solvers.Config{})
	if err != nil {
		t.Fatal(err)
	}
	tol := fairness.Tolerance{Rel: 1e-6}
	for trial := 0; trial < 300; trial++ {
		linear := trial%2 == 0
		d, o := outcome(t, p, randomInstance(r, linear))
		if d == nil {
			continue
		}
		if ok, why, err := fairness.ParetoEfficient(d, o, tol); err != nil || !ok {
			t.Fatalf("instance %d: Pareto: %s %v", trial, why, err)
		}
		if !linear {
			continue
		}
		if ok, why, err := fairness.SharingIncentive(d, o, tol); err != nil || !ok {
			t.Fatalf("linear instance %d: sharing incentive: %s %v", trial, why, err)
		}
		if ok, why, err := fairness.EnvyFree(d, o, tol); err != nil || !ok {
			t.Fatalf("linear instance %d: envy-free: %s %v", trial, why, err)
		}
	}
}

// Partial allocation is strategy-proof at the market level: on random
// markets, no buyer raises its true utility by reporting other values for
// its classes (each scaled by a random factor in [0, 4], types hidden
// included), and every discount lies in [0, 1].
func TestPartialAllocationStrategyProofRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 1))
	s := Solver{}
	for trial := 0; trial < 150; trial++ {
		m := randomMarket(r)
		if m.Validate() != nil {
			continue
		}
		truth, f, err := paOutcome(s, m)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range f {
			if v < 0 || v > 1 {
				t.Fatalf("discount %d = %g", i, v)
			}
		}
		i := r.IntN(len(m.Weights))
		lie := *m
		lie.Classes = append([]Class(nil), m.Classes...)
		for c := range lie.Classes {
			if lie.Classes[c].Buyer != i {
				continue
			}
			v := append([]float64(nil), lie.Classes[c].Value...)
			for g := range v {
				v[g] *= 4 * r.Float64()
			}
			lie.Classes[c].Value = v
		}
		if lie.Validate() != nil {
			continue
		}
		lied, lf, err := paOutcome(s, &lie)
		if err != nil {
			t.Fatal(err)
		}
		trueU := func(x [][]float64, f []float64) float64 {
			return f[i] * m.Utilities(x)[i]
		}
		if gain := trueU(lied, lf) - trueU(truth, f); gain > 1e-7*m.Utilities(truth)[i]+1e-12 {
			t.Fatalf("market %d: buyer %d gains %g by lying", trial, i, gain)
		}
	}
}

func paOutcome(s Solver, m *Market) ([][]float64, []float64, error) {
	sol, err := s.Solve(m)
	if err != nil {
		return nil, nil, err
	}
	f, _, err := s.Discounts(m, sol)
	return sol.X, f, err
}

func randomMarket(r *rand.Rand) *Market {
	ng := 1 + r.IntN(3)
	m := &Market{}
	for g := 0; g < ng; g++ {
		m.Caps = append(m.Caps, float64(1+r.IntN(4)))
	}
	for i := 0; i < 1+r.IntN(3); i++ {
		m.Weights = append(m.Weights, float64(1+r.IntN(3)))
		for c := 0; c < 1+r.IntN(2); c++ {
			cl := Class{Buyer: i, Count: float64(1 + r.IntN(3)), Gang: float64(1 + r.IntN(2))}
			for g := 0; g < ng; g++ {
				cl.Value = append(cl.Value, float64(r.IntN(5))/4)
			}
			cl.Value[r.IntN(ng)] = 1
			m.Classes = append(m.Classes, cl)
		}
	}
	return m
}
