package catalogue

import (
	"slices"
	"strconv"

	"fairbench/models"
)

// gavelFast reads a well-formed Gavel throughput file in one pass over its
// bytes, storing into m the same figures as gavelParser.parse. It handles
// only the common case: JSON whose strings are printable ASCII without
// escapes, nested exactly as the format says, with no key repeated and
// every figure accepted. On anything else it returns false at once, and
// the caller reads the file again with the thorough parser, which decides
// what the file means or names what is wrong with it; so this path changes
// no answer and no error, only the time taken (Gavel's own file, 1.2 MB of
// about 30,000 figures, was read four times over by the thorough parser:
// once to validate and once per level of nesting).
func gavelFast(data []byte, source string, types []models.GPUType, m *models.Matrix) bool {
	f := fastScanner{data: data, keys: map[string]gavelJobKey{}}
	f.space()
	if !f.byte('{') {
		return false
	}
	seenGPU := map[string]bool{}
	ok := f.object(func(key string) bool {
		gpu, pl, err := gavelGPU(key, types)
		if err != nil {
			return false
		}
		id := gpu + "/" + pl.String()
		if seenGPU[id] {
			return false
		}
		seenGPU[id] = true
		return f.gpu(gpu, pl, source, m)
	})
	f.space()
	return ok && f.at == len(data) && m.Len() > 0
}

// fastScanner walks a JSON document; at is the next byte to read.
type fastScanner struct {
	data []byte
	at   int
	// keys caches the parsed job keys by their text: the same few hundred
	// appear tens of thousands of times.
	keys map[string]gavelJobKey
	// others is the co-located jobs of the entry being read.
	others []string
}

func (f *fastScanner) space() {
	for f.at < len(f.data) {
		switch f.data[f.at] {
		case ' ', '\t', '\n', '\r':
			f.at++
		default:
			return
		}
	}
}

// byte consumes c, after white space.
func (f *fastScanner) byte(c byte) bool {
	f.space()
	if f.at < len(f.data) && f.data[f.at] == c {
		f.at++
		return true
	}
	return false
}

// str reads a string of printable ASCII without escapes and returns its
// bytes (aliasing data).
func (f *fastScanner) str() ([]byte, bool) {
	if !f.byte('"') {
		return nil, false
	}
	start := f.at
	for f.at < len(f.data) {
		c := f.data[f.at]
		switch {
		case c == '"':
			f.at++
			return f.data[start : f.at-1], true
		case c < 0x20 || c >= 0x80 || c == '\\':
			return nil, false
		}
		f.at++
	}
	return nil, false
}

// object reads the members of an object whose '{' was read, calling
// member with each key, positioned at its value; member reads the value.
// It refuses an empty object and a key seen before in the object.
func (f *fastScanner) object(member func(key string) bool) bool {
	seen := map[string]bool{}
	for {
		b, ok := f.str()
		if !ok || !f.byte(':') {
			return false
		}
		key := string(b)
		if seen[key] || !member(key) {
			return false
		}
		seen[key] = true
		if f.byte('}') {
			return true
		}
		if !f.byte(',') {
			return false
		}
	}
}

// jobKey reads a string that is a job key.
func (f *fastScanner) jobKey() (gavelJobKey, bool) {
	b, ok := f.str()
	if !ok {
		return gavelJobKey{}, false
	}
	return f.parseKey(b)
}

// parseKey parses the job key text b, once per distinct text.
func (f *fastScanner) parseKey(b []byte) (gavelJobKey, bool) {
	if k, ok := f.keys[string(b)]; ok {
		return k, true
	}
	k, err := parseGavelJobKey(string(b))
	if err != nil {
		return gavelJobKey{}, false
	}
	f.keys[string(b)] = k
	return k, true
}

// gpu reads the object of one GPU key: job keys and their entries.
func (f *fastScanner) gpu(gpu string, pl models.Placement, source string, m *models.Matrix) bool {
	if !f.byte('{') || f.byte('}') {
		return false
	}
	seen := map[gavelJobKey]bool{}
	for {
		jk, ok := f.jobKey()
		if !ok || seen[jk] || !f.byte(':') {
			return false
		}
		seen[jk] = true
		if !f.job(models.Key{Job: jk.job, GPU: gpu, Gang: jk.scale, Placement: pl}, source, m) {
			return false
		}
		if f.byte('}') {
			return true
		}
		if !f.byte(',') {
			return false
		}
	}
}

// job reads one job entry: "null" and the co-located pairs, stored in the
// thorough parser's order (the pairs as met, then the isolated figure).
func (f *fastScanner) job(key models.Key, source string, m *models.Matrix) bool {
	if !f.byte('{') {
		return false
	}
	iso, haveIso := 0.0, false
	f.others = f.others[:0]
	for {
		b, ok := f.str()
		if !ok || !f.byte(':') {
			return false
		}
		if string(b) == gavelIsolated {
			if haveIso {
				return false
			}
			if iso, ok = f.number(); !ok {
				return false
			}
			haveIso = true
		} else if !f.pair(b, key, m) {
			return false
		}
		if f.byte('}') {
			break
		}
		if !f.byte(',') {
			return false
		}
	}
	return haveIso && m.Set(key, iso, source) == nil
}

// pair reads the member of a job entry keyed by the co-located job's key
// text b: [self, other].
func (f *fastScanner) pair(b []byte, key models.Key, m *models.Matrix) bool {
	k, ok := f.parseKey(b)
	if !ok || k.scale != key.Gang {
		return false
	}
	if slices.Contains(f.others, k.job) {
		return false
	}
	f.others = append(f.others, k.job)
	if !f.byte('[') {
		return false
	}
	self, ok1 := f.number()
	comma := f.byte(',')
	other, ok2 := f.number()
	if !ok1 || !comma || !ok2 || !f.byte(']') {
		return false
	}
	return m.SetPair(models.PairKey{Key: key, Other: k.job}, self, other) == nil
}

// number reads a JSON number (RFC 8259's grammar) that is finite and not
// negative, parsed as the thorough parser does.
func (f *fastScanner) number() (float64, bool) {
	f.space()
	d, start := f.data, f.at
	i := start
	digits := func() bool {
		j := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		return i > j
	}
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case !digits():
		return 0, false
	}
	if i < len(d) && d[i] == '.' {
		i++
		if !digits() {
			return 0, false
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if !digits() {
			return 0, false
		}
	}
	v, err := strconv.ParseFloat(string(d[start:i]), 64)
	if err != nil || v < 0 { // err: beyond float64's range
		return 0, false
	}
	f.at = i
	return v, true
}
