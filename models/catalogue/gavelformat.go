package catalogue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fairbench/models"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// gavelUnconsolidated is the suffix Gavel puts on a GPU key whose figures were
// measured with the gang spread over servers.
const gavelUnconsolidated = "_unconsolidated"

// gavelIsolated is the member of a job entry that holds its isolated
// throughput (Python's None written as a string key).
const gavelIsolated = "null"

// ReadGavelThroughputs parses a throughput file in the format of Gavel's
// scheduler/simulation_throughputs.json (Narayanan et al., OSDI 2020) and
// returns its figures, in training steps per second, with Source
// "Gavel-format throughput file <name>". name is only used in error messages
// and citations (normally the file name).
//
// The format is a JSON object:
//
//	{ "<gpu>[_unconsolidated]": {
//	    "('<job type>', <scale>)": {
//	      "null": <isolated steps/s>,
//	      "('<other job type>', <scale>)": [<self steps/s>, <other steps/s>], ... },
//	    ... },
//	  ... }
//
// A GPU key maps to a catalogue GPU type when it equals the type's name up to
// case ("k80" → "K80", "a100-40gb" → "A100-40GB"); the "_unconsolidated"
// suffix gives Placement Spread, its absence Consolidated. Any other GPU key
// is refused (so "a100", which names no single catalogue type, is an error).
// The scale factor is the gang size. "null" holds the isolated figure and is
// required; every other member of a job entry is a co-location pair stored
// with SetPair under PairKey{Key{job, gpu, scale, placement}, other job}. A 0
// is stored as given: it means the job cannot run there.
//
// The matrix keeps pairs only between jobs of the same gang on the same GPUs,
// so a pair whose other job has a different scale factor is refused rather
// than dropped (Gavel's own file has none).
//
// Bad input is refused with an error naming name, the JSON key path (for
// example ["v100"]["('A3C', 1)"]["null"]) and the reason: malformed JSON
// (with line and column), a value that is not an object, an unknown GPU key,
// a malformed job key, a duplicate key, a missing "null", a throughput that is
// not a finite number or is negative, a pair that is not a two-element array,
// or a file without any figure. JSON has no NaN or Infinity; Python writes
// them as bare words, which are reported as malformed JSON at their line.
func ReadGavelThroughputs(r io.Reader, name string) (*models.Matrix, error) {
	return ReadGavelThroughputsFor(r, name, catalogueGPUTypes)
}

// ReadGavelThroughputsFor is ReadGavelThroughputs with the GPU types a key
// may name given: the catalogue's plus those a scenario declares (a new
// generation measured by calibration).
func ReadGavelThroughputsFor(r io.Reader, name string, types []models.GPUType) (*models.Matrix, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("models: gavel throughputs %s: read: %w", name, err)
	}
	return ParseGavelThroughputs(data, name, types)
}

// ParseGavelThroughputs is ReadGavelThroughputsFor of a file already read.
func ParseGavelThroughputs(data []byte, name string, types []models.GPUType) (*models.Matrix, error) {
	source := "Gavel-format throughput file " + name
	// Every co-location figure is a two-number list: the count of '[' bounds
	// them and sizes the matrix once (at most 65,536, a few MB, whatever a
	// file of brackets asks; Gavel's holds 10,338).
	if m := models.NewMatrixSize(0, min(bytes.Count(data, []byte{'['}), 1<<16)); gavelFast(data, source, types, m) {
		return m, nil
	}
	p := gavelParser{name: name, source: source, m: models.NewMatrix(), types: types}
	if err := p.parse(data); err != nil {
		return nil, err
	}
	return p.m, nil
}

type gavelParser struct {
	name   string
	source string
	m      *models.Matrix
	types  []models.GPUType // the GPU types a key may name
}

// gavelMember is one key/value pair of a JSON object, in file order.
type gavelMember struct {
	key string
	val json.RawMessage
}

func (p *gavelParser) errorf(path []string, format string, args ...any) error {
	var b strings.Builder
	for _, k := range path {
		b.WriteString("[" + strconv.Quote(k) + "]")
	}
	where := b.String()
	if where == "" {
		where = "top level"
	}
	return fmt.Errorf("models: gavel throughputs %s: %s: %s", p.name, where, fmt.Sprintf(format, args...))
}

