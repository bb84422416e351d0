package runs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fairbench/sim"
)

// TestReadRecordKeepsTheReportAsJSON: a record's policy report comes back
// as the JSON it was written as (a json.RawMessage, for the policy's
// registry entry to decode), the rest of the result decoded; a record
// without a report has none, and one without a result is refused.
func TestReadRecordKeepsTheReportAsJSON(t *testing.T) {
	t.Parallel()
	type report struct {
		Trades int       `json:"trades"`
		Gains  []float64 `json:"gains"`
	}
	dir := t.TempDir()
	write := func(name string, r *Record) string {
		b, err := r.Encode()
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	with := write("with.json", &Record{ID: "a", Policy: "p", Result: &sim.Result{Policy: "p",
		Summary: sim.Summary{Jobs: 3}, PolicyReport: &report{Trades: 2, Gains: []float64{0.5, 1e300}}}})
	back, err := ReadRecord(with)
	if err != nil {
		t.Fatal(err)
	}
	raw, ok := back.Result.PolicyReport.(json.RawMessage)
	if !ok {
		t.Fatalf("report read back as %T, want json.RawMessage", back.Result.PolicyReport)
	}
	var got report
	if err := json.Unmarshal(raw, &got); err != nil || got.Trades != 2 || len(got.Gains) != 2 || got.Gains[1] != 1e300 {
		t.Errorf("report %s decodes to %+v (%v)", raw, got, err)
	}
	if back.Result.Summary.Jobs != 3 || back.Result.Policy != "p" {
		t.Errorf("result read back as %+v", back.Result)
	}

	without := write("without.json", &Record{ID: "b", Result: &sim.Result{}})
	if back, err := ReadRecord(without); err != nil || back.Result.PolicyReport != nil {
		t.Errorf("record without a report: %v, report %v", err, back.Result.PolicyReport)
	}
	null := filepath.Join(dir, "null.json")
	if err := os.WriteFile(null, []byte(`{"id": "c", "result": {"policy_report": null}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if back, err := ReadRecord(null); err != nil || back.Result.PolicyReport != nil {
		t.Errorf("a null report: %v, report %#v", err, back.Result.PolicyReport)
	}
	noResult := write("noresult.json", &Record{ID: "d"})
	if _, err := ReadRecord(noResult); err == nil || !strings.Contains(err.Error(), "no id or result") {
		t.Errorf("record without a result: %v", err)
	}
}
