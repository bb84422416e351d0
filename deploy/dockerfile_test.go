package deploy

import (
	"bytes"
	"debug/elf"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/linter"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"github.com/moby/patternmatcher"
	"github.com/moby/patternmatcher/ignorefile"
)

// No Docker engine runs here, so the image is not built. The Dockerfile is
// read by BuildKit's own parser and instruction reader (the code behind
// `docker build`), with BuildKit's linter on (the rules it applies while
// reading; the others run in its conversion to LLB, which resolves the base
// images over the network), and then checked for what would break the build
// or the image: see dockerfileProblems.

// TestDockerfile checks the repository's Dockerfile and .dockerignore.
func TestDockerfile(t *testing.T) {
	df, ignore := readBuildFiles(t)
	for _, p := range dockerfileProblems(df, ignore, buildFiles(t), goVersion(t)) {
		t.Error(p)
	}
}

// TestDockerfileBroken checks that broken copies of the Dockerfile (and of
// .dockerignore) are reported, each with the expected problem.
func TestDockerfileBroken(t *testing.T) {
	df, ignore := readBuildFiles(t)
	files, goVer := buildFiles(t), goVersion(t)
	for _, c := range []struct {
		name, old, new string
		ignore         string // appended to .dockerignore
		want           string
	}{
		{"unknown instruction", "WORKDIR /src", "WORKDIIR /src", "", "unknown instruction"},
		{"linter: FROM and AS in different cases", "AS build", "as build", "", "FromAsCasing"},
		{"COPY --from a stage that does not exist", "--from=build", "--from=builder", "", `no earlier stage "builder"`},
		{"COPY --from a path the stage does not make", "-o /out/fairbench", "-o /out/fb", "", `"/out/fairbench" is made by no RUN or COPY of stage "build"`},
		{"COPY of a file not in the repository", "COPY scenarios/default.yaml", "COPY scenarios/nothing.yaml", "", "scenarios/nothing.yaml: no such file"},
		{"COPY of a file .dockerignore excludes", "", "", "scenarios/\n", "scenarios/default.yaml is excluded by .dockerignore"},
		{".dockerignore excludes a file the Go build reads", "", "", "**/*.yaml\n", "excludes scenarios/default.yaml, which the Go build reads"},
		{".dockerignore excludes a Go package", "", "", "solvers/lp/\n", "excludes solvers/lp/coin.go, which the Go build reads"},
		{"build stage without the Go sources", "COPY . .", "COPY cmd ./cmd", "", `stage "build" runs go build but copies no scenarios/default.yaml`},
		{"Go image older than go.mod", "golang:1.26-bookworm", "golang:1.21-bookworm", "", "older than go.mod's"},
		{"stages on different Debian releases", "debian:bookworm-slim", "debian:trixie-slim", "", "Debian releases differ"},
		{"image without a tag", "debian:bookworm-slim", "debian", "", "no tag"},
		{"two stages of one name", "FROM debian:bookworm-slim", "FROM debian:bookworm-slim AS build", "", `stage name "build" is used twice`},
	} {
		if c.old != "" && strings.Count(string(df), c.old) != 1 {
			t.Errorf("%s: %q is not once in the Dockerfile; update the test", c.name, c.old)
			continue
		}
		broken := []byte(strings.Replace(string(df), c.old, c.new, 1))
		problems := dockerfileProblems(broken, append(slices.Clip(ignore), strings.Fields(c.ignore)...), files, goVer)
		if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, c.want) }) {
			t.Errorf("%s: want a problem mentioning %q, got %q", c.name, c.want, problems)
		}
	}
}

