package models

import (
	"errors"
	"math"
	"sort"
	"strings"
	"testing"
)

// TestCatalogueMemoryByHand: the cited figures and their fixed parts.
func TestCatalogueMemoryByHand(t *testing.T) {
	t.Parallel()
	byName := map[string]JobType{}
	for _, j := range Catalogue().JobTypes {
		byName[j.Name] = j
	}
	// ResNet-18 rows (32, 2360), (64, 2660), (128, 3072) MiB: x̄ = 74.67,
	// ȳ = 2697.33; Sxx = 42.67² + 10.67² + 53.33² = 4778.67; Sxy = (−42.67)
	// (−337.33) + (−10.67)(−37.33) + (53.33)(374.67) = 34773.33; slope
	// 7.2768, intercept 2697.33 − 7.2768·74.67 = 2153.96 MiB = 2.2586 GB.
	// ResNet-50 rows (32, 5518), (64, 8570), (128, 13326): ȳ = 9138; Sxy =
	// (−42.67)(−3620) + (−10.67)(−568) + (53.33)(4188) = 383872; slope
	// 80.330, intercept 9138 − 80.330·74.67 = 3139.6 MiB = 3.2922 GB.
	cases := []struct {
		job        string
		mem, fixed float64 // GB
	}{
		{"ResNet-18 (batch size 32)", 2360 * 1.048576 / 1000, 2.2586},
		{"ResNet-18 (batch size 128)", 3072 * 1.048576 / 1000, 2.2586},
		{"ResNet-50 (batch size 64)", 8570 * 1.048576 / 1000, 3.2922},
		{"ResNet-50 (batch size 128)", 0, 0}, // contradicted by Gavel's K80 run
		{"Transformer (batch size 32)", 0, 0},
		{"ResNet-18 (batch size 16)", 0, 0}, // no row
	}
	for _, c := range cases {
		j := byName[c.job]
		if math.Abs(j.MemoryGB-c.mem) > 1e-9 || math.Abs(j.FixedMemoryGB-c.fixed) > 5e-4 {
			t.Errorf("%s: memory %v fixed %v, want %v and %v", c.job, j.MemoryGB, j.FixedMemoryGB, c.mem, c.fixed)
		}
		if c.mem > 0 && !strings.Contains(j.Source, "Lucid (Hu et al., ASPLOS 2023)") {
			t.Errorf("%s: no citation: %s", c.job, j.Source)
		}
	}
}

