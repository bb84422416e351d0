package models

import (
	"fmt"
	"maps"
	"slices"
	"sort"
)

// Placement says whether a gang sits on one server or is spread over several.
type Placement int

const (
	// Consolidated: every worker of the gang is on one server.
	Consolidated Placement = iota
	// Spread: the gang spans servers and communicates over the network.
	Spread
)

func (p Placement) String() string {
	if p == Spread {
		return "spread"
	}
	return "consolidated"
}

// Key addresses one isolated throughput figure.
type Key struct {
	Job       string    // job type name
	GPU       string    // GPU type name
	Gang      int       // number of workers
	Placement Placement // consolidated or spread
}

func (k Key) String() string {
	return fmt.Sprintf("%s on %d×%s (%s)", k.Job, k.Gang, k.GPU, k.Placement)
}

// PairKey addresses the throughputs of two jobs sharing the same GPUs.
type PairKey struct {
	Key          // the job whose figures these are, where it runs
	Other string // the co-located job type (same GPU type and gang)
}

// Figure is one measured number with its citation.
type Figure struct {
	Value  float64 // steps per second
	Source string  // where it was measured
}

// Matrix is the throughput matrix: training steps per second of each job type
// on each GPU type, per gang size and placement, and for co-located pairs. A
// figure that nobody measured is absent; Lookup reports it as missing and never
// interpolates. A stored 0 means the job cannot run there (for example, it
// does not fit in memory).
type Matrix struct {
	iso  map[Key]Figure
	pair map[PairKey][2]float64
}

// NewMatrix returns an empty matrix.
func NewMatrix() *Matrix {
	return &Matrix{iso: map[Key]Figure{}, pair: map[PairKey][2]float64{}}
}

// Set records an isolated figure. It refuses a value that is not 0 or
// between MinThroughput and MaxThroughput.
func (m *Matrix) Set(k Key, steps float64, source string) error {
	if err := CheckThroughput("throughput", steps); err != nil {
		return fmt.Errorf("%v: %w", k, err)
	}
	if k.Gang <= 0 || k.Gang > MaxGPUs {
		return fmt.Errorf("%v: gang must be between 1 and %d", k, MaxGPUs)
	}
	m.iso[k] = Figure{Value: steps, Source: source}
	return nil
}

// SetPair records the throughputs [self, other] of job k.Job sharing its GPUs
// with a job of type other.
func (m *Matrix) SetPair(k PairKey, self, other float64) error {
	if err := CheckThroughput("co-located throughput", self); err != nil {
		return fmt.Errorf("%v with %s: %w", k.Key, k.Other, err)
	}
	if err := CheckThroughput("co-located throughput", other); err != nil {
		return fmt.Errorf("%v with %s: %w", k.Key, k.Other, err)
	}
	m.pair[k] = [2]float64{self, other}
	return nil
}

// Lookup returns the isolated figure, and false when it was never measured.
func (m *Matrix) Lookup(k Key) (Figure, bool) {
	f, ok := m.iso[k]
	return f, ok
}

// Throughput is the measured steps per second at k, or 0 when missing.
func (m *Matrix) Throughput(k Key) float64 { return m.iso[k].Value }

// Runnable reports whether k has a measured, positive throughput.
func (m *Matrix) Runnable(k Key) bool { return m.iso[k].Value > 0 }

// Pair returns the co-located throughputs [self, other], if measured.
func (m *Matrix) Pair(k PairKey) ([2]float64, bool) {
	p, ok := m.pair[k]
	return p, ok
}

// Keys lists every isolated key in a stable order.
func (m *Matrix) Keys() []Key {
	keys := make([]Key, 0, len(m.iso))
	for k := range m.iso {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keyLess(keys[i], keys[j]) })
	return keys
}

// PairKeys lists every co-location key in a stable order.
func (m *Matrix) PairKeys() []PairKey {
	keys := make([]PairKey, 0, len(m.pair))
	for k := range m.pair {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].Key != keys[j].Key {
			return keyLess(keys[i].Key, keys[j].Key)
		}
		return keys[i].Other < keys[j].Other
	})
	return keys
}

// JobTypes lists the job type names that have at least one figure, sorted.
func (m *Matrix) JobTypes() []string {
	seen := map[string]bool{}
	for k := range m.iso {
		seen[k.Job] = true
	}
	return slices.Sorted(maps.Keys(seen))
}

// GPUTypes lists the GPU type names that have at least one figure, sorted.
func (m *Matrix) GPUTypes() []string {
	seen := map[string]bool{}
	for k := range m.iso {
		seen[k.GPU] = true
	}
	return slices.Sorted(maps.Keys(seen))
}

// Merge copies every figure of o into m; o's figures win on conflicts.
func (m *Matrix) Merge(o *Matrix) {
	for k, f := range o.iso {
		m.iso[k] = f
	}
	for k, p := range o.pair {
		m.pair[k] = p
	}
}

// Len is the number of isolated figures.
func (m *Matrix) Len() int { return len(m.iso) }

func keyLess(a, b Key) bool {
	if a.Job != b.Job {
		return a.Job < b.Job
	}
	if a.GPU != b.GPU {
		return a.GPU < b.GPU
	}
	if a.Gang != b.Gang {
		return a.Gang < b.Gang
	}
	return a.Placement < b.Placement
}
