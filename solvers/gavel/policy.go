package gavel

import (
	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/lp"
)

// base is what every Gavel policy holds. The policies decide at round
// starts only, on Gavel's re-solve cadence (solvers.Paced).
type base struct {
	solvers.Paced
	name      string
	opt       Options
	backend   lp.Solver
	objective float64
	tally     Tally
	memo      memo
	work      lp.Work      // the LP solvers' memory, kept between solves
	fractions fractionMaps // the last allocation's maps, reused by the next (see expand)
}

// Tally counts a policy's work over a run: it is the policy's report
// (solvers.Reporter) in the run's result.
type Tally struct {
	// Decisions is the number of allocations computed.
	Decisions int `json:"decisions"`
	// LPs is the number of LP solves, every method together (LPs
	// answered from memory, Reused, not counted).
	LPs int `json:"lp_solves"`
	// Fallbacks counts the central solves that failed and were replaced by a
	// vertex of the same LP.
	Fallbacks int `json:"interior_fallbacks,omitempty"`
	// Reused counts the LPs not solved because the policy had solved the
	// same LP before (see memo): their solution is the one it found then.
	Reused int `json:"lp_reused,omitempty"`
}

// Report returns the tally.
func (b *base) Report() any {
	t := b.tally
	return &t
}

// options is what every policy's options type offers newBase: the common
// Options inside it, and a validation that returns the LP backend.
type options interface {
	common() *Options
	validate(name string) (lp.Solver, error)
}

// newBase is the one constructor of the family: it decodes c's options into
// o (already holding the defaults), validates them and builds the base. A
// policy that visits GPU types in a shuffled order each round passes
// shuffle, and draws the orders from c.Rand.
func newBase(name string, c solvers.Config, o options, shuffle bool) (base, error) {
	if err := decode(name, c, o); err != nil {
		return base{}, err
	}
	backend, err := o.validate(name)
	if err != nil {
		return base{}, err
	}
	paced, err := o.common().RoundOptions.Paced(name, c, shuffle)
	if err != nil {
		return base{}, err
	}
	return base{Paced: paced, name: name, opt: *o.common(), backend: backend}, nil
}

// open starts a decision on s: it clears the objective and reads the
// snapshot; the instance is nil when no job is active.
func (b *base) open(s *models.Snapshot) (*instance, error) {
	b.objective = 0
	if len(s.Jobs) == 0 {
		return nil, nil
	}
	in, err := newInstance(b.name, s)
	if in != nil {
		in.fractions = &b.fractions
	}
	return in, err
}

// Name is the registered name.
func (b *base) Name() string { return b.name }

// Objective is the optimal objective value of the last decision, in the
// policy's own units (see each policy's Allocate); 0 before the first
// decision and after one with no active job.
func (b *base) Objective() float64 { return b.objective }

// Backend names the LP backend the policy solves with.
func (b *base) Backend() string { return b.backend.Name() }

var (
	_ solvers.Policy    = (*LAS)(nil)
	_ solvers.Triggered = (*LAS)(nil)
	_ solvers.Policy    = (*FTF)(nil)
	_ solvers.Policy    = (*Makespan)(nil)
	_ solvers.Policy    = (*MaxThroughput)(nil)
	_ solvers.Policy    = (*Hierarchical)(nil)
	_ solvers.Policy    = (*SpaceSharing)(nil)
)

// Entries are the registry entries of the Gavel family, in the order the
// package comment lists them. Their claims are declared with the others in
// solvers/registry/claims.go.
func Entries() []solvers.Entry {
	return []solvers.Entry{
		{Name: LASName, Summary: LASSummary, New: NewLAS, Report: solvers.ReportAs[Tally]},
		{Name: AgnosticName, Summary: AgnosticSummary, New: NewAgnostic, Report: solvers.ReportAs[Tally]},
		{Name: FTFName, Summary: FTFSummary, New: NewFTF, Report: solvers.ReportAs[Tally]},
		{Name: MakespanName, Summary: MakespanSummary, New: NewMakespan, Report: solvers.ReportAs[Tally]},
		{Name: MaxThroughputName, Summary: MaxThroughputSummary, New: NewMaxThroughput, Report: solvers.ReportAs[Tally]},
		{Name: HierarchicalName, Summary: HierarchicalSummary, New: NewHierarchical, Report: solvers.ReportAs[Tally]},
		{Name: SpaceSharingName, Summary: SpaceSharingSummary, New: NewSpaceSharing, Report: solvers.ReportAs[Tally]},
		{Name: AlloXName, Summary: AlloXSummary, New: NewAlloX},
	}
}
