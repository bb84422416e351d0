package deploy

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// moduleRoot is the repository root, the Docker build context.
const moduleRoot = ".."

// buildFairbench builds the CLI into dir with the go command that runs the
// tests (go test puts it first on the PATH). Go's test cache knows only the
// files a test opens itself, not those the go command reads for it, so the
// files of the build are read here first: a change to any of them reruns
// the test instead of replaying a cached pass.
func buildFairbench(t *testing.T, dir string) string {
	t.Helper()
	for _, f := range buildFiles(t) {
		if _, err := os.ReadFile(filepath.Join(moduleRoot, f)); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "fairbench")
	if out, err := exec.Command("go", "build", "-o", bin, "fairbench/cmd/fairbench").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// buildFiles lists, relative to the root, the files a build of the module
// may read: every file outside hidden folders, testdata, bin and out, less
// the Go test files (non-Go files are there for //go:embed).
func buildFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(moduleRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(moduleRoot, p)
		if err != nil {
			return err
		}
		name := d.Name()
		switch {
		case d.IsDir() && rel != "." && (strings.HasPrefix(name, ".") || name == "testdata" || rel == "bin" || rel == "out"):
			return filepath.SkipDir
		case d.Type().IsRegular() && !strings.HasSuffix(name, "_test.go") && !strings.HasPrefix(name, "."):
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
