package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGenerateFixture: testdata/pairs.json has, on K80, B beside B, A beside
// B (stored under both, mirrored), A beside A as [0, 0] (kept: cannot run
// together), a multi-GPU [0, 0] placeholder (left out) and an unconsolidated
// copy (checked, not repeated); on V100 one pair whose values need all 17
// digits. Each unordered pair appears once, a ≤ b by name, sorted by GPU.
func TestGenerateFixture(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("testdata", "pairs.json"))
	if err != nil {
		t.Fatal(err)
	}
	pairs, err := parse(data)
	if err != nil {
		t.Fatal(err)
	}
	src, err := generate(pairs)
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	for _, want := range []string{
		"\t\"A\", // 0\n\t\"B\", // 1\n}",
		"\t{\"K80\", 0, 0, 0, 0},\n\t{\"K80\", 0, 1, 1.5, 3},\n\t{\"K80\", 1, 1, 2.25, 2.25},\n\t{\"V100\", 0, 1, 0.1, 0.30000000000000004},\n}",
		"// Code generated", "DO NOT EDIT.", "Narayanan et al., OSDI 2020", "(MIT)",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("generated file lacks %q:\n%s", want, s)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"asymmetric":      `{"k80": {"('A', 1)": {"null": 1, "('B', 1)": [1, 2]}, "('B', 1)": {"null": 1, "('A', 1)": [1, 1]}}}`,
		"one-sided":       `{"k80": {"('A', 1)": {"null": 1, "('B', 1)": [1, 2]}}}`,
		"multi-GPU value": `{"k80": {"('A', 2)": {"null": 1, "('A', 2)": [1, 1]}}}`,
		"spread differs":  `{"k80": {"('A', 1)": {"null": 1, "('A', 1)": [1, 1]}}, "k80_unconsolidated": {"('A', 1)": {"null": 1, "('A', 1)": [2, 2]}}}`,
		"unknown GPU":     `{"a100": {"('A', 1)": {"null": 1, "('A', 1)": [1, 1]}}}`,
		"negative":        `{"k80": {"('A', 1)": {"null": 1, "('A', 1)": [-1, -1]}}}`,
		"not a pair":      `{"k80": {"('A', 1)": {"null": 1, "('A', 1)": [1]}}}`,
		"no pairs":        `{"k80": {"('A', 1)": {"null": 1}}}`,
		"bad key":         `{"k80": {"A": {"null": 1}}}`,
	}
	for name, in := range cases {
		if _, err := parse([]byte(in)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
