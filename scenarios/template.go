package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// This file turns a YAML document into a template: the generic tree
// (map[string]any, []any, scalars) that mapstructure decodes into a Spec,
// with an *axisRef wherever the file wrote a list in place of a scalar. The
// walk is driven by the Spec type itself (its mapstructure tags), so the
// struct is the single source of truth for the keys, and every node's line
// is recorded under its field path for error messages.

// axisDef is one grid axis found in the file.
type axisDef struct {
	path   string
	line   int
	values []any
	wrap   bool // the value is one element of a list field (policies)
}

// axisRef marks where an axis value goes in the template.
type axisRef struct{ axis int }

// walker walks YAML nodes against the Spec type.
type walker struct {
	file   string
	lines  map[string]int
	axes   []*axisDef
	values int // values walked so far, aliases expanded (at most MaxYAMLValues)
}

// count refuses a document that expands, through aliases, to more than
// MaxYAMLValues values (a "billion laughs" file).
func (w *walker) count(n *yaml.Node, path string) error {
	if w.values++; w.values > MaxYAMLValues {
		return w.fail(n, path, "the scenario expands to more than %d values (through YAML aliases?), the limit", MaxYAMLValues)
	}
	return nil
}

// yamlLine extracts the line of a yaml.v3 error message.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// parseYAML parses data into its single document node; a second document
// (after a "---" line) is refused.
func parseYAML(data []byte, file string) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, yamlError(err, file)
	}
	var next yaml.Node
	if err := dec.Decode(&next); err != nil && !errors.Is(err, io.EOF) {
		return nil, yamlError(err, file)
	} else if err == nil && len(next.Content) > 0 && !isNull(next.Content[0]) {
		return nil, &Error{File: file, Line: next.Content[0].Line,
			Reason: "a second YAML document (after a \"---\" line): a scenario file holds one document; write a grid as lists in it"}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, &Error{File: file, Reason: "empty scenario: expected a mapping with at least cluster.servers"}
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return nil, &Error{File: file, Reason: "empty scenario: expected a mapping with at least cluster.servers"}
	}
	return root, nil
}

// yamlError turns a yaml.v3 error into an *Error with the line.
func yamlError(err error, file string) error {
	msg := err.Error()
	line := 0
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
		if strings.HasPrefix(msg, "did not find expected") {
			// yaml.v3 reports a parser error at the 0-based line where
			// the enclosing construct starts (decode.go, parser.fail).
			line++
			msg += " (in the construct that starts on this line)"
		}
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	return &Error{File: file, Line: line, Reason: "malformed YAML: " + msg}
}

func (w *walker) fail(n *yaml.Node, path, format string, args ...any) error {
	return &Error{File: w.file, Line: n.Line, Path: path, Reason: fmt.Sprintf(format, args...)}
}

func deref(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" }

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("%q", n.Value)
	}
	return "something else"
}

// field joins a struct key or map key onto path.
var plainKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

