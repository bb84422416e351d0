package calibrate

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"fairbench/models"
)

// TestExtrapolate: H200 (a built-in datasheet) is estimated for the
// catalogue's job types, in a Gavel-format file with a side file that
// holds the leave-one-type-out error; B200, which the catalogue lacks, needs
// its datasheet from a file (the CPU dry run's profile declares it); a type
// without a datasheet is an error naming it and saying how to give one.
func TestExtrapolate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "h200.json")
	x, err := Extrapolate(ExtrapolateRequest{GPUs: []string{"h200"}, Output: out, Options: ExtrapolateOptions{Method: DefaultMethod}})
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Types) != 1 || x.Types[0] != "H200" || len(x.Estimates["H200"]) == 0 || x.Sources["H200"] == "" {
		t.Fatalf("types %v, %d estimates, source %q", x.Types, len(x.Estimates["H200"]), x.Sources["H200"])
	}
	if x.LOO.All.N == 0 || len(x.LOO.Types) < 2 {
		t.Errorf("leave-one-type-out over %d figures, %d types", x.LOO.All.N, len(x.LOO.Types))
	}
	if len(x.Files) != 2 {
		t.Fatalf("files %v, want the matrix and its side file", len(x.Files))
	}
	m, err := models.ReadGavelThroughputs(bytes.NewReader(x.Files[out]), out)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Runnable(models.Key{Job: "ResNet-50 (batch size 64)", GPU: "H200", Gang: 1}) {
		t.Error("no H200 estimate for ResNet-50 (batch size 64)")
	}
	var side struct {
		LOO       LOOReport             `json:"leave_one_type_out"`
		Estimates map[string][]Estimate `json:"estimates"`
	}
	if err := json.Unmarshal(x.Files[filepath.Join(dir, "h200.extrapolation.json")], &side); err != nil ||
		side.LOO.Method != x.LOO.Method || len(side.Estimates["H200"]) != len(x.Estimates["H200"]) {
		t.Errorf("side file: %v, %+v", err, side.LOO)
	}
	if x, err := Extrapolate(ExtrapolateRequest{GPUs: []string{"h200"}}); err != nil || x.Files != nil {
		t.Errorf("without an output: %v, files %v", err, x.Files)
	}

	_, err = Extrapolate(ExtrapolateRequest{GPUs: []string{"B200"}})
	if err == nil || !strings.Contains(err.Error(), `"B200"`) || !strings.Contains(err.Error(), "--datasheet") || !strings.Contains(err.Error(), "H200") {
		t.Errorf("no datasheet: %v", err)
	}
	b200 := filepath.Join(dir, "b200.json")
	x, err = Extrapolate(ExtrapolateRequest{GPUs: []string{"b200"}, Datasheets: []string{"profiles/b200-cpu.yaml"}, Output: b200})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(x.Sources["B200"], "NVIDIA Blackwell") {
		t.Errorf("B200's datasheet source %q", x.Sources["B200"])
	}
	if g := string(x.Files[b200]); !strings.Contains(g, `"b200": {`) || !strings.Contains(g, "('ResNet-50 (batch size 64)', 1)") {
		t.Errorf("B200 estimates:\n%.400s", g)
	}
	if _, err := Extrapolate(ExtrapolateRequest{}); err == nil || !strings.Contains(err.Error(), "--gpu TYPE is required") {
		t.Errorf("no type: %v", err)
	}
}
