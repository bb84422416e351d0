package check

import (
	"bytes"
	"strings"
	"testing"

	"fairbench/models"
	"fairbench/solvers/registry"
)

// baselineMatrix is a small matrix by hand: policy p claims envy-free
// under equal weights (holds there, violated unconditionally) and
// sharing-incentive (violated).
func baselineMatrix() *Matrix {
	in := &models.Instance{Users: []models.User{{Name: "u1", Weight: 1}}, Note: "x"}
	return &Matrix{Policies: []MatrixRow{{Policy: "p", Results: []Result{
		{Property: Feasible, Claimed: true, Status: Holds},
		{Property: EnvyFree, Claimed: true, Conditions: []string{models.EqualWeights}, Status: Holds,
			Unconditional: &Result{Property: EnvyFree, Status: Violated, Reason: "envy", Instance: in}},
		{Property: SharingIncentive, Claimed: true, Status: Violated, Reason: "short", Instance: in},
		{Property: ParetoEfficient, Status: Violated},
	}}}}
}

func TestBaselineRoundTripAndCompare(t *testing.T) {
	t.Parallel()
	m := baselineMatrix()
	b := NewBaseline(m, Budget{Seed: 3, Cases: 7, Bound: 1})
	raw, err := b.JSON()
	if err != nil {
		t.Fatal(err)
	}
	// One claim per line, the unclaimed property left out.
	if n := strings.Count(string(raw), `"policy":"p"`); n != 3 || strings.Contains(string(raw), ParetoEfficient) {
		t.Errorf("%d claims recorded:\n%s", n, raw)
	}
	back, err := ReadBaseline(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if back.Budget.Seed != 3 || len(back.Claims) != 3 || len(back.Claims[2].Counterexample) == 0 {
		t.Fatalf("round trip: %+v", back)
	}
	if c := Failing(back.Compare(m)); len(c) != 0 {
		t.Errorf("the matrix against its own baseline: %v", c)
	}
	for _, c := range []struct {
		name   string
		change func(m *Matrix)
		want   string
	}{
		{"new violation", func(m *Matrix) { m.Policies[0].Results[1].Status = Violated }, "new violation"},
		{"fixed", func(m *Matrix) { m.Policies[0].Results[2].Status = Holds }, "fixed"},
		{"fixed unconditionally", func(m *Matrix) { m.Policies[0].Results[1].Unconditional.Status = Holds }, "fixed"},
		{"conditions", func(m *Matrix) { m.Policies[0].Results[1].Conditions = nil }, "conditions changed"},
		{"stale", func(m *Matrix) { m.Policies[0].Results = m.Policies[0].Results[:2] }, "stale"},
		{"error", func(m *Matrix) { m.Policies[0].Results[0].Status = Errored }, "error"},
	} {
		mm := baselineMatrix()
		c.change(mm)
		got := Failing(back.Compare(mm))
		if len(got) == 0 || got[0].Kind != c.want {
			t.Errorf("%s: changes %v, want %q", c.name, got, c.want)
		}
	}
	// A policy the matrix skipped (check --matrix --skip) keeps its
	// baseline entries without a "stale" change; one removed without being
	// skipped is stale.
	skipped := baselineMatrix()
	skipped.Policies, skipped.Skipped = nil, []string{"p"}
	if c := back.Compare(skipped); len(c) != 0 {
		t.Errorf("a skipped policy's entries: %v, want no change", c)
	}
	removed := baselineMatrix()
	removed.Policies = nil
	if c := Failing(back.Compare(removed)); len(c) != 3 || c[0].Kind != "stale" {
		t.Errorf("a removed policy's entries: %v, want 3 stale", c)
	}
	// A new claim that holds is reported, not failed.
	mm := baselineMatrix()
	mm.Policies[0].Results[3].Claimed, mm.Policies[0].Results[3].Status = true, Holds
	all := back.Compare(mm)
	if len(Failing(all)) != 0 || len(all) != 1 || all[0].Kind != "new claim" {
		t.Errorf("new holding claim: %v", all)
	}
}

func TestReadBaselineRefusesBadFiles(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{`{"format": "other"}`, "format"},
		{`{"format": "fairbench-baseline/1", "claims": [{"policy": "p"}]}`, "claims[0]: policy and property"},
		{`{"format": "fairbench-baseline/1", "claims": [{"policy": "p", "property": "envy-free", "status": "maybe", "unconditional": "holds"}]}`, "status"},
		{`{"format": "fairbench-baseline/1", "extra": 1}`, "unknown field"},
		{`{"format": "fairbench-baseline/1"} {}`, "more than one"},
	} {
		if _, err := ReadBaseline(strings.NewReader(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.in, err, c.want)
		}
	}
}

// TestSkipUnknownPolicy: --skip must name registered policies (a typo would
// silently check a policy meant to be left out, or skip nothing).
func TestSkipUnknownPolicy(t *testing.T) {
	t.Parallel()
	_, err := RunMatrixSkipping(registry.Default(), Config{}, []string{"gavel-lass"})
	if err == nil || !strings.Contains(err.Error(), `cannot skip "gavel-lass"`) {
		t.Errorf("error %v, want one naming the unknown policy", err)
	}
}
