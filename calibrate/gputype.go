package calibrate

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"fairbench/models"
)

// gpuFamilies maps a pattern of NVML device names ("NVIDIA H200",
// "Tesla V100-SXM2-16GB", "NVIDIA A100-SXM4-80GB", ...) to the catalogue
// types it may be. Where a family has several catalogue types (A100 40 and
// 80 GB) the device memory decides.
var gpuFamilies = []struct {
	re    *regexp.Regexp
	types []string
}{
	{regexp.MustCompile(`(?i)\bH200\b`), []string{"H200"}},
	{regexp.MustCompile(`(?i)\bH100\b`), []string{"H100"}},
	{regexp.MustCompile(`(?i)\bA100\b`), []string{"A100-40GB", "A100-80GB"}},
	{regexp.MustCompile(`(?i)\bA10\b`), []string{"A10"}}, // not A10G, A100
	{regexp.MustCompile(`(?i)\bT4\b`), []string{"T4"}},
	{regexp.MustCompile(`(?i)\bV100\b`), []string{"V100"}},
	{regexp.MustCompile(`(?i)\bP100\b`), []string{"P100"}},
	{regexp.MustCompile(`(?i)\bK80\b`), []string{"K80"}},
}

// memoryTolerance is how far (relative) a device's total memory, in GiB, may
// be from its catalogue type's MemoryGB: NVML reports the usable memory, a
// little under the datasheet's round figure (an H200 reports about 140 GiB
// of its "141 GB"; a 16 GB V100 about 15.8 GiB).
const memoryTolerance = 0.10

// CatalogueGPUType finds the catalogue GPU type of a device from its NVML
// name and total memory. It refuses a device whose family is unknown, or
// whose memory matches no catalogue type of its family (a 32 GB V100 is not
// the catalogue's 16 GB V100): the profile must then name gpu_type itself,
// declaring it under gpu_types when the catalogue lacks it.
func CatalogueGPUType(name string, memoryBytes uint64) (string, error) {
	return resolveGPUType(name, memoryBytes, nil)
}

// resolveGPUType is CatalogueGPUType that also knows the declared types: a
// declared type matches a device whose NVML name holds its name as a word
// ("NVIDIA B200" for B200) and whose memory is within memoryTolerance.
func resolveGPUType(name string, memoryBytes uint64, declared []GPUDecl) (string, error) {
	gib := float64(memoryBytes) / (1 << 30)
	fits := func(gb float64) bool { return math.Abs(gib-gb)/gb <= memoryTolerance }
	for _, d := range declared {
		re := regexp.MustCompile(`(?i)(^|[^A-Za-z0-9])` + regexp.QuoteMeta(d.Name) + `($|[^A-Za-z0-9])`)
		if re.MatchString(name) && fits(d.MemoryGB) {
			return d.Name, nil
		}
	}
	byName := map[string]models.GPUType{}
	for _, t := range catalogueGPUs() {
		byName[t.Name] = t
	}
	for _, f := range gpuFamilies {
		if !f.re.MatchString(name) {
			continue
		}
		var seen []string
		for _, tn := range f.types {
			t := byName[tn]
			if fits(t.MemoryGB) {
				return t.Name, nil
			}
			seen = append(seen, fmt.Sprintf("%s (%g GB)", t.Name, t.MemoryGB))
		}
		return "", fmt.Errorf("device %q has %.1f GiB, which matches no catalogue type of its family: %s; name gpu_type in the profile (declared under gpu_types if the catalogue lacks it)",
			name, gib, strings.Join(seen, ", "))
	}
	return "", fmt.Errorf("device %q is no catalogue GPU type that fairbench recognises; name gpu_type in the profile and declare it under gpu_types", name)
}

// catalogueTypeName canonicalises a catalogue GPU type name (matched up to
// case).
func catalogueTypeName(name string) (models.GPUType, bool) {
	for _, t := range catalogueGPUs() {
		if strings.EqualFold(t.Name, name) {
			return t, true
		}
	}
	return models.GPUType{}, false
}

