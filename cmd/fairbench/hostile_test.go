package main

// The hostile-input corpus: every case of testdata/hostile/manifest.yaml
// runs the real fairbench binary (built once) as a subprocess under an
// address-space limit and a timeout, and asserts its exit status, that it
// neither panicked nor crashed, that its message names what it should
// (file:line, field, limit), and that it wrote nothing: no file, no
// temporary file, no hidden folder next to --out. Add a case by adding an
// entry to the manifest (docs/limits.md says how).

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// hostileCase is one entry of the manifest.
type hostileCase struct {
	Name string   `yaml:"name"`
	Args []string `yaml:"args"`
	// Files are inputs written into {tmp} before the run (name → text).
	Files map[string]string `yaml:"files"`
	// Gen are generated inputs: Head + Repeat × Times + Tail, or Parts
	// (each Text × Times, {i} replaced by the repetition's number), for
	// files too big to keep in the repository.
	Gen []struct {
		Path   string `yaml:"path"`
		Head   string `yaml:"head"`
		Repeat string `yaml:"repeat"`
		Times  int    `yaml:"times"`
		Tail   string `yaml:"tail"`
		Parts  []struct {
			Text  string `yaml:"text"`
			Times int    `yaml:"times"`
		} `yaml:"parts"`
	} `yaml:"gen"`
	// Links are symbolic links in {tmp} (name → target, e.g. /dev/zero).
	Links map[string]string `yaml:"links"`
	// FIFOs are named pipes created in {tmp} (no one writes to them).
	FIFOs []string `yaml:"fifos"`
	// Dirs are folders created in {tmp}.
	Dirs []string `yaml:"dirs"`
	// Env are extra environment variables.
	Env map[string]string `yaml:"env"`
	// Exit is the expected exit status (default 1).
	Exit *int `yaml:"exit"`
	// Want are fragments the output (stdout and stderr) must contain.
	Want []string `yaml:"want"`
	// Writes lists paths under {tmp} the command may create (a successful
	// case's results); everything else new is an error.
	Writes []string `yaml:"writes"`
	// Timeout in seconds (default 30).
	Timeout int `yaml:"timeout"`
	// Open marks a case known to fail, with its owner and why: it is run,
	// and reported (skipped) while it still fails; once it passes, the
	// test fails until the mark is removed.
	Open string `yaml:"open"`
}

// hostileMemoryKiB is the address-space limit every case runs under: a
// bounded command needs far less; an unbounded allocation dies here
// instead of eating the machine (and is caught as a crash).
const hostileMemoryKiB = 2 << 20

// crashSigns are what a panic, a runtime crash or a C abort print.
var crashSigns = regexp.MustCompile(`panic:|fatal error:|goroutine \d+ \[|SIGABRT|SIGSEGV|runtime error|core dumped|Aborted`)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// fairbenchBinary builds the command once per test binary.
func fairbenchBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "fairbench-hostile-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "fairbench")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

func loadHostile(t *testing.T) []hostileCase {
	t.Helper()
	b, err := os.ReadFile("testdata/hostile/manifest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Cases []hostileCase `yaml:"cases"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("manifest: %v", err)
	}
	seen := map[string]bool{}
	for _, c := range m.Cases {
		if c.Name == "" || seen[c.Name] || len(c.Args) == 0 {
			t.Fatalf("manifest: case %q: needs a unique name and args", c.Name)
		}
		seen[c.Name] = true
	}
	return m.Cases
}

// TestHostileCorpus runs every case of the manifest.
func TestHostileCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("the hostile corpus runs the built binary ~200 times; not in -short")
	}
	cases := loadHostile(t)
	if len(cases) < 150 {
		t.Errorf("the corpus has %d cases, want at least 150", len(cases))
	}
	bin := fairbenchBinary(t)
	in, err := filepath.Abs("testdata/hostile")
	if err != nil {
		t.Fatal(err)
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var open []string
	t.Cleanup(func() {
		if len(open) > 0 {
			sort.Strings(open)
			t.Logf("KNOWN OPEN (still failing, owners named in the manifest):\n  %s", strings.Join(open, "\n  "))
		}
	})
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			problems := runHostile(t, bin, in, repo, c)
			switch {
			case c.Open != "" && len(problems) > 0:
				mu.Lock()
				open = append(open, fmt.Sprintf("%s [%s]: %s", c.Name, c.Open, problems[0]))
				mu.Unlock()
				t.Skipf("KNOWN OPEN (%s): %s", c.Open, strings.Join(problems, "; "))
			case c.Open != "":
				t.Errorf("marked open (%s) but passes now: remove the open: mark from the manifest", c.Open)
			default:
				for _, p := range problems {
					t.Error(p)
				}
			}
		})
	}
}

