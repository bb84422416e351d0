package check

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"fairbench/models"
	"fairbench/solvers/lp"
	"fairbench/solvers/registry"
)

func TestBoundCounts(t *testing.T) {
	for level, want := range map[int]int{0: 0, 1: 19, 2: 1638} {
		b, err := BoundLevel(level)
		if err != nil {
			t.Fatal(err)
		}
		specs := b.Specs()
		if len(specs) != want {
			t.Errorf("level %d: %d instances, want %d (update BoundLevel's comment)", level, len(specs), want)
		}
		seen := map[string]bool{}
		for _, s := range specs {
			if err := s.Valid(); err != nil {
				t.Fatalf("level %d: %v: %v", level, s, err)
			}
			if seen[s.Key()] {
				t.Fatalf("level %d: %v twice", level, s)
			}
			seen[s.Key()] = true
		}
	}
	if _, err := BoundLevel(5); err == nil {
		t.Error("level 5 accepted")
	}
}

func TestShrinksAreValidAndSmaller(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 5))
	l := DefaultLimits()
	l.MaxJobsPerUser = 2
	size := func(s Spec) float64 {
		n := float64(len(s.GPUs)) * 1000
		for _, g := range s.GPUs {
			n += float64(g) * 10
		}
		for _, u := range s.Users {
			n += 1000 + u.Weight
			for _, j := range u.Jobs {
				n += 500 + float64(j.Gang)
				for _, t := range j.Speed {
					n += t
				}
			}
		}
		return n
	}
	for i := 0; i < 300; i++ {
		s := l.Random(r)
		for _, c := range s.Shrinks(l.Speeds) {
			if err := c.Valid(); err != nil {
				t.Fatalf("%v shrinks to invalid %v: %v", s, c, err)
			}
			if size(c) >= size(s) {
				t.Fatalf("%v shrinks to %v, not smaller", s, c)
			}
		}
	}
}

func TestSpecInstanceRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 7))
	l := DefaultLimits()
	l.MaxJobsPerUser = 2
	for i := 0; i < 200; i++ {
		s := l.Random(r)
		back, ok := SpecOf(s.Instance())
		if !ok || back.Key() != s.Key() {
			t.Fatalf("%v → %v (%v)", s, back, ok)
		}
		if _, err := s.Instance().Snapshot(nil); err != nil {
			t.Fatalf("%v: %v", s, err)
		}
	}
}

// lpImprover solves the Pareto LP with solvers/lp: the differential oracle
// for models.DenseImprover.
type lpImprover struct{}

func (lpImprover) Improve(d *models.Division, floor, c []float64) ([]float64, error) {
	inf := math.Inf(1)
	m := len(d.Types)
	p := &lp.Problem{Sense: lp.Maximize}
	rows := make([]lp.Row, len(d.Jobs)+m+len(d.Users))
	for i := range rows {
		rows[i] = lp.Row{Lower: -inf, Upper: inf}
	}
	for j := range d.Jobs {
		rows[j].Upper = 1
		for g := 0; g < m; g++ {
			a := d.Jobs[j].Speed[g] / maxOf(d.Jobs[j].Speed, d.Jobs[j].Gang, d.Capacity)
			if a <= 0 || d.Jobs[j].Gang > d.Capacity[g] {
				continue
			}
			u := d.Jobs[j].User
			v := len(p.Vars)
			p.Vars = append(p.Vars, lp.Var{Upper: inf, Obj: c[u] * a})
			rows[j].Coefs = append(rows[j].Coefs, lp.Term{Var: v, Coef: 1})
			rows[len(d.Jobs)+g].Coefs = append(rows[len(d.Jobs)+g].Coefs, lp.Term{Var: v, Coef: d.Jobs[j].Gang})
			rows[len(d.Jobs)+m+u].Coefs = append(rows[len(d.Jobs)+m+u].Coefs, lp.Term{Var: v, Coef: a})
		}
	}
	for g := 0; g < m; g++ {
		rows[len(d.Jobs)+g].Upper = d.Capacity[g]
	}
	for u := range d.Users {
		rows[len(d.Jobs)+m+u].Lower = floor[u]
	}
	p.Rows = rows
	res, err := lp.Default().Solve(p, lp.Options{})
	if errors.Is(err, lp.ErrInfeasible) {
		return nil, models.ErrInfeasibleFloors
	}
	if err != nil {
		return nil, err
	}
	// Return Σ c·U as one number spread on user 0, for comparison.
	out := make([]float64, len(d.Users))
	out[0] = res.Objective / c[0]
	return out, nil
}

func maxOf(speeds []float64, gang float64, caps []float64) float64 {
	m := 0.0
	for g, s := range speeds {
		if gang <= caps[g] {
			m = math.Max(m, s)
		}
	}
	return m
}

