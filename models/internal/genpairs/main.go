// Command genpairs writes models/catalogue_pairs_gavel.go, the built-in
// co-location pairs of fairbench's catalogue, from a copy of the Gavel
// artifact's scheduler/simulation_throughputs.json (Narayanan et al., OSDI
// 2020, MIT).
//
// Which pairs: those of the consolidated GPU keys (k80, p100, v100) at scale
// factor 1, that is two single-GPU jobs sharing one GPU. The file's other
// pairs are left out on purpose:
//
//   - every pair at scale factor 2, 4 or 8 is [0, 0] in Gavel's file: Gavel
//     measured no multi-GPU pair, and stored as a 0 the catalogue would read
//     "measured: cannot run together" and forbid every multi-GPU pair; left
//     out, such a pair is unknown and the simulator's default slowdown
//     applies (and is counted);
//   - the scale-factor-1 pairs of the *_unconsolidated keys are identical to
//     the consolidated ones (the generator checks it), and a one-GPU gang is
//     always consolidated.
//
// Gavel stores each pair twice, [a beside b] under a and [b beside a] under
// b, and the two agree exactly (the generator checks it); the generated file
// holds each unordered pair once and models.Catalogue sets both directions.
// A 0 is kept: it is Gavel's measurement that the two cannot run together
// (for example out of memory), and the catalogue forbids such a pair.
//
// It does not import the models package, so it runs even when the generated
// file is missing or broken; the models tests check the built-in pairs
// against what models.ReadGavelThroughputs reads from the same file. Run it
// through go generate, with GAVEL_THROUGHPUTS naming a copy of Gavel's file
// (fairbench does not ship it; github.com/stanford-futuredata/gavel):
//
//	GAVEL_THROUGHPUTS=/path/to/simulation_throughputs.json go generate ./models/
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/format"
	"math"
	"sort"
	"strconv"

	"fairbench/models/internal/gavelfile"
)

func main() {
	gavelfile.Main("genpairs", "catalogue_pairs_gavel.go", func(data []byte) ([]byte, error) {
		pairs, err := parse(data)
		if err != nil {
			return nil, err
		}
		return generate(pairs)
	})
}

// pair is one unordered pair of job types sharing a GPU: a's throughput
// beside b (ra) and b's beside a (rb), steps per second. a ≤ b by name.
type pair struct {
	gpu    string // catalogue name: K80, P100, V100
	a, b   string
	ra, rb float64
}

