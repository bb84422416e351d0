package main

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// FuzzSettingsFile parses settings files and applies them to the flags of
// `grid`: an error names the file (and the line where there is one); an
// accepted file sets only known flags, to values the flags took.
func FuzzSettingsFile(f *testing.F) {
	f.Add([]byte("out: results\nseed: 3\njobs: 2\n"))
	f.Add([]byte("policy: [fifo, sjf]\nevents: true\nshard: 0/2\n"))
	f.Add([]byte("seed: abc\n"))
	f.Add([]byte("sed: 1\n"))
	f.Add([]byte("out: a\n---\nout: b\n"))
	f.Add([]byte("out: a\nout: b\n"))
	f.Add([]byte("policy: {a: 1}\n"))
	root := newRoot()
	known := flagNames(root)
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := parseSettings(data, "s.yaml", known)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "--config s.yaml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for name := range file {
			if !known[name] {
				t.Fatalf("unknown key %q accepted", name)
			}
		}
		grid, _, err := newRoot().Find([]string{"grid"})
		if err != nil {
			t.Fatal(err)
		}
		fs := pflag.NewFlagSet("grid", pflag.ContinueOnError)
		fs.AddFlagSet(grid.Flags())
		fs.AddFlagSet(grid.InheritedFlags())
		if err := applySettings(fs, nil, file, "s.yaml"); err != nil {
			if !strings.Contains(err.Error(), "--config s.yaml:") {
				t.Fatalf("error does not name the file and line: %v", err)
			}
			return
		}
		fs.VisitAll(func(fl *pflag.Flag) {
			if _, set := file[fl.Name]; fl.Changed && !set {
				t.Fatalf("flag %s changed without a key", fl.Name)
			}
		})
	})
}
