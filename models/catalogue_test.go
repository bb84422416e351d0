package models

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestCatalogueGPUTypes(t *testing.T) {
	t.Parallel()
	c := Catalogue()
	// Datasheet memory, hand-copied; K80 is one GPU die of the board.
	want := []struct {
		name string
		mem  float64
	}{
		{"K80", 12}, {"P100", 16}, {"V100", 16}, {"T4", 16}, {"A10", 24},
		{"A100-40GB", 40}, {"A100-80GB", 80}, {"H100", 80}, {"H200", 141},
	}
	if len(c.GPUTypes) != len(want) {
		t.Fatalf("%d GPU types, want %d", len(c.GPUTypes), len(want))
	}
	seen := map[string]bool{}
	for i, g := range c.GPUTypes {
		if err := g.Validate(); err != nil {
			t.Error(err)
		}
		if g.Name != want[i].name || g.MemoryGB != want[i].mem {
			t.Errorf("GPU type %d = %s %v GB, want %s %v GB", i, g.Name, g.MemoryGB, want[i].name, want[i].mem)
		}
		if g.Source == "" {
			t.Errorf("%s: no source", g.Name)
		}
		// ReadGavelThroughputs matches names up to case.
		if low := strings.ToLower(g.Name); seen[low] {
			t.Errorf("%s: name not unique ignoring case", g.Name)
		} else {
			seen[low] = true
		}
		if i > 0 && g.Rank <= c.GPUTypes[i-1].Rank {
			t.Errorf("%s rank %d not above %s rank %d", g.Name, g.Rank, c.GPUTypes[i-1].Name, c.GPUTypes[i-1].Rank)
		}
	}
	// The types are usable in a cluster.
	var servers []Server
	for _, g := range c.GPUTypes {
		servers = append(servers, Server{Type: g.Name, GPUs: 8})
	}
	if _, err := NewCluster(c.GPUTypes, servers); err != nil {
		t.Error(err)
	}
}

// gavelJobNames are the 26 job types of Gavel's scheduler/job_table.py and
// simulation_throughputs.json.
var gavelJobNames = []string{
	"ResNet-18 (batch size 16)", "ResNet-18 (batch size 32)", "ResNet-18 (batch size 64)",
	"ResNet-18 (batch size 128)", "ResNet-18 (batch size 256)",
	"ResNet-50 (batch size 16)", "ResNet-50 (batch size 32)", "ResNet-50 (batch size 64)",
	"ResNet-50 (batch size 128)",
	"Transformer (batch size 16)", "Transformer (batch size 32)", "Transformer (batch size 64)",
	"Transformer (batch size 128)", "Transformer (batch size 256)",
	"LM (batch size 5)", "LM (batch size 10)", "LM (batch size 20)", "LM (batch size 40)", "LM (batch size 80)",
	"Recommendation (batch size 512)", "Recommendation (batch size 1024)", "Recommendation (batch size 2048)",
	"Recommendation (batch size 4096)", "Recommendation (batch size 8192)",
	"A3C", "CycleGAN",
}

var siaJobNames = []string{
	"cifar10 ResNet-18 (Sia, batch size 1025)",
	"imagenet ResNet-50 (Sia, batch size 462)",
	"bert BERT (Sia, batch size 33)",
	"deepspeech2 DeepSpeech2 (Sia, batch size 81)",
	"yolov3 YOLOv3 (Sia, batch size 23)",
	"ncf NCF (Sia, batch size 32768)",
}

