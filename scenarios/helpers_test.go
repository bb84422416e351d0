package scenarios

import (
	"errors"
	"os"
	"strings"
	"testing"

	"fairbench/models"
	"fairbench/models/catalogue"
)

// Job types of the test catalogue (real Gavel names, made-up figures).
const (
	resnet      = "ResNet-50 (batch size 64)"
	transformer = "Transformer (batch size 128)"
	a3c         = "A3C"
	big         = "Big (batch size 1)"
)

// testCatalog is a small catalogue with round figures, so that tests do not
// depend on the built-in one. Throughputs in steps/s:
//
//	ResNet-50:   V100 10·g, P100 5·g, K80 2·g at gangs 1, 2, 4, 8,
//	             consolidated; spread figures are 0.8 of those
//	Transformer: V100 20·g, P100 8·g at gangs 1, 2, 4 (both placements);
//	             K80 stored as 0 (cannot run)
//	A3C:         gang 1 only: V100 3, P100 3.5, K80 1
//	Big:         needs 14 GB (K80 has 12): V100 1, P100 0.5, K80 1 at gang 1
//	T4:          no figures at all
func testCatalog() catalogue.Catalog {
	gpus := []models.GPUType{
		{Name: "K80", MemoryGB: 12, Rank: 1},
		{Name: "P100", MemoryGB: 16, Rank: 2},
		{Name: "V100", MemoryGB: 16, Rank: 3},
		{Name: "T4", MemoryGB: 16, Rank: 0}, // no figures
	}
	jobs := []models.JobType{
		{Name: resnet, StateGB: 0.5},
		{Name: transformer, StateGB: 1},
		{Name: a3c, StateGB: 0.1},
		{Name: big, MemoryGB: 14, StateGB: 2},
	}
	m := models.NewMatrix()
	set := func(job, gpu string, gang int, v float64) {
		for _, pl := range []models.Placement{models.Consolidated, models.Spread} {
			f := v
			if pl == models.Spread {
				f = 0.8 * v
			}
			if err := m.Set(models.Key{Job: job, GPU: gpu, Gang: gang, Placement: pl}, f, "test"); err != nil {
				panic(err)
			}
		}
	}
	for _, g := range []int{1, 2, 4, 8} {
		set(resnet, "V100", g, 10*float64(g))
		set(resnet, "P100", g, 5*float64(g))
		set(resnet, "K80", g, 2*float64(g))
	}
	for _, g := range []int{1, 2, 4} {
		set(transformer, "V100", g, 20*float64(g))
		set(transformer, "P100", g, 8*float64(g))
		set(transformer, "K80", g, 0)
	}
	set(a3c, "V100", 1, 3)
	set(a3c, "P100", 1, 3.5)
	set(a3c, "K80", 1, 1)
	set(big, "V100", 1, 1)
	set(big, "P100", 1, 0.5)
	set(big, "K80", 1, 1)
	return catalogue.Catalog{GPUTypes: gpus, JobTypes: jobs, Matrix: m}
}

func parse(t *testing.T, text, name string) *Grid {
	t.Helper()
	g, err := ParseWith([]byte(text), name, testCatalog())
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	return g
}

func load(t *testing.T, path string) *Grid {
	t.Helper()
	g, err := LoadWith(path, testCatalog())
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	return g
}

func build(t *testing.T, r Run) *Workload {
	t.Helper()
	w, err := r.Spec.Build(r.Seed)
	if err != nil {
		t.Fatalf("build run %s: %v", r.ID, err)
	}
	return w
}

// wantError checks that err is an *Error whose message contains every want.
func wantError(t *testing.T, err error, wants ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one containing %q", wants)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Errorf("error %v is a %T, want *scenarios.Error", err, err)
	}
	for _, w := range wants {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error\n\t%v\ndoes not contain\n\t%s", err, w)
		}
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
