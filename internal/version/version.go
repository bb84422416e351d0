// Package version says which fairbench build is running.
package version

import (
	"runtime/debug"
)

// Version is fairbench's release version.
const Version = "0.1.0-dev"

// commit, commitTime and modified are set at link time by `make build`
// (-ldflags "-X fairbench/internal/version.commit=…"), for builds in which
// the Go toolchain records no VCS information (GOFLAGS=-buildvcs=false, a
// git worktree). The toolchain's record, when there is one, wins.
var commit, commitTime, modified string

// Build is the source a binary was built from.
type Build struct {
	// Commit is the full VCS revision, "" when unknown.
	Commit string
	// Time is the commit's time (RFC 3339), "" when unknown.
	Time string
	// Modified is whether the work tree had uncommitted changes.
	Modified bool
}

// Source is the revision the binary was built from: the Go toolchain's
// VCS record, else what `make build` linked in.
func Source() Build {
	b := Build{Commit: commit, Time: commitTime, Modified: modified == "true"}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	vcs := Build{}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			vcs.Commit = s.Value
		case "vcs.time":
			vcs.Time = s.Value
		case "vcs.modified":
			vcs.Modified = s.Value == "true"
		}
	}
	if vcs.Commit != "" {
		return vcs
	}
	return b
}

// String is the version with the VCS revision the binary was built from,
// when known ("0.1.0-dev+3f2a9c1d0b7e", with "-dirty" for uncommitted
// changes).
func String() string {
	b := Source()
	if b.Commit == "" {
		return Version
	}
	rev := b.Commit
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if b.Modified {
		rev += "-dirty"
	}
	return Version + "+" + rev
}
