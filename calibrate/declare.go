package calibrate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ReadGPUTypes reads the `gpu_types:` list of a YAML or JSON file — a
// datasheet file written for the purpose, a calibration profile or a
// scenario: the file's other top-level keys are ignored, the list's are
// checked (unknown or repeated keys, a name the catalogue has, memory, rank,
// peaks and bandwidth out of range, a missing source). Errors name the file,
// line and field.
func ReadGPUTypes(path string) ([]GPUDecl, error) {
	data, err := readLimited(path, maxProfileBytes)
	if err != nil {
		return nil, fmt.Errorf("calibrate: gpu_types: %w", err)
	}
	return ParseGPUTypes(data, path)
}

// declKeys are the keys of one gpu_types entry.
var declKeys = func() map[string]bool {
	keys := map[string]bool{}
	t := reflect.TypeOf(GPUDecl{})
	for i := range t.NumField() {
		keys[strings.Split(t.Field(i).Tag.Get("yaml"), ",")[0]] = true
	}
	return keys
}()

// ParseGPUTypes is ReadGPUTypes on text; name is for errors.
func ParseGPUTypes(data []byte, name string) ([]GPUDecl, error) {
	fail := func(line int, field, format string, args ...any) error {
		return &InputError{What: "gpu_types", File: name, Line: line, Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fail(0, "", "empty")
		}
		return nil, fail(0, "", "%s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, fail(root.Line, "", "want a mapping with a gpu_types list")
	}
	var list *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "gpu_types" {
			if list != nil {
				return nil, fail(root.Content[i].Line, "gpu_types", "appears twice")
			}
			list = root.Content[i+1]
		}
	}
	if list == nil || list.Kind != yaml.SequenceNode || len(list.Content) == 0 {
		return nil, fail(root.Line, "gpu_types", "required: a list of {name, memory_gb, rank, peak_tflops, memory_bandwidth_gb_s, source}")
	}
	if len(list.Content) > maxDeclaredTypes {
		return nil, fail(list.Line, "gpu_types", "at most %d, got %d", maxDeclaredTypes, len(list.Content))
	}
	decls := make([]GPUDecl, len(list.Content))
	lines := map[string]int{"gpu_types": list.Line}
	for i, item := range list.Content {
		f := fmt.Sprintf("gpu_types[%d]", i)
		lines[f] = item.Line
		if item.Kind != yaml.MappingNode {
			return nil, fail(item.Line, f, "want a mapping {name, memory_gb, ...}")
		}
		seen := map[string]bool{}
		for j := 0; j+1 < len(item.Content); j += 2 {
			k := item.Content[j]
			if !declKeys[k.Value] {
				return nil, fail(k.Line, f+"."+k.Value, "unknown key (known: %s)", strings.Join(slices.Sorted(maps.Keys(declKeys)), ", "))
			}
			if seen[k.Value] {
				return nil, fail(k.Line, f+"."+k.Value, "appears twice")
			}
			seen[k.Value] = true
			lines[f+"."+k.Value] = k.Line
		}
		if err := item.Decode(&decls[i]); err != nil {
			return nil, fail(item.Line, f, "%s", strings.TrimPrefix(err.Error(), "yaml: "))
		}
	}
	if field, err := checkDecls(decls, "gpu_types"); err != nil {
		s := &Spec{file: name, lines: lines}
		return nil, fail(s.line(field), field, "%v", err)
	}
	return decls, nil
}
