package check_test

import (
	"fmt"

	"fairbench/check"
	"fairbench/models"
	"fairbench/solvers"
)

// firstComer is a planted bug: it gives the whole cluster to the first job
// in the snapshot, as time fractions.
type firstComer struct{}

func (firstComer) Name() string { return "first-comer" }

func (firstComer) Allocate(s *models.Snapshot) (models.Allocation, error) {
	if len(s.Jobs) == 0 {
		return models.Allocation{}, nil
	}
	j := &s.Jobs[0]
	x := map[string]float64{}
	for _, g := range s.Cluster.TypeNames() {
		if s.Throughput(&j.Job, g) > 0 {
			x[g] = min(1, float64(s.Cluster.Capacity(g))/float64(j.Gang))
			break
		}
	}
	return models.Allocation{Fractions: map[models.JobID]map[string]float64{j.ID: x}}, nil
}

// Checking a claim: a policy that claims sharing incentive (every user
// does at least as well as on its weighted share of the cluster) but gives
// everything to one job is caught — on the exhaustive instances, the
// smallest first — while feasibility, which every policy claims and which
// is checked first on every decision, holds. The same seed finds the same
// counterexample; with Config.OutDir set it is written as an instance file
// that Replay (fairbench check --replay) runs again.
func Example() {
	subj := &check.Subject{Name: "first-comer",
		Claims: []models.Claim{{Property: check.SharingIncentive, Source: "the example's claim"}},
		New:    func() (solvers.Policy, error) { return firstComer{}, nil }}
	rep, err := check.Run(subj, check.Config{Props: []string{check.SharingIncentive}, Cases: 20, Bound: 1, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range rep.Results {
		fmt.Printf("%s: %s (claimed %v)\n", r.Property, r.Status, r.Claimed)
	}
	if f := rep.Failure(); f != nil {
		fmt.Println("exit", f.Status, "-", f.Msg)
	}
	// Output:
	// feasible: holds (claimed true)
	// sharing-incentive: violated (claimed true)
	// exit 1 - policy first-comer violates claimed sharing-incentive
}
