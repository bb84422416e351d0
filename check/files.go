package check

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"fairbench/internal/atomicfile"
	"fairbench/models"
)

// writeAll saves the counterexamples of res and of its unconditional
// result under the output folder as <policy>-<property>-<8 hex digits of
// the content>.json (-claim- before the digits for the one under the
// claim's conditions) and records the paths in Counterexample.
func (r *runner) writeAll(res *Result) error {
	if res.Unconditional != nil {
		if err := r.write(res.Unconditional, ""); err != nil {
			return err
		}
	}
	suffix := ""
	if len(res.Conditions) > 0 {
		suffix = "-claim"
	}
	return r.write(res, suffix)
}

func (r *runner) write(res *Result, suffix string) error {
	if r.cfg.OutDir == "" || res.Instance == nil {
		return nil
	}
	path, err := WriteInstance(r.cfg.OutDir, fileStem(r.subj.Name)+"-"+res.Property+suffix, res.Instance)
	if err != nil {
		return err
	}
	res.Counterexample = path
	return nil
}

// WriteInstance writes in as indented JSON to dir/<stem>-<hash>.json, the
// hash over the content (so the same counterexample keeps its name), through
// a temporary file and a rename; it returns the path.
func WriteInstance(dir, stem string, in *models.Instance) (string, error) {
	b, err := json.MarshalIndent(in, "", "  ")
	if err != nil {
		return "", fmt.Errorf("check: counterexample: %w", err)
	}
	b = append(b, '\n')
	sum := sha256.Sum256(b)
	path := filepath.Join(dir, stem+"-"+hex.EncodeToString(sum[:4])+".json")
	return path, atomicfile.Write(path, b)
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// fileStem makes a policy name usable in a file name ("exec:python3 p.py"
// becomes "exec").
func fileStem(name string) string {
	if strings.HasPrefix(name, ExecPrefix) {
		return "exec"
	}
	return strings.Trim(unsafeName.ReplaceAllString(name, "_"), "_")
}
