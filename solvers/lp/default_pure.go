//go:build !cgo || nocoin

package lp

import "runtime/debug"

// Default returns the backend of this build: Pure (built without cgo, or
// with the nocoin tag).
func Default() Solver { return Pure{} }

// Backend names the default backend with its library version, e.g.
// "gonum v0.17.0 simplex + branch and bound (pure Go)".
func Backend() string { return pureBackend() }

// pureBackend describes the pure-Go backend with gonum's module version.
func pureBackend() string {
	v := "gonum"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "gonum.org/v1/gonum" {
				if d.Replace != nil {
					d = d.Replace
				}
				v += " " + d.Version
			}
		}
	}
	return v + " simplex + branch and bound (pure Go)"
}
