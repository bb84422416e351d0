//go:build !cgo || nocoin

package lp

// backends are the solvers of this build, each run through the known-answer
// tests.
func backends() []Solver { return []Solver{Pure{}} }
