// Package atomicfile writes files and folders so that a reader, a crash or
// Ctrl-C never sees a partial one: results, profiles, reports and
// counterexamples all go through it.
//
// Every temporary file or folder it creates is tracked until it is renamed
// into place or removed, so that a process stopped by a signal can remove
// what it had in flight (RemovePending) and leave nothing half-written. The
// tracking is process-wide by nature: a signal stops the whole process.
package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// pending is the set of temporary paths this process has created and not
// yet renamed or removed; closed is set once RemovePending has run, after
// which nothing more is put in place.
var pending = struct {
	sync.Mutex
	paths  map[string]bool
	closed bool
}{paths: map[string]bool{}}

// ErrStopping is returned by a write that would put a file in place after
// RemovePending (the process is being stopped).
var ErrStopping = errors.New("stopping: interrupted")

// Discard removes the temporary file or folder tmp and forgets it.
func Discard(tmp string) {
	pending.Lock()
	defer pending.Unlock()
	os.RemoveAll(tmp)
	delete(pending.paths, tmp)
}

// RemovePending removes every temporary file and folder still in flight
// and makes every later Write, Commit or Replace fail with ErrStopping. It
// waits for a rename in progress, so a file or folder is either complete
// in place or gone. It reports how many paths it removed.
func RemovePending() int {
	pending.Lock()
	defer pending.Unlock()
	pending.closed = true
	n := 0
	for p := range pending.paths {
		if os.RemoveAll(p) == nil {
			n++
		}
		delete(pending.paths, p)
	}
	return n
}

// Write writes data to path through a temporary file in the same folder
// and a rename, so that a reader (or a crash) never sees a partial file.
func Write(path string, data []byte) error {
	name, err := temp(path, data)
	if err != nil {
		return err
	}
	if err := Commit(name, path); err != nil {
		Discard(name)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// temp writes data to a tracked temporary file next to path and returns
// its name.
func temp(path string, data []byte) (string, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", dir, err)
	}
	pending.Lock()
	if pending.closed {
		pending.Unlock()
		return "", fmt.Errorf("write %s: %w", path, ErrStopping)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		pending.Unlock()
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	name := tmp.Name()
	pending.paths[name] = true
	pending.Unlock()
	_, werr := tmp.Write(data)
	serr := tmp.Sync()
	cerr := tmp.Close()
	for _, e := range []error{werr, serr, cerr} {
		if e != nil {
			Discard(name)
			return "", fmt.Errorf("write %s: %w", path, e)
		}
	}
	if err := os.Chmod(name, 0o644); err != nil {
		Discard(name)
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return name, nil
}

// File is one file of a set written together.
type File struct {
	Path string
	Data []byte
}

// WriteAll writes files through temporary files and renames them into
// place in order, all at once: a signal (RemovePending) sees either every
// file in place or none. When a rename fails, the files already renamed
// are removed again, so a failure leaves none of them either.
func WriteAll(files ...File) error {
	var tmps []string
	discard := func() {
		for _, t := range tmps {
			Discard(t)
		}
	}
	for _, f := range files {
		t, err := temp(f.Path, f.Data)
		if err != nil {
			discard()
			return err
		}
		tmps = append(tmps, t)
	}
	pending.Lock()
	defer pending.Unlock()
	if pending.closed {
		for _, t := range tmps {
			os.Remove(t)
			delete(pending.paths, t)
		}
		return fmt.Errorf("write %s: %w", files[0].Path, ErrStopping)
	}
	for i, t := range tmps {
		if err := os.Rename(t, files[i].Path); err != nil {
			for _, done := range files[:i] {
				os.Remove(done.Path)
			}
			for _, rest := range tmps[i:] {
				os.Remove(rest)
			}
			for _, t := range tmps {
				delete(pending.paths, t)
			}
			return fmt.Errorf("write %s: %w", files[i].Path, err)
		}
	}
	for _, t := range tmps {
		delete(pending.paths, t)
	}
	return nil
}

// TempDir creates a hidden temporary folder next to dst (".<base>.tmp-*"),
// to be filled and then put in place with Commit or Replace, or removed
// with Discard.
func TempDir(dst string) (string, error) {
	clean := filepath.Clean(dst)
	parent := filepath.Dir(clean)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	pending.Lock()
	defer pending.Unlock()
	if pending.closed {
		return "", ErrStopping
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(clean)+".tmp-")
	if err != nil {
		return "", err
	}
	pending.paths[tmp] = true
	return tmp, nil
}

// Commit renames the temporary file or folder tmp to dst and forgets it.
func Commit(tmp, dst string) error {
	pending.Lock()
	defer pending.Unlock()
	if pending.closed {
		return ErrStopping
	}
	if err := os.Rename(tmp, dst); err != nil {
		return err
	}
	delete(pending.paths, tmp)
	return nil
}

// Replace puts the temporary folder tmp in place of the folder dst, which
// may exist: the old dst is moved aside, tmp renamed to dst, and the old
// one removed (restored if the rename fails). On failure tmp is removed.
func Replace(tmp, dst string) error {
	pending.Lock()
	defer pending.Unlock()
	fail := func(err error) error {
		os.RemoveAll(tmp)
		delete(pending.paths, tmp)
		return err
	}
	if pending.closed {
		return fail(ErrStopping)
	}
	if _, err := os.Lstat(dst); errors.Is(err, os.ErrNotExist) {
		if err := os.Rename(tmp, dst); err != nil {
			return fail(err)
		}
		delete(pending.paths, tmp)
		return nil
	}
	old := tmp + ".old"
	if err := os.Rename(dst, old); err != nil {
		return fail(fmt.Errorf("replace %s: %w", dst, err))
	}
	if err := os.Rename(tmp, dst); err != nil {
		_ = os.Rename(old, dst)
		return fail(fmt.Errorf("replace %s: %w", dst, err))
	}
	delete(pending.paths, tmp)
	os.RemoveAll(old)
	return nil
}
