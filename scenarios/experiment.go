package scenarios

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// This file is the rule for when runs belong to one experiment: the runs of
// one scenario file's grid, possibly spread over several result folders
// (shards, resumed sweeps). Two runs belong together when they vary the
// same grid axes and their concrete specs differ only in what a grid may
// vary: the scenario's name, the seed, the policy and its options, and the
// value of each axis other than policies and seed. Each policy runs with the
// same options throughout. Readers of run records (package reports) apply
// it to the specs the records hold, decoded generically from JSON; the
// field paths are this package's axis paths (Axis.Path).

// ExperimentAxes lists the axes of a run's grid point (a run record's
// point: axis path → value) that set the points of an experiment apart:
// every axis but policies and seed, sorted. Runs of one experiment have
// the same list.
func ExperimentAxes(point map[string]any) []string {
	var a []string
	for k := range point {
		if k != "policies" && k != "seed" {
			a = append(a, k)
		}
	}
	slices.Sort(a)
	return a
}

// ExperimentSpec is spec — a run's concrete Spec as a run record holds it,
// or any value that encodes to the same JSON — decoded generically (a
// fresh copy), with what may differ between the runs of one experiment
// blanked: its name, seed, policies and policy options, and the value at
// each of axes (paths as ExperimentAxes lists them; a user_count axis also
// blanks the users list it expands to). Two runs belong to one experiment
// when FirstDifference finds no difference between their ExperimentSpecs.
// ok is false when spec is not a JSON object.
func ExperimentSpec(spec any, axes []string) (key map[string]any, ok bool) {
	m := GenericSpec(spec)
	if m == nil {
		return nil, false
	}
	for _, k := range []string{"name", "seed", "policies", "policy_options"} {
		delete(m, k)
	}
	for _, a := range axes {
		blankPath(m, a)
		if a == "user_count" { // a run's spec lists the users instead
			delete(m, "users")
		}
	}
	return m, true
}

// PolicyOptions are the options spec (as for ExperimentSpec) gives policy,
// decoded generically; nil when it gives none. The runs of one experiment
// give each policy the same options.
func PolicyOptions(spec any, policy string) any {
	po, _ := GenericSpec(spec)["policy_options"].(map[string]any)
	return po[policy]
}

// GenericSpec is spec — a run's concrete Spec as a run record holds it, or
// any value that encodes to the same JSON — decoded generically (a fresh
// copy): the tree axis paths address (SplitPath). Nil when spec is not a
// JSON object.
func GenericSpec(spec any) map[string]any {
	b, err := json.Marshal(spec)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m
}

// Difference is where two generically decoded values differ.
type Difference struct {
	// Path is the field path of the first difference, in the syntax of
	// axis paths; "(the whole value)" when the values differ at the top.
	Path string
	// A and B are the two values there as JSON, shortened to 60 bytes;
	// "absent" for a value that is missing.
	A, B string
}

// FirstDifference finds the first place, in path order (object keys
// sorted, list elements in order), where two generically decoded JSON
// values differ; differ is false when they are equal.
func FirstDifference(a, b any) (d Difference, differ bool) {
	return firstDiff(a, b, "")
}

func firstDiff(a, b any, path string) (Difference, bool) {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			break
		}
		keys := maps.Clone(x)
		maps.Copy(keys, y)
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			if d, differ := firstDiff(x[k], y[k], joinPath(path, k)); differ {
				return d, true
			}
		}
		return Difference{}, false
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			break
		}
		for i := range x {
			if d, differ := firstDiff(x[i], y[i], index(path, i)); differ {
				return d, true
			}
		}
		return Difference{}, false
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if bytes.Equal(ja, jb) {
		return Difference{}, false
	}
	if path == "" {
		path = "(the whole value)"
	}
	return Difference{Path: path, A: shorten(string(ja)), B: shorten(string(jb))}, true
}

// joinPath joins an object key onto path, as a record's generic spec
// spells it (keys are never quoted here).
func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func shorten(s string) string {
	if s == "null" {
		return "absent"
	}
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}

// blankPath replaces the value at an axis path (cluster.servers[0].count,
// preemption.seconds["A3C"]) in a generically decoded spec by a
// placeholder; a path that does not resolve is left alone.
func blankPath(root map[string]any, path string) {
	steps := SplitPath(path)
	var cur any = root
	for i, st := range steps {
		last := i == len(steps)-1
		switch c := cur.(type) {
		case map[string]any:
			key, ok := st.(string)
			if !ok {
				return
			}
			if _, has := c[key]; !has {
				return
			}
			if last {
				c[key] = "<axis>"
				return
			}
			cur = c[key]
		case []any:
			idx, ok := st.(int)
			if !ok || idx < 0 || idx >= len(c) {
				return
			}
			if last {
				c[idx] = "<axis>"
				return
			}
			cur = c[idx]
		default:
			return
		}
	}
}

// SplitPath splits an axis path (Axis.Path: cluster.servers[2].count,
// preemption.seconds["A3C"]) into its steps: map keys (string) and list
// indices (int), in order.
func SplitPath(path string) []any {
	var out []any
	for len(path) > 0 {
		switch {
		case path[0] == '.':
			path = path[1:]
		case path[0] == '[':
			step, rest := splitBracket(path)
			out = append(out, step)
			path = rest
		default:
			end := strings.IndexAny(path, ".[")
			if end < 0 {
				end = len(path)
			}
			out = append(out, path[:end])
			path = path[end:]
		}
	}
	return out
}

// splitBracket reads the bracketed step at the start of path — a list
// index [2] or a quoted map key ["A3C"] — and returns it and the rest. A
// step that does not parse is returned whole, ending the path.
func splitBracket(path string) (any, string) {
	end := strings.IndexByte(path, ']')
	if end < 0 {
		return path, ""
	}
	inner := path[1:end]
	if strings.HasPrefix(inner, `"`) {
		// A quoted key may hold ']': find the closing quote.
		var key string
		dec := json.NewDecoder(strings.NewReader(path[1:]))
		if err := dec.Decode(&key); err != nil {
			return path, ""
		}
		return key, strings.TrimPrefix(path[1+int(dec.InputOffset()):], "]")
	}
	if n, err := strconv.Atoi(inner); err == nil {
		return n, path[end+1:]
	}
	return inner, path[end+1:]
}