func (p *gavelParser) parse(data []byte) error {
	// Unmarshal into a RawMessage validates the whole document first, so a
	// syntax error anywhere is reported with its offset before any figure is
	// looked at.
	var top json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return p.syntaxError(data, err)
	}
	gpus, err := p.object(nil, top)
	if err != nil {
		return err
	}
	seenGPU := map[string]string{} // "K80/spread" → the JSON key that set it
	for _, g := range gpus {
		gpu, pl, err := gavelGPU(g.key, p.types)
		if err != nil {
			return p.errorf([]string{g.key}, "%v", err)
		}
		id := gpu + "/" + pl.String()
		if prev, dup := seenGPU[id]; dup {
			return p.errorf([]string{g.key}, "duplicate GPU key: %q already gave the %s figures of %s", prev, pl, gpu)
		}
		seenGPU[id] = g.key
		if err := p.parseGPU(g, gpu, pl); err != nil {
			return err
		}
	}
	if p.m.Len() == 0 {
		return p.errorf(nil, "no throughput figures")
	}
	return nil
}

func (p *gavelParser) parseGPU(g gavelMember, gpu string, pl models.Placement) error {
	jobs, err := p.object([]string{g.key}, g.val)
	if err != nil {
		return err
	}
	seenJob := map[gavelJobKey]string{}
	for _, j := range jobs {
		path := []string{g.key, j.key}
		jk, err := parseGavelJobKey(j.key)
		if err != nil {
			return p.errorf(path, "%v", err)
		}
		if prev, dup := seenJob[jk]; dup {
			return p.errorf(path, "duplicate job key: %q already gave %s at scale %d", prev, jk.job, jk.scale)
		}
		seenJob[jk] = j.key
		key := models.Key{Job: jk.job, GPU: gpu, Gang: jk.scale, Placement: pl}
		if err := p.parseJob(path, key, j.val); err != nil {
			return err
		}
	}
	return nil
}

func (p *gavelParser) parseJob(path []string, key models.Key, raw json.RawMessage) error {
	members, err := p.object(path, raw)
	if err != nil {
		return err
	}
	var iso *float64
	seenOther := map[string]string{}
	for _, mb := range members {
		mpath := append(append([]string(nil), path...), mb.key)
		if mb.key == gavelIsolated {
			v, err := gavelNumber(mb.val)
			if err != nil {
				return p.errorf(mpath, "isolated throughput: %v", err)
			}
			iso = &v
			continue
		}
		other, err := parseGavelJobKey(mb.key)
		if err != nil {
			return p.errorf(mpath, "co-located job: %v", err)
		}
		if other.scale != key.Gang {
			return p.errorf(mpath, "co-located job has scale %d but this job has scale %d; only pairs of equal gangs can be stored", other.scale, key.Gang)
		}
		if prev, dup := seenOther[other.job]; dup {
			return p.errorf(mpath, "duplicate co-located job: %q already gave the pair with %s", prev, other.job)
		}
		seenOther[other.job] = mb.key
		self, oth, err := gavelPair(mb.val)
		if err != nil {
			return p.errorf(mpath, "co-located throughputs: %v", err)
		}
		if err := p.m.SetPair(models.PairKey{Key: key, Other: other.job}, self, oth); err != nil {
			return p.errorf(mpath, "%v", err)
		}
	}
	if iso == nil {
		return p.errorf(path, "no %q member (the isolated throughput)", gavelIsolated)
	}
	if err := p.m.Set(key, *iso, p.source); err != nil {
		return p.errorf(append(append([]string(nil), path...), gavelIsolated), "%v", err)
	}
	return nil
}

// syntaxError turns encoding/json's error into one naming the file, the line
// and the column.
func (p *gavelParser) syntaxError(data []byte, err error) error {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return fmt.Errorf("models: gavel throughputs %s: malformed JSON: %w", p.name, err)
	}
	off := int(se.Offset) // bytes read when the error was detected
	if off > len(data) {
		off = len(data)
	}
	at := off - 1 // the offending byte
	if at < 0 {
		at = 0
	}
	line := 1 + bytes.Count(data[:at], []byte("\n"))
	col := at - bytes.LastIndexByte(data[:at], '\n')
	hint := ""
	if at < len(data) && (data[at] == 'N' || data[at] == 'I') {
		hint = " (NaN and Infinity are not JSON numbers)"
	}
	return fmt.Errorf("models: gavel throughputs %s: malformed JSON at line %d, column %d (byte offset %d): %v%s",
		p.name, line, col, se.Offset, se, hint)
}

// gavelObject lists the members of a JSON object in file order, refusing a
// value that is not an object or that repeats a key. A problem with one
// member is a *gavelMemberError naming it.
func gavelObject(raw json.RawMessage) ([]gavelMember, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("not a JSON object, got %s", gavelKind(raw))
	}
	var out []gavelMember
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, &gavelMemberError{key: key, err: err}
		}
		if seen[key] {
			return nil, &gavelMemberError{key: key, err: errors.New("duplicate key")}
		}
		seen[key] = true
		out = append(out, gavelMember{key: key, val: val})
	}
	return out, nil
}

