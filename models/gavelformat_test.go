package models

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// gavelSharedFile is a copy of the Gavel artifact's
// scheduler/simulation_throughputs.json (Narayanan et al., OSDI 2020;
// github.com/stanford-futuredata/gavel, MIT), which fairbench does not
// ship: $GAVEL_THROUGHPUTS (as for go generate, see gencatalogue), else the
// copy a development machine keeps beside the repository. It is optional:
// the tests that use it skip when it is absent.
func gavelSharedFile() string {
	if p := os.Getenv("GAVEL_THROUGHPUTS"); p != "" {
		return p
	}
	return filepath.Join("..", "..", "shared", "data", "gavel", "simulation_throughputs.json")
}

// openGavelShared opens the Gavel file or skips the test.
func openGavelShared(t *testing.T) *os.File {
	t.Helper()
	path := gavelSharedFile()
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("optional validation: %s is absent (set GAVEL_THROUGHPUTS to a copy of Gavel's simulation_throughputs.json); the fixture tests cover the parser", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func readGavelString(t *testing.T, s string) (*Matrix, error) {
	t.Helper()
	return ReadGavelThroughputs(strings.NewReader(s), "bad.json")
}

// TestReadGavelThroughputsFixture checks every figure of
// testdata/gavel_throughputs_small.json against values written out by hand
// from that file.
func TestReadGavelThroughputsFixture(t *testing.T) {
	t.Parallel()
	f, err := os.Open(filepath.Join("testdata", "gavel_throughputs_small.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := ReadGavelThroughputs(f, "gavel_throughputs_small.json")
	if err != nil {
		t.Fatal(err)
	}
	const (
		rn18 = "ResNet-18 (batch size 32)"
		a3c  = "A3C"
		tf16 = "Transformer (batch size 16)"
	)
	type fig struct {
		key Key
		v   float64
	}
	// In Matrix.Keys order: job, GPU, gang, placement.
	want := []fig{
		{Key{a3c, "K80", 1, Consolidated}, 2.0},
		{Key{a3c, "V100", 1, Consolidated}, 7.125},
		{Key{rn18, "K80", 1, Consolidated}, 4.5},
		{Key{rn18, "K80", 2, Consolidated}, 0}, // stored 0: cannot run
		{Key{rn18, "V100", 1, Consolidated}, 12.25},
		{Key{rn18, "V100", 2, Consolidated}, 20.5},
		{Key{rn18, "V100", 2, Spread}, 15.75}, // v100_unconsolidated
		{Key{tf16, "V100", 1, Consolidated}, 9},
	}
	var got []fig
	for _, k := range m.Keys() {
		fg, _ := m.Lookup(k)
		if fg.Source != "Gavel-format throughput file gavel_throughputs_small.json" {
			t.Errorf("%v: source %q", k, fg.Source)
		}
		got = append(got, fig{k, fg.Value})
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("figures:\n got %v\nwant %v", got, want)
	}
	if m.Runnable(Key{rn18, "K80", 2, Consolidated}) {
		t.Error("a stored 0 must not be runnable")
	}
	if _, ok := m.Lookup(Key{a3c, "V100", 1, Spread}); ok {
		t.Error("a key absent from the file must stay absent")
	}

	type pair struct {
		key PairKey
		v   [2]float64
	}
	wantPairs := []pair{
		{PairKey{Key{a3c, "K80", 1, Consolidated}, rn18}, [2]float64{1.5, 3.0}},
		{PairKey{Key{rn18, "K80", 1, Consolidated}, a3c}, [2]float64{3.0, 1.5}},
		{PairKey{Key{rn18, "K80", 1, Consolidated}, rn18}, [2]float64{2.25, 2.25}},
	}
	var gotPairs []pair
	for _, k := range m.PairKeys() {
		v, _ := m.Pair(k)
		gotPairs = append(gotPairs, pair{k, v})
	}
	if !reflect.DeepEqual(gotPairs, wantPairs) {
		t.Errorf("pairs:\n got %v\nwant %v", gotPairs, wantPairs)
	}
}

// TestReadGavelThroughputsErrors feeds one defect at a time and checks that
// the error names the file, the key path and the reason.
func TestReadGavelThroughputsErrors(t *testing.T) {
	t.Parallel()
	// wrap puts one job entry under k80.
	wrap := func(entry string) string { return `{"k80": {"('A3C', 1)": ` + entry + `}}` }
	cases := []struct {
		name  string
		input string
		want  []string
	}{
		{"syntax error has line and column",
			"{\n  \"k80\": {\n    \"('A3C', 1)\": {\"null\": 1.0,}\n  }\n}",
			[]string{"malformed JSON", "line 3, column 32"}},
		{"NaN is not JSON", wrap(`{"null": NaN}`),
			[]string{"malformed JSON", "line 1", "NaN"}},
		{"empty input", "", []string{"malformed JSON", "line 1"}},
		{"trailing garbage", `{"k80": {}} x`, []string{"malformed JSON", "line 1, column 13"}},
		{"top level not an object", `[1, 2]`, []string{"top level", "not a JSON object", "an array"}},
		{"no figures", `{}`, []string{"top level", "no throughput figures"}},
		{"no figures under a GPU", `{"k80": {}}`, []string{"no throughput figures"}},
		{"GPU value not an object", `{"k80": 3}`, []string{`["k80"]`, "not a JSON object", "a number"}},
		{"unknown GPU", `{"a100": {}}`, []string{`["a100"]`, `unknown GPU type "a100"`, "A100-40GB"}},
		{"unknown GPU spread", `{"tpu_unconsolidated": {}}`, []string{`["tpu_unconsolidated"]`, `unknown GPU type "tpu"`}},
		{"same GPU in two cases", `{"k80": {}, "K80": {}}`, []string{`["K80"]`, "duplicate GPU key", `"k80"`}},
		{"repeated GPU key", `{"k80": {}, "k80": {}}`, []string{`["k80"]`, "duplicate key"}},
		{"job key without parentheses", `{"k80": {"A3C": {"null": 1}}}`,
			[]string{`["k80"]["A3C"]`, "malformed job key", "parentheses"}},
		{"job key without scale", `{"k80": {"('A3C')": {"null": 1}}}`,
			[]string{`["k80"]["('A3C')"]`, "malformed job key", "no comma"}},
		{"job key unquoted", `{"k80": {"(A3C, 1)": {"null": 1}}}`,
			[]string{`["k80"]["(A3C, 1)"]`, "not a quoted string"}},
		{"job key scale not integer", `{"k80": {"('A3C', one)": {"null": 1}}}`,
			[]string{`["k80"]["('A3C', one)"]`, `scale factor "one" is not an integer`}},
		{"job key scale zero", `{"k80": {"('A3C', 0)": {"null": 1}}}`,
			[]string{`["k80"]["('A3C', 0)"]`, "scale factor 0 is not positive"}},
		{"job key empty type", `{"k80": {"('', 1)": {"null": 1}}}`,
			[]string{`["k80"]["('', 1)"]`, "job type is empty"}},
		{"same job key written twice", `{"k80": {"('A3C', 1)": {"null": 1}, "('A3C',  1)": {"null": 2}}}`,
			[]string{`["k80"]["('A3C',  1)"]`, "duplicate job key"}},
		{"job entry not an object", wrap(`2.5`), []string{`["k80"]["('A3C', 1)"]`, "not a JSON object"}},
		{"missing null", wrap(`{}`), []string{`["k80"]["('A3C', 1)"]`, `no "null" member`}},
		{"null is a string", wrap(`{"null": "fast"}`),
			[]string{`["k80"]["('A3C', 1)"]["null"]`, "must be a number, got a string"}},
		{"null is JSON null", wrap(`{"null": null}`),
			[]string{`["k80"]["('A3C', 1)"]["null"]`, "must be a number, got null"}},
		{"negative throughput", wrap(`{"null": -1.5}`),
			[]string{`["k80"]["('A3C', 1)"]["null"]`, "must not be negative, got -1.5"}},
		{"overflowing throughput", wrap(`{"null": 1e999}`),
			[]string{`["k80"]["('A3C', 1)"]["null"]`, "must be a finite number"}},
		{"pair not an array", wrap(`{"null": 1, "('CycleGAN', 1)": 3}`),
			[]string{`["k80"]["('A3C', 1)"]["('CycleGAN', 1)"]`, "must be an array", "a number"}},
		{"pair too short", wrap(`{"null": 1, "('CycleGAN', 1)": [1.0]}`),
			[]string{`["k80"]["('A3C', 1)"]["('CycleGAN', 1)"]`, "must have 2 elements", "got 1"}},
		{"pair too long", wrap(`{"null": 1, "('CycleGAN', 1)": [1, 2, 3]}`),
			[]string{`["('CycleGAN', 1)"]`, "must have 2 elements", "got 3"}},
		{"pair negative", wrap(`{"null": 1, "('CycleGAN', 1)": [1.0, -2]}`),
			[]string{`["('CycleGAN', 1)"]`, "other (element 1)", "must not be negative"}},
		{"pair element not a number", wrap(`{"null": 1, "('CycleGAN', 1)": ["a", 2]}`),
			[]string{`["('CycleGAN', 1)"]`, "self (element 0)", "must be a number"}},
		{"pair with another scale", wrap(`{"null": 1, "('CycleGAN', 2)": [1, 2]}`),
			[]string{`["k80"]["('A3C', 1)"]["('CycleGAN', 2)"]`, "scale 2", "scale 1"}},
		{"pair with malformed key", wrap(`{"null": 1, "CycleGAN": [1, 2]}`),
			[]string{`["k80"]["('A3C', 1)"]["CycleGAN"]`, "co-located job", "malformed job key"}},
		{"pair repeated", wrap(`{"null": 1, "('CycleGAN', 1)": [1, 2], "('CycleGAN',1)": [1, 2]}`),
			[]string{`["('CycleGAN',1)"]`, "duplicate co-located job"}},
		{"repeated null", wrap(`{"null": 1, "null": 2}`),
			[]string{`["k80"]["('A3C', 1)"]["null"]`, "duplicate key"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := readGavelString(t, c.input)
			if err == nil {
				t.Fatalf("accepted %q: %d figures", c.input, m.Len())
			}
			msg := err.Error()
			for _, w := range append([]string{"bad.json"}, c.want...) {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
		})
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestReadGavelThroughputsReadError(t *testing.T) {
	t.Parallel()
	_, err := ReadGavelThroughputs(failingReader{}, "x.json")
	if err == nil || !strings.Contains(err.Error(), "x.json") || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("got %v", err)
	}
}

// TestReadGavelThroughputsGPUNames checks the case-insensitive mapping of GPU
// keys to catalogue names, with and without the spread suffix.
func TestReadGavelThroughputsGPUNames(t *testing.T) {
	t.Parallel()
	cases := []struct {
		key string
		gpu string
		pl  Placement
	}{
		{"k80", "K80", Consolidated},
		{"P100", "P100", Consolidated},
		{"v100_unconsolidated", "V100", Spread},
		{"V100_UNCONSOLIDATED", "V100", Spread},
		{"a100-40gb", "A100-40GB", Consolidated},
		{"h100_unconsolidated", "H100", Spread},
		{"t4", "T4", Consolidated},
	}
	for _, c := range cases {
		m, err := readGavelString(t, `{"`+c.key+`": {"('A3C', 1)": {"null": 1.5}}}`)
		if err != nil {
			t.Errorf("%s: %v", c.key, err)
			continue
		}
		k := Key{Job: "A3C", GPU: c.gpu, Gang: 1, Placement: c.pl}
		if got := m.Throughput(k); got != 1.5 || m.Len() != 1 {
			t.Errorf("%s: want %v = 1.5 only, got %v (%d figures)", c.key, k, got, m.Len())
		}
	}
}

func TestParseGavelJobKey(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in    string
		job   string
		scale int
	}{
		{"('ResNet-50 (batch size 64)', 1)", "ResNet-50 (batch size 64)", 1},
		{"('A3C', 8)", "A3C", 8},
		{" ( 'LM (batch size 5)' ,  16 ) ", "LM (batch size 5)", 16},
		{`("Bob's net", 2)`, "Bob's net", 2}, // Python repr of a name with a quote
		{"('a, b', 4)", "a, b", 4},           // a comma inside the name
	}
	for _, c := range cases {
		got, err := parseGavelJobKey(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if got.job != c.job || got.scale != c.scale {
			t.Errorf("%q: got %+v, want %q, %d", c.in, got, c.job, c.scale)
		}
	}
	for _, bad := range []string{"", "()", "('A3C', 1", "('A3C\", 1)", "('A3C', -1)", "('A3C', 1.5)", "('A3C', )"} {
		if got, err := parseGavelJobKey(bad); err == nil {
			t.Errorf("%q accepted as %+v", bad, got)
		}
	}
}

// TestReadGavelThroughputsSharedFile is an optional validation against the
// real Gavel file; it skips when the file is absent.
func TestReadGavelThroughputsSharedFile(t *testing.T) {
	t.Parallel()
	f := openGavelShared(t)
	m, err := ReadGavelThroughputs(f, "simulation_throughputs.json")
	if err != nil {
		t.Fatal(err)
	}
	// Not monotonic in GPU generation (Gavel's measured matrix, Narayanan et
	// al., OSDI 2020): Recommendation (batch size 1024) runs 20.05 / 30.74 /
	// 13.28 steps/s on K80 / P100 / V100.
	for gpu, want := range map[string]float64{"K80": 20.05, "P100": 30.74, "V100": 13.28} {
		k := Key{Job: "Recommendation (batch size 1024)", GPU: gpu, Gang: 1, Placement: Consolidated}
		if got := math.Round(m.Throughput(k)*100) / 100; got != want {
			t.Errorf("%v = %v, want %v", k, got, want)
		}
	}
	// 26 job types; 83 job keys under each of k80, p100, v100,
	// p100_unconsolidated, v100_unconsolidated and 77 under
	// k80_unconsolidated; 10,338 co-location pairs, all between equal scales.
	if got := len(m.JobTypes()); got != 26 {
		t.Errorf("%d job types, want 26", got)
	}
	if m.Len() != 5*83+77 {
		t.Errorf("%d figures, want %d", m.Len(), 5*83+77)
	}
	if got := len(m.PairKeys()); got != 10338 {
		t.Errorf("%d pairs, want 10338", got)
	}
	// The first pair of the file: k80, ResNet-18 (batch size 16) with
	// ResNet-18 (batch size 32), both at scale 1.
	pk := PairKey{Key{"ResNet-18 (batch size 16)", "K80", 1, Consolidated}, "ResNet-18 (batch size 32)"}
	if got, ok := m.Pair(pk); !ok || got != [2]float64{2.539979567443098, 3.1201925448827033} {
		t.Errorf("%v = %v, %v", pk, got, ok)
	}
	// A 0 in the file: ResNet-50 (batch size 128) cannot run on 2 K80s.
	k := Key{"ResNet-50 (batch size 128)", "K80", 2, Consolidated}
	if fg, ok := m.Lookup(k); !ok || fg.Value != 0 {
		t.Errorf("%v = %v, %v; want a stored 0", k, fg, ok)
	}
}
