package models_test

// Native fuzz targets for the instance decoder (docs/limits.md gives the commands).

import (
	"encoding/json"
	"fairbench/internal/fuzzseed"
	"fairbench/models"
	"fairbench/models/catalogue"
	"os"
	"path/filepath"
	"testing"

	"go.yaml.in/yaml/v3"
)

// checkInstance asserts what a decoded instance promises: it becomes a
// snapshot, and the snapshot written back (models.InstanceOf) decodes again to
// the same snapshot.
func checkInstance(t *testing.T, in *models.Instance) {
	t.Helper()
	snap, err := in.Snapshot(catalogue.Builtin().GPUTypes)
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
		if j.Done > j.Steps || j.Arrival < 0 || j.Arrival > models.MaxHorizon {
			t.Fatalf("job %d: done %v of %v, arrival %v accepted", j.ID, j.Done, j.Steps, j.Arrival)
		}
	}
	b, err := json.Marshal(models.InstanceOf(snap))
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	back, err := models.DecodeInstance(b, false, catalogue.Builtin().GPUTypes)
	if err != nil {
		t.Fatalf("written back: %v\n%s", err, b)
	}
	if _, err := back.Snapshot(catalogue.Builtin().GPUTypes); err != nil {
		t.Fatalf("written back: %v", err)
	}
	if len(back.Jobs) != len(in.Jobs) || len(back.Users) != len(in.Users) {
		t.Fatalf("written back: %d jobs and %d users, read %d and %d", len(back.Jobs), len(back.Users), len(in.Jobs), len(in.Users))
	}
}

// FuzzInstanceJSON decodes JSON instances (solve, check --replay).
func FuzzInstanceJSON(f *testing.F) {
	fuzzseed.Files(f, "../runs/testdata/*.json", "../check/testdata/*.json")
	f.Add([]byte(`{"servers":[{"type":"V100","count":1,"gpus_per_server":2}],"users":[{"name":"a","weight":1}],"jobs":[{"id":1,"user":"a","gang":1,"steps":10,"last_type":"V100","last_gpus":[7],"throughputs":{"V100":1}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := models.DecodeInstance(data, false, catalogue.Builtin().GPUTypes)
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
		in, err := models.DecodeInstance(data, true, catalogue.Builtin().GPUTypes)
		if err != nil {
			return
		}
		checkInstance(t, in)
	})
}
