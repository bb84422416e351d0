package models

// Native fuzz targets for the Gavel-format throughput reader and the
// instance decoder (docs/limits.md gives the commands).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// addSeeds seeds f with the files matching each pattern.
func addSeeds(f *testing.F, patterns ...string) {
	f.Helper()
	for _, p := range patterns {
		files, err := filepath.Glob(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, name := range files {
			b, err := os.ReadFile(name)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
}

// encodeGavel writes m's isolated figures in Gavel's format.
func encodeGavel(m *Matrix) []byte {
	top := map[string]map[string]map[string]any{}
	for _, k := range m.Keys() {
		gpu := strings.ToLower(k.GPU)
		if k.Placement == Spread {
			gpu += gavelUnconsolidated
		}
		if top[gpu] == nil {
			top[gpu] = map[string]map[string]any{}
		}
		top[gpu][fmt.Sprintf("('%s', %d)", k.Job, k.Gang)] = map[string]any{gavelIsolated: m.Throughput(k)}
	}
	b, _ := json.Marshal(top)
	return b
}

// FuzzGavelThroughputs reads throughput files: every accepted figure is 0
// or within [MinThroughput, MaxThroughput] with a gang of 1..MaxGPUs, and
// the isolated figures written back in the format read back the same.
func FuzzGavelThroughputs(f *testing.F) {
	addSeeds(f, "testdata/*.json", "../scenarios/testdata/newgpu/*.json")
	f.Add([]byte(`{"v100": {"('A3C', 1)": {"null": 1e26}}}`))
	f.Add([]byte(`{"v100": {"('A3C', 1)": {"null": 1e-300, "('A3C', 1)": [1, 2]}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ReadGavelThroughputs(bytes.NewReader(data), "f.json")
		if err != nil {
			if !strings.Contains(err.Error(), "f.json") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, k := range m.Keys() {
			if err := CheckThroughput("figure", m.Throughput(k)); err != nil || k.Gang < 1 || k.Gang > MaxGPUs {
				t.Fatalf("%v accepted: %v", k, err)
			}
		}
		for _, k := range m.PairKeys() {
			p, _ := m.Pair(k)
			if CheckThroughput("pair", p[0]) != nil || CheckThroughput("pair", p[1]) != nil {
				t.Fatalf("pair %v = %v accepted", k, p)
			}
		}
		for _, k := range m.Keys() {
			if strings.ContainsAny(k.Job, "'\"") {
				return // not writable with single quotes
			}
		}
		back, err := ReadGavelThroughputs(bytes.NewReader(encodeGavel(m)), "back.json")
		if err != nil {
			t.Fatalf("written back: %v", err)
		}
		if back.Len() != m.Len() {
			t.Fatalf("%d figures back, %d read", back.Len(), m.Len())
		}
		for _, k := range m.Keys() {
			if back.Throughput(k) != m.Throughput(k) {
				t.Fatalf("%v: %v back, %v read", k, back.Throughput(k), m.Throughput(k))
			}
		}
	})
}

// checkInstance asserts what a decoded instance promises: it becomes a
// snapshot, and the snapshot written back (InstanceOf) decodes again to
// the same snapshot.
func checkInstance(t *testing.T, in *Instance) {
	t.Helper()
	snap, err := in.Snapshot(catalogueGPUTypes)
	if err != nil {
		t.Fatalf("decoded instance has no snapshot: %v", err)
	}
	for i := range snap.Jobs {
		j := &snap.Jobs[i]
		for k, g := range j.LastGPUs {
			if g < 0 || g >= snap.Cluster.TotalGPUs() || snap.Cluster.TypeOfGPU(g) != j.LastType {
				t.Fatalf("job %d: last_gpus[%d] = %d accepted", j.ID, k, g)
			}
		}
		if j.Done > j.Steps || j.Arrival < 0 || j.Arrival > MaxHorizon {
			t.Fatalf("job %d: done %v of %v, arrival %v accepted", j.ID, j.Done, j.Steps, j.Arrival)
		}
	}
	b, err := json.Marshal(InstanceOf(snap))
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	back, err := DecodeInstance(b, false, catalogueGPUTypes)
	if err != nil {
		t.Fatalf("written back: %v\n%s", err, b)
	}
	if _, err := back.Snapshot(catalogueGPUTypes); err != nil {
		t.Fatalf("written back: %v", err)
	}
	if len(back.Jobs) != len(in.Jobs) || len(back.Users) != len(in.Users) {
		t.Fatalf("written back: %d jobs and %d users, read %d and %d", len(back.Jobs), len(back.Users), len(in.Jobs), len(in.Users))
	}
}

// FuzzInstanceJSON decodes JSON instances (solve, check --replay).
func FuzzInstanceJSON(f *testing.F) {
	addSeeds(f, "../runs/testdata/*.json", "../check/testdata/*.json")
	f.Add([]byte(`{"servers":[{"type":"V100","count":1,"gpus_per_server":2}],"users":[{"name":"a","weight":1}],"jobs":[{"id":1,"user":"a","gang":1,"steps":10,"last_type":"V100","last_gpus":[7],"throughputs":{"V100":1}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := DecodeInstance(data, false, catalogueGPUTypes)
		if err != nil {
			return
		}
		checkInstance(t, in)
	})
}

// FuzzInstanceYAML decodes YAML instances.
func FuzzInstanceYAML(f *testing.F) {
	files, _ := filepath.Glob("../check/testdata/*.json")
	for _, name := range files {
		b, _ := os.ReadFile(name)
		var v any
		if json.Unmarshal(b, &v) == nil {
			y, _ := yaml.Marshal(v)
			f.Add(y)
		}
	}
	f.Add([]byte("servers: [{type: V100, count: 1, gpus_per_server: 1}]\nusers: [{name: a, weight: .nan}]\njobs: []\n---\nx: 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := DecodeInstance(data, true, catalogueGPUTypes)
		if err != nil {
			return
		}
		checkInstance(t, in)
	})
}
