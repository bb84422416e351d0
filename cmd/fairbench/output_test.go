package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"fairbench/internal/texttable"
	"fairbench/internal/version"
)

// maxWidth is the widest line of s, in display columns.
func maxWidth(s string) (int, string) {
	n, widest := 0, ""
	for _, l := range strings.Split(s, "\n") {
		if w := texttable.Width(l); w > n {
			n, widest = w, l
		}
	}
	return n, widest
}

// Every command's help fits 100 columns, and no flag's usage string is
// mangled: pflag takes a `quoted` word as the value's name, so a usage
// must quote only a one-word upper-case name (FILE), if anything.
func TestHelpIsClean(t *testing.T) {
	root := newRoot()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			name, usage := pflag.UnquoteUsage(f)
			if strings.ContainsAny(name, " :") || strings.Contains(usage, "`") {
				t.Errorf("%s --%s: value name %q, usage %q (a backtick in the usage string?)", c.CommandPath(), f.Name, name, usage)
			}
		})
		path := strings.Fields(c.CommandPath())[1:]
		out, err := run(t, append(path, "--help")...)
		if err != nil {
			t.Errorf("%s --help: %v", c.CommandPath(), err)
		}
		if w, l := maxWidth(out); w > texttable.DefaultWidth {
			t.Errorf("%s --help has a line of %d columns: %q", c.CommandPath(), w, l)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// --out shows each command's real default: report writes to report/,
// reproduce to reproduce/NAME, the others to out/.
func TestOutDefaults(t *testing.T) {
	for _, c := range []struct{ cmd, want string }{
		{"report", `(default "report")`},
		{"reproduce", "(default reproduce/NAME"},
		{"simulate", `(default "out")`},
		{"check", `(default "out")`},
	} {
		out, err := run(t, c.cmd, "--help")
		if err != nil {
			t.Fatal(err)
		}
		// The flag's help, which may wrap onto the next lines.
		_, line, _ := strings.Cut(out, "      --out string ")
		line, _, _ = strings.Cut(line, "\n      -")
		if !strings.Contains(line, c.want) {
			t.Errorf("%s --help: --out line %q, want %s", c.cmd, line, c.want)
		}
	}
}

func TestDidYouMean(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "--polcy", "fifo"}, "did you mean --policy?"},
		{[]string{"report", "--calibraton", "x"}, "did you mean --calibration?"},
		{[]string{"check", "--matirx"}, "did you mean --matrix?"},
		{[]string{"grid", "--wdie", "x.yaml"}, "did you mean --wide?"},
		{[]string{"simulate", "../../runs/testdata/small.yaml", "--policy", "gavle-las", "--out", t.TempDir()}, "did you mean gavel-las?"},
	} {
		_, err := run(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", c.args, err, c.want)
		}
	}
	if _, err := run(t, "simulate", "--zzzzzzzz"); err == nil || strings.Contains(err.Error(), "did you mean") {
		t.Errorf("a flag near nothing should get no suggestion: %v", err)
	}
}

func TestEditDistance(t *testing.T) {
	// kitten → sitting: substitute k→s, e→i, insert g = 3.
	for _, c := range []struct {
		a, b string
		d    int
	}{{"kitten", "sitting", 3}, {"", "abc", 3}, {"ρx", "ρy", 1}, {"same", "same", 0}} {
		if d := editDistance(c.a, c.b); d != c.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, d, c.d)
		}
	}
}

// Completion offers policy names, experiments, properties and GPU types
// (cobra's hidden __complete command is what the shell scripts call).
func TestCompletion(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", "simulate", "--policy", "gav"}, []string{"gavel-las", "gavel-ftf"}},
		{[]string{"__complete", "check", "--policy", ""}, []string{"fifo", "gandiva-fair"}},
		{[]string{"__complete", "check", "--props", ""}, []string{"envy-free", "sharing-incentive"}},
		{[]string{"__complete", "reproduce", ""}, []string{"fft", "gavel-las"}},
		{[]string{"__complete", "calibrate", "extrapolate", "--gpu", ""}, []string{"H100", "V100"}},
		{[]string{"__complete", "list", ""}, []string{"policies", "gpus"}},
	} {
		out, err := run(t, c.args...)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		got := strings.Split(out, "\n")
		for _, w := range c.want {
			found := false
			for _, g := range got {
				if g == w || strings.HasPrefix(g, w+"\t") {
					found = true
				}
			}
			if !found {
				t.Errorf("%v: no %q in\n%s", c.args, w, out)
			}
		}
	}
}

func TestVersionCommit(t *testing.T) {
	if got := commitLine(version.Build{Commit: "3f2a", Time: "2026-01-02T03:04:05Z", Modified: true}); got != "3f2a (2026-01-02T03:04:05Z) + uncommitted changes" {
		t.Errorf("commitLine = %q", got)
	}
	if got := commitLine(version.Build{}); !strings.Contains(got, "unknown") {
		t.Errorf("commitLine(none) = %q", got)
	}
	out, err := run(t, "version")
	if err != nil || !strings.Contains(out, "\ncommit: ") {
		t.Errorf("version: %v\n%s", err, out)
	}
}

// list, simulate and grid fit 100 columns by default; --wide prints every
// column on one line per entry.
func TestOutputFits(t *testing.T) {
	out, err := run(t, "list")
	if err != nil {
		t.Fatal(err)
	}
	if w, l := maxWidth(out); w > texttable.DefaultWidth {
		t.Errorf("list: a line of %d columns: %q", w, l)
	}
	wide, err := run(t, "list", "--wide")
	if err != nil {
		t.Fatal(err)
	}
	if w, _ := maxWidth(wide); w <= texttable.DefaultWidth {
		t.Errorf("list --wide is only %d columns wide; want the long sources on one line", w)
	}
	dir := t.TempDir()
	out, err = run(t, "grid", "../../runs/testdata/sweep.yaml", "--policy", "fifo", "--policy", "sjf-bsbf-consolidated", "--out", dir)
	if err != nil {
		t.Fatal(err)
	}
	if w, l := maxWidth(out); w > texttable.DefaultWidth {
		t.Errorf("grid: a line of %d columns: %q", w, l)
	}
	// 2 loads × 2 job counts = 4 points, each a heading; 3 seeds → ±.
	if n := strings.Count(out, "grid point "); n != 4 || !strings.Contains(out, " ± ") {
		t.Errorf("grid: %d point headings (want 4), or no mean ± spread:\n%s", n, out)
	}
	out, err = run(t, "simulate", "../../runs/testdata/small.yaml", "--policy", "fifo", "--out", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "point") || strings.Contains(out, " - ") {
		t.Errorf("simulate prints a point column:\n%s", out)
	}
}