// TestCatalogueMemoryAgainstGavel: no cited figure exceeds a GPU on which
// Gavel ran the job type alone, and exactly the six pair figures the
// catalogue_memory.go comment lists ran together although the figures say
// they do not fit.
func TestCatalogueMemoryAgainstGavel(t *testing.T) {
	t.Parallel()
	c := Catalogue()
	mem := map[string]float64{}
	for _, j := range c.JobTypes {
		mem[j.Name] = j.MemoryGB
	}
	gpuMem := map[string]float64{}
	for _, g := range c.GPUTypes {
		gpuMem[g.Name] = g.MemoryGB
	}
	for _, k := range c.Matrix.Keys() {
		if c.Matrix.Runnable(k) && mem[k.Job] > gpuMem[k.GPU] {
			t.Errorf("%s needs %.2f GB but ran alone on %s (%g GB)", k.Job, mem[k.Job], k.GPU, gpuMem[k.GPU])
		}
	}
	var got []string
	for _, k := range c.Matrix.PairKeys() {
		p, _ := c.Matrix.Pair(k)
		a, b := mem[k.Job], mem[k.Other]
		if p[0] > 0 && a > 0 && b > 0 && a+b > gpuMem[k.GPU] {
			got = append(got, k.GPU+": "+k.Job+" beside "+k.Other)
		}
	}
	sort.Strings(got)
	want := []string{
		"K80: ResNet-18 (batch size 128) beside ResNet-50 (batch size 64)",
		"K80: ResNet-50 (batch size 32) beside ResNet-50 (batch size 64)",
		"K80: ResNet-50 (batch size 64) beside ResNet-18 (batch size 128)",
		"K80: ResNet-50 (batch size 64) beside ResNet-50 (batch size 32)",
		"P100: ResNet-50 (batch size 64) beside ResNet-50 (batch size 64)",
		"V100: ResNet-50 (batch size 64) beside ResNet-50 (batch size 64)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("pairs measured running that the memory figures forbid:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestCatalogueMemoryMakesAccumulationMatter: two ResNet-50 (batch size 64)
// do not fit on one 16 GB V100 (2 × 8.99 GB); with 2-step gradient
// accumulation one needs 3.29 + (8.99 − 3.29)/2 = 6.14 GB and the pair fits
// (15.13 GB), running at the V100's ResNet-50 (batch size 32) figure / 2.
func TestCatalogueMemoryMakesAccumulationMatter(t *testing.T) {
	t.Parallel()
	c := Catalogue()
	types := map[string]JobType{}
	for _, j := range c.JobTypes {
		types[j.Name] = j
	}
	j := &Job{Type: "ResNet-50 (batch size 64)", Gang: 1}
	full, half := AccumMemory(types, j, 1), AccumMemory(types, j, 2)
	if !(2*full > 16) || !(full+half <= 16) || math.Abs(half-(types[j.Type].FixedMemoryGB+(full-types[j.Type].FixedMemoryGB)/2)) > 1e-12 {
		t.Errorf("full %v GB, with k=2 %v GB", full, half)
	}
	got, ok := AccumThroughput(types, c.Matrix, j, "V100", Consolidated, 2)
	want := c.Matrix.Throughput(Key{Job: "ResNet-50 (batch size 32)", GPU: "V100", Gang: 1}) / 2
	if !ok || got != want {
		t.Errorf("accumulated throughput %v (%v), want %v", got, ok, want)
	}
}

// TestMeasuredPairOverridesMemory: two ResNet-50 (batch size 64) need
// 2 × 8.99 = 17.97 GB by the cited upper-bound figures, more than a 16 GB
// V100 holds, but Gavel measured the pair running together on the V100, so
// the pair may share one; on the 16 GB P100 the same holds, while a pair
// of the same jobs with 2-step accumulation on one side is judged by the
// figures (8.99 + 6.14 = 15.13 GB ≤ 16: fits) and a pair nobody measured
// that exceeds the memory is refused.
func TestMeasuredPairOverridesMemory(t *testing.T) {
	t.Parallel()
	c := Catalogue()
	types := map[string]JobType{}
	for _, j := range c.JobTypes {
		types[j.Name] = j
	}
	cl, err := NewCluster(c.GPUTypes, []Server{{Type: "V100", GPUs: 1}})
	if err != nil {
		t.Fatal(err)
	}
	job := func(id JobID, typ string) JobState {
		return JobState{Job: Job{ID: id, User: "u", Type: typ, Gang: 1, Steps: 10}, FirstRun: -1}
	}
	s := &Snapshot{Cluster: cl, Users: []User{{Name: "u", Weight: 1}}, Matrix: c.Matrix, JobTypes: types,
		Jobs: []JobState{job(1, "ResNet-50 (batch size 64)"), job(2, "ResNet-50 (batch size 64)")}}
	pair := Allocation{Colocate: true, Run: []Assignment{{Job: 1, Type: "V100", GPUs: []int{0}}, {Job: 2, Type: "V100", GPUs: []int{0}}}}
	if err := Feasible(s, pair); err != nil {
		t.Errorf("measured pair refused: %v", err)
	}
	accum := pair
	accum.Run = []Assignment{{Job: 1, Type: "V100", GPUs: []int{0}}, {Job: 2, Type: "V100", GPUs: []int{0}, Accum: 2}}
	if err := Feasible(s, accum); err != nil {
		t.Errorf("pair with accumulation refused: %v", err)
	}
	// An unmeasured pair: a job type "big" with 1.5 × ResNet-50's memory
	// (13.48 GB: it runs alone, but 8.99 + 13.48 = 22.47 GB > 16 GB) and its
	// figure alone, no pair figure.
	big := types["ResNet-50 (batch size 64)"]
	big.Name, big.MemoryGB = "big", 1.5*big.MemoryGB
	types["big"] = big
	m := NewMatrix()
	for _, key := range c.Matrix.Keys() {
		_ = m.Set(key, c.Matrix.Throughput(key), "catalogue")
	}
	_ = m.Set(Key{Job: "big", GPU: "V100", Gang: 1}, 1, "test")
	s.Matrix = m
	s.Jobs[1] = job(2, "big")
	err = Feasible(s, pair)
	var v *Violation
	if !errors.As(err, &v) || v.Constraint != "memory" {
		t.Errorf("unmeasured pair over memory: got %v, want a memory violation", err)
	}
}
