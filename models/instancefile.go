package models

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"
)

// DecodeInstance reads an instance from JSON, or from YAML when yamlText
// is set, and validates it against its GPU types or defaultTypes (see
// Instance.Validate). It refuses unknown keys, a key given twice, a second
// document or anything after the instance, and names the line of a
// syntax or type error.
func DecodeInstance(data []byte, yamlText bool, defaultTypes []GPUType) (*Instance, error) {
	var in Instance
	if yamlText {
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(&in); err != nil {
			if errors.Is(err, io.EOF) {
				return nil, errors.New("empty: no instance")
			}
			return nil, err
		}
		var extra yaml.Node
		if err := dec.Decode(&extra); err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("after the instance: %w", err)
		} else if err == nil && len(extra.Content) > 0 && !(extra.Content[0].Kind == yaml.ScalarNode && extra.Content[0].ShortTag() == "!!null") {
			return nil, fmt.Errorf("line %d: a second YAML document (after a \"---\" line); an instance file holds one", extra.Content[0].Line)
		}
	} else {
		if err := jsonDuplicateKey(data); err != nil {
			return nil, err
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&in); err != nil {
			if errors.Is(err, io.EOF) {
				return nil, errors.New("empty: no instance")
			}
			return nil, jsonLine(data, err)
		}
		if off := dec.InputOffset(); len(bytes.TrimSpace(data[off:])) > 0 {
			rest := off + int64(bytes.Index(data[off:], bytes.TrimSpace(data[off:])))
			return nil, fmt.Errorf("line %d: data after the instance's closing brace", lineAt(data, rest))
		}
	}
	if err := in.Validate(defaultTypes); err != nil {
		return nil, err
	}
	return &in, nil
}

// jsonLine adds the line number to a JSON syntax or type error.
func jsonLine(b []byte, err error) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 {
		return err
	}
	return fmt.Errorf("line %d: %w", lineAt(b, off), err)
}

func lineAt(b []byte, off int64) int {
	return 1 + bytes.Count(b[:min(int(max(off, 0)), len(b))], []byte("\n"))
}

// MaxJSONDepth bounds the nesting of an instance's JSON (encoding/json
// itself stops at 10,000).
const MaxJSONDepth = 1000

// jsonDuplicateKey reports the first object key given twice in the JSON
// text b (encoding/json would keep the last silently), with its line and
// path, and refuses nesting deeper than MaxJSONDepth. A syntax error is
// left to the decoder.
func jsonDuplicateKey(b []byte) error {
	type frame struct {
		object bool
		keys   map[string]bool
		key    string // object: the current member's key
		index  int    // array: the current element
		atKey  bool   // object: the next token is a key or the end
	}
	var stack []*frame
	// path is built only for an error: the frames hold one segment each.
	path := func(last string) string {
		var b strings.Builder
		for _, f := range stack[:len(stack)-1] {
			if f.object {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(f.key)
			} else {
				fmt.Fprintf(&b, "[%d]", f.index)
			}
		}
		return joinKey(b.String(), last)
	}
	next := func() { // a value ended: the enclosing frame moves on
		if len(stack) == 0 {
			return
		}
		if f := stack[len(stack)-1]; f.object {
			f.atKey = true
		} else {
			f.index++
		}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // io.EOF, or a syntax error the decoder will report
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		d, isDelim := tok.(json.Delim)
		if top != nil && top.object && top.atKey {
			if isDelim && d == '}' {
				stack = stack[:len(stack)-1]
				next()
				continue
			}
			k, _ := tok.(string)
			if top.keys[k] {
				return fmt.Errorf("line %d: %s: key given twice", lineAt(b, dec.InputOffset()), path(k))
			}
			top.keys[k] = true
			top.key, top.atKey = k, false
			continue
		}
		if isDelim {
			switch d {
			case '{', '[':
				if len(stack) >= MaxJSONDepth {
					return fmt.Errorf("line %d: nested deeper than %d levels, the limit", lineAt(b, dec.InputOffset()), MaxJSONDepth)
				}
				stack = append(stack, &frame{object: d == '{', keys: map[string]bool{}, atKey: d == '{'})
				continue
			case ']':
				stack = stack[:len(stack)-1]
			}
		}
		next()
	}
}

func joinKey(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}