// The dense simplex of models agrees with CLP (or the pure-Go simplex) on
// the Pareto LP of random instances and random floors.
func TestDenseImproverAgreesWithSolversLP(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	l := DefaultLimits()
	l.MaxJobsPerUser = 3
	l.MaxUsers = 4
	agree, infeasible := 0, 0
	for i := 0; i < 400; i++ {
		s := l.Random(r)
		snap, err := s.Instance().Snapshot(nil)
		if err != nil {
			t.Fatal(err)
		}
		d, err := models.NewDivision(snap)
		if err != nil {
			t.Fatal(err)
		}
		floor := make([]float64, len(d.Users))
		c := make([]float64, len(d.Users))
		for u := range d.Users {
			floor[u] = r.Float64() * 0.6 * d.Scale(u)
			c[u] = 0.5 + r.Float64()
		}
		dense, derr := (&models.DenseImprover{}).Improve(d, floor, c)
		ref, lerr := lpImprover{}.Improve(d, floor, c)
		if (derr != nil) != (lerr != nil) {
			t.Fatalf("%v floors %v: dense %v, lp %v", s, floor, derr, lerr)
		}
		if derr != nil {
			infeasible++
			continue
		}
		got := 0.0
		for u := range d.Users {
			got += c[u] * dense[u]
			if dense[u] < floor[u]-1e-7 {
				t.Fatalf("%v: user %d below its floor: %v < %v", s, u, dense[u], floor[u])
			}
		}
		want := ref[0] * c[0]
		if math.Abs(got-want) > 1e-6*(1+math.Abs(want)) {
			t.Fatalf("%v floors %v c %v: dense %v, lp %v", s, floor, c, got, want)
		}
		agree++
	}
	if agree < 100 || infeasible == 0 {
		t.Errorf("%d agreeing optima, %d infeasible: the sample misses a case", agree, infeasible)
	}
}

func TestRunIsRepeatable(t *testing.T) {
	subj := registered(t, "gavel-las")
	var outs [2][]byte
	for k := range outs {
		dir := t.TempDir()
		rep, err := Run(subj, Config{Seed: 5, Cases: 30, Bound: 1, OutDir: dir, Props: []string{SharingIncentive, EnvyFree, StrategyProof, LongTermFairness}})
		if err != nil {
			t.Fatal(err)
		}
		for i := range rep.Results {
			rep.Results[i].Seconds = 0
			if f := rep.Results[i].Counterexample; f != "" {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				outs[k] = append(outs[k], b...)
				rep.Results[i].Counterexample = filepath.Base(f)
			}
		}
		b, _ := json.Marshal(rep)
		outs[k] = append(outs[k], b...)
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Error("two checks with the same seed differ")
	}
}

// A counterexample file replays: the property still fails, on the same
// numbers, through the instance reader the CLI uses.
func TestCounterexampleReplays(t *testing.T) {
	subj := subject("unweighted", []string{SharingIncentive}, func(s *models.Snapshot) (models.Allocation, error) {
		c := *s
		c.Users = append([]models.User(nil), s.Users...)
		for i := range c.Users {
			c.Users[i].Weight = 1
		}
		return partition(&c)
	})
	dir := t.TempDir()
	rep, err := Run(subj, Config{Seed: 1, OutDir: dir, Props: []string{SharingIncentive}})
	if err != nil {
		t.Fatal(err)
	}
	r := result(t, rep, SharingIncentive)
	if r.Status != Violated || r.Counterexample == "" {
		t.Fatalf("no counterexample: %+v", r)
	}
	b, err := os.ReadFile(r.Counterexample)
	if err != nil {
		t.Fatal(err)
	}
	var in models.Instance
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		t.Fatal(err)
	}
	if NotedProperty(&in) != SharingIncentive || in.Policy != "unweighted" || in.Result == nil {
		t.Fatalf("note %q policy %q result %v", in.Note, in.Policy, in.Result)
	}
	again, err := Replay(subj, &in, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Results) != 1 || again.Results[0].Status != Violated || again.Results[0].Reason != r.Reason {
		t.Fatalf("replay: %+v, want %q", again.Results, r.Reason)
	}
	fixed, err := Replay(subject("fixed", nil, partition), &in, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if fixed.Results[0].Status != Holds {
		t.Errorf("the correct partition fails the replay: %s", fixed.Results[0].Reason)
	}
}