func parse(data []byte) ([]pair, error) {
	f, err := gavelfile.Parse(data)
	if err != nil {
		return nil, err
	}
	type ordered struct{ gpu, self, other string }
	got := map[ordered][2]float64{}
	for gpuKey, jobs := range f {
		gpu, spread, err := gavelfile.GPU(gpuKey)
		if err != nil {
			return nil, err
		}
		for key, members := range jobs {
			self, scale, err := gavelfile.JobKey(key)
			if err != nil {
				return nil, fmt.Errorf("[%q]: %v", gpuKey, err)
			}
			for mk, raw := range members {
				if mk == "null" {
					continue
				}
				other, oscale, err := gavelfile.JobKey(mk)
				if err != nil {
					return nil, fmt.Errorf("[%q][%q]: %v", gpuKey, key, err)
				}
				v, err := parsePair(raw)
				if err != nil {
					return nil, fmt.Errorf("[%q][%q][%q]: %v", gpuKey, key, mk, err)
				}
				switch {
				case scale != 1 || oscale != 1:
					// Multi-GPU pairs: Gavel has only placeholders.
					if v != [2]float64{} {
						return nil, fmt.Errorf("[%q][%q][%q]: a multi-GPU pair %v; this generator leaves them out as unmeasured and expects [0, 0]", gpuKey, key, mk, v)
					}
				case spread:
					// Checked against the consolidated figures below.
				default:
					got[ordered{gpu, self, other}] = v
				}
			}
		}
	}
	// The unconsolidated scale-1 pairs must repeat the consolidated ones.
	for gpuKey, jobs := range f {
		gpu, spread, _ := gavelfile.GPU(gpuKey) // checked above
		if !spread {
			continue
		}
		for key, members := range jobs {
			self, scale, _ := gavelfile.JobKey(key)
			for mk, raw := range members {
				other, oscale, _ := gavelfile.JobKey(mk)
				if mk == "null" || scale != 1 || oscale != 1 {
					continue
				}
				v, _ := parsePair(raw)
				if c, ok := got[ordered{gpu, self, other}]; !ok || c != v {
					return nil, fmt.Errorf("[%q][%q][%q]: %v differs from the consolidated pair %v", gpuKey, key, mk, v, c)
				}
			}
		}
	}
	var out []pair
	for k, v := range got {
		r, ok := got[ordered{k.gpu, k.other, k.self}]
		if !ok || r != [2]float64{v[1], v[0]} {
			return nil, fmt.Errorf("%s: %s beside %s is %v but %s beside %s is %v (present %v); want the same pair reversed",
				k.gpu, k.self, k.other, v, k.other, k.self, r, ok)
		}
		if k.self <= k.other {
			out = append(out, pair{gpu: k.gpu, a: k.self, b: k.other, ra: v[0], rb: v[1]})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no single-GPU co-location pairs")
	}
	sort.Slice(out, func(i, j int) bool {
		x, y := out[i], out[j]
		if x.gpu != y.gpu {
			return x.gpu < y.gpu
		}
		if x.a != y.a {
			return x.a < y.a
		}
		return x.b < y.b
	})
	return out, nil
}

func parsePair(raw json.RawMessage) ([2]float64, error) {
	var v []float64
	if err := json.Unmarshal(raw, &v); err != nil || len(v) != 2 {
		return [2]float64{}, fmt.Errorf("want [self, other], got %s", raw)
	}
	for _, x := range v {
		if x < 0 || math.IsNaN(x) || math.IsInf(x, 0) {
			return [2]float64{}, fmt.Errorf("bad throughput %v", x)
		}
	}
	return [2]float64{v[0], v[1]}, nil
}

const header = `// Code generated by models/internal/genpairs; DO NOT EDIT.

package models

// catalogueGavelPairsSource cites every built-in co-location pair.
const catalogueGavelPairsSource = "Narayanan et al., OSDI 2020, Gavel artifact scheduler/simulation_throughputs.json (MIT), co-location pairs at scale factor 1"

// catalogueGavelPairJobs are the job types the pairs name, by index.
var catalogueGavelPairJobs = []string{
`

const middle = `}

// catalogueGavelPairs are the co-location throughputs of two single-GPU jobs
// sharing one GPU, from Gavel's scheduler/simulation_throughputs.json
// (Narayanan et al., "Heterogeneity-Aware Cluster Scheduling Policies for Deep
// Learning Workloads", OSDI 2020; github.com/stanford-futuredata/gavel, MIT
// licence): the entry "('<b>', 1)" of job key "('<a>', 1)" under the GPU keys
// k80, p100 and v100, [a beside b, b beside a] in steps per second, each
// unordered pair once (Gavel stores it twice, reversed, with equal values).
// A 0 means the two cannot run together. Job types are indices into
// catalogueGavelPairJobs; values are printed in the shortest form that reads
// back to the same float64 as the file's.
var catalogueGavelPairs = []builtinPair{
`

func generate(pairs []pair) ([]byte, error) {
	seen := map[string]bool{}
	var names []string
	for _, p := range pairs {
		for _, n := range []string{p.a, p.b} {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	sort.Strings(names)
	idx := map[string]int{}
	var b bytes.Buffer
	b.WriteString(header)
	for i, n := range names {
		idx[n] = i
		fmt.Fprintf(&b, "\t%s, // %d\n", strconv.Quote(n), i)
	}
	b.WriteString(middle)
	for _, p := range pairs {
		fmt.Fprintf(&b, "\t{%s, %d, %d, %s, %s},\n", strconv.Quote(p.gpu), idx[p.a], idx[p.b],
			strconv.FormatFloat(p.ra, 'g', -1, 64), strconv.FormatFloat(p.rb, 'g', -1, 64))
	}
	b.WriteString("}\n")
	return format.Source(b.Bytes())
}
