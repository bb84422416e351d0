package gavel

import (
	"fairbench/models"
	"fairbench/solvers"
	"fairbench/solvers/lp"
)

// base is what every Gavel policy holds. The policies decide at round
// starts only (see Triggers).
type base struct {
	name      string
	opt       Options
	backend   lp.Solver
	objective float64
}

// Name is the registered name.
func (b *base) Name() string { return b.name }

// Triggers is models.AtRound: Gavel recomputes its allocation for every
// round (Narayanan et al., OSDI 2020; a job that arrives or a GPU that
// frees up mid-round waits for the next round, as in Gavel's simulator).
func (b *base) Triggers() models.Trigger { return models.AtRound }

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
		{Name: LASName, Summary: LASSummary, New: NewLAS},
		{Name: AgnosticName, Summary: AgnosticSummary, New: NewAgnostic},
		{Name: FTFName, Summary: FTFSummary, New: NewFTF},
		{Name: MakespanName, Summary: MakespanSummary, New: NewMakespan},
		{Name: MaxThroughputName, Summary: MaxThroughputSummary, New: NewMaxThroughput},
		{Name: HierarchicalName, Summary: HierarchicalSummary, New: NewHierarchical},
		{Name: SpaceSharingName, Summary: SpaceSharingSummary, New: NewSpaceSharing},
		{Name: AlloXName, Summary: AlloXSummary, New: NewAlloX},
	}
}