func TestCatalogueJobTypes(t *testing.T) {
	t.Parallel()
	c := Catalogue()
	var names []string
	byName := map[string]JobType{}
	for _, j := range c.JobTypes {
		if err := j.Validate(); err != nil {
			t.Error(err)
		}
		if j.Source == "" || j.Model == "" {
			t.Errorf("%s: model %q, source %q", j.Name, j.Model, j.Source)
		}
		if j.MemoryGB != 0 && !strings.Contains(j.Source, "MemoryGB = ") {
			t.Errorf("%s: MemoryGB %v without a cited measurement", j.Name, j.MemoryGB)
		}
		if _, dup := byName[j.Name]; dup {
			t.Errorf("duplicate job type %s", j.Name)
		}
		byName[j.Name] = j
		names = append(names, j.Name)
	}
	if want := append(append([]string(nil), gavelJobNames...), siaJobNames...); !reflect.DeepEqual(names, want) {
		t.Errorf("job types:\n got %q\nwant %q", names, want)
	}
	// Batch sizes come from the names.
	for name, b := range map[string]int{
		"ResNet-50 (batch size 64)": 64, "LM (batch size 5)": 5, "Recommendation (batch size 8192)": 8192,
		"A3C": 0, "CycleGAN": 0, "cifar10 ResNet-18 (Sia, batch size 1025)": 1025,
	} {
		if got := byName[name].BatchSize; got != b {
			t.Errorf("%s: batch %d, want %d", name, got, b)
		}
	}
	// StateGB = params × 4 B × (1 + optimizer slots): ResNets with SGD
	// momentum (1 slot; torchvision's counts 11,689,512 and 25,557,032),
	// the Transformer (lower bound 44,138,496) with Adam (2), the LM
	// (13,987,678) with plain SGD (0), A3C (3,249,639) with AMSGrad (3).
	for name, want := range map[string]float64{
		"ResNet-18 (batch size 16)":                11_689_512 * 4 * 2 / 1e9,
		"ResNet-50 (batch size 128)":               25_557_032 * 4 * 2 / 1e9,
		"cifar10 ResNet-18 (Sia, batch size 1025)": 11_689_512 * 4 * 2 / 1e9,
		"imagenet ResNet-50 (Sia, batch size 462)": 25_557_032 * 4 * 2 / 1e9,
		"Transformer (batch size 16)":              44_138_496 * 4 * 3 / 1e9,
		"LM (batch size 5)":                        13_987_678 * 4 / 1e9,
		"A3C":                                      3_249_639 * 4 * 4 / 1e9,
		"bert BERT (Sia, batch size 33)":           0, // not checked
	} {
		if got := byName[name].StateGB; math.Abs(got-want) > 1e-12 {
			t.Errorf("%s: StateGB %v, want %v", name, got, want)
		}
	}
	// Steps per epoch = training samples / per-worker batch.
	for name, want := range map[string]float64{
		"ResNet-18 (batch size 128)":       50_000.0 / 128,        // CIFAR-10
		"ResNet-50 (batch size 64)":        1_281_167.0 / 64,      // ImageNet
		"Transformer (batch size 32)":      29_000.0 / 32,         // Multi30k
		"LM (batch size 20)":               2_088_628.0 / 35 / 20, // WikiText-2 tokens / bptt
		"Recommendation (batch size 1024)": 116_677.0 / 1024,      // ML-20M training users
		"A3C":                              0,                     // no epoch
		"CycleGAN":                         0,                     // unknown
	} {
		if got := byName[name].StepsPerEpoch(); math.Abs(got-want) > 1e-9 {
			t.Errorf("%s: StepsPerEpoch %v, want %v", name, got, want)
		}
	}
}

