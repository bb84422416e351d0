package calibrate

import (
	"fmt"
	"math"
	"regexp"
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
// the catalogue's 16 GB V100): the profile must then name gpu_type itself.
func CatalogueGPUType(name string, memoryBytes uint64) (string, error) {
	gib := float64(memoryBytes) / (1 << 30)
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
			if math.Abs(gib-t.MemoryGB)/t.MemoryGB <= memoryTolerance {
				return t.Name, nil
			}
			seen = append(seen, fmt.Sprintf("%s (%g GB)", t.Name, t.MemoryGB))
		}
		return "", fmt.Errorf("device %q has %.1f GiB, which matches no catalogue type of its family: %s; name gpu_type in the profile",
			name, gib, strings.Join(seen, ", "))
	}
	return "", fmt.Errorf("device %q is no catalogue GPU type that fairbench recognises; name gpu_type in the profile", name)
}

// catalogueTypeName canonicalises a GPU type name (matched up to case).
func catalogueTypeName(name string) (models.GPUType, bool) {
	for _, t := range catalogueGPUs() {
		if strings.EqualFold(t.Name, name) {
			return t, true
		}
	}
	return models.GPUType{}, false
}

func catalogueTypeNames() string {
	var names []string
	for _, t := range catalogueGPUs() {
		names = append(names, t.Name)
	}
	return strings.Join(names, ", ")
}

// catalogueGPUs is the catalogue's GPU types, built once (read-only).
var catalogueGPUs = sync.OnceValue(func() []models.GPUType { return models.Catalogue().GPUTypes })
