package reproduce

import (
	"testing"

	"fairbench/runs"
	"fairbench/scenarios"
	"fairbench/sim"
)

// TestTradingNoUserLosesQuick runs the --quick Gandiva_fair trace with every
// job on one GPU (four users of 24 GPUs, contended) with and without
// trading, and checks the paper's claim per user: no user's mean JCT or
// throughput is worse with trading by more than claimSlack. Before passes
// were rescaled on ticket changes (gandivafair's retick), a recommendation
// job that ran a few minutes after its user's V100 share was traded away
// was charged at the minimum tickets' stride, carried a lead of about 4·10^5
// quanta to its next home and waited 11 hours there: the user's throughput
// fell to 0.60× and its mean JCT to 0.95×.
func TestTradingNoUserLosesQuick(t *testing.T) {
	t.Parallel()
	e := *gandivaExperiment
	e.Traces = gandivaTraces(hpoContended, true)
	dir := t.TempDir()
	reg := subset(t, "gandiva-fair", "gandiva-fair-notrade", "static-partition")
	g, err := scenarios.Load(writeScenario(t, &e, true, reg, dir))
	if err != nil {
		t.Fatal(err)
	}
	res := map[string]*sim.Result{}
	for _, r := range g.Runs {
		if r.Policy != "gandiva-fair" && r.Policy != "gandiva-fair-notrade" {
			continue
		}
		out, err := runs.Execute(r, runs.Options{Registry: reg})
		if err != nil {
			t.Fatal(err)
		}
		res[r.Policy] = out.Record.Result
	}
	with, without := userOutcomes(res["gandiva-fair"]), userOutcomes(res["gandiva-fair-notrade"])
	if len(with) != 4 || len(without) != 4 {
		t.Fatalf("users: %v, %v", with, without)
	}
	for u, a := range with {
		b := without[u]
		if a.throughput < b.throughput*(1-claimSlack) || b.jct < a.jct*(1-claimSlack) {
			t.Errorf("%s loses with trading: throughput %.4g vs %.4g steps/h, mean JCT %.4g vs %.4g s", u, a.throughput, b.throughput, a.jct, b.jct)
		}
	}
}
