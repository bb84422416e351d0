package calibrate

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"fairbench/models"
)

// validRecord is a real record: the CPU dry run of profiles/b200-cpu.yaml
// (a declared B200, four entries with CPU memory figures, one pair).
const validRecord = "testdata/b200-cpu.calibration.json"

func readValid(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(validRecord)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// lineOf is the 1-based line of the first occurrence of s in text.
func lineOf(t *testing.T, text, s string) int {
	t.Helper()
	i := strings.Index(text, s)
	if i < 0 {
		t.Fatalf("%q not in the record", s)
	}
	return 1 + strings.Count(text[:i], "\n")
}

func TestValidRecordDecodes(t *testing.T) {
	t.Parallel()
	r, err := ReadRecord(validRecord)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Entries) != 4 || len(r.Pairs) != 1 || r.GPUTypes[0].Name != "B200" || r.Pairs[0].Status != PairOK {
		t.Fatalf("record: %d entries, %d pairs, types %+v", len(r.Entries), len(r.Pairs), r.GPUTypes)
	}
	m := r.Matrix("test")
	k := models.Key{Job: "ResNet-18 CPU (batch size 4)", GPU: "B200", Gang: 1}
	p, ok := m.Pair(models.PairKey{Key: k, Other: "Transformer-LM tiny (batch size 8)"})
	// The pair keeps its measured slowdown: iso/paired = alone/paired.
	if !ok || !near(m.Throughput(k)/p[0], r.Pairs[0].A.Slowdown, 1e-9) {
		t.Errorf("pair %v (ok %v), isolated %v, slowdown %v", p, ok, m.Throughput(k), r.Pairs[0].A.Slowdown)
	}
}

// TestDecodeRecordRefusesHostileInput: every class of bad record is refused
// with the file, the line and the field.
func TestDecodeRecordRefusesHostileInput(t *testing.T) {
	t.Parallel()
	good := readValid(t)
	firstEntry := lineOf(t, good, `"job_type": "ResNet-18 CPU (batch size 2)"`)
	cases := []struct {
		name      string
		old, new  string // replace the first old with new
		line      int    // the line the error names (-1: the line of new in the changed text)
		wantField string
	}{
		{"duplicate key", `"gang": 1,`, `"gang": 1, "gang": 2,`, -1, "entries[0].gang: key appears twice"},
		{"number out of range", `"batch_size": 2,`, `"batch_size": 1e999,`, -1, "entries[0].batch_size: number 1e999 is out of range"},
		{"unknown key", `"gang": 1,`, `"gang": 1, "gangs": 2,`, -1, "gangs: unknown key"},
		{"wrong type", `"gang": 1,`, `"gang": "one",`, -1, "entries.gang: want int"},
		{"undeclared GPU type", `"gpu_type": "B200",
      "device_name"`, `"gpu_type": "B300",
      "device_name"`, -1, `entries[0].gpu_type: unknown GPU type "B300"`},
		{"job type not in the profile", `"job_type": "ResNet-18 CPU (batch size 2)",
      "model": "resnet18",
      "batch_size": 2,`, `"job_type": "ResNet-18 CPU (batch size 3)",
      "model": "resnet18",
      "batch_size": 3,`, firstEntry, "entries[0].job_type: ResNet-18 CPU (batch size 3) at gang 1 on devices[0] is not in its profile"},
		{"job type and batch size disagree", `"batch_size": 2,`, `"batch_size": 4,`, firstEntry, `does not name batch_size 4`},
		{"negative gang", `"gang": 1,`, `"gang": -1,`, -1, "entries[0].gang: must be 1..1024"},
		{"NaN-like status", `"status": "ok",`, `"status": "NaN",`, -1, `entries[0].status: unknown status "NaN"`},
		{"zero throughput", `"matrix_steps_per_second": 5.`, `"matrix_steps_per_second": 0, "x": 5.`, -1, "unknown key"},
		{"CPU figure on a GPU", `"memory_from": "cpu_max_rss"`, `"memory_from": "nvml"`, -1, "entries[0].memory_from: nvml is a GPU figure"},
		{"memory given twice", `"memory_from": "cpu_max_rss"`, `"memory_from": "cpu_max_rss", "memory_bytes": 1`, -1, "entries[0].memory_bytes: key appears twice"},
		{"undeclared type in the profile", `"gpu_type": "B200",
        "threads"`, `"gpu_type": "B300",
        "threads"`, lineOf(t, good, `"devices": [`) + 1, `profile.devices[0].gpu_type: unknown GPU type "B300"`},
		{"declared type without a source", `"source": "NVIDIA Blackwell`, `"source": "", "x": "`, -1, "unknown key"},
		{"pair not in the profile", `"mode": "timeslice"`, `"mode": "mps"`, lineOf(t, good, `"mode": "timeslice"`) - 1, "pairs[0]: ResNet-18 CPU (batch size 4) beside"},
		{"trailing data", "\n}\n", "\n}\n{}\n", -1, "more than one JSON value"},
		{"wrong format", `"format": "fairbench-calibration/1"`, `"format": "fairbench-calibration/2"`, 2, `format: "fairbench-calibration/2"`},
	}
	mem := regexp.MustCompile(`"memory_bytes": [0-9]+`).FindString(good)
	cases = append(cases, struct {
		name      string
		old, new  string
		line      int
		wantField string
	}{"memory beyond 1 PiB", mem, `"memory_bytes": 4663009280000000000`, -1, "entries[0].memory_bytes: at most"})
	for _, c := range cases {
		if !strings.Contains(good, c.old) {
			t.Fatalf("%s: %q not in the record", c.name, c.old)
		}
		bad := strings.Replace(good, c.old, c.new, 1)
		line := c.line
		if line < 0 {
			line = lineOf(t, bad, strings.Split(c.new, "\n")[0])
		}
		if c.name == "trailing data" {
			line = strings.Count(bad, "\n")
		}
		_, err := DecodeRecord([]byte(bad), "r.json")
		want := fmt.Sprintf("r.json:%d: ", line)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), c.wantField) {
			t.Errorf("%s: got %v\nwant %q and %q", c.name, err, want, c.wantField)
		}
	}
}

