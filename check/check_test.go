package check

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"fairbench/models"
	"fairbench/solvers/registry"
)

// The bound levels hold the instance counts BoundLevel's comment states,
// every instance valid and none twice (symmetry reduction: users and each
// user's jobs are multisets, so no two instances are the same up to
// renaming).
func TestBoundCounts(t *testing.T) {
	t.Parallel()
	for level, want := range map[int]int{0: 0, 1: 19, 2: 4762} {
		b, err := BoundLevel(level)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		n := 0
		b.Each(func(s Spec) bool {
			n++
			if err := s.Valid(); err != nil {
				t.Fatalf("level %d: %v: %v", level, s, err)
			}
			k := canonical(s)
			if seen[k] {
				t.Fatalf("level %d: %v twice (up to renaming)", level, s)
			}
			seen[k] = true
			return true
		})
		if n != want || b.Count() != want {
			t.Errorf("level %d: %d instances, want %d (update BoundLevel's comment)", level, n, want)
		}
	}
	if _, err := BoundLevel(5); err == nil {
		t.Error("level 5 accepted")
	}
}

// canonical is s's key up to the order of users and of each user's jobs.
func canonical(s Spec) string {
	var users []string
	for _, u := range s.Users {
		var jobs []string
		for _, j := range u.Jobs {
			jobs = append(jobs, fmt.Sprintf("%d%v%d", j.Gang, j.Speed, j.Kind))
		}
		slices.Sort(jobs)
		users = append(users, fmt.Sprintf("%g:%v", u.Weight, jobs))
	}
	slices.Sort(users)
	var servers []int
	for g := range s.GPUs {
		servers = append(servers, s.servers(g))
	}
	return fmt.Sprintf("%v/%v@%d %v", s.GPUs, servers, s.Round, users)
}

