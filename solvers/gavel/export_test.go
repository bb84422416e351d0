package gavel

import (
	"fairbench/solvers"
	"fairbench/solvers/lp"
)

// SetBackend replaces the LP backend of a Gavel policy (tests only).
func SetBackend(p solvers.Policy, b lp.Solver) {
	p.(interface{ setBackend(lp.Solver) }).setBackend(b)
}

func (b *base) setBackend(s lp.Solver) { b.backend = s }

// GavelBisection exposes gavelBisection (tests only).
func GavelBisection(best float64) float64 { return gavelBisection(best) }

// DropCarry makes gavel-ftf forget the basis it carries to its next
// decision (tests only).
func DropCarry(p solvers.Policy) { p.(*FTF).carry = nil }
