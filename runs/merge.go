package runs

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"fairbench/internal/atomicfile"
	"fairbench/internal/input"
)

// MergeReport says what a merge found.
type MergeReport struct {
	Runs      int      // distinct runs merged
	Duplicate int      // identical copies of a run found more than once
	Missing   []string // runs a manifest lists that no folder holds, "id (policy, seed N)"
}

// companions are the files a run may have besides its record.
var companions = []string{".jobs.csv", ".events.jsonl", ".timing.csv"}

// runFile is one file of a run: where it is and its content's digest.
type runFile struct {
	path string
	sum  [sha256.Size]byte
}

// runFiles is one run's files in one folder, by extension; only digests
// are kept, so a merge's memory does not grow with the results' size.
type runFiles struct {
	dir   string
	files map[string]runFile
}

// Merge combines the result folders srcs (shard outputs, or earlier runs)
// into dst, which must not exist yet: it is built in a temporary folder and
// renamed, so it appears complete or not at all. A run found in several
// folders must have byte-identical files there — record, per-job file,
// event log and timing file alike — else the merge is refused naming both
// files; a file that only one copy has (an event log, a timing file) is
// kept. Incomplete runs (see Complete) are refused too, and so are two
// manifests of one grid that list different runs. The folders are read in
// sorted order, so the result and every error are the same whatever the
// order of srcs. Runs that a manifest lists but no folder holds are
// reported in Missing (the merge still happens, with what exists).
func Merge(dst string, srcs []string) (*MergeReport, error) {
	if _, err := os.Lstat(dst); err == nil {
		return nil, fmt.Errorf("merge: %s already exists", dst)
	}
	dirs := append([]string(nil), srcs...)
	for i := range dirs {
		dirs[i] = filepath.Clean(dirs[i])
	}
	sort.Strings(dirs)
	runs := map[string]*runFiles{}
	manifests := map[string][]byte{}
	manifestFrom := map[string]string{}
	rep := &MergeReport{}
	for _, src := range dirs {
		ents, err := os.ReadDir(src)
		if err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		for _, e := range ents {
			name := e.Name()
			switch {
			case strings.HasPrefix(name, "."), e.IsDir():
				continue // a temporary file of a killed run
			case strings.HasPrefix(name, "manifest-") && strings.HasSuffix(name, ".json"):
				if err := mergeManifest(manifests, manifestFrom, src, name); err != nil {
					return nil, err
				}
				continue
			case !strings.HasSuffix(name, ".json"):
				continue
			}
			id := strings.TrimSuffix(name, ".json")
			if _, ok := Complete(src, id); !ok {
				return nil, fmt.Errorf("merge: %s: not a complete run result", filepath.Join(src, name))
			}
			found, err := readRunFiles(src, id)
			if err != nil {
				return nil, fmt.Errorf("merge: %w", err)
			}
			prev, dup := runs[id]
			if !dup {
				runs[id] = found
				continue
			}
			if err := sameRun(id, prev, found); err != nil {
				return nil, err
			}
			rep.Duplicate++
		}
	}
	tmp, err := atomicfile.TempDir(dst)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	fail := func(err error) (*MergeReport, error) {
		atomicfile.Discard(tmp)
		return nil, fmt.Errorf("merge: %w", err)
	}
	for _, id := range slices.Sorted(maps.Keys(runs)) {
		for ext, f := range runs[id].files {
			if err := copyFile(f.path, filepath.Join(tmp, id+ext)); err != nil {
				return fail(err)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(manifests)) {
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
	if err := atomicfile.Commit(tmp, dst); err != nil {
		return fail(err)
	}
	rep.Runs = len(runs)
	return rep, nil
}

// readRunFiles digests run id's record and companions in dir.
func readRunFiles(dir, id string) (*runFiles, error) {
	f := &runFiles{dir: dir, files: map[string]runFile{}}
	for _, ext := range append([]string{".json"}, companions...) {
		path := filepath.Join(dir, id+ext)
		r, err := input.OpenLimit(path, input.MaxRecordBytes)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		h := sha256.New()
		_, err = io.Copy(h, r)
		r.Close()
		if err != nil {
			return nil, err
		}
		rf := runFile{path: path}
		copy(rf.sum[:], h.Sum(nil))
		f.files[ext] = rf
	}
	return f, nil
}

// copyFile copies src to the new file dst.
func copyFile(src, dst string) error {
	r, err := input.OpenLimit(src, input.MaxRecordBytes)
	if err != nil {
		return err
	}
	defer r.Close()
	w, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, r); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// sameRun checks that two copies of run id agree on every file both have,
// and adds to a what only b has.
func sameRun(id string, a, b *runFiles) error {
	for _, ext := range append([]string{".json"}, companions...) {
		x, inA := a.files[ext]
		y, inB := b.files[ext]
		switch {
		case inA && inB && x.sum != y.sum:
			return fmt.Errorf("merge: run %s: %s and %s differ (the same run must have the same files in every folder)",
				id, filepath.Join(a.dir, id+ext), filepath.Join(b.dir, id+ext))
		case inB && !inA:
			a.files[ext] = y
		}
	}
	return nil
}

// mergeManifest adds dir/name to manifests, refusing a manifest of the same
// grid that lists other runs.
func mergeManifest(manifests map[string][]byte, from map[string]string, dir, name string) error {
	path := filepath.Join(dir, name)
	m, err := readManifest(path)
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	prev, dup := manifests[name]
	if !dup {
		b, err := input.ReadFile(path, input.MaxRecordBytes)
		if err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		manifests[name], from[name] = b, path
		return nil
	}
	var p Manifest
	if err := jsonUnmarshal(prev, &p); err != nil {
		return fmt.Errorf("merge: %s: %w", from[name], err)
	}
	if !sameEntries(p.Runs, m.Runs) {
		return fmt.Errorf("merge: %s and %s are manifests of the same grid that list different runs", from[name], path)
	}
	return nil
}

func sameEntries(a, b []ManifestEntry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
