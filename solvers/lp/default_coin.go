//go:build cgo && !nocoin

package lp

// Default returns the backend of this build: Coin (CLP and CBC through cgo).
func Default() Solver { return Coin{} }

// Backend names the default backend with its library versions, e.g.
// "coin-or clp 1.17.6 / cbc 2.10.8 (cgo)".
func Backend() string { return coinBackend() }