func TestTemporalProperties(t *testing.T) {
	cfg := Config{Seed: 2, Temporal: TemporalConfig{Workloads: 1, BaseRounds: 4}, Bound: -1, Cases: 1,
		Props: []string{LongTermFairness, Regret, StarvationBound, ShareConvergence}}
	fifo, err := Run(registered(t, "fifo"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// FIFO without preemption: the last of a backlog waits for all before
	// it, longer the longer the backlog.
	if r := result(t, fifo, StarvationBound); r.Status != Violated {
		t.Errorf("fifo starvation %s: %s", r.Status, r.Reason)
	}
	if r := result(t, fifo, LongTermFairness); r.Status != Violated {
		t.Errorf("fifo long-term fairness %s: %s", r.Status, r.Reason)
	}
	iso, err := Run(registered(t, "isolated"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r := result(t, iso, ShareConvergence); r.Status != Holds {
		t.Errorf("isolated share convergence %s: %s", r.Status, r.Reason)
	}
	for _, r := range iso.Results {
		if len(r.Measures) != 1 || len(r.Measures[0].Values) != 4 {
			t.Errorf("%s: measures %+v", r.Property, r.Measures)
		}
	}
}

func TestExponentFit(t *testing.T) {
	hs := []int{8, 16, 32, 64}
	for _, c := range []struct {
		vs   []float64
		want float64
	}{
		{[]float64{8, 16, 32, 64}, 1},
		{[]float64{0.1, 0.5, 0.2, 0.9}, 0}, // below one unit: flat
		{[]float64{2, 2.83, 4, 5.66}, 0.5},
	} {
		if got := exponent(hs, c.vs); math.Abs(got-c.want) > 0.01 {
			t.Errorf("%v: α = %v, want %v", c.vs, got, c.want)
		}
	}
	if got := decay(hs, []float64{0.8, 0.4, 0.2, 0.1}); math.Abs(got+1) > 0.01 {
		t.Errorf("decay α = %v, want −1", got)
	}
}

func TestJUnitAndMatrixShapes(t *testing.T) {
	cfg := Config{Seed: 1, Cases: 5, Bound: 1, Props: []string{Feasible, SharingIncentive, ShareConvergence},
		Temporal: TemporalConfig{Workloads: 1, BaseRounds: 2}}
	rep, err := Run(registered(t, "isolated"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	rep.Claims = []string{SharingIncentive}
	rep.Results[1].Claimed = true
	rep.Results[1].Status = Violated // as if it failed
	b, err := JUnit(rep)
	if err != nil {
		t.Fatal(err)
	}
	var suites junitSuites
	if err := xml.Unmarshal(b, &suites); err != nil {
		t.Fatal(err)
	}
	s := suites.Suites[0]
	if s.Tests != 3 || s.Failures != 1 || s.Skipped != 1 || s.Cases[1].Failure == nil {
		t.Errorf("junit suite %+v", s)
	}
	m := &Matrix{Seed: 1, Cases: 5, Policies: []MatrixRow{{Policy: "isolated", Results: rep.Results}}}
	for _, p := range Properties(&cfg)[:2] {
		m.Properties = append(m.Properties, PropertyInfo{Name: p.Name(), Kind: "single", Formula: p.String()})
	}
	j, err := m.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(j, &back); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"seed", "cases", "bound", "properties", "policies"} {
		if _, ok := back[k]; !ok {
			t.Errorf("matrix JSON lacks %q", k)
		}
	}
	c, err := m.CSV()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(c)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"policy", "property", "kind", "claimed", "status", "exhaustive", "random", "workloads", "exponent", "counterexample", "reason"}
	if !reflect.DeepEqual(rows[0], want) || len(rows) != 4 {
		t.Errorf("CSV header %v, %d rows", rows[0], len(rows))
	}
	var tbl strings.Builder
	m.Table(&tbl)
	if !strings.Contains(tbl.String(), "VIOLATED*") {
		t.Errorf("table:\n%s", tbl.String())
	}
}

// Every claim in the registry names a property the checker knows.
func TestRegistryClaimsAreProperties(t *testing.T) {
	known := map[string]bool{}
	for _, n := range Names() {
		known[n] = true
	}
	reg := registry.Default()
	for _, name := range reg.Names() {
		e, _ := reg.Lookup(name)
		for _, c := range e.Claims {
			if !known[c] {
				t.Errorf("policy %s claims %q, which the checker does not know (known: %v)", name, c, Names())
			}
		}
	}
}

func TestBadSettings(t *testing.T) {
	subj := subject("p", nil, partition)
	for _, cfg := range []Config{
		{Props: []string{"fast"}},
		{Bound: 9},
		{Mode: "sometimes"},
		{Cases: -1},
	} {
		if _, err := Run(subj, cfg); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
	_, err := Lookup(&Config{}, []string{"nope"})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprint(EnvyFree)) {
		t.Errorf("unknown property error does not list the known ones: %v", err)
	}
}
