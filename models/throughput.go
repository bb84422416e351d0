package models

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
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

// NewMatrixSize returns an empty matrix with room for iso isolated and
// pairs co-location figures.
func NewMatrixSize(iso, pairs int) *Matrix {
	return &Matrix{iso: make(map[Key]Figure, iso), pair: make(map[PairKey][2]float64, pairs)}
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
	slices.SortFunc(keys, keyCompare)
	return keys
}

// PairKeys lists every co-location key in a stable order.
func (m *Matrix) PairKeys() []PairKey {
	keys := make([]PairKey, 0, len(m.pair))
	for k := range m.pair {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b PairKey) int {
		if c := keyCompare(a.Key, b.Key); c != 0 {
			return c
		}
		return strings.Compare(a.Other, b.Other)
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

// Fill adds o's figures for the keys m has none for, so that m holds what
// o.Clone() would hold with m merged over it.
func (m *Matrix) Fill(o *Matrix) {
	for k, f := range o.iso {
		if _, ok := m.iso[k]; !ok {
			m.iso[k] = f
		}
	}
	for k, p := range o.pair {
		if _, ok := m.pair[k]; !ok {
			m.pair[k] = p
		}
	}
}

// Clone returns a copy of m, which later changes to either leave the other
// alone.
func (m *Matrix) Clone() *Matrix {
	c := &Matrix{iso: maps.Clone(m.iso), pair: maps.Clone(m.pair)}
	if c.iso == nil {
		c.iso = map[Key]Figure{}
	}
	if c.pair == nil {
		c.pair = map[PairKey][2]float64{}
	}
	return c
}

// Len is the number of isolated figures.
func (m *Matrix) Len() int { return len(m.iso) }

// keyCompare orders keys by job type, GPU type, gang, then placement.
func keyCompare(a, b Key) int {
	if c := strings.Compare(a.Job, b.Job); c != 0 {
		return c
	}
	if c := strings.Compare(a.GPU, b.GPU); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Gang, b.Gang); c != 0 {
		return c
	}
	return cmp.Compare(a.Placement, b.Placement)
}
