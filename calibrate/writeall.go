package calibrate

import (
	"fmt"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"
)

// WriteAll writes every file, all or none: each is written to a temporary
// file in its own folder and synced, and only when all are written are
// they renamed into place; on an error every temporary file is removed and
// no target is touched (a rename failing after others succeeded is the one
// case that leaves some written). Ctrl-C or SIGTERM arriving meanwhile is
// held until the files are in place, so an interrupted merge leaves neither
// half-written files nor hidden temporaries; WriteAll then returns
// ErrInterrupted (wrapped), the files being complete.
func WriteAll(files map[string][]byte) error { return writeAll(files, nil) }

// writeAll is WriteAll with a hook called between writing the temporary
// files and renaming them (tests interrupt there).
func writeAll(files map[string][]byte, beforeRename func()) error {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	paths := slices.Sorted(maps.Keys(files))
	tmps := map[string]string{}
	cleanup := func() {
		for _, t := range tmps {
			os.Remove(t)
		}
	}
	for _, p := range paths {
		t, err := writeTemp(p, files[p])
		if err != nil {
			cleanup()
			return err
		}
		tmps[p] = t
	}
	if beforeRename != nil {
		beforeRename()
	}
	for _, p := range paths {
		if err := os.Rename(tmps[p], p); err != nil {
			cleanup()
			return fmt.Errorf("calibrate: write %s: %w", p, err)
		}
		delete(tmps, p)
	}
	// A signal sent just before the renames may still be on its way.
	select {
	case s := <-sigs:
		return fmt.Errorf("%w by %v after the files were written completely", ErrInterrupted, s)
	default:
		return nil
	}
}

// writeTemp writes data to a synced temporary file beside path.
func writeTemp(path string, data []byte) (string, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("calibrate: create %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("calibrate: write %s: %w", path, err)
	}
	name := f.Name()
	_, werr := f.Write(data)
	serr := f.Sync()
	cerr := f.Close()
	for _, e := range []error{werr, serr, cerr, os.Chmod(name, 0o644)} {
		if e != nil {
			os.Remove(name)
			return "", fmt.Errorf("calibrate: write %s: %w", path, e)
		}
	}
	return name, nil
}