// runHostile runs one case and returns what went wrong.
func runHostile(t *testing.T, bin, in, repo string, c hostileCase) []string {
	tmp := t.TempDir()
	if err := setupHostile(tmp, c); err != nil {
		t.Fatal(err)
	}
	before := listTree(t, tmp)
	out := filepath.Join(tmp, "out")
	subst := strings.NewReplacer("{in}", in, "{tmp}", tmp, "{out}", out, "{repo}", repo)
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		args[i] = subst.Replace(a)
	}
	timeout := 30 * time.Second
	if c.Timeout > 0 {
		timeout = time.Duration(c.Timeout) * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	// sh applies the limit, then becomes fairbench.
	cmd := exec.CommandContext(ctx, "sh", append([]string{"-c", fmt.Sprintf(`ulimit -v %d && exec "$0" "$@"`, hostileMemoryKiB), bin}, args...)...)
	cmd.Dir = tmp
	cmd.Env = hostileEnv(c, subst)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	err := cmd.Run()
	text := output.String()
	var problems []string
	if ctx.Err() != nil {
		return []string{fmt.Sprintf("did not end within %v (a hang):\n%s", timeout, clipText(text))}
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			problems = append(problems, fmt.Sprintf("killed by %v", ws.Signal()))
		}
	} else if err != nil {
		t.Fatal(err)
	}
	want := 1
	if c.Exit != nil {
		want = *c.Exit
	}
	if code != want {
		problems = append(problems, fmt.Sprintf("exit status %d, want %d", code, want))
	}
	if m := crashSigns.FindString(text); m != "" {
		problems = append(problems, fmt.Sprintf("crashed (%q in the output)", m))
	}
	for _, w := range c.Want {
		if w = subst.Replace(w); !strings.Contains(text, w) {
			problems = append(problems, fmt.Sprintf("output lacks %q", w))
		}
	}
	for _, p := range newFiles(t, tmp, before, c.Writes) {
		problems = append(problems, "left behind: "+p)
	}
	if len(problems) > 0 {
		problems[len(problems)-1] += fmt.Sprintf("\n$ fairbench %s\n%s", strings.Join(args, " "), clipText(text))
	}
	return problems
}

// hostileEnv is the environment of a case: the test's own, without
// FAIRBENCH_ variables, plus the case's.
func hostileEnv(c hostileCase, subst *strings.Replacer) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FAIRBENCH_") {
			env = append(env, kv)
		}
	}
	for k, v := range c.Env {
		env = append(env, k+"="+subst.Replace(v))
	}
	return env
}

func setupHostile(tmp string, c hostileCase) error {
	for _, d := range c.Dirs {
		if err := os.MkdirAll(filepath.Join(tmp, d), 0o755); err != nil {
			return err
		}
	}
	for name, text := range c.Files {
		if err := writeInput(filepath.Join(tmp, name), []byte(text)); err != nil {
			return err
		}
	}
	for _, g := range c.Gen {
		var b bytes.Buffer
		b.WriteString(g.Head)
		for i := 0; i < g.Times; i++ {
			b.WriteString(g.Repeat)
		}
		b.WriteString(g.Tail)
		for _, p := range g.Parts {
			for i := 0; i < max(p.Times, 1); i++ {
				b.WriteString(strings.ReplaceAll(p.Text, "{i}", strconv.Itoa(i)))
			}
		}
		if err := writeInput(filepath.Join(tmp, g.Path), b.Bytes()); err != nil {
			return err
		}
	}
	for name, target := range c.Links {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(tmp, name)), 0o755); err != nil {
			return err
		}
		if err := os.Symlink(target, filepath.Join(tmp, name)); err != nil {
			return err
		}
	}
	for _, name := range c.FIFOs {
		if err := syscall.Mkfifo(filepath.Join(tmp, name), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func writeInput(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// listTree lists every path under root (not following links).
func listTree(t *testing.T, root string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && p != root {
			out[p] = true
		}
		return nil
	})
	return out
}

// newFiles lists what appeared under root since before, except the paths
// allowed (and what is inside them).
func newFiles(t *testing.T, root string, before map[string]bool, allowed []string) []string {
	t.Helper()
	var out []string
	for p := range listTree(t, root) {
		if before[p] {
			continue
		}
		rel, _ := filepath.Rel(root, p)
		ok := false
		for _, a := range allowed {
			if rel == a || strings.HasPrefix(rel, a+string(filepath.Separator)) {
				ok = true
			}
		}
		if !ok {
			out = append(out, rel)
		}
	}
	sort.Strings(out)
	return out
}

func clipText(s string) string {
	if len(s) > 1500 {
		return s[:700] + "\n…\n" + s[len(s)-700:]
	}
	return s
}
