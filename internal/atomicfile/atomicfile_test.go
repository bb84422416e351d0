package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// entries lists dir's names.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func TestWriteAndWriteAll(t *testing.T) {
	dir := t.TempDir()
	if err := Write(filepath.Join(dir, "a"), []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := WriteAll(File{filepath.Join(dir, "b"), []byte("1")}, File{filepath.Join(dir, "c"), []byte("2")}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(entries(t, dir), " "); got != "a b c" {
		t.Errorf("files %q, want a b c", got)
	}
	// A rename that fails (c2 is a folder) takes back the files already
	// put in place, and no temporary file stays.
	if err := os.Mkdir(filepath.Join(dir, "c2"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "c2", "x"), nil, 0o644)
	err := WriteAll(File{filepath.Join(dir, "b2"), []byte("1")}, File{filepath.Join(dir, "c2"), []byte("2")})
	if err == nil {
		t.Fatal("writing over a non-empty folder succeeded")
	}
	if got := strings.Join(entries(t, dir), " "); got != "a b c c2" {
		t.Errorf("after a failed WriteAll: %q, want a b c c2", got)
	}
	// Write over a folder fails and leaves no temporary file (check
	// --junit DIR used to leave DIR.tmp).
	if err := Write(filepath.Join(dir, "c2"), []byte("x")); err == nil {
		t.Fatal("Write over a folder succeeded")
	}
	if got := strings.Join(entries(t, dir), " "); got != "a b c c2" {
		t.Errorf("after a failed Write: %q", got)
	}
}

// TestRemovePending: what is in flight when the process stops is removed,
// and nothing is put in place afterwards. (The test runs last in this
// package: RemovePending closes the package for the process.)
func TestRemovePending(t *testing.T) {
	dir := t.TempDir()
	tmp, err := TempDir(filepath.Join(dir, "report"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "half"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := RemovePending(); n != 1 {
		t.Errorf("removed %d, want 1", n)
	}
	if got := entries(t, dir); len(got) != 0 {
		t.Errorf("left %v", got)
	}
	if err := Write(filepath.Join(dir, "late"), []byte("x")); !errors.Is(err, ErrStopping) {
		t.Errorf("a write after RemovePending: %v", err)
	}
	if got := entries(t, dir); len(got) != 0 {
		t.Errorf("left %v after a late write", got)
	}
}
