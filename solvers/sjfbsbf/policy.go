package sjfbsbf

import (
	"fmt"
	"math"

	"fairbench/models"
	"fairbench/solvers"
)

// Registered names and summaries.
const (
	Name                = "sjf-bsbf"
	ConsolidatedName    = "sjf-bsbf-consolidated"
	FFSName             = "sjf-ffs"
	FFSConsolidatedName = "sjf-ffs-consolidated"

	Summary                = "SJF-BSBF (Luo et al., IWQoS 2024): non-preemptive SJF; idle GPUs first, else share the GPUs of running jobs that pass the t_con < t_seq test, best benefit first"
	ConsolidatedSummary    = "sjf-bsbf trying one server for the whole gang (idle and shared GPUs) before spreading it"
	FFSSummary             = "SJF-FFS (SJF-BSBF's baseline): non-preemptive SJF; idle GPUs first, else share any fitting GPU of a running job, first fit, no benefit test"
	FFSConsolidatedSummary = "sjf-ffs trying one server for the whole gang (idle and shared GPUs) before spreading it"
)

// DefaultSlowdown is ξ for a pair the throughput matrix has no figure for:
// sim.Config.DefaultSlowdown's default, which the policy cannot see. Set
// the default_slowdown option when a run uses another value.
const DefaultSlowdown = 2.0

// Options are the policies' settings.
type Options struct {
	// DefaultSlowdown (option default_slowdown) is the interference factor
	// the policy assumes for a pair without pair figures; it should equal the
	// simulator's (sim.Config.DefaultSlowdown, default 2). Finite, ≥ 1.
	DefaultSlowdown float64 `mapstructure:"default_slowdown"`
	// Pairing (option pairing) is "gangs" (default: a job shares exactly
	// the GPU set of one running job of its own gang) or "gpus" (a gang is
	// made of idle GPUs and GPUs of running jobs of any gang, GPU by GPU).
	Pairing string `mapstructure:"pairing"`
	// RoundsOnly (option rounds_only) decides at round starts only, as the
	// authors' prototype does every schedule_interval seconds
	// (github.com/Lai-JX/Scheduler, scheduler_impl/schedulers.py); by
	// default at arrivals and completions.
	RoundsOnly bool `mapstructure:"rounds_only"`
}

// Policy is one of the four variants. Between decisions it keeps only
// counters (Report) and a cache of the matrix's pair figures; build one per
// run (it is not safe for concurrent use).
type Policy struct {
	name        string
	benefit     bool // sjf-bsbf: the pairwise test and best benefit first; sjf-ffs: first fit
	consolidate bool // try one server first
	sameGang    bool // pairing "gangs"
	xi          float64
	roundsOnly  bool
	rep         Report
	cache       *figs // pair figures, kept across the decisions of a run
}

var (
	_ solvers.Policy    = (*Policy)(nil)
	_ solvers.Triggered = (*Policy)(nil)
	_ solvers.Reporter  = (*Policy)(nil)
)

// Report is what a run records of the policy's choices: the simulator
// stores it as the result's policy_report, and a run record's report
// decodes into it (the registry's entry names it).
type Report struct {
	// Started counts jobs started; Shared those started beside at least one
	// running job; Accumulated those started with gradient accumulation.
	Started     int `json:"started"`
	Shared      int `json:"shared"`
	Accumulated int `json:"accumulated"`
}

// New builds sjf-bsbf.
func New(c solvers.Config) (solvers.Policy, error) { return build(c, Name, true, false) }

// NewConsolidated builds sjf-bsbf-consolidated.
func NewConsolidated(c solvers.Config) (solvers.Policy, error) {
	return build(c, ConsolidatedName, true, true)
}

// NewFFS builds sjf-ffs.
func NewFFS(c solvers.Config) (solvers.Policy, error) { return build(c, FFSName, false, false) }

// NewFFSConsolidated builds sjf-ffs-consolidated.
func NewFFSConsolidated(c solvers.Config) (solvers.Policy, error) {
	return build(c, FFSConsolidatedName, false, true)
}

func build(c solvers.Config, name string, benefit, consolidate bool) (solvers.Policy, error) {
	o := Options{DefaultSlowdown: DefaultSlowdown, Pairing: "gangs"}
	if err := c.Decode(&o); err != nil {
		return nil, fmt.Errorf("%s: options: %w", name, err)
	}
	if x := o.DefaultSlowdown; x < 1 || math.IsNaN(x) || math.IsInf(x, 0) {
		return nil, fmt.Errorf("%s: options: default_slowdown must be a finite number ≥ 1, got %v", name, x)
	}
	if o.Pairing != "gpus" && o.Pairing != "gangs" {
		return nil, fmt.Errorf("%s: options: pairing must be gpus or gangs, got %q", name, o.Pairing)
	}
	return &Policy{name: name, benefit: benefit, consolidate: consolidate, xi: o.DefaultSlowdown,
		sameGang: o.Pairing == "gangs", roundsOnly: o.RoundsOnly}, nil
}

// Name is the registered name of the variant.
func (p *Policy) Name() string { return p.name }

// Triggers: arrivals and completions (the policy is non-preemptive, so
// nothing changes between those events), or round starts with rounds_only.
func (p *Policy) Triggers() models.Trigger {
	if p.roundsOnly {
		return models.AtRound
	}
	return models.AtArrival | models.AtCompletion
}

// Report returns a copy of the counters, a *Report (solvers.Reporter).
func (p *Policy) Report() any { r := p.rep; return &r }

// Allocate re-lists every running job on its GPUs with its accumulation
// setting, then starts waiting jobs in SJF order (see the package comment).
func (p *Policy) Allocate(s *models.Snapshot) (models.Allocation, error) {
	d := newDecision(p, s)
	for _, i := range d.pendingOrder() {
		d.start(&s.Jobs[i], i)
	}
	return models.Allocation{Run: d.run, Colocate: true}, nil
}
