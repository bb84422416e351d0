package nash

import (
	"reflect"
	"testing"

	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/internal/policytest"
)

// A decision on the market of the decision before is answered from it:
// the same allocation, bit for bit, as a fresh policy computes, counted as
// reused with no LP solve; a market that differs (one job more) is solved
// again. The jobs' progress, which the market does not read, differs
// between the first two decisions.
func TestRepeatedMarketReused(t *testing.T) {
	users := []models.User{{Name: "a", Weight: 1}, {Name: "b", Weight: 2}}
	servers := []models.Server{{Type: "V100", GPUs: 2}, {Type: "P100", GPUs: 1}, {Type: "K80", GPUs: 2}}
	job := func(id int, user, typ string, gang int) models.JobState {
		j := policytest.Job(id, 0, typ, gang, 1000)
		j.User = user
		return j
	}
	jobs := []models.JobState{job(1, "a", "resnet", 1), job(2, "b", "recsys", 2), job(3, "b", "unit", 1), job(4, "a", "k80", 1)}
	first := policytest.Snap(t, 0, users, servers, jobs...)
	moved := append([]models.JobState(nil), jobs...)
	moved[0] = policytest.Running(moved[0], "V100", 0, 360, 1080)
	second := policytest.Snap(t, policytest.Sec(360), users, servers, moved...)
	third := policytest.Snap(t, policytest.Sec(720), users, servers, append(moved, job(5, "a", "unit", 1))...)
	for _, name := range []string{Name, PAName, CEEIName} {
		build := map[string]func(solvers.Config) (solvers.Policy, error){Name: New, PAName: NewPA, CEEIName: NewCEEI}[name]
		p, err := build(solvers.Config{})
		if err != nil {
			t.Fatal(err)
		}
		stats := func() Stats { return *p.(solvers.Reporter).Report().(*Stats) }
		if _, err := p.Allocate(first); err != nil {
			t.Fatal(err)
		}
		before := stats()
		again, err := p.Allocate(second)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := build(solvers.Config{})
		if err != nil {
			t.Fatal(err)
		}
		want, err := fresh.Allocate(second)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(again, want) {
			t.Errorf("%s: reused allocation %v, a fresh policy's %v", name, again, want)
		}
		if st := stats(); st.Reused != 1 || st.LPSolves != before.LPSolves || st.Decisions != 2 || st.Exact != before.Exact+1 {
			t.Errorf("%s: after the repeat %+v, before it %+v: want one reused exact decision and no LP solve", name, st, before)
		}
		if _, err := p.Allocate(third); err != nil {
			t.Fatal(err)
		}
		if st := stats(); st.Reused != 1 || st.LPSolves == before.LPSolves {
			t.Errorf("%s: a new market was not solved: %+v", name, st)
		}
	}
}

// The key tells apart markets that differ in any one figure, and in
// whether they stand for agents.
func TestMarketKey(t *testing.T) {
	base := func() *Market {
		return &Market{Caps: []float64{2, 1}, Weights: []float64{1, 2}, Classes: []Class{
			{Buyer: 0, Count: 1, Gang: 1, Value: []float64{1, 0.5}},
			{Buyer: 1, Count: 2, Gang: 1, Value: []float64{0.25, 1}}}}
	}
	if base().key() != base().key() {
		t.Fatal("equal markets, different keys")
	}
	changes := map[string]func(m *Market){
		"capacity":   func(m *Market) { m.Caps[1] = 2 },
		"weight":     func(m *Market) { m.Weights[0] = 1.5 },
		"agents":     func(m *Market) { m.Agents = []float64{1, 1} },
		"buyer":      func(m *Market) { m.Classes[1].Buyer = 0 },
		"count":      func(m *Market) { m.Classes[0].Count = 2 },
		"gang":       func(m *Market) { m.Classes[0].Gang = 2 },
		"value":      func(m *Market) { m.Classes[1].Value[0] = 0.25 + 1e-16 },
		"type":       func(m *Market) { m.Caps = append(m.Caps, 0) },
		"class":      func(m *Market) { m.Classes = m.Classes[:1] },
		"class swap": func(m *Market) { m.Classes[0], m.Classes[1] = m.Classes[1], m.Classes[0] },
	}
	for name, change := range changes {
		m := base()
		change(m)
		if m.key() == base().key() {
			t.Errorf("%s changed, same key", name)
		}
	}
}
