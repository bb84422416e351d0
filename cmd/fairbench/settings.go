package main

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"

	"fairbench/internal/input"
)

// Settings: every flag of every command (except --config and --help) can
// also be set in the --config file, under its flag name (nvml-lib or
// nvml_lib), and by the environment variable FAIRBENCH_<NAME> (upper case,
// "-" as "_": FAIRBENCH_NVML_LIB). A flag on the command line wins over the
// environment, which wins over the file. A key that is no command's flag,
// a FAIRBENCH_ variable that is no setting, a value a flag refuses (seed:
// abc) and a malformed file are errors naming the file and line or the
// variable. A key of another command's flag is ignored by commands
// without that flag, so one file can serve several commands.

// envPrefix starts every settings variable.
const envPrefix = "FAIRBENCH_"

// envNotSettings are FAIRBENCH_ variables that are not settings: test
// switches (FAIRBENCH_REQUIRE_*, and FAIRBENCH_AS_MAIN, which makes the
// test binary act as the command) and the settings file's own path.
func envNotSetting(name string) bool {
	return name == "AS_MAIN" || strings.HasPrefix(name, "REQUIRE_")
}

// notSettings are flags that settings cannot set.
var notSettings = map[string]bool{"config": true, "help": true}

// fileSetting is one key of a settings file.
type fileSetting struct {
	line   int
	values []string // one value, or a list's elements
	list   bool
}

// load applies the settings file and FAIRBENCH_ variables to the flags of
// cmd that the command line did not set, then binds the flags into viper.
func (s *settings) load(cmd *cobra.Command) error {
	known := flagNames(cmd.Root())
	path, _ := cmd.Flags().GetString("config")
	if path == "" {
		path = os.Getenv(envPrefix + "CONFIG")
	}
	var file map[string]fileSetting
	if path != "" {
		var err error
		if file, err = readSettings(path, known); err != nil {
			return err
		}
	}
	env, err := envSettings(known)
	if err != nil {
		return err
	}
	if err := applySettings(cmd.Flags(), env, file, path); err != nil {
		return err
	}
	return s.v.BindPFlags(cmd.Flags())
}

// applySettings sets the flags of fs that the command line did not set:
// from env, else from the file's settings (read from path).
func applySettings(fs *pflag.FlagSet, env map[string]string, file map[string]fileSetting, path string) error {
	var errs []error
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Changed || notSettings[f.Name] {
			return
		}
		if v, ok := env[f.Name]; ok {
			if err := setFlag(fs, f, []string{v}, false); err != nil {
				errs = append(errs, fmt.Errorf("%s%s=%s: %v", envPrefix, envName(f.Name), v, err))
			}
			return
		}
		if s, ok := file[f.Name]; ok {
			if err := setFlag(fs, f, s.values, s.list); err != nil {
				errs = append(errs, fmt.Errorf("--config %s:%d: %s: %v", path, s.line, f.Name, err))
			}
		}
	})
	return errors.Join(errs...)
}

// flagNames lists every flag of root and its subcommands.
func flagNames(root *cobra.Command) map[string]bool {
	names := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, fs := range []*pflag.FlagSet{c.Flags(), c.PersistentFlags()} {
			fs.VisitAll(func(f *pflag.Flag) {
				if !notSettings[f.Name] {
					names[f.Name] = true
				}
			})
		}
		for _, sub := range c.Commands() {
			if sub.Name() != "completion" && sub.Name() != "help" { // cobra's own
				walk(sub)
			}
		}
	}
	walk(root)
	return names
}

func envName(flag string) string { return strings.ToUpper(strings.ReplaceAll(flag, "-", "_")) }

// envSettings reads the FAIRBENCH_ variables, refusing one that names no
// flag.
func envSettings(known map[string]bool) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		name, ok := strings.CutPrefix(k, envPrefix)
		if !ok || name == "CONFIG" || envNotSetting(name) {
			continue
		}
		flag := strings.ToLower(strings.ReplaceAll(name, "_", "-"))
		if !known[flag] {
			return nil, fmt.Errorf("%s: no such setting (FAIRBENCH_<FLAG> sets a flag; flags: %s)", k, strings.Join(sorted(known), ", "))
		}
		out[flag] = v
	}
	return out, nil
}