// TestDecodeRecordRefusesDuplicatesAndSizes: the same measurement twice,
// deep nesting, and files over the size limit.
func TestDecodeRecordRefusesDuplicatesAndSizes(t *testing.T) {
	t.Parallel()
	good := readValid(t)
	i := strings.Index(good, `  "entries": [`) + len(`  "entries": [`)
	end := strings.Index(good[i:], "\n    },\n") + i + len("\n    },")
	dup := good[:i] + good[i:end] + good[i:end] + good[end:]
	if _, err := DecodeRecord([]byte(dup), "r.json"); err == nil || !regexp.MustCompile(`r\.json:\d+: entries\[1\]: the same measurement as entries\[0\]`).MatchString(err.Error()) {
		t.Errorf("duplicate entry: %v", err)
	}
	deep := `{"format": ` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + "}"
	if _, err := DecodeRecord([]byte(deep), "r.json"); err == nil || !strings.Contains(err.Error(), "nested deeper than 32") {
		t.Errorf("deep nesting: %v", err)
	}
	if _, err := DecodeRecord([]byte(strings.Repeat(" ", maxRecordBytes+1)), "r.json"); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("size: %v", err)
	}
	if _, err := ReadRecord("/dev/zero"); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("/dev/zero: %v", err)
	}
	for _, text := range []string{"", "null", "[]", `{"format": "fairbench-calibration/1"}`} {
		if _, err := DecodeRecord([]byte(text), "r.json"); err == nil || !strings.Contains(err.Error(), "r.json") {
			t.Errorf("%q: %v", text, err)
		}
	}
}

// TestRecordRoundTrip: a decoded record encodes to a record that decodes
// to the same figures.
func TestRecordRoundTrip(t *testing.T) {
	t.Parallel()
	r, err := ReadRecord(validRecord)
	if err != nil {
		t.Fatal(err)
	}
	data, err := encodeRecord(r)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := DecodeRecord(data, "again.json")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := EncodeGavelFor(r.Matrix("x"), r.GPUTypes)
	b, _ := EncodeGavelFor(r2.Matrix("x"), r2.GPUTypes)
	if string(a) != string(b) {
		t.Errorf("matrices differ:\n%s\n%s", a, b)
	}
}