// catalogueGPUs is the catalogue's GPU types, built once (read-only).
var catalogueGPUs = sync.OnceValue(func() []models.GPUType { return models.Catalogue().GPUTypes })

// typeSet is the catalogue's GPU types plus those a profile, record or
// datasheet file declares.
type typeSet struct {
	declared []GPUDecl
}

// lookup canonicalises a GPU type name (matched up to case): a catalogue
// type or a declared one.
func (ts typeSet) lookup(name string) (string, bool) {
	if t, ok := catalogueTypeName(name); ok {
		return t.Name, true
	}
	for _, d := range ts.declared {
		if strings.EqualFold(d.Name, name) {
			return d.Name, true
		}
	}
	return "", false
}

// names lists the known types, the catalogue's first.
func (ts typeSet) names() string {
	var names []string
	for _, t := range catalogueGPUs() {
		names = append(names, t.Name)
	}
	for _, d := range ts.declared {
		names = append(names, d.Name+" (declared)")
	}
	return strings.Join(names, ", ")
}

// modelTypes is every known type as models.GPUType: what a Gavel-format
// file may name.
func (ts typeSet) modelTypes() []models.GPUType {
	out := append([]models.GPUType(nil), catalogueGPUs()...)
	for _, d := range ts.declared {
		out = append(out, d.GPUType())
	}
	return out
}

// GPUDecl declares a GPU type the catalogue lacks — a new generation — with
// its memory and the datasheet figures extrapolation needs. Profiles,
// calibration records, merge's --datasheet files and extrapolate's
// --datasheet files hold them in a `gpu_types:` list; a scenario that uses
// the type declares it with the same name, memory_gb, rank and source.
type GPUDecl struct {
	// Name is the type's name, new to the catalogue up to case: letters,
	// digits, '.', '-' and '_' (it becomes a Gavel-format GPU key).
	Name string `yaml:"name" json:"name"`
	// MemoryGB is one GPU's memory in GB, as the datasheet states it.
	MemoryGB float64 `yaml:"memory_gb" json:"memory_gb"`
	// Rank orders generations (the catalogue's run from 1, K80, to 9,
	// H200); default: one above the catalogue's newest.
	Rank int `yaml:"rank" json:"rank"`
	// PeakTFLOPS is the dense peak by precision (fp32 on CUDA cores; tf32,
	// fp16 on tensor cores); extrapolation needs fp32 and fp16.
	PeakTFLOPS map[string]float64 `yaml:"peak_tflops" json:"peak_tflops,omitempty"`
	// MemoryBandwidthGBs is the memory bandwidth in GB/s (extrapolation
	// needs it).
	MemoryBandwidthGBs float64 `yaml:"memory_bandwidth_gb_s" json:"memory_bandwidth_gb_s,omitempty"`
	// Source cites the datasheet the figures come from. Required.
	Source string `yaml:"source" json:"source"`
}

// Limits on declarations.
const (
	maxDeclaredTypes = 64
	maxGPUMemoryGB   = 1e5 // 100 TB: far above any GPU
	maxPeakTFLOPS    = 1e6
	maxBandwidthGBs  = 1e7
	maxRank          = 1000
)

var declNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// precisions are the keys of GPUDecl.PeakTFLOPS.
var precisions = map[string]bool{"fp32": true, "tf32": true, "fp16": true}

// GPUType is the declaration as a models.GPUType.
func (d GPUDecl) GPUType() models.GPUType {
	return models.GPUType{Name: d.Name, MemoryGB: d.MemoryGB, Rank: d.Rank, Source: d.Source}
}

// Datasheet is the declaration's datasheet, for extrapolation; false when
// it lacks the fp32 or fp16 peak or the bandwidth.
func (d GPUDecl) Datasheet() (Datasheet, bool) {
	ds := Datasheet{Type: d.Name, PeakTFLOPS: d.PeakTFLOPS, MemoryBandwidthGBs: d.MemoryBandwidthGBs, MemoryGB: d.MemoryGB, Source: d.Source}
	return ds, d.PeakTFLOPS["fp32"] > 0 && d.PeakTFLOPS["fp16"] > 0 && d.MemoryBandwidthGBs > 0
}