func TestCatalogueFigures(t *testing.T) {
	t.Parallel()
	c := Catalogue()
	jobs := map[string]bool{}
	for _, j := range c.JobTypes {
		jobs[j.Name] = true
	}
	gpus := map[string]bool{}
	for _, g := range c.GPUTypes {
		gpus[g.Name] = true
	}
	perGPU := map[string]int{}
	withFigure := map[string]bool{}
	for _, k := range c.Matrix.Keys() {
		f, _ := c.Matrix.Lookup(k)
		if f.Source == "" {
			t.Errorf("%v: no source", k)
		}
		if !jobs[k.Job] || !gpus[k.GPU] || k.Gang < 1 {
			t.Errorf("%v: unknown job or GPU type, or bad gang", k)
		}
		if math.IsNaN(f.Value) || math.IsInf(f.Value, 0) || f.Value < 0 {
			t.Errorf("%v = %v", k, f.Value)
		}
		perGPU[k.GPU]++
		withFigure[k.Job] = true
	}
	for j := range jobs {
		if !withFigure[j] {
			t.Errorf("job type %s has no figure", j)
		}
	}
	// Gavel: 83 job keys under each of 5 GPU keys, 77 under
	// k80_unconsolidated. Sia: 6 apps × 7 placements on V100 and on A100-40GB.
	want := map[string]int{"K80": 83 + 77, "P100": 2 * 83, "V100": 2*83 + 6*7, "A100-40GB": 6 * 7}
	if !reflect.DeepEqual(perGPU, want) {
		t.Errorf("figures per GPU type = %v, want %v", perGPU, want)
	}
	// Nobody measured these (the aws T4 traces could not be read).
	for _, g := range []string{"T4", "A10", "A100-80GB", "H100", "H200"} {
		if perGPU[g] != 0 {
			t.Errorf("%s has %d figures, want none", g, perGPU[g])
		}
	}
	// Gavel's single-GPU pairs (26 × 26 per GPU type; see
	// catalogue_pairs_test.go).
	if n := len(c.Matrix.PairKeys()); n != 3*26*26 {
		t.Errorf("%d co-location pairs built in, want %d", n, 3*26*26)
	}
}

// TestCatalogueKnownValues spot-checks figures against the source files.
func TestCatalogueKnownValues(t *testing.T) {
	t.Parallel()
	m := Catalogue().Matrix
	cases := []struct {
		key  Key
		want float64
		from string
	}{
		// Gavel scheduler/simulation_throughputs.json, "null" entries.
		{Key{"Recommendation (batch size 1024)", "K80", 1, Consolidated}, 20.04995255198869, `k80 → "('Recommendation (batch size 1024)', 1)"`},
		{Key{"Recommendation (batch size 1024)", "P100", 1, Consolidated}, 30.74443726150114, `p100 → same`},
		{Key{"Recommendation (batch size 1024)", "V100", 1, Consolidated}, 13.2825697082565, `v100 → same`},
		{Key{"A3C", "V100", 1, Consolidated}, 7.175767179667988, `v100 → "('A3C', 1)"`},
		{Key{"Transformer (batch size 64)", "V100", 8, Spread}, 17.010354252487097, `v100_unconsolidated → "('Transformer (batch size 64)', 8)"`},
		{Key{"ResNet-50 (batch size 128)", "K80", 2, Consolidated}, 0, `k80 → "('ResNet-50 (batch size 128)', 2)" is 0.0`},
		// Sia traces, steps/s = 1/step_time.
		{Key{"cifar10 ResNet-18 (Sia, batch size 1025)", "V100", 1, Consolidated}, 1 / 0.23204296827316284,
			`adaptdl/sched/traces/cifar10/placements-azure.csv row "1025,0.23204296827316284,0.00027116799727082256,1"`},
		{Key{"imagenet ResNet-50 (Sia, batch size 462)", "A100-40GB", 8, Spread}, 1 / 0.5565076470375061,
			`adaptdl/sched/traces/imagenet/placements-dgx-ext.csv row "462,0.5565076470375061,0.08437932686507701,44"`},
		{Key{"ncf NCF (Sia, batch size 32768)", "A100-40GB", 4, Consolidated}, 1 / 0.021060079336166382,
			`adaptdl/sched/traces/ncf/placements-dgx-ext.csv row "32768,0.021060079336166382,0.00940518406033516,4"`},
		{Key{"bert BERT (Sia, batch size 33)", "V100", 2, Spread}, 1 / 0.7826557457447052,
			`sia-simulator/traces/bert/placements-azure.csv row "33,0.7826557457447052,0.0188049920797348,11"`},
	}
	for _, c := range cases {
		f, ok := m.Lookup(c.key)
		if !ok || f.Value != c.want {
			t.Errorf("%v = %v (present %v), want %v from %s", c.key, f.Value, ok, c.want, c.from)
		}
	}
	if m.Runnable(Key{"ResNet-50 (batch size 128)", "K80", 2, Consolidated}) {
		t.Error("a stored 0 must not be runnable")
	}
	// k80_unconsolidated has no ResNet-50 (batch size 64) at scale 2.
	if _, ok := m.Lookup(Key{"ResNet-50 (batch size 64)", "K80", 2, Spread}); ok {
		t.Error("a figure absent from Gavel's file was built in")
	}
	f, _ := m.Lookup(Key{"A3C", "V100", 1, Consolidated})
	if f.Source != "Narayanan et al., OSDI 2020, Gavel artifact scheduler/simulation_throughputs.json (MIT)" {
		t.Errorf("Gavel source %q", f.Source)
	}
	f, _ = m.Lookup(Key{"cifar10 ResNet-18 (Sia, batch size 1025)", "V100", 1, Consolidated})
	if !strings.HasPrefix(f.Source, "Sia artifact (Jayaram Subramanya et al., SOSP 2023) adaptdl/sched/traces/cifar10/placements-azure.csv") {
		t.Errorf("Sia source %q", f.Source)
	}
}

