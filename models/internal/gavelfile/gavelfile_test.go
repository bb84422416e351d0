package gavelfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestKeys(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]struct {
		name   string
		spread bool
	}{"k80": {"K80", false}, "v100_unconsolidated": {"V100", true}, "p100": {"P100", false}} {
		name, spread, err := GPU(key)
		if err != nil || name != want.name || spread != want.spread {
			t.Errorf("GPU(%s) = %s, %v, %v", key, name, spread, err)
		}
	}
	if _, _, err := GPU("a100"); err == nil || !strings.Contains(err.Error(), "a100") {
		t.Errorf("GPU(a100): %v", err)
	}
	job, scale, err := JobKey("('ResNet-18 (batch size 32)', 4)")
	if err != nil || job != "ResNet-18 (batch size 32)" || scale != 4 {
		t.Errorf("JobKey = %q, %d, %v", job, scale, err)
	}
	for _, bad := range []string{"A3C", "('A3C', 0)", "('A3C', x)", "('A3C', 99999999999999999999)"} {
		if _, _, err := JobKey(bad); err == nil {
			t.Errorf("JobKey(%s) accepted", bad)
		}
	}
}

// TestRun: the output is written whole from what generate makes of the
// input; an error of generate names the input and writes nothing.
func TestRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.json"), filepath.Join(dir, "out.go")
	if err := os.WriteFile(in, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	upper := func(b []byte) ([]byte, error) { return []byte(strings.ToUpper(string(b))), nil }
	if err := Run(in, out, upper); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b) != "ABC" {
		t.Errorf("wrote %q", b)
	}
	fail := func([]byte) ([]byte, error) { return nil, errors.New("no figures") }
	other := filepath.Join(dir, "other.go")
	if err := Run(in, other, fail); err == nil || err.Error() != in+": no figures" {
		t.Errorf("generate's error: %v", err)
	}
	if _, err := os.Stat(other); !os.IsNotExist(err) {
		t.Errorf("a failed generation left %s (%v)", other, err)
	}
}