// TestDockerfileRuntimeLibraries checks that the runtime stage installs the
// Debian package of every shared library the fairbench binary needs (libc
// comes with every Debian image). The binary is built here, and each
// library's package is found with dpkg, so this holds only where this
// machine runs the Debian release of the image; elsewhere it says so and
// checks nothing more.
func TestDockerfileRuntimeLibraries(t *testing.T) {
	df, _ := readBuildFiles(t)
	stages := parseStages(t, df)
	final := stages[len(stages)-1]
	release := debianRelease(final.BaseName)
	if host := hostRelease(t); host != release {
		t.Logf("this machine runs Debian %q and the image Debian %q: library packages not checked", host, release)
		return
	}
	installed := aptInstalled(final)
	bin := buildFairbench(t, t.TempDir())
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	libs, err := f.ImportedLibraries()
	if err != nil {
		t.Fatal(err)
	}
	if len(libs) < 2 {
		t.Fatalf("the binary needs only %v; built without cgo (CLP/CBC)?", libs)
	}
	for _, lib := range libs {
		out, err := exec.Command("dpkg-query", "-S", "*/"+lib).Output()
		if err != nil {
			t.Errorf("%s: no Debian package owns it (dpkg-query -S: %v)", lib, err)
			continue
		}
		pkg, _, _ := strings.Cut(strings.SplitN(string(out), "\n", 2)[0], ":")
		if pkg != "libc6" && !slices.Contains(installed, pkg) {
			t.Errorf("the binary needs %s from package %s, which the runtime stage does not install (it installs %v)", lib, pkg, installed)
		}
	}
}