// readSettings reads a settings file: one YAML mapping of flag names to a
// value or a list of values.
func readSettings(path string, known map[string]bool) (map[string]fileSetting, error) {
	b, err := input.ReadFile(path, input.MaxSettingsBytes)
	if err != nil {
		return nil, fmt.Errorf("--config: %w", err)
	}
	return parseSettings(b, path, known)
}

// parseSettings parses the text of a settings file named path.
func parseSettings(b []byte, path string, known map[string]bool) (map[string]fileSetting, error) {
	bad := func(line int, format string, a ...any) error {
		where := path
		if line > 0 {
			where = fmt.Sprintf("%s:%d", path, line)
		}
		return fmt.Errorf("--config %s: %s", where, fmt.Sprintf(format, a...))
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return map[string]fileSetting{}, nil
		}
		return nil, bad(0, "malformed YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	var next yaml.Node
	if err := dec.Decode(&next); err != nil && !errors.Is(err, io.EOF) {
		return nil, bad(0, "malformed YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	} else if err == nil && len(next.Content) > 0 && next.Content[0].ShortTag() != "!!null" {
		return nil, bad(next.Content[0].Line, "a second YAML document (after a \"---\" line): a settings file holds one mapping")
	}
	out := map[string]fileSetting{}
	if len(doc.Content) == 0 || (doc.Content[0].Kind == yaml.ScalarNode && doc.Content[0].ShortTag() == "!!null") {
		return out, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, bad(root.Line, "must be a mapping of flag names to values, e.g. \"out: results\"")
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, bad(k.Line, "keys must be flag names")
		}
		name := strings.ReplaceAll(k.Value, "_", "-")
		if notSettings[name] {
			return nil, bad(k.Line, "%s: cannot be set in a settings file", k.Value)
		}
		if !known[name] {
			return nil, bad(k.Line, "%s: unknown key (keys are flag names: %s)", k.Value, strings.Join(sorted(known), ", "))
		}
		if prev, dup := out[name]; dup {
			return nil, bad(k.Line, "%s: set twice (first at line %d)", k.Value, prev.line)
		}
		fs := fileSetting{line: k.Line}
		for v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		switch v.Kind {
		case yaml.ScalarNode:
			fs.values = []string{v.Value}
		case yaml.SequenceNode:
			fs.list = true
			for _, e := range v.Content {
				if e.Kind != yaml.ScalarNode {
					return nil, bad(e.Line, "%s: a list of plain values, got a nested list or mapping", k.Value)
				}
				fs.values = append(fs.values, e.Value)
			}
		default:
			return nil, bad(v.Line, "%s: must be a value or a list of values", k.Value)
		}
		out[name] = fs
	}
	return out, nil
}

// setFlag gives flag f the values: a list flag takes every value, any
// other flag exactly one.
func setFlag(fs *pflag.FlagSet, f *pflag.Flag, values []string, list bool) error {
	if sv, ok := f.Value.(pflag.SliceValue); ok {
		var vals []string
		for _, v := range values {
			if list {
				vals = append(vals, v)
				continue
			}
			r := csv.NewReader(strings.NewReader(v))
			rec, err := r.Read()
			if err != nil && !errors.Is(err, io.EOF) {
				return fmt.Errorf("invalid list %q: %v", v, err)
			}
			vals = append(vals, rec...)
		}
		if err := sv.Replace(vals); err != nil {
			return err
		}
		f.Changed = true
		return nil
	}
	if list {
		return fmt.Errorf("takes one value, got a list")
	}
	return fs.Set(f.Name, values[0])
}

func sorted(m map[string]bool) []string { return slices.Sorted(maps.Keys(m)) }
