package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGenerateFixture runs the generator on the models fixture and checks the
// figures (in the order of models.Matrix.Keys) and the citation.
func TestGenerateFixture(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "gavel_throughputs_small.json"))
	if err != nil {
		t.Fatal(err)
	}
	figs, err := parse(data)
	if err != nil {
		t.Fatal(err)
	}
	src, err := generate(figs)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		`{"A3C", "K80", 1, Consolidated, 2},`,
		`{"A3C", "V100", 1, Consolidated, 7.125},`,
		`{"ResNet-18 (batch size 32)", "K80", 1, Consolidated, 4.5},`,
		`{"ResNet-18 (batch size 32)", "K80", 2, Consolidated, 0},`,
		`{"ResNet-18 (batch size 32)", "V100", 1, Consolidated, 12.25},`,
		`{"ResNet-18 (batch size 32)", "V100", 2, Consolidated, 20.5},`,
		`{"ResNet-18 (batch size 32)", "V100", 2, Spread, 15.75},`,
		`{"Transformer (batch size 16)", "V100", 1, Consolidated, 9},`,
	}, "\n\t")
	s := string(src)
	if !strings.Contains(s, "\t"+want+"\n}") {
		t.Errorf("generated:\n%s", s)
	}
	for _, w := range []string{"// Code generated", "DO NOT EDIT.", "Narayanan et al., OSDI 2020", "(MIT)"} {
		if !strings.Contains(s, w) {
			t.Errorf("generated file lacks %q", w)
		}
	}
}

func TestParseRefusesUnknownGPU(t *testing.T) {
	t.Parallel()
	if _, err := parse([]byte(`{"a100": {"('A3C', 1)": {"null": 1}}}`)); err == nil || !strings.Contains(err.Error(), "a100") {
		t.Errorf("got %v", err)
	}
}
