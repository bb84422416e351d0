package reports

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fairbench/solvers/registry"
)

// A matrix of two policies, one with a claimed violation and a
// counterexample, joined with no runs: the cells read as the key says.
func TestPropertyMatrixMarkdown(t *testing.T) {
	m := &Matrix{Path: "m.json", Rows: []MatrixRow{
		{Policy: "a", Property: "envy-free", Claimed: "true", Result: ResultPass},
		{Policy: "a", Property: "strategy-proof", Claimed: "true", Result: ResultFail, Counterexample: "out/check/a-sp.json"},
		{Policy: "b", Property: "envy-free", Claimed: "false", Result: ResultFail, Counterexample: "out/check/b-ef.json"},
	}}
	pm := NewPropertyMatrix(m, nil)
	got := pm.Markdown("docs/")
	for _, want := range []string{
		"| policy | EF | SP | throughput (jobs/h) | mean JCT (h) |",
		"| `a` | holds* | [**FAIL***](docs/out/check/a-sp.json) | – | – |",
		"| `b` | [fail](docs/out/check/b-ef.json) | – | – | – |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, got)
		}
	}
	doc := []byte("x\n" + MatrixBegin + "old\n" + MatrixEnd + "y\n")
	out, err := SpliceMatrix(doc, "new\n")
	if err != nil || string(out) != "x\n"+MatrixBegin+"new\n"+MatrixEnd+"y\n" {
		t.Errorf("SpliceMatrix = %q, %v", out, err)
	}
	if _, err := SpliceMatrix([]byte("no block"), "new\n"); err == nil {
		t.Error("SpliceMatrix without markers: no error")
	}
}

// README.md's property matrix and docs/property-matrix.md are what
// docs/property-matrix.json gives (regenerate with `make property-matrix`),
// every counterexample it links is there, and every registered policy has
// a row.
func TestPropertyMatrixDocs(t *testing.T) {
	pm, err := ReadPropertyMatrix("../docs/property-matrix.json")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	block, err := MatrixBlock(readme)
	if err != nil {
		t.Fatal(err)
	}
	if want := pm.Markdown("docs/"); block != want {
		t.Errorf("README.md's property matrix is not what docs/property-matrix.json gives; run make property-matrix.\ngot:\n%s\nwant:\n%s", block, want)
	}
	page, err := os.ReadFile("../docs/property-matrix.md")
	if err != nil {
		t.Fatal(err)
	}
	if want := PropertyMatrixPage(pm); string(page) != want {
		t.Error("docs/property-matrix.md is not what docs/property-matrix.json gives; run make property-matrix")
	}
	var pols []string
	for _, row := range pm.Policies {
		pols = append(pols, row.Policy)
		for j, c := range row.Cells {
			if c.Result == ResultFail && c.Counterexample == "" {
				t.Errorf("%s × %s: a failure without a counterexample", row.Policy, pm.Properties[j])
			}
			if c.Counterexample != "" {
				if _, err := os.Stat(filepath.Join("../docs", c.Counterexample)); err != nil {
					t.Errorf("%s × %s: %v", row.Policy, pm.Properties[j], err)
				}
			}
		}
		if row.Runs == 0 {
			t.Errorf("%s: no efficiency figures", row.Policy)
		}
	}
	for _, name := range registry.Default().Names() {
		if !slices.Contains(pols, name) {
			t.Errorf("policy %s has no row in docs/property-matrix.json; run make property-matrix", name)
		}
	}
}

// The matrix agrees with the gate: every claim in check/baseline.json has
// the verdict there (under its conditions) in docs/property-matrix.json.
func TestPropertyMatrixAgreesWithBaseline(t *testing.T) {
	pm, err := ReadPropertyMatrix("../docs/property-matrix.json")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("../check/baseline.json")
	if err != nil {
		t.Fatal(err)
	}
	var base struct {
		Claims []struct {
			Policy, Property, Status string
		} `json:"claims"`
	}
	if err := json.Unmarshal(b, &base); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"holds": ResultPass, "violated": ResultFail, "error": ResultError}
	for _, c := range base.Claims {
		i := slices.IndexFunc(pm.Policies, func(r PropertyRow) bool { return r.Policy == c.Policy })
		j := slices.Index(pm.Properties, c.Property)
		if i < 0 || j < 0 {
			t.Errorf("%s × %s: in the baseline, not in the matrix", c.Policy, c.Property)
			continue
		}
		cell := pm.Policies[i].Cells[j]
		if !cell.Claimed || cell.Result != want[c.Status] {
			t.Errorf("%s × %s: baseline %s, matrix %s (claimed %v)", c.Policy, c.Property, c.Status, cell.Result, cell.Claimed)
		}
	}
}