func field(path, key string, mapKey bool) string {
	if mapKey && !plainKey.MatchString(key) {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

// value walks node n against type t at path. gridTag is the field's grid
// struct tag: "none" (no axis allowed) or "each" (a list whose elements are
// the values of one axis). It returns nil for a null node (the key counts
// as absent).
func (w *walker) value(n *yaml.Node, t reflect.Type, path, gridTag string) (any, error) {
	n = deref(n)
	if err := w.count(n, path); err != nil {
		return nil, err
	}
	if isNull(n) {
		return nil, nil
	}
	if _, ok := w.lines[path]; !ok {
		w.lines[path] = n.Line
	}
	switch t.Kind() {
	case reflect.Struct:
		return w.structure(n, t, path)
	case reflect.Map:
		return w.mapping(n, t, path)
	case reflect.Interface:
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, w.fail(n, path, "%v", err)
		}
		return v, nil
	case reflect.Slice:
		return w.slice(n, t, path, gridTag)
	default:
		if n.Kind == yaml.SequenceNode {
			if gridTag == "none" {
				return nil, w.fail(n, path, "may not be a list (it cannot be a grid axis)")
			}
			return w.axis(n, path, false, func(e *yaml.Node, p string) (any, error) { return w.scalar(e, t, p) })
		}
		return w.scalar(n, t, path)
	}
}

func (w *walker) structure(n *yaml.Node, t reflect.Type, path string) (any, error) {
	if n.Kind != yaml.MappingNode {
		return nil, w.fail(n, path, "must be a mapping of keys to values, got %s", kindName(n))
	}
	fields := map[string]reflect.StructField{}
	var known []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if tag := f.Tag.Get("mapstructure"); tag != "" && f.IsExported() {
			fields[tag] = f
			known = append(known, tag)
		}
	}
	sort.Strings(known)
	out := map[string]any{}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, w.fail(k, path, "keys must be plain names, got %s", kindName(k))
		}
		p := field(path, k.Value, false)
		if first, dup := seen[k.Value]; dup {
			return nil, w.fail(k, p, "duplicate key (first at line %d)", first)
		}
		seen[k.Value] = k.Line
		f, ok := fields[k.Value]
		if !ok {
			return nil, w.fail(k, p, "unknown key %q (known keys here: %s)", k.Value, strings.Join(known, ", "))
		}
		w.lines[p] = k.Line
		val, err := w.value(v, f.Type, p, f.Tag.Get("grid"))
		if err != nil {
			return nil, err
		}
		if val != nil {
			out[k.Value] = val
		}
	}
	return out, nil
}

func (w *walker) mapping(n *yaml.Node, t reflect.Type, path string) (any, error) {
	if n.Kind != yaml.MappingNode {
		return nil, w.fail(n, path, "must be a mapping, got %s", kindName(n))
	}
	out := map[string]any{}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Value == "" {
			return nil, w.fail(k, path, "keys must be non-empty names, got %s", kindName(k))
		}
		p := field(path, k.Value, true)
		if first, dup := seen[k.Value]; dup {
			return nil, w.fail(k, p, "duplicate key (first at line %d)", first)
		}
		seen[k.Value] = k.Line
		w.lines[p] = k.Line
		val, err := w.value(v, t.Elem(), p, "")
		if err != nil {
			return nil, err
		}
		if val != nil {
			out[k.Value] = val
		}
	}
	return out, nil
}

func (w *walker) slice(n *yaml.Node, t reflect.Type, path, gridTag string) (any, error) {
	elem := t.Elem()
	if gridTag == "each" {
		// Each element is one value of the axis (policies).
		if n.Kind != yaml.SequenceNode {
			v, err := w.scalar(n, elem, path)
			if err != nil {
				return nil, err
			}
			return w.newAxis(path, n.Line, []any{v}, true), nil
		}
		return w.axis(n, path, true, func(e *yaml.Node, p string) (any, error) { return w.scalar(e, elem, p) })
	}
	if n.Kind != yaml.SequenceNode {
		if elem.Kind() == reflect.Struct {
			return nil, w.fail(n, path, "must be a list, got %s", kindName(n))
		}
		// A lone scalar stands for a one-element list.
		v, err := w.scalar(n, elem, path)
		if err != nil {
			return nil, err
		}
		return []any{v}, nil
	}
	if len(n.Content) == 0 {
		return nil, w.fail(n, path, "empty list (omit the key to get the default)")
	}
	if elem.Kind() != reflect.Struct {
		// A list of scalars is the value; a list of lists is an axis.
		nested := 0
		for _, e := range n.Content {
			if deref(e).Kind == yaml.SequenceNode {
				nested++
			}
		}
		if nested > 0 && nested < len(n.Content) {
			return nil, w.fail(n, path, "mixes values and lists: write a list of values, or a list of lists to make it a grid axis")
		}
		if nested > 0 {
			return w.axis(n, path, false, func(e *yaml.Node, p string) (any, error) {
				if len(e.Content) == 0 {
					return nil, w.fail(e, p, "empty list (omit the key to get the default)")
				}
				var vs []any
				for i, x := range e.Content {
					v, err := w.scalar(deref(x), elem, index(p, i))
					if err != nil {
						return nil, err
					}
					vs = append(vs, v)
				}
				return vs, nil
			})
		}
	}
	out := make([]any, 0, len(n.Content))
	for i, e := range n.Content {
		p := index(path, i)
		v, err := w.value(e, elem, p, "")
		if err != nil {
			return nil, err
		}
		if v == nil {
			return nil, w.fail(deref(e), p, "null list element")
		}
		out = append(out, v)
	}
	return out, nil
}