// Every class of the widened space appears at level 2 and in the default
// random instances: several jobs, idle users, shared job types,
// non-integer weights; and, in the random ones, split servers and history.
func TestInstanceClassesReached(t *testing.T) {
	t.Parallel()
	count := func(specs []Spec) map[string]int {
		c := map[string]int{}
		for _, s := range specs {
			if s.jobsPerUser() > 1 {
				c["several jobs"]++
			}
			if !s.allActive() {
				c["idle user"]++
			}
			for _, u := range s.Users {
				if u.Weight != math.Round(u.Weight) {
					c["non-integer weight"]++
					break
				}
			}
			for g := range s.GPUs {
				if s.servers(g) > 1 {
					c["split servers"]++
					break
				}
			}
			if _, shared := shareKinds(s); shared && s.Key() != "" {
				for _, u := range s.Users {
					for _, j := range u.Jobs {
						if j.Kind > 0 {
							c["shared type"]++
						}
					}
				}
			}
			if s.Round > 0 {
				c["history"]++
			}
		}
		return c
	}
	b, _ := BoundLevel(2)
	ex := count(b.Specs())
	for _, k := range []string{"several jobs", "idle user", "non-integer weight", "shared type"} {
		if ex[k] == 0 {
			t.Errorf("bound 2 never has %s: %v", k, ex)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	var specs []Spec
	for i := 0; i < DefaultCases; i++ {
		specs = append(specs, DefaultLimits().Random(r))
	}
	rnd := count(specs)
	for _, k := range []string{"several jobs", "idle user", "non-integer weight", "split servers", "shared type", "history"} {
		if rnd[k] < 10 {
			t.Errorf("%d default random instances have %s only %d times: %v", DefaultCases, k, rnd[k], rnd)
		}
	}
}

func TestShrinksAreValidAndSmaller(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(4, 5))
	l := DefaultLimits()
	size := func(s Spec) float64 {
		n := float64(len(s.GPUs))*1000 + float64(s.Round)*300
		for g, k := range s.GPUs {
			n += float64(k)*10 + float64(s.servers(g))
		}
		for _, u := range s.Users {
			n += 1000
			switch {
			case u.Weight == math.Round(u.Weight) && u.Weight != 1:
				n++
			case u.Weight != 1:
				n += 2
			}
			for _, j := range u.Jobs {
				n += 500 + float64(j.Gang) + float64(min(j.Kind, 1))*50 + j.Age*10
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
	t.Parallel()
	r := rand.New(rand.NewPCG(6, 7))
	l := DefaultLimits()
	for i := 0; i < 200; i++ {
		s := l.Random(r)
		back, ok := SpecOf(s.Instance())
		if !ok || back.Key() != s.Key() && canonical(back) != canonical(s) {
			t.Fatalf("%v → %v (%v)", s, back, ok)
		}
		if _, err := s.Instance().Snapshot(nil); err != nil {
			t.Fatalf("%v: %v", s, err)
		}
	}
}

func TestRunIsRepeatable(t *testing.T) {
	t.Parallel()
	subj := registered(t, "gavel-las")
	var outs [2][]byte
	for k := range outs {
		dir := t.TempDir()
		rep, err := Run(subj, Config{Seed: 5, Cases: 30, Bound: 1, OutDir: dir, Props: []string{SharingIncentive, EnvyFree, StrategyProof, LongTermFairness},
			Temporal: TemporalConfig{Workloads: 1, BaseRounds: 2, Horizons: 4, MaxHorizons: 5}})
		if err != nil {
			t.Fatal(err)
		}
		rep.Seconds, rep.Rate = 0, 0
		for i := range rep.Results {
			rep.Results[i].Seconds = 0
			if u := rep.Results[i].Unconditional; u != nil {
				u.Seconds = 0
				u.Counterexample = filepath.Base(u.Counterexample)
			}
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
		for i := range outs[0] {
			if i >= len(outs[1]) || outs[0][i] != outs[1][i] {
				lo := max(0, i-300)
				t.Errorf("two checks with the same seed differ at byte %d:\n%s\n---\n%s", i, outs[0][lo:min(len(outs[0]), i+200)], outs[1][lo:min(len(outs[1]), i+200)])
				break
			}
		}
	}
}

// A counterexample file replays: the property still fails, on the same
// numbers, through the instance reader the CLI uses.
func TestCounterexampleReplays(t *testing.T) {
	t.Parallel()
	subj := subject("unweighted", []string{SharingIncentive}, func(s *models.Snapshot) (models.Allocation, error) {
		c := *s
		c.Users = append([]models.User(nil), s.Users...)
		for i := range c.Users {
			c.Users[i].Weight = 1
		}
		return partition(&c)
	})
	dir := t.TempDir()
	cfg := classicCfg(SharingIncentive)
	cfg.OutDir = dir
	rep, err := Run(subj, cfg)
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
	if NotedProperty(&in) != SharingIncentive || in.Policy != "unweighted" || in.Result == nil || in.Check == nil ||
		len(in.Check.Claims) != 1 || in.Check.Claims[0].Property != SharingIncentive {
		t.Fatalf("note %q policy %q result %v check %+v", in.Note, in.Policy, in.Result, in.Check)
	}
	target := Target{Replay: r.Counterexample, Instance: &in}
	again, err := target.Check(subj, Config{})
	if err != nil {
		t.Fatal(err)
	}
	// Feasibility first, then the property the file names, which still
	// fails and names the replayed file as its counterexample.
	if len(again.Results) != 2 || again.Results[0].Property != Feasible || again.Results[1].Status != Violated ||
		again.Results[1].Reason != r.Reason || again.Results[1].Counterexample != r.Counterexample {
		t.Fatalf("replay: %+v, want %q", again.Results, r.Reason)
	}
	if f := again.Failure(); f == nil || f.Status != 1 || f.Msg != "policy unweighted violates claimed sharing-incentive" {
		t.Errorf("replay's failure: %+v", f)
	}
	fixed, err := target.Check(subject("fixed", nil, partition), Config{})
	if err != nil {
		t.Fatal(err)
	}
	if fixed.Results[1].Status != Holds || fixed.Results[1].Counterexample != "" || fixed.Failure() != nil {
		t.Errorf("the correct partition fails the replay: %s", fixed.Results[1].Reason)
	}
}

func TestTemporalProperties(t *testing.T) {
	t.Parallel()
	cfg := Config{Seed: 2, Temporal: TemporalConfig{Workloads: 1, BaseRounds: 4, Horizons: 4, MaxHorizons: 5},
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
	iso, err := Run(registered(t, "static-partition"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r := result(t, iso, ShareConvergence); r.Status != Holds {
		t.Errorf("isolated share convergence %s: %s", r.Status, r.Reason)
	}
	for _, r := range iso.Results {
		// The mean over the workloads, then the one workload.
		if len(r.Measures) != 2 || len(r.Measures[0].Values) < 4 {
			t.Errorf("%s: measures %+v", r.Property, r.Measures)
		}
	}
	// With only temporal properties, no single-decision instance is decided.
	if fifo.Instances != 0 {
		t.Errorf("temporal properties alone ran %d single-decision instances", fifo.Instances)
	}
}

// The growth fit works on the values as they are: exactly linear growth
// has α = 1 and √H growth α = 0.5, whatever their scale (0.1·H stays below
// one unit at the first horizons, which ln max(v, 1) flattened to α = 0.44)
// and with an offset; a quantity that stays within a unit is flat.
func TestGrowthFit(t *testing.T) {
	t.Parallel()
	hs := []int{8, 16, 32, 64, 128, 256}
	gen := func(f func(h float64) float64) []float64 {
		var vs []float64
		for _, h := range hs {
			vs = append(vs, f(float64(h)))
		}
		return vs
	}
	for _, c := range []struct {
		name string
		vs   []float64
		want float64
		flat bool
	}{
		{"linear", gen(func(h float64) float64 { return h }), 1, false},
		{"slow linear", gen(func(h float64) float64 { return 0.1 * h }), 1, false},
		{"linear with offset", gen(func(h float64) float64 { return 5 + 0.1*h }), 1, false},
		{"square root", gen(func(h float64) float64 { return 2 * math.Sqrt(h) }), 0.5, false},
		{"square root with offset", gen(func(h float64) float64 { return 3 + math.Sqrt(h) }), 0.5, false},
		{"bounded", []float64{0.1, 0.5, 0.2, 0.9, 0.4, 0.6}, 0, true},
		{"falling", gen(func(h float64) float64 { return 100 / h }), 0, true},
	} {
		g := fitGrowth(hs, c.vs, 1)
		if g.Flat != c.flat || math.Abs(g.Alpha-c.want) > 0.01 {
			t.Errorf("%s %v: %+v, want α = %v flat %v", c.name, c.vs, g, c.want, c.flat)
		}
		if !c.flat && (g.Lo > c.want+0.01 || g.Hi < c.want-0.01) {
			t.Errorf("%s: CI %v–%v misses %v", c.name, g.Lo, g.Hi, c.want)
		}
		ok, sure := g.Verdict(0.5)
		if want := c.want <= 0.75; ok != want || !sure {
			t.Errorf("%s: verdict ok=%v sure=%v, want ok=%v, sure", c.name, ok, sure, want)
		}
	}
	// Noise widens the interval; a noisy √H is still told from H.
	r := rand.New(rand.NewPCG(1, 1))
	noisy := gen(func(h float64) float64 { return 3*math.Sqrt(h) + r.NormFloat64()*0.3 })
	g := fitGrowth(hs, noisy, 1)
	if ok, sure := g.Verdict(0.5); !ok || !sure || g.Hi-g.Lo <= 0 {
		t.Errorf("noisy √H: %+v ok=%v sure=%v", g, ok, sure)
	}
}

// End to end: a policy whose regret grows exactly linearly (it leaves one
// GPU idle for good) has α ≈ 1 at the default horizons; its long-term lag
// too.
func TestLinearRegretIsCaught(t *testing.T) {
	t.Parallel()
	idleOne := func(s *models.Snapshot) (models.Allocation, error) {
		a, err := partition(s)
		if err != nil {
			return a, err
		}
		// Drop the first job's time on its first type: a fixed waste.
		for _, id := range slices.Sorted(maps.Keys(a.Fractions)) {
			for _, g := range slices.Sorted(maps.Keys(a.Fractions[id])) {
				a.Fractions[id][g] /= 2
				return a, nil
			}
		}
		return a, nil
	}
	cfg := Config{Seed: 1, Temporal: TemporalConfig{Workloads: 1}, Props: []string{Regret}}
	rep, err := Run(subject("idle-one", []string{Regret}, idleOne), cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := result(t, rep, Regret)
	m := r.Measures[0] // the mean over the workloads
	if r.Status != Violated || math.Abs(m.Growth.Alpha-1) > 0.05 {
		t.Errorf("linear regret: %s α = %v (%s)", r.Status, m.Growth.Alpha, m)
	}
}

func TestJUnitAndMatrixShapes(t *testing.T) {
	t.Parallel()
	cfg := Config{Seed: 1, Cases: 5, Bound: 1, Props: []string{Feasible, SharingIncentive, ShareConvergence},
		Temporal: TemporalConfig{Workloads: 1, BaseRounds: 2, Horizons: 4, MaxHorizons: 4}}
	rep, err := Run(registered(t, "static-partition"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	rep.Claims = claimsOf(SharingIncentive)
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
	m := &Matrix{Seed: 1, Cases: 5, Policies: []MatrixRow{{Policy: "static-partition", Results: rep.Results}}}
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
	want := []string{"policy", "property", "kind", "claimed", "conditions", "status", "unconditional", "exhaustive", "random",
		"workloads", "exponent", "counterexample", "reason"}
	if !reflect.DeepEqual(rows[0], want) || len(rows) != 4 {
		t.Errorf("CSV header %v, %d rows", rows[0], len(rows))
	}
	var tbl strings.Builder
	m.Table(&tbl)
	if !strings.Contains(tbl.String(), "VIOLATED") {
		t.Errorf("table:\n%s", tbl.String())
	}
}

// Every claim in the registry names a property and conditions the checker
// knows, and cites its source.
func TestRegistryClaimsAreKnown(t *testing.T) {
	t.Parallel()
	known := map[string]bool{}
	for _, n := range Names() {
		known[n] = true
	}
	reg := registry.Default()
	for _, name := range reg.Names() {
		e, _ := reg.Lookup(name)
		for _, c := range e.Claims {
			if !known[c.Property] {
				t.Errorf("policy %s claims %q, which the checker does not know (known: %v)", name, c.Property, Names())
			}
			if _, err := lookupConditions(c.Conditions); err != nil {
				t.Errorf("policy %s claims %s: %v", name, c.Property, err)
			}
			if c.Source == "" {
				t.Errorf("policy %s claims %s without a source", name, c.Property)
			}
		}
	}
	for name := range registry.Claims() {
		if _, ok := reg.Lookup(name); !ok {
			t.Errorf("claims for %q, which is not registered", name)
		}
	}
}

// Bad settings are refused with the setting, its value and its range.
func TestBadSettings(t *testing.T) {
	t.Parallel()
	subj := subject("p", nil, partition)
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Props: []string{"fast"}}, "unknown property"},
		{Config{Bound: 9}, "bound must be in [0, 4], got 9"},
		{Config{Bound: -1}, "bound must be in [0, 4], got -1"},
		{Config{Mode: "sometimes"}, "mode"},
		{Config{Cases: -1}, "cases must be in [0, 1000000], got -1"},
		{Config{Temporal: TemporalConfig{ArrivalsPerRound: math.NaN()}}, "arrivals per round must be a number in (0, 64], got NaN"},
		{Config{Temporal: TemporalConfig{ArrivalsPerRound: math.Inf(1)}}, "arrivals per round"},
		{Config{Temporal: TemporalConfig{BaseRounds: 1 << 20}}, "horizon"},
		{Config{Limits: Limits{MaxUsers: 1 << 30, MaxTypes: 1, MaxGPUs: 1, MaxJobsPerUser: 1, Gangs: []int{1}, Weights: []float64{1}, Speeds: []float64{1}}}, "max users"},
	} {
		_, err := Run(subj, c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error with %q", c.cfg, err, c.want)
		}
	}
	_, err := Lookup(&Config{}, []string{"nope"})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprint(EnvyFree)) {
		t.Errorf("unknown property error does not list the known ones: %v", err)
	}
}

// --cases 0 means no random instance, not the default 100.
func TestZeroCasesMeansNone(t *testing.T) {
	t.Parallel()
	rep, err := Run(subject("p", nil, partition), Config{Props: []string{Feasible}, Bound: 1, Cases: 0})
	if err != nil {
		t.Fatal(err)
	}
	if r := result(t, rep, Feasible); r.Random != 0 || r.Exhaustive != 19 {
		t.Errorf("%d random, %d exhaustive; want 0 and 19", r.Random, r.Exhaustive)
	}
}
