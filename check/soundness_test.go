package check

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"fairbench/models"
)

// overAllocate gives every job all its time on its fastest type, whoever
// else wants it: infeasible on most instances.
func overAllocate(s *models.Snapshot) (models.Allocation, error) {
	fr := map[models.JobID]map[string]float64{}
	for i := range s.Jobs {
		if ts := typesBySpeed(s, &s.Jobs[i]); len(ts) > 0 {
			fr[s.Jobs[i].ID] = map[string]float64{ts[0]: 1}
		}
	}
	return models.Allocation{Fractions: fr}, nil
}

// Feasibility comes first, whatever --props says: an over-allocating policy
// checked for sharing incentive alone fails it (and feasibility), and exits
// 1; it once passed every property but feasibility.
func TestInfeasibleNeverPasses(t *testing.T) {
	t.Parallel()
	for _, props := range [][]string{{SharingIncentive}, {EnvyFree}, {ParetoEfficient}, {StrategyProof}} {
		rep, err := Run(subject("over", props, overAllocate), dflt(props...))
		if err != nil {
			t.Fatal(err)
		}
		if f := result(t, rep, Feasible); f.Status != Violated {
			t.Errorf("%v: feasibility %s, want violated", props, f.Status)
		}
		r := result(t, rep, props[0])
		if r.Status != Violated || !strings.Contains(r.Reason, "infeasible") || rep.ExitCode() != 1 {
			t.Errorf("%v: %s (exit %d): %s", props, r.Status, rep.ExitCode(), r.Reason)
		}
	}
}

// A policy that answers a misreport with an infeasible allocation violates
// feasibility (which every policy claims), and the file written is the
// misreported instance, whose replay fails on feasibility.
func TestInfeasibleAnswerToAMisreport(t *testing.T) {
	t.Parallel()
	lieBreaksIt := func(s *models.Snapshot) (models.Allocation, error) {
		for i := range s.Jobs {
			if _, best := s.BestThroughput(&s.Jobs[i].Job); best > 100 {
				return overAllocate(s)
			}
		}
		return fairPartition(partitionOptions{})(s)
	}
	dir := t.TempDir()
	cfg := dflt(StrategyProof)
	cfg.OutDir = dir
	rep, err := Run(subject("lie-breaks-it", nil, lieBreaksIt), cfg)
	if err != nil {
		t.Fatal(err)
	}
	f := result(t, rep, Feasible)
	if f.Status != Violated || rep.ExitCode() != 1 || f.Counterexample == "" {
		t.Fatalf("feasibility %s (exit %d): %s", f.Status, rep.ExitCode(), f.Reason)
	}
	b, err := os.ReadFile(f.Counterexample)
	if err != nil {
		t.Fatal(err)
	}
	var in models.Instance
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatal(err)
	}
	lied := false
	for _, j := range in.Jobs {
		for _, v := range j.Throughputs {
			lied = lied || v > 100
		}
	}
	if !lied || in.Check == nil || in.Check.Property != Feasible {
		t.Fatalf("the file is not the misreported instance: %s", b)
	}
	again, err := Replay(subject("lie-breaks-it", nil, lieBreaksIt), &in, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if again.ExitCode() != 1 || again.Results[0].Status != Violated {
		t.Errorf("replay: exit %d, %+v", again.ExitCode(), again.Results)
	}
}
