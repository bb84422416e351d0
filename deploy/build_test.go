package deploy

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
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

// buildFiles lists, relative to the repository root and with slashes, the
// files of this module that a build of fairbench reads: go.mod, go.sum, and
// the Go, cgo, C and embedded files of every package of the module that
// cmd/fairbench depends on (go list -deps).
func buildFiles(t *testing.T) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-json=Dir,Module,GoFiles,CgoFiles,CFiles,HFiles,EmbedFiles", "fairbench/cmd/fairbench")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	root, err := filepath.Abs(moduleRoot)
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"go.mod", "go.sum"}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			Dir                                           string
			Module                                        *struct{ Path string }
			GoFiles, CgoFiles, CFiles, HFiles, EmbedFiles []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if p.Module == nil || p.Module.Path != "fairbench" {
			continue
		}
		rel, err := filepath.Rel(root, p.Dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, list := range [][]string{p.GoFiles, p.CgoFiles, p.CFiles, p.HFiles, p.EmbedFiles} {
			for _, f := range list {
				files = append(files, filepath.ToSlash(filepath.Join(rel, f)))
			}
		}
	}
	return files
}