func readBuildFiles(t *testing.T) (dockerfile []byte, ignore []string) {
	t.Helper()
	df, err := os.ReadFile(filepath.Join(moduleRoot, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(moduleRoot, ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ignore, err = ignorefile.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return df, ignore
}

func parseStages(t *testing.T, df []byte) []instructions.Stage {
	t.Helper()
	res, err := parser.Parse(bytes.NewReader(df))
	if err != nil {
		t.Fatal(err)
	}
	stages, _, err := instructions.Parse(res.AST, nil)
	if err != nil || len(stages) == 0 {
		t.Fatalf("Dockerfile: %d stages, %v", len(stages), err)
	}
	return stages
}

// goVersion is go.mod's go line, major and minor.
func goVersion(t *testing.T) [2]int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(moduleRoot, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\S+)`).FindSubmatch(b)
	if m == nil {
		t.Fatal("go.mod has no go line")
	}
	v, ok := majorMinor(string(m[1]))
	if !ok {
		t.Fatalf("go.mod: cannot read go %s", m[1])
	}
	return v
}

// majorMinor reads the leading "1.26" of "1.26", "1.26.8" or "1.26-bookworm".
func majorMinor(s string) ([2]int, bool) {
	m := regexp.MustCompile(`^(\d+)\.(\d+)`).FindStringSubmatch(s)
	if m == nil {
		return [2]int{}, false
	}
	a, _ := strconv.Atoi(m[1])
	b, _ := strconv.Atoi(m[2])
	return [2]int{a, b}, true
}

// dockerfileProblems parses a Dockerfile as BuildKit does, with its linter,
// and checks that
//   - stage names are unique, and each FROM names an earlier stage or an
//     image with an explicit tag;
//   - each COPY --from names an earlier stage (else BuildKit would pull an
//     image of that name), and the stage makes the copied path (it is named
//     by one of its RUN commands, or lies under one of its COPY targets);
//   - each COPY from the build context copies files that exist in the
//     repository and that .dockerignore does not exclude, and every file the
//     Go build reads (files) stays in the context and is copied into the
//     stage that runs go build;
//   - the golang image is at least go.mod's Go version, and all stages use
//     one Debian release (the runtime libraries must match the headers the
//     binary was built against).
func dockerfileProblems(df []byte, ignore, files []string, goVer [2]int) []string {
	var problems []string
	res, err := parser.Parse(bytes.NewReader(df))
	if err != nil {
		return []string{fmt.Sprintf("Dockerfile: %v", err)}
	}
	for _, w := range res.Warnings {
		problems = append(problems, fmt.Sprintf("Dockerfile: %s", w.Short))
	}
	lint := linter.New(&linter.Config{Warn: func(rule, _, _, msg string, loc []parser.Range) {
		line := 0
		if len(loc) > 0 {
			line = loc[0].Start.Line
		}
		problems = append(problems, fmt.Sprintf("Dockerfile:%d: %s: %s", line, rule, msg))
	}})
	stages, _, err := instructions.Parse(res.AST, lint)
	if err != nil {
		return append(problems, fmt.Sprintf("Dockerfile: %v", err))
	}
	ign, err := patternmatcher.New(ignore)
	if err != nil {
		return append(problems, fmt.Sprintf(".dockerignore: %v", err))
	}
	for _, f := range files {
		if ex, _ := ign.MatchesOrParentMatches(f); ex {
			problems = append(problems, fmt.Sprintf(".dockerignore excludes %s, which the Go build reads", f))
		}
	}
	seen := map[string]int{}
	releases := map[string]bool{}
	for i, s := range stages {
		name := strings.ToLower(s.Name)
		if _, dup := seen[name]; dup && name != "" {
			problems = append(problems, fmt.Sprintf("Dockerfile:%d: stage name %q is used twice", line(s.Location), name))
		}
		problems = append(problems, baseProblems(s, seen, goVer, releases)...)
		for _, cmd := range s.Commands {
			if c, ok := cmd.(*instructions.CopyCommand); ok {
				problems = append(problems, copyProblems(c, stages, seen, ign)...)
			}
		}
		seen[name] = i
	}
	problems = append(problems, goBuildProblems(stages, files)...)
	if len(releases) > 1 {
		problems = append(problems, fmt.Sprintf("Dockerfile: the stages' Debian releases differ: %v", slices.Sorted(maps.Keys(releases))))
	}
	return problems
}

// baseProblems checks a stage's FROM.
func baseProblems(s instructions.Stage, earlier map[string]int, goVer [2]int, releases map[string]bool) []string {
	if _, ok := earlier[strings.ToLower(s.BaseName)]; ok {
		return nil
	}
	at := fmt.Sprintf("Dockerfile:%d: FROM %s", line(s.Location), s.BaseName)
	repo, tag, ok := splitImage(s.BaseName)
	if !ok {
		return []string{at + ": no tag (the image would change under the build)"}
	}
	if r := debianRelease(s.BaseName); r != "" {
		releases[r] = true
	}
	if path.Base(repo) == "golang" {
		v, ok := majorMinor(tag)
		if !ok {
			return []string{at + ": cannot read the Go version of the tag"}
		}
		if v[0] < goVer[0] || v[0] == goVer[0] && v[1] < goVer[1] {
			return []string{fmt.Sprintf("%s: Go %d.%d is older than go.mod's %d.%d", at, v[0], v[1], goVer[0], goVer[1])}
		}
	}
	return nil
}

// goBuildProblems checks that a stage runs go build and that its COPYs from
// the build context bring in every file the build reads.
func goBuildProblems(stages []instructions.Stage, files []string) []string {
	for _, s := range stages {
		if !slices.ContainsFunc(s.Commands, func(c instructions.Command) bool {
			r, ok := c.(*instructions.RunCommand)
			return ok && strings.Contains(strings.Join(r.CmdLine, " "), "go build")
		}) {
			continue
		}
		var srcs []string
		for _, cmd := range s.Commands {
			if c, ok := cmd.(*instructions.CopyCommand); ok && c.From == "" {
				for _, src := range c.SourcePaths {
					srcs = append(srcs, path.Clean(src))
				}
			}
		}
		var problems []string
		for _, f := range files {
			if !slices.ContainsFunc(srcs, func(src string) bool {
				ok, _ := path.Match(src, f)
				return ok || src == "." || f == src || strings.HasPrefix(f, src+"/")
			}) {
				problems = append(problems, fmt.Sprintf("Dockerfile: stage %q runs go build but copies no %s into it", s.Name, f))
			}
		}
		return problems
	}
	return []string{"Dockerfile: no stage runs go build"}
}

// copyProblems checks the sources of one COPY.
func copyProblems(c *instructions.CopyCommand, stages []instructions.Stage, earlier map[string]int, ign *patternmatcher.PatternMatcher) []string {
	at := fmt.Sprintf("Dockerfile:%d: COPY", line(c.Location()))
	var problems []string
	if c.From != "" {
		i, ok := earlier[strings.ToLower(c.From)]
		if n, err := strconv.Atoi(c.From); err == nil && n >= 0 && n < len(earlier) {
			i, ok = n, true
		}
		if !ok {
			return []string{fmt.Sprintf("%s --from=%s: no earlier stage %q (BuildKit would pull an image of that name)", at, c.From, c.From)}
		}
		for _, src := range c.SourcePaths {
			if !stageMakes(stages[i], src) {
				problems = append(problems, fmt.Sprintf("%s --from=%s: %q is made by no RUN or COPY of stage %q", at, c.From, src, stages[i].Name))
			}
		}
		return problems
	}
	for _, src := range c.SourcePaths {
		clean := path.Clean(src)
		if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
			problems = append(problems, fmt.Sprintf("%s %s: outside the build context", at, src))
			continue
		}
		matches, _ := filepath.Glob(filepath.Join(moduleRoot, filepath.FromSlash(clean)))
		if len(matches) == 0 {
			problems = append(problems, fmt.Sprintf("%s %s: no such file in the repository", at, src))
		}
		for _, m := range matches {
			rel, _ := filepath.Rel(moduleRoot, m)
			rel = filepath.ToSlash(rel)
			if ex, _ := ign.MatchesOrParentMatches(rel); ex && rel != "." {
				problems = append(problems, fmt.Sprintf("%s %s: %s is excluded by .dockerignore", at, src, rel))
			}
		}
	}
	return problems
}

// stageMakes says whether a stage makes the absolute path p: a RUN command
// names it, or a COPY puts it (or a folder above it) there.
func stageMakes(s instructions.Stage, p string) bool {
	p = path.Clean(p)
	workdir := "/"
	for _, cmd := range s.Commands {
		switch c := cmd.(type) {
		case *instructions.WorkdirCommand:
			workdir = path.Join(workdir, c.Path)
		case *instructions.RunCommand:
			for _, w := range strings.Fields(strings.Join(c.CmdLine, " ")) {
				if path.Clean(w) == p {
					return true
				}
			}
		case *instructions.CopyCommand:
			dst := c.DestPath
			if !path.IsAbs(dst) {
				dst = path.Join(workdir, dst)
			}
			if dst = path.Clean(dst); p == dst || strings.HasPrefix(p, dst+"/") {
				return true
			}
		}
	}
	return false
}

// splitImage splits an image reference into repository and tag; ok is
// false when it has neither tag nor digest.
func splitImage(ref string) (repo, tag string, ok bool) {
	if r, d, found := strings.Cut(ref, "@"); found {
		return r, d, true
	}
	i := strings.LastIndex(ref, ":")
	if i < 0 || strings.Contains(ref[i:], "/") {
		return ref, "", false
	}
	return ref[:i], ref[i+1:], true
}

// debianRelease is the Debian code name in an image's tag, e.g. bookworm
// for debian:bookworm-slim or golang:1.26-bookworm.
func debianRelease(image string) string {
	_, tag, _ := splitImage(image)
	for _, w := range strings.FieldsFunc(tag, func(r rune) bool { return r == '-' || r == '.' }) {
		if slices.Contains([]string{"buster", "bullseye", "bookworm", "trixie", "forky", "duke", "sid"}, w) {
			return w
		}
	}
	return ""
}

// hostRelease is this machine's Debian code name ("" if not Debian).
func hostRelease(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("/etc/os-release")
	if err != nil {
		return ""
	}
	if !regexp.MustCompile(`(?m)^ID=debian$`).Match(b) {
		return ""
	}
	if m := regexp.MustCompile(`(?m)^VERSION_CODENAME=(\S+)`).FindSubmatch(b); m != nil {
		return string(m[1])
	}
	return ""
}

// aptInstalled lists the packages the stage's RUN commands apt-get install.
func aptInstalled(s instructions.Stage) []string {
	var pkgs []string
	re := regexp.MustCompile(`apt(?:-get)?\s+install\s+([^;&|]*)`)
	for _, cmd := range s.Commands {
		if c, ok := cmd.(*instructions.RunCommand); ok {
			for _, m := range re.FindAllStringSubmatch(strings.Join(c.CmdLine, " "), -1) {
				for _, w := range strings.Fields(m[1]) {
					if !strings.HasPrefix(w, "-") {
						pkgs = append(pkgs, w)
					}
				}
			}
		}
	}
	return pkgs
}

func line(loc []parser.Range) int {
	if len(loc) == 0 {
		return 0
	}
	return loc[0].Start.Line
}