// TestCatalogueMatchesGavelFile is a differential test: the built-in Gavel
// figures must be exactly what ReadGavelThroughputs reads from the shared
// copy of Gavel's file (skipped when it is absent).
func TestCatalogueMatchesGavelFile(t *testing.T) {
	t.Parallel()
	f := openGavelShared(t)
	file, err := ReadGavelThroughputs(f, "simulation_throughputs.json")
	if err != nil {
		t.Fatal(err)
	}
	gavelJob := map[string]bool{}
	for _, n := range gavelJobNames {
		gavelJob[n] = true
	}
	if got := file.JobTypes(); len(got) != len(gavelJobNames) {
		t.Errorf("file has %d job types, catalogue %d", len(got), len(gavelJobNames))
	}
	for _, j := range file.JobTypes() {
		if !gavelJob[j] {
			t.Errorf("file job type %q missing from the catalogue", j)
		}
	}
	built := Catalogue().Matrix
	n := 0
	for _, k := range built.Keys() {
		if !gavelJob[k.Job] {
			continue
		}
		n++
		want, ok := file.Lookup(k)
		got, _ := built.Lookup(k)
		if !ok || got.Value != want.Value {
			t.Errorf("%v: built in %v, file %v (present %v)", k, got.Value, want.Value, ok)
		}
	}
	if n != file.Len() {
		t.Errorf("%d built-in Gavel figures, file has %d", n, file.Len())
	}
}

func TestCatalogueFreshCopy(t *testing.T) {
	t.Parallel()
	a := Catalogue()
	a.GPUTypes[0].Name = "changed"
	a.JobTypes[0].Name = "changed"
	k := Key{"A3C", "V100", 1, Consolidated}
	if err := a.Matrix.Set(k, 99, "test"); err != nil {
		t.Fatal(err)
	}
	b := Catalogue()
	if b.GPUTypes[0].Name != "K80" || b.JobTypes[0].Name != gavelJobNames[0] || b.Matrix.Throughput(k) == 99 {
		t.Error("Catalogue shares state between calls")
	}
}

func TestSiaPlacement(t *testing.T) {
	t.Parallel()
	cases := []struct {
		id   string
		gang int
		pl   Placement
	}{
		{"1", 1, Consolidated}, {"2", 2, Consolidated}, {"4", 4, Consolidated}, {"8", 8, Consolidated},
		{"11", 2, Spread}, {"22", 4, Spread}, {"44", 8, Spread}, {"13", 4, Spread}, {"1111", 4, Spread},
	}
	for _, c := range cases {
		gang, pl, err := siaPlacement(c.id)
		if err != nil || gang != c.gang || pl != c.pl {
			t.Errorf("%q: %d %v %v, want %d %v", c.id, gang, pl, err, c.gang, c.pl)
		}
	}
	for _, bad := range []string{"", "0", "10", "1a", "-1"} {
		if _, _, err := siaPlacement(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