// checkDecls validates declarations in place (filling the default rank):
// field is the list's path in errors ("gpu_types"). It returns the field
// and reason of the first problem.
func checkDecls(ds []GPUDecl, field string) (string, error) {
	if len(ds) > maxDeclaredTypes {
		return field, fmt.Errorf("at most %d declared GPU types, got %d", maxDeclaredTypes, len(ds))
	}
	newest := 0
	for _, t := range catalogueGPUs() {
		newest = max(newest, t.Rank)
	}
	seen := map[string]int{}
	for i := range ds {
		d := &ds[i]
		f := fmt.Sprintf("%s[%d]", field, i)
		if !declNameRE.MatchString(d.Name) || strings.HasSuffix(strings.ToLower(d.Name), gavelUnconsolidated) {
			return f + ".name", fmt.Errorf("want 1-64 letters, digits, '.', '-' or '_' (not ending in %s), got %q", gavelUnconsolidated, d.Name)
		}
		if t, ok := catalogueTypeName(d.Name); ok {
			return f + ".name", fmt.Errorf("%q is the catalogue's %s: declare only types the catalogue lacks", d.Name, t.Name)
		}
		if j, dup := seen[strings.ToLower(d.Name)]; dup {
			return f + ".name", fmt.Errorf("%q is declared twice (also %s[%d])", d.Name, field, j)
		}
		seen[strings.ToLower(d.Name)] = i
		if !finite(d.MemoryGB) || d.MemoryGB <= 0 || d.MemoryGB > maxGPUMemoryGB {
			return f + ".memory_gb", fmt.Errorf("must be a positive number of GB up to %g, got %v", float64(maxGPUMemoryGB), d.MemoryGB)
		}
		if d.Rank == 0 {
			d.Rank = newest + 1
		}
		if d.Rank < 1 || d.Rank > maxRank {
			return f + ".rank", fmt.Errorf("must be 1..%d, got %d", maxRank, d.Rank)
		}
		for _, p := range slices.Sorted(maps.Keys(d.PeakTFLOPS)) {
			if !precisions[p] {
				return f + ".peak_tflops." + p, fmt.Errorf("unknown precision (known: fp16, fp32, tf32)")
			}
			if v := d.PeakTFLOPS[p]; !finite(v) || v <= 0 || v > maxPeakTFLOPS {
				return f + ".peak_tflops." + p, fmt.Errorf("must be a positive number of TFLOP/s up to %g, got %v", float64(maxPeakTFLOPS), v)
			}
		}
		if v := d.MemoryBandwidthGBs; !finite(v) || v < 0 || v > maxBandwidthGBs {
			return f + ".memory_bandwidth_gb_s", fmt.Errorf("must be a number of GB/s in [0, %g], got %v", float64(maxBandwidthGBs), v)
		}
		if strings.TrimSpace(d.Source) == "" {
			return f + ".source", fmt.Errorf("required: cite the datasheet the memory (and peaks) come from")
		}
		if len(d.Source) > maxTextLen {
			return f + ".source", fmt.Errorf("at most %d characters", maxTextLen)
		}
	}
	return "", nil
}

// mergeDecls adds the declarations of more to have, refusing a type
// declared twice with different figures.
func mergeDecls(have []GPUDecl, more []GPUDecl, from string) ([]GPUDecl, error) {
	for _, d := range more {
		dup := false
		for _, h := range have {
			if !strings.EqualFold(h.Name, d.Name) {
				continue
			}
			dup = true
			if h.MemoryGB != d.MemoryGB || h.Rank != d.Rank {
				return nil, fmt.Errorf("%s declares GPU type %s with %g GB and rank %d, but it was declared with %g GB and rank %d",
					from, d.Name, d.MemoryGB, d.Rank, h.MemoryGB, h.Rank)
			}
		}
		if !dup {
			have = append(have, d)
		}
	}
	sort.SliceStable(have, func(i, j int) bool { return have[i].Rank < have[j].Rank })
	return have, nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
