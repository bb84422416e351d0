// Package version says which fairbench build is running.
package version

import (
	"runtime/debug"
)

// Version is fairbench's release version.
const Version = "0.1.0-dev"

// String is the version with the VCS revision the binary was built from,
// when the Go toolchain recorded one ("0.1.0-dev+3f2a9c1d0b7e", with
// "-dirty" for uncommitted changes).
func String() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return Version
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev == "" {
		return Version
	}
	return Version + "+" + rev + dirty
}