// axis records the elements of sequence n as the values of a new axis.
func (w *walker) axis(n *yaml.Node, path string, wrap bool, conv func(*yaml.Node, string) (any, error)) (any, error) {
	if len(n.Content) == 0 {
		return nil, w.fail(n, path, "empty list (omit the key to get the default)")
	}
	var vals []any
	for i, e := range n.Content {
		e = deref(e)
		if isNull(e) {
			return nil, w.fail(e, index(path, i), "null list element")
		}
		v, err := conv(e, index(path, i))
		if err != nil {
			return nil, err
		}
		vals = append(vals, v)
	}
	return w.newAxis(path, n.Line, vals, wrap), nil
}

func (w *walker) newAxis(path string, line int, vals []any, wrap bool) *axisRef {
	w.axes = append(w.axes, &axisDef{path: path, line: line, values: vals, wrap: wrap})
	return &axisRef{axis: len(w.axes) - 1}
}

// scalar converts a scalar node to the Go value type t decodes from: int64
// for integers, float64 for numbers, string for strings. NaN and infinities
// are refused for every number.
func (w *walker) scalar(n *yaml.Node, t reflect.Type, path string) (any, error) {
	n = deref(n)
	if err := w.count(n, path); err != nil {
		return nil, err
	}
	if n.Kind != yaml.ScalarNode {
		return nil, w.fail(n, path, "must be a %s, got %s", typeWord(t), kindName(n))
	}
	tag := n.ShortTag()
	switch t.Kind() {
	case reflect.String:
		if tag == "!!null" {
			return nil, w.fail(n, path, "must be a string, got null")
		}
		return n.Value, nil
	case reflect.Int, reflect.Int64:
		switch tag {
		case "!!int":
			var i int64
			if err := n.Decode(&i); err != nil {
				return nil, w.fail(n, path, "must be a whole number, got %q", n.Value)
			}
			return i, nil
		case "!!float":
			var f float64
			if err := n.Decode(&f); err != nil {
				return nil, w.fail(n, path, "must be a whole number, got %q", n.Value)
			}
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, w.fail(n, path, "must be a finite whole number, got %s", n.Value)
			}
			if f != math.Trunc(f) || math.Abs(f) >= 1<<62 {
				return nil, w.fail(n, path, "must be a whole number, got %s", n.Value)
			}
			return int64(f), nil
		}
		return nil, w.fail(n, path, "must be a whole number, got %s", kindName(n))
	case reflect.Float64:
		if tag != "!!int" && tag != "!!float" {
			return nil, w.fail(n, path, "must be a number, got %s", kindName(n))
		}
		var f float64
		if err := n.Decode(&f); err != nil {
			return nil, w.fail(n, path, "must be a number, got %q", n.Value)
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, w.fail(n, path, "must be a finite number, got %s", n.Value)
		}
		return f, nil
	}
	panic(fmt.Sprintf("scenarios: no scalar conversion for %v at %s", t, path))
}

func typeWord(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Int, reflect.Int64:
		return "whole number"
	case reflect.Float64:
		return "number"
	}
	return t.String()
}

// instantiate copies template v, replacing each axis reference by the
// value point selects for it.
func instantiate(v any, axes []*axisDef, point []int) any {
	switch x := v.(type) {
	case *axisRef:
		val := axes[x.axis].values[point[x.axis]]
		if axes[x.axis].wrap {
			return []any{val}
		}
		return copyValue(val)
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = instantiate(e, axes, point)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = instantiate(e, axes, point)
		}
		return s
	}
	return v
}

func copyValue(v any) any {
	if s, ok := v.([]any); ok {
		return append([]any(nil), s...)
	}
	return v
}
