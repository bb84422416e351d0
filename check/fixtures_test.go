package check

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"fairbench/models"
	"fairbench/solvers/registry"
)

var update = flag.Bool("update", false, "rewrite the fixtures in testdata/ from the searches that found them")

// fixtures are counterexamples the searches found, kept as named files
// (docs/checker.md, "Fixtures"); each says what it caught. With -update the search that
// found it runs again and rewrites the file; otherwise the file is replayed
// and must give the same verdict.
var fixtures = []struct {
	file    string
	policy  string         // a registered policy, or a test policy of this package
	options map[string]any // the policy's options
	prop    string
	want    Status
	// caught says what the fixture caught.
	caught string
	// found is the search that found it (nil: hand-written spec).
	found *Config
	spec  *Spec
}{
	{
		file: "gavel-las-strategy-proof.json", policy: "gavel-las", prop: StrategyProof, want: Violated,
		caught: "Gavel's max-min fairness is not strategy-proof (OSDI 2020, §4): on 1 V100 + 1 P100, a job that runs only on the P100 " +
			"gains by claiming it also runs on the V100 and is twice as fast on the P100: the LP then gives it 3/4 of the P100 instead of 1/2",
		found: dfltp(StrategyProof),
	},
	{
		file: "gavel-las-strategy-proof-hidden-speedup.json", policy: "gavel-las", prop: StrategyProof, want: Violated,
		caught: "a lie within the job's true support: a weight-3, 2-GPU job hides half of its V100 speedup and gains " +
			"(found by gopter alone and shrunk)",
		found: &Config{Props: []string{StrategyProof}, Seed: 1, Bound: 0, Cases: 100, Workers: 1},
	},
	{
		file: "gavel-las-pareto-efficient.json", policy: "gavel-las", prop: ParetoEfficient, want: Violated,
		caught: "the single max-min LP stops at the bottleneck: half of the P100 stays idle although the P100-only job could use it " +
			"(Gavel's Pareto-efficiency claim needs its water-filling variant)",
		found: dfltp(ParetoEfficient),
	},
	{
		file: "gavel-las-sharing-incentive-weights.json", policy: "gavel-las", options: map[string]any{"solution": "vertex"},
		prop: SharingIncentive, want: Violated,
		caught: "with weights the max-min optimum is set by the weight-2 job's time cap, and the LP's vertex gives the weight-1, " +
			"P100-only job just what the minimum needs: 1/4 of the P100 (3/4 idle), less than its weighted 1/3 (the central " +
			"solution, gavel-las's default, gives it more)",
		found: dfltp(SharingIncentive),
	},
	{
		file: "drf-sharing-incentive.json", policy: "drf", prop: SharingIncentive, want: Violated,
		caught: "DRF with GPU types as distinct resources: a job that could also use the P100 gets half the V100 only, " +
			"below its half of every type",
		found: dfltp(SharingIncentive),
	},
	{
		file: "gandiva-fair-sharing-incentive-rank.json", policy: "gandiva-fair", prop: SharingIncentive, want: Violated,
		caught: "Gandiva_fair homes a lone job on the highest-ranked type and never moves it to a lower-ranked type that runs " +
			"it faster (non-monotone speeds, as Gavel's Recommendation model on K80/P100/V100)",
		found: &Config{Props: []string{SharingIncentive}, Seed: 1, Cases: DefaultCases, Bound: DefaultBound, Gangs: []int{1}},
	},
	{
		file: "gandiva-fair-gang-relaxation.json", policy: "gandiva-fair", prop: SharingIncentive, want: Holds,
		caught: "a checker false alarm, found by the exhaustive search: on 2 V100 in one server a 1-GPU and a 2-GPU job cannot " +
			"overlap, so no gang schedule meets the time-sharing model's shares (x₁ = 1, x₂ = ½); the realised mode now skips " +
			"instances with gangs above one (Decision.Relaxed)",
		spec: &Spec{GPUs: []int{2}, Users: []UserSpec{{Weight: 1, Jobs: []JobSpec{{Gang: 1, Speed: []float64{1}}}},
			{Weight: 1, Jobs: []JobSpec{{Gang: 2, Speed: []float64{1}}}}}},
	},
	{
		file: "market-price-below-one.json", policy: "market", prop: SharingIncentive, want: Holds,
		caught: "a bug in this package's reference market, found by random testing: a trade at a price below 1 left the buyer " +
			"more GPUs than its jobs could use; the volume is now bounded on both sides",
		spec: &Spec{GPUs: []int{1, 1}, Users: []UserSpec{{Weight: 1, Jobs: []JobSpec{{Gang: 1, Speed: []float64{1, 3}}}},
			{Weight: 1, Jobs: []JobSpec{{Gang: 1, Speed: []float64{1, 2}}}}}},
	},
}

// dfltp is a pointer to dflt(props...).
func dfltp(props ...string) *Config {
	c := dflt(props...)
	return &c
}

// fixtureSubject resolves a fixture's policy.
func fixtureSubject(t *testing.T, name string, options map[string]any) *Subject {
	switch name {
	case "drf":
		return subject("drf", nil, drf)
	case "market":
		return subject("market", []string{SharingIncentive}, market(func(rb, rs float64) float64 { return rs }))
	}
	if options == nil {
		return registered(t, name)
	}
	s, err := SubjectOf(registry.Default(), name, options)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestFixtures(t *testing.T) {
	t.Parallel()
	for _, f := range fixtures {
		path := filepath.Join("testdata", f.file)
		subj := fixtureSubject(t, f.policy, f.options)
		if *update {
			var in *models.Instance
			switch {
			case f.found != nil:
				rep, err := Run(subj, *f.found)
				if err != nil {
					t.Fatal(err)
				}
				r := result(t, rep, f.prop)
				if r.Instance == nil {
					t.Fatalf("%s: the search no longer finds it (%s)", f.file, r.Status)
				}
				in = r.Instance
			default:
				in = f.spec.Instance()
				in.Policy = f.policy
				in.Note = "fairbench check: property " + f.prop + " replayed on policy " + f.policy + " (hand-written)"
			}
			in.Note += " — fixture: " + f.caught
			b, err := json.MarshalIndent(in, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v (run with -update to write it)", f.file, err)
		}
		var in models.Instance
		if err := json.Unmarshal(b, &in); err != nil {
			t.Fatal(err)
		}
		cfg := Config{}
		if f.found != nil {
			cfg.Gangs = f.found.Gangs
		}
		rep, err := Replay(subj, &in, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if r := result(t, rep, f.prop); r.Status != f.want {
			t.Errorf("%s (%s): replay %s, want %s: %s", f.file, f.caught, r.Status, f.want, r.Reason)
		}
	}
}
