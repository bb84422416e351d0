package runs

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// MergeReport says what a merge found.
type MergeReport struct {
	Runs      int      // distinct runs merged
	Duplicate int      // identical copies of a run found more than once
	Missing   []string // runs a manifest lists that no folder holds, "id (policy, seed N)"
}

// companions are the files a run may have besides its record.
var companions = []string{".jobs.csv", ".events.jsonl", ".timing.csv"}

// Merge combines the result folders srcs (shard outputs, or earlier runs)
// into dst, which must not exist yet: it is built in a temporary folder and
// renamed, so it appears complete or not at all. A run found in several
// folders must have byte-identical records there, else the merge is refused
// naming both files; incomplete runs (see Complete) are refused too. Runs
// that a manifest lists but no folder holds are reported in Missing (the
// merge still happens, with what exists).
func Merge(dst string, srcs []string) (*MergeReport, error) {
	if _, err := os.Stat(dst); err == nil {
		return nil, fmt.Errorf("merge: %s already exists", dst)
	}
	type found struct {
		dir  string
		data []byte
	}
	runs := map[string]found{}
	manifests := map[string][]byte{}
	rep := &MergeReport{}
	for _, src := range srcs {
		ents, err := os.ReadDir(src)
		if err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		for _, e := range ents {
			name := e.Name()
			switch {
			case strings.HasPrefix(name, "."):
				continue // a temporary file of a killed run
			case strings.HasPrefix(name, "manifest-") && strings.HasSuffix(name, ".json"):
				b, err := os.ReadFile(filepath.Join(src, name))
				if err != nil {
					return nil, fmt.Errorf("merge: %w", err)
				}
				manifests[name] = b
				continue
			case !strings.HasSuffix(name, ".json"):
				continue
			}
			id := strings.TrimSuffix(name, ".json")
			if _, ok := Complete(src, id); !ok {
				return nil, fmt.Errorf("merge: %s: not a complete run result", filepath.Join(src, name))
			}
			b, err := os.ReadFile(filepath.Join(src, name))
			if err != nil {
				return nil, fmt.Errorf("merge: %w", err)
			}
			if prev, dup := runs[id]; dup {
				if !bytes.Equal(prev.data, b) {
					return nil, fmt.Errorf("merge: run %s differs between %s and %s",
						id, filepath.Join(prev.dir, name), filepath.Join(src, name))
				}
				rep.Duplicate++
				continue
			}
			runs[id] = found{src, b}
		}
	}
	tmp, err := os.MkdirTemp(filepath.Dir(filepath.Clean(dst)), "."+filepath.Base(dst)+".tmp-")
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	fail := func(err error) (*MergeReport, error) {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("merge: %w", err)
	}
	ids := make([]string, 0, len(runs))
	for id := range runs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		f := runs[id]
		for _, ext := range companions {
			b, err := os.ReadFile(filepath.Join(f.dir, id+ext))
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				return fail(err)
			}
			if err := os.WriteFile(filepath.Join(tmp, id+ext), b, 0o644); err != nil {
				return fail(err)
			}
		}
		if err := os.WriteFile(filepath.Join(tmp, id+".json"), f.data, 0o644); err != nil {
			return fail(err)
		}
	}
	for _, name := range sortedNames(manifests) {
		if err := os.WriteFile(filepath.Join(tmp, name), manifests[name], 0o644); err != nil {
			return fail(err)
		}
		m, err := readManifest(filepath.Join(tmp, name))
		if err != nil {
			return fail(err)
		}
		for _, e := range m.Runs {
			if _, ok := runs[e.ID]; !ok {
				rep.Missing = append(rep.Missing, fmt.Sprintf("%s (%s, seed %d)", e.ID, e.Policy, e.Seed))
			}
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		return fail(err)
	}
	rep.Runs = len(runs)
	return rep, nil
}

func sortedNames(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
