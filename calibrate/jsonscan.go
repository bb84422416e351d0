package calibrate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// jsonIndex is what scanJSON learnt of a JSON document: where its fields
// are, to name their lines in errors.
type jsonIndex struct {
	data    []byte
	offsets map[string]int64 // field path ("entries[3].gang") → byte offset
}

// maxIndexDepth: paths deeper than this are not indexed (their nearest
// indexed ancestor names the line).
const maxIndexDepth = 3

// scanJSON checks that data is exactly one JSON value, nested at most
// maxJSONDepth deep, with no object key twice and every number finite, and
// indexes the paths of its fields. Errors name the line and the path.
func scanJSON(data []byte) (*jsonIndex, error) {
	ix := &jsonIndex{data: data, offsets: map[string]int64{}}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type frame struct {
		object bool
		path   string
		keys   map[string]bool
		index  int
		key    string // the object's pending key
	}
	var stack []*frame
	child := func() string {
		if len(stack) == 0 {
			return ""
		}
		f := stack[len(stack)-1]
		if f.object {
			if f.path == "" {
				return f.key
			}
			return f.path + "." + f.key
		}
		return fmt.Sprintf("%s[%d]", f.path, f.index)
	}
	afterValue := func() {
		if len(stack) == 0 {
			return
		}
		if f := stack[len(stack)-1]; !f.object {
			f.index++
		} else {
			f.key = ""
		}
	}
	seenValue := false
	for {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			if !seenValue {
				return nil, &jsonError{line: 1, reason: "empty"}
			}
			return ix, nil
		}
		if err != nil {
			return nil, ix.syntaxError(err, dec.InputOffset())
		}
		if len(stack) == 0 && seenValue {
			return nil, &jsonError{line: ix.lineAt(dec.InputOffset()), reason: "more than one JSON value (trailing data)"}
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.object && top.key == "" {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
				afterValue()
				continue
			}
			k, _ := tok.(string)
			p := k
			if top.path != "" {
				p = top.path + "." + k
			}
			if top.keys[k] {
				return nil, &jsonError{line: ix.lineAt(dec.InputOffset()), path: p, reason: "key appears twice"}
			}
			top.keys[k] = true
			top.key = k
			if len(stack) <= maxIndexDepth {
				ix.offsets[p] = dec.InputOffset()
			}
			continue
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				if len(stack) >= maxJSONDepth {
					return nil, &jsonError{line: ix.lineAt(off), path: child(), reason: fmt.Sprintf("nested deeper than %d", maxJSONDepth)}
				}
				p := child()
				if top != nil && !top.object && len(stack) <= maxIndexDepth {
					ix.offsets[p] = dec.InputOffset()
				}
				stack = append(stack, &frame{object: v == '{', path: p, keys: map[string]bool{}})
				seenValue = true
				continue
			case ']':
				stack = stack[:len(stack)-1]
			}
		case json.Number:
			f, err := strconv.ParseFloat(string(v), 64)
			if err != nil || !finite(f) {
				return nil, &jsonError{line: ix.lineAt(dec.InputOffset()), path: child(), reason: fmt.Sprintf("number %s is out of range", v)}
			}
		}
		seenValue = true
		afterValue()
	}
}

// syntaxError turns a decoder error into a jsonError with its line.
func (ix *jsonIndex) syntaxError(err error, at int64) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		at = se.Offset
	}
	return &jsonError{line: ix.lineAt(at), reason: err.Error()}
}

// lineAt is the 1-based line of a byte offset.
func (ix *jsonIndex) lineAt(off int64) int {
	if off > int64(len(ix.data)) {
		off = int64(len(ix.data))
	}
	return 1 + bytes.Count(ix.data[:off], []byte{'\n'})
}

// line is the line of path, or of its nearest indexed ancestor (0: none).
func (ix *jsonIndex) line(path string) int {
	return nearestLine(path, func(p string) (int, bool) {
		off, ok := ix.offsets[p]
		return ix.lineAt(off), ok
	})
}

// jsonError is a structural problem of a JSON document.
type jsonError struct {
	line   int
	path   string
	reason string
}

func (e *jsonError) Error() string {
	if e.path != "" {
		return fmt.Sprintf("line %d: %s: %s", e.line, e.path, e.reason)
	}
	return fmt.Sprintf("line %d: %s", e.line, e.reason)
}
