//go:build !cgo || nocoin

package lp

// Default returns the backend of this build: Pure (built without cgo, or
// with the nocoin tag).
func Default() Solver { return Pure{} }

// Backend names the default backend with its library version, e.g.
// "gonum v0.17.0 simplex + branch and bound (pure Go)".
func Backend() string { return pureBackend() }
