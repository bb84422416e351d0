package calibrate

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"fairbench/models"
)

// phillyGangs is the gang size distribution of Gavel's Philly-derived
// workload generator (1, 2, 4, 8 GPUs with probability 0.7, 0.1, 0.15,
// 0.05; Narayanan et al., OSDI 2020), which the scenario Merge writes draws
// from, restricted to the gangs measured.
var phillyGangs = []struct {
	size   int
	weight float64
}{{1, 0.7}, {2, 0.1}, {4, 0.15}, {8, 0.05}}

// ScenarioFor writes a scenario (YAML) that uses a merge's output at
// once: the gpu_types block, one 8-GPU server of every GPU type with a
// figure for the merged job types (the new types and, from the catalogue,
// the types that also ran those jobs, to compare against), throughputs: the
// merged matrix, calibration: the merged record (memory and pairs), and a
// Philly-like workload over the merged job types at the gang sizes
// measured. No policies are listed: `fairbench simulate` runs every
// registered policy. path is where the scenario goes (the other files are
// named relative to it).
func ScenarioFor(rep *MergeReport, path string, inputs []string) ([]byte, error) {
	out, err := ReadMergedMatrix(rep)
	if err != nil {
		return nil, err
	}
	jobs := map[string]bool{}
	for _, k := range out.Keys() {
		if out.Runnable(k) && inputHas(rep, k) {
			jobs[k.Job] = true
		}
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("calibrate: scenario: the inputs have no positive throughput figure to simulate")
	}
	// The matrix a scenario sees: the catalogue's, with the output over it.
	all := models.Catalogue().Matrix
	all.Merge(out)
	gpus := map[string]bool{}
	gangs := map[int]bool{}
	for _, k := range all.Keys() {
		if jobs[k.Job] && all.Runnable(k) && k.Placement == models.Consolidated && k.Gang <= 8 {
			gpus[k.GPU] = true
			gangs[k.Gang] = true
		}
	}
	rel := func(p string) string {
		r, err := filepath.Rel(filepath.Dir(path), p)
		if err != nil {
			return p
		}
		return r
	}
	var b strings.Builder
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	fmt.Fprintf(&b, "# A scenario for the figures merged into %s from %s, written by\n", rel(rep.Output), strings.Join(inputs, ", "))
	b.WriteString("# `fairbench calibrate merge --scenario` (edit freely). Every registered policy runs on it:\n")
	fmt.Fprintf(&b, "#   fairbench simulate %s --out DIR && fairbench report DIR --out REPORT\n", filepath.Base(path))
	fmt.Fprintf(&b, "name: %s\n", quote(name))
	if len(rep.Declared) > 0 {
		b.WriteString(strings.TrimPrefix(string(GPUTypesBlock(rep.Declared)), "# Declare these GPU types in a scenario that uses them (written by fairbench calibrate merge).\n"))
	}
	// A scenario refuses a throughputs file's job type it does not know:
	// the ones the catalogue lacks are declared.
	if extra := newJobTypes(out); len(extra) > 0 {
		b.WriteString("job_types:\n")
		for _, j := range extra {
			fmt.Fprintf(&b, "  - {name: %s}\n", quote(j))
		}
	}
	b.WriteString("cluster:\n  servers:\n")
	for _, t := range orderGPUs(gpus, rep.Declared) {
		fmt.Fprintf(&b, "    - {type: %s, count: 1, gpus_per_server: 8}\n", t)
	}
	fmt.Fprintf(&b, "throughputs: %s\n", quote(rel(rep.Output)))
	if rep.Record != nil {
		fmt.Fprintf(&b, "calibration: %s\n", quote(rel(rep.RecordPath)))
	}
	b.WriteString("user_count: 4\nworkload:\n  generator: philly\n  jobs: 40\n  job_types:\n")
	for _, j := range slices.Sorted(maps.Keys(jobs)) {
		fmt.Fprintf(&b, "    - %s\n", quote(j))
	}
	b.WriteString("  gangs:\n")
	for _, g := range phillyGangs {
		if gangs[g.size] {
			fmt.Fprintf(&b, "    - {size: %d, weight: %g}\n", g.size, g.weight)
		}
	}
	return []byte(b.String()), nil
}

// newJobTypes lists m's job types the catalogue lacks, sorted.
func newJobTypes(m *models.Matrix) []string {
	known := map[string]bool{}
	for _, t := range models.Catalogue().JobTypes {
		known[t.Name] = true
	}
	var out []string
	for _, j := range m.JobTypes() {
		if !known[j] {
			out = append(out, j)
		}
	}
	return out
}

// inputHas reports whether key k's figure came from the merge's inputs (not
// only from the target).
func inputHas(rep *MergeReport, k models.Key) bool { return rep.inputKeys[k] }

// ReadMergedMatrix is the matrix a merge is about to write.
func ReadMergedMatrix(rep *MergeReport) (*models.Matrix, error) {
	return LoadMatrixData(rep.Files[rep.Output], rep.Output, rep.Declared)
}

// orderGPUs lists GPU types by generation: the catalogue's in its order,
// then the declared ones in theirs.
func orderGPUs(set map[string]bool, declared []GPUDecl) []string {
	var out []string
	for _, t := range catalogueGPUs() {
		if set[t.Name] {
			out = append(out, t.Name)
		}
	}
	ds := append([]GPUDecl(nil), declared...)
	sort.SliceStable(ds, func(i, j int) bool { return ds[i].Rank < ds[j].Rank })
	for _, d := range ds {
		if set[d.Name] {
			out = append(out, d.Name)
		}
	}
	return out
}

// quote writes a YAML scalar as a JSON string (JSON strings are YAML).
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
