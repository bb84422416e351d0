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
	sc := &scanner{ix: &jsonIndex{data: data, offsets: map[string]int64{}}, dec: json.NewDecoder(bytes.NewReader(data))}
	sc.dec.UseNumber()
	seenValue := false
	for {
		off := sc.dec.InputOffset()
		tok, err := sc.dec.Token()
		if errors.Is(err, io.EOF) {
			if !seenValue {
				return nil, &jsonError{line: 1, reason: "empty"}
			}
			return sc.ix, nil
		}
		if err != nil {
			return nil, sc.ix.syntaxError(err, sc.dec.InputOffset())
		}
		if len(sc.stack) == 0 && seenValue {
			return nil, &jsonError{line: sc.ix.lineAt(sc.dec.InputOffset()), reason: "more than one JSON value (trailing data)"}
		}
		seenValue = true
		if err := sc.token(tok, off); err != nil {
			return nil, err
		}
	}
}

// scanner is scanJSON's state: the containers open around the next token.
type scanner struct {
	ix    *jsonIndex
	dec   *json.Decoder
	stack []*frame
}

// frame is one open object or array.
type frame struct {
	object bool
	path   string
	keys   map[string]bool
	index  int
	key    string // the object's pending key
}

func (sc *scanner) top() *frame {
	if len(sc.stack) == 0 {
		return nil
	}
	return sc.stack[len(sc.stack)-1]
}

// child is the path of the value the next token starts.
func (sc *scanner) child() string {
	f := sc.top()
	switch {
	case f == nil:
		return ""
	case !f.object:
		return fmt.Sprintf("%s[%d]", f.path, f.index)
	case f.path == "":
		return f.key
	}
	return f.path + "." + f.key
}

// afterValue moves past a value: the next array index, or the next key.
func (sc *scanner) afterValue() {
	if f := sc.top(); f != nil && !f.object {
		f.index++
	} else if f != nil {
		f.key = ""
	}
}

// token handles one token that started at byte off.
func (sc *scanner) token(tok json.Token, off int64) error {
	top := sc.top()
	if top != nil && top.object && top.key == "" {
		if d, ok := tok.(json.Delim); ok && d == '}' {
			sc.stack = sc.stack[:len(sc.stack)-1]
			sc.afterValue()
			return nil
		}
		return sc.key(top, tok.(string))
	}
	switch v := tok.(type) {
	case json.Delim:
		switch v {
		case '{', '[':
			if len(sc.stack) >= maxJSONDepth {
				return &jsonError{line: sc.ix.lineAt(off), path: sc.child(), reason: fmt.Sprintf("nested deeper than %d", maxJSONDepth)}
			}
			p := sc.child()
			if top != nil && !top.object && len(sc.stack) <= maxIndexDepth {
				sc.ix.offsets[p] = sc.dec.InputOffset()
			}
			sc.stack = append(sc.stack, &frame{object: v == '{', path: p, keys: map[string]bool{}})
			return nil
		case ']':
			sc.stack = sc.stack[:len(sc.stack)-1]
		}
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil || !finite(f) {
			return &jsonError{line: sc.ix.lineAt(sc.dec.InputOffset()), path: sc.child(), reason: fmt.Sprintf("number %s is out of range", v)}
		}
	}
	sc.afterValue()
	return nil
}

// key handles an object's key.
func (sc *scanner) key(top *frame, k string) error {
	p := k
	if top.path != "" {
		p = top.path + "." + k
	}
	if top.keys[k] {
		return &jsonError{line: sc.ix.lineAt(sc.dec.InputOffset()), path: p, reason: "key appears twice"}
	}
	top.keys[k] = true
	top.key = k
	if len(sc.stack) <= maxIndexDepth {
		sc.ix.offsets[p] = sc.dec.InputOffset()
	}
	return nil
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
