package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// sample is a value flag f takes that differs from its default, and how
// f prints it back.
func sample(f *pflag.Flag) (set, printed string) {
	switch f.Value.Type() {
	case "bool":
		if f.DefValue == "true" {
			return "false", "false"
		}
		return "true", "true"
	case "int", "int64", "uint", "uint32":
		return "7", "7"
	case "float64":
		return "2.5", "2.5"
	case "duration":
		return "3s", "3s"
	case "stringSlice":
		return "a,b", "[a,b]"
	case "intSlice":
		return "1,2", "[1,2]"
	case "float64Slice":
		return "1.5,2", "[1.500000,2.000000]"
	}
	return "some-value", "some-value"
}

// commands lists every command below root (cobra's own left out).
func commands(c *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{c}
	for _, sub := range c.Commands() {
		if sub.Name() != "completion" && sub.Name() != "help" {
			out = append(out, commands(sub)...)
		}
	}
	return out
}

// TestEveryFlagIsASetting: every flag of every command (but --config and
// --help) is set by a settings-file key of its name and by its
// FAIRBENCH_ variable, the variable winning over the file.
func TestEveryFlagIsASetting(t *testing.T) {
	n := 0
	for _, c := range commands(newRoot()) {
		fs := pflag.NewFlagSet(c.Name(), pflag.ContinueOnError)
		fs.AddFlagSet(c.Flags())
		fs.AddFlagSet(c.InheritedFlags())
		fs.VisitAll(func(f *pflag.Flag) {
			if notSettings[f.Name] {
				return
			}
			n++
			set, printed := sample(f)
			for _, via := range []string{"file", "env"} {
				fresh := newFlagSetOf(t, c, f.Name) // unset, in a new command tree
				ff := fresh.Lookup(f.Name)
				var err error
				if via == "file" {
					err = applySettings(fresh, nil, map[string]fileSetting{f.Name: {line: 1, values: []string{set}}}, "c.yaml")
				} else {
					err = applySettings(fresh, map[string]string{f.Name: set}, map[string]fileSetting{f.Name: {line: 1, values: []string{"ignored"}}}, "c.yaml")
				}
				if err != nil {
					t.Errorf("%s --%s via %s: %v", c.CommandPath(), f.Name, via, err)
					continue
				}
				if got := ff.Value.String(); got != printed || !ff.Changed {
					t.Errorf("%s --%s via %s: value %q (changed %v), want %q", c.CommandPath(), f.Name, via, got, ff.Changed, printed)
				}
			}
		})
	}
	if n < 30 {
		t.Errorf("only %d flags checked", n)
	}
}

// newFlagSetOf returns a fresh copy of command c's flag name (from a new
// command tree, so that setting it leaves other tests' trees alone).
func newFlagSetOf(t *testing.T, c *cobra.Command, name string) *pflag.FlagSet {
	t.Helper()
	path := strings.Fields(c.CommandPath())[1:]
	fresh, _, err := newRoot().Find(path)
	if err != nil {
		t.Fatal(err)
	}
	fs := pflag.NewFlagSet("z", pflag.ContinueOnError)
	f := fresh.Flags().Lookup(name)
	if f == nil {
		f = fresh.InheritedFlags().Lookup(name)
	}
	if f == nil {
		t.Fatalf("%s: no flag %s", c.CommandPath(), name)
	}
	fs.AddFlag(f)
	return fs
}

// TestSettingsReachTheCommand: through the real command line, a settings
// file sets --jobs and --policy of grid and FAIRBENCH_OUT sets --out.
func TestSettingsReachTheCommand(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.yaml")
	out := filepath.Join(dir, "envout")
	if err := os.WriteFile(cfg, []byte("jobs: 1\npolicy: [fifo]\nseed: 5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FAIRBENCH_OUT", out)
	text, err := run(t, "--config", cfg, "simulate", "../../runs/testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// One policy (the file's), one seed (the file's 5 replaces the
	// scenario's two), results in FAIRBENCH_OUT.
	files, _ := filepath.Glob(filepath.Join(out, "[0-9a-f]*.json"))
	if len(files) != 1 || !strings.Contains(text, "fifo") || strings.Contains(text, "srtf") {
		t.Errorf("%d results in %s; output:\n%s", len(files), out, text)
	}
	b, _ := os.ReadFile(files[0])
	if !strings.Contains(string(b), `"seed": 5`) {
		t.Errorf("the settings file's seed did not reach the run")
	}
}
