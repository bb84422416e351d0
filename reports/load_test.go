package reports

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fairbench/solvers/gandivafair"
)

// TestLoadTypesPolicyReports: a loaded run's policy report is the typed
// value its policy's registry entry declares (gandiva-fair's is a
// *gandivafair.Report, with its users and decisions), a policy that
// reports nothing has none, and a report of the wrong shape is an error
// naming its record.
func TestLoadTypesPolicyReports(t *testing.T) {
	t.Parallel()
	dir, pols := fixtureDir(t)
	set, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	gandiva := ""
	for _, r := range set.Runs {
		rep := r.Record.Result.PolicyReport
		switch r.Record.Policy {
		case "gandiva-fair":
			g, ok := rep.(*gandivafair.Report)
			if !ok {
				t.Fatalf("%s: gandiva-fair's report loaded as %T", r.Path, rep)
			}
			// The fixture's scenario has 3 users (testdata/tiny.yaml);
			// Trades counts the trades the markets list.
			n := 0
			for _, m := range g.Markets {
				n += len(m.Trades)
			}
			if !g.Trading || len(g.Users) != 3 || g.Decisions == 0 || g.Trades != n {
				t.Errorf("%s: trading %v, %d users, %d decisions, %d trades (markets list %d)",
					r.Path, g.Trading, len(g.Users), g.Decisions, g.Trades, n)
			}
			gandiva = r.Path
		case "fifo", "srtf":
			if rep != nil {
				t.Errorf("%s: %s reports %T", r.Path, r.Record.Policy, rep)
			}
		}
	}
	if gandiva == "" {
		t.Fatalf("no gandiva-fair run among %v", pols)
	}

	bad := copyDir(t, dir)
	path := filepath.Join(bad, filepath.Base(gandiva))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	rec["result"].(map[string]any)["policy_report"].(map[string]any)["trades"] = "many"
	if b, err = json.Marshal(rec); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load(bad)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "policy_report") {
		t.Errorf("a report of the wrong shape: %v, want an error naming %s and policy_report", err, path)
	}
}