// gavelMemberError is a problem with one member of an object.
type gavelMemberError struct {
	key string
	err error
}

func (e *gavelMemberError) Error() string { return fmt.Sprintf("[%q]: %v", e.key, e.err) }

// object lists the members of the object at path, with errors naming the
// offending member's path.
func (p *gavelParser) object(path []string, raw json.RawMessage) ([]gavelMember, error) {
	ms, err := gavelObject(raw)
	if err != nil {
		var me *gavelMemberError
		if errors.As(err, &me) {
			return nil, p.errorf(append(append([]string(nil), path...), me.key), "%v", me.err)
		}
		return nil, p.errorf(path, "%v", err)
	}
	return ms, nil
}

// gavelKind names the JSON type of raw for error messages.
func gavelKind(raw json.RawMessage) string {
	s := bytes.TrimSpace(raw)
	if len(s) == 0 {
		return "nothing"
	}
	switch s[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// gavelNumber decodes a throughput: a finite, non-negative JSON number.
func gavelNumber(raw json.RawMessage) (float64, error) {
	s := bytes.TrimSpace(raw)
	if gavelKind(s) != "a number" {
		return 0, fmt.Errorf("must be a number, got %s", gavelKind(s))
	}
	v, err := strconv.ParseFloat(string(s), 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("must be a finite number, got %s", s)
	}
	if v < 0 {
		return 0, fmt.Errorf("must not be negative, got %v", v)
	}
	return v, nil
}

// gavelPair decodes [self, other].
func gavelPair(raw json.RawMessage) (float64, float64, error) {
	if gavelKind(raw) != "an array" {
		return 0, 0, fmt.Errorf("must be an array [self, other], got %s", gavelKind(raw))
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return 0, 0, err
	}
	if len(elems) != 2 {
		return 0, 0, fmt.Errorf("must have 2 elements [self, other], got %d", len(elems))
	}
	self, err := gavelNumber(elems[0])
	if err != nil {
		return 0, 0, fmt.Errorf("self (element 0): %v", err)
	}
	other, err := gavelNumber(elems[1])
	if err != nil {
		return 0, 0, fmt.Errorf("other (element 1): %v", err)
	}
	return self, other, nil
}

// gavelGPU maps a top-level key to one of types' names and a placement.
func gavelGPU(key string, types []models.GPUType) (string, models.Placement, error) {
	base, pl := key, models.Consolidated
	if strings.HasSuffix(strings.ToLower(key), gavelUnconsolidated) {
		base, pl = key[:len(key)-len(gavelUnconsolidated)], models.Spread
	}
	var names []string
	for _, t := range types {
		if strings.EqualFold(base, t.Name) {
			return t.Name, pl, nil
		}
		names = append(names, t.Name)
	}
	return "", 0, fmt.Errorf("unknown GPU type %q: expected one of %s (any case), optionally with suffix %q",
		base, strings.Join(names, ", "), gavelUnconsolidated)
}

// gavelJobKey is a parsed "('<job type>', <scale>)".
type gavelJobKey struct {
	job   string
	scale int
}

// parseGavelJobKey parses the str() of a Python tuple (job type, scale
// factor), as Gavel writes its keys: "('ResNet-50 (batch size 64)', 1)". A
// job type containing a single quote is written with double quotes by Python,
// which is accepted too. The job type is taken verbatim (no escapes).
func parseGavelJobKey(s string) (gavelJobKey, error) {
	bad := func(why string) (gavelJobKey, error) {
		return gavelJobKey{}, fmt.Errorf("malformed job key %q: %s; want \"('<job type>', <scale factor>)\"", s, why)
	}
	t := strings.TrimSpace(s)
	if len(t) < 2 || t[0] != '(' || t[len(t)-1] != ')' {
		return bad("not in parentheses")
	}
	inner := t[1 : len(t)-1]
	comma := strings.LastIndexByte(inner, ',')
	if comma < 0 {
		return bad("no comma between job type and scale factor")
	}
	name := strings.TrimSpace(inner[:comma])
	scale := strings.TrimSpace(inner[comma+1:])
	if len(name) < 2 || (name[0] != '\'' && name[0] != '"') || name[len(name)-1] != name[0] {
		return bad("job type is not a quoted string")
	}
	name = name[1 : len(name)-1]
	if name == "" {
		return bad("job type is empty")
	}
	n, err := strconv.Atoi(scale)
	if err != nil {
		return bad(fmt.Sprintf("scale factor %q is not an integer", scale))
	}
	if n <= 0 {
		return bad(fmt.Sprintf("scale factor %d is not positive", n))
	}
	return gavelJobKey{job: name, scale: n}, nil
}
