package catalogue

import (
	"bytes"
	"math/rand"
	"os"
	"reflect"
	"testing"

	"fairbench/models"
)

// thorough reads data with the thorough parser alone.
func thorough(data []byte) (*models.Matrix, error) {
	p := gavelParser{name: "f.json", source: "Gavel-format throughput file f.json", m: models.NewMatrix(), types: catalogueGPUTypes}
	if err := p.parse(data); err != nil {
		return nil, err
	}
	return p.m, nil
}

// sameFast checks the one-pass reader against the thorough parser on data:
// where it accepts, the thorough parser accepts too, with the same figures,
// sources and pairs. It reports whether the one-pass reader accepted.
func sameFast(t *testing.T, data []byte) bool {
	t.Helper()
	fast := models.NewMatrix()
	if !gavelFast(data, "Gavel-format throughput file f.json", catalogueGPUTypes, fast) {
		return false
	}
	slow, err := thorough(data)
	if err != nil {
		t.Fatalf("the one-pass reader accepted what the thorough parser refuses (%v):\n%s", err, data)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("the one-pass reader read other figures than the thorough parser:\n%s", data)
	}
	return true
}

// TestGavelFastReadsTheFixtures: the one-pass reader takes the repository's
// throughput files (and Gavel's own, where present) and reads the same
// figures as the thorough parser; so the thorough parser is only the
// fallback for files it does not handle.
func TestGavelFastReadsTheFixtures(t *testing.T) {
	files := []string{"testdata/gavel_throughputs_small.json", gavelSharedFile()}
	for i, f := range files {
		data, err := os.ReadFile(f)
		if err != nil && i == len(files)-1 {
			continue // Gavel's file is optional
		}
		if err != nil {
			t.Fatal(err)
		}
		if !sameFast(t, data) {
			t.Errorf("%s: the one-pass reader fell back to the thorough parser", f)
		}
	}
}

// TestGavelFastMutations: random edits of the fixture (bytes deleted,
// inserted or replaced by JSON's punctuation, digits, signs, escapes,
// non-ASCII bytes and white space; members repeated) either make the
// one-pass reader fall back or are read exactly as the thorough parser reads
// them; and the edits that only add white space or reorder nothing are
// still read by it.
func TestGavelFastMutations(t *testing.T) {
	base, err := os.ReadFile("testdata/gavel_throughputs_small.json")
	if err != nil {
		t.Fatal(err)
	}
	alphabet := []byte("{}[],:\"\\ \t\n0123456789-+.eE'()nul\xc3\xa9\x01")
	rng := rand.New(rand.NewSource(1))
	accepted := 0
	for i := 0; i < 20000; i++ {
		data := append([]byte(nil), base...)
		for e := 0; e < 1+rng.Intn(3); e++ {
			at := rng.Intn(len(data))
			switch rng.Intn(4) {
			case 0:
				data = append(data[:at], data[at+1:]...)
			case 1:
				data = append(data[:at], append([]byte{alphabet[rng.Intn(len(alphabet))]}, data[at:]...)...)
			case 2:
				data[at] = alphabet[rng.Intn(len(alphabet))]
			case 3: // repeat a line (a member, or part of one)
				start := bytes.LastIndexByte(data[:at], '\n') + 1
				end := at + bytes.IndexByte(data[at:], '\n') + 1
				if end > at {
					data = append(data[:end], append(append([]byte(nil), data[start:end]...), data[end:]...)...)
				}
			}
		}
		if sameFast(t, data) {
			accepted++
		}
	}
	if accepted < 1000 {
		t.Errorf("%d edited files of 20,000 read by the one-pass reader, want some thousands (white space, digits)", accepted)
	}
	spaced := bytes.ReplaceAll(base, []byte(":"), []byte(" \t:\r\n "))
	if !sameFast(t, spaced) {
		t.Error("white space around the colons made the one-pass reader fall back")
	}
}

// TestGavelFastFallsBack: what the one-pass reader leaves to the thorough
// parser, each still read or refused as before.
func TestGavelFastFallsBack(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{`{"v100": {"('A3C', 1)": {"null": 1.5}}} x`, "malformed JSON"},
		{`{"v100": {"('A3C', 1)": {"null": -1}}}`, "must not be negative"},
		{`{"v100": {"('A3C', 1)": {"null": 1.5, "null": 2}}}`, "duplicate key"},
		{`{"v100": {"('A3C', 1)": {"null": 1.5}}, "V100": {}}`, "duplicate GPU key"},
		{`{"v100": {"('A3C', 1)": {"('A3C', 2)": [1, 1], "null": 1}}}`, "scale 2"},
		{`{"v100": {"('A3C', 1)": {"null": 1e999}}}`, "finite"},
		{`{}`, "no throughput figures"},
		{`{"v100": {"(\u0027A3C\u0027, 1)": {"null": 1.5}}}`, ""},  // escapes: read by the thorough parser
		{`{"v100": {"('A3C', 1)": {"null": 1.5}}, "k80": {}}`, ""}, // an empty GPU entry
	} {
		fast := models.NewMatrix()
		if gavelFast([]byte(c.doc), "s", catalogueGPUTypes, fast) {
			t.Errorf("%s: the one-pass reader did not fall back", c.doc)
		}
		m, err := ReadGavelThroughputs(bytes.NewReader([]byte(c.doc)), "f.json")
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.doc, err)
		case c.want == "" && m.Len() != 1:
			t.Errorf("%s: %d figures, want 1", c.doc, m.Len())
		case c.want != "" && (err == nil || !bytes.Contains([]byte(err.Error()), []byte(c.want))):
			t.Errorf("%s: error %v, want one saying %q", c.doc, err, c.want)
		}
	}
}
