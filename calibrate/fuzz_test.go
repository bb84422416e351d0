package calibrate

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The fuzz targets of calibrate's decoders (docs/limits.md, "Fuzzing"): a calibration record
// (DecodeRecord), a profile (ParseSpec) and a gpu_types list
// (ParseGPUTypes). Each is seeded with the repository's valid files; a
// crasher the fuzzer finds is kept in testdata/fuzz/<target>/ and runs as a
// seed from then on. Run one for a while with
//
//	go test ./calibrate -run '^$' -fuzz FuzzDecodeRecord -fuzztime 10m

func seedFiles(f *testing.F, patterns ...string) {
	f.Helper()
	for _, p := range patterns {
		files, _ := filepath.Glob(p)
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
}

// FuzzDecodeRecord: DecodeRecord never panics, and what it accepts gives a
// matrix that encodes, memory that validates, and a record that encodes and
// decodes again.
func FuzzDecodeRecord(f *testing.F) {
	seedFiles(f, "testdata/*.calibration.json")
	f.Add([]byte(`{"format": "fairbench-calibration/1", "profile": {"devices": [{"device": "cpu", "gpu_type": "T4"}], "models": [{"model": "lstm", "batch_sizes": [2]}]}, "entries": []}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := DecodeRecord(data, "fuzz.json")
		if err != nil {
			return
		}
		for _, mode := range []string{ModeTimeSlice, ModeMPS} {
			m := r.MatrixFor("fuzz", mode)
			if m.Len() > 0 {
				if _, err := EncodeGavelFor(m, r.GPUTypes); err != nil {
					t.Fatalf("an accepted record's matrix does not encode: %v", err)
				}
			}
		}
		for name, jt := range JobMemory(r, "fuzz.json") {
			if err := jt.Validate(); err != nil || math.IsNaN(jt.MemoryGB) {
				t.Fatalf("%s: memory %+v: %v", name, jt, err)
			}
		}
		again, err := encodeRecord(r)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := DecodeRecord(again, "again.json"); err != nil {
			t.Fatalf("an accepted record does not decode after encoding: %v", err)
		}
	})
}

// FuzzParseSpec: ParseSpec never panics, and an accepted profile stays
// within the limits and parses again from its own YAML.
func FuzzParseSpec(f *testing.F) {
	seedFiles(f, "profiles/*.yaml")
	f.Add([]byte("devices: [{device: cpu, gpu_type: T4}]\nmodels: [{model: resnet18, batch_sizes: [8]}]\n"))
	f.Add([]byte("devices: [{device: cuda, gpus: [0, 1]}]\ncolocate: {modes: [mps], pairs: [{a: {model: lstm, batch_size: 2}, b: {model: resnet50, batch_size: 4}}]}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSpec(data, "fuzz.yaml")
		if err != nil {
			return
		}
		n := len(s.AllEntries()) + len(s.PairEntries())
		if n > 3*maxEntries {
			t.Fatalf("%d measurements", n)
		}
		out, err := yaml.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		s2, err := ParseSpec(out, "again.yaml")
		if err != nil {
			t.Fatalf("an accepted profile does not parse from its own YAML: %v\n%s", err, out)
		}
		if len(s2.AllEntries()) != len(s.AllEntries()) || len(s2.PairEntries()) != len(s.PairEntries()) {
			t.Fatalf("entries changed: %d/%d → %d/%d", len(s.AllEntries()), len(s.PairEntries()), len(s2.AllEntries()), len(s2.PairEntries()))
		}
	})
}

// FuzzParseGPUTypes: ParseGPUTypes never panics and what it accepts is a
// valid declaration.
func FuzzParseGPUTypes(f *testing.F) {
	seedFiles(f, "profiles/*.yaml", "../scenarios/testdata/newgpu/*.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		ds, err := ParseGPUTypes(data, "fuzz.yaml")
		if err != nil {
			return
		}
		for _, d := range ds {
			if err := d.GPUType().Validate(); err != nil {
				t.Fatalf("accepted %+v: %v", d, err)
			}
		}
	})
}
