package models

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
)

// GPUType describes one generation or SKU of accelerator.
type GPUType struct {
	// Name is the canonical name, e.g. "V100" or "A100-80GB".
	Name string `json:"name" yaml:"name"`
	// MemoryGB is the device memory in GiB.
	MemoryGB float64 `json:"memory_gb" yaml:"memory_gb"`
	// Rank orders types by generation: a higher rank is a newer type. Policies
	// that need "the highest-ranked type" (Gandiva_fair profiling) use it.
	Rank int `json:"rank" yaml:"rank"`
	// Source cites where the memory figure comes from.
	Source string `json:"source,omitempty" yaml:"source,omitempty"`
}

// Validate reports whether t is usable.
func (t GPUType) Validate() error {
	if t.Name == "" {
		return errors.New("gpu type: name is empty")
	}
	if err := positive("memory_gb", t.MemoryGB); err != nil {
		return fmt.Errorf("gpu type %q: %w", t.Name, err)
	}
	if err := CheckMemory("memory_gb", t.MemoryGB); err != nil {
		return fmt.Errorf("gpu type %q: %w", t.Name, err)
	}
	return nil
}

// Server is one machine holding GPUs of a single type.
type Server struct {
	// Type is the GPU type name of every GPU in the server.
	Type string `json:"type" yaml:"type"`
	// GPUs is the number of GPUs in the server.
	GPUs int `json:"gpus" yaml:"gpus"`
}

// Cluster is a set of servers and the GPU types they use. GPUs are numbered
// 0..TotalGPUs()-1, server by server in the order of Servers; use FirstGPU and
// ServerOf to move between the two views.
type Cluster struct {
	Types   []GPUType `json:"types" yaml:"types"`
	Servers []Server  `json:"servers" yaml:"servers"`

	// Lookup tables built by index(); a Cluster is read-only once indexed
	// and must then not be changed.
	first   []int          // first GPU index of each server
	server  []int          // server of each GPU
	gtype   []int          // index in TypeNames of each GPU's type
	capac   map[string]int // GPUs per type
	maxSrv  map[string]int // largest server per type
	ordered []string       // TypeNames
	byName  map[string]int // index into Types
}

// NewCluster validates the description and returns an indexed cluster.
func NewCluster(types []GPUType, servers []Server) (*Cluster, error) {
	c := &Cluster{Types: append([]GPUType(nil), types...), Servers: append([]Server(nil), servers...)}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	c.index()
	return c, nil
}

// Validate checks that every server uses a known type and holds at least one
// GPU, that type names are unique, and that the cluster has at least one GPU,
// and at most MaxServers servers, MaxGPUsPerServer GPUs per server and
// MaxGPUs GPUs.
func (c *Cluster) Validate() error {
	if len(c.Servers) == 0 {
		return errors.New("cluster: no servers")
	}
	if len(c.Servers) > MaxServers {
		return fmt.Errorf("cluster: %d servers, more than the limit of %d", len(c.Servers), MaxServers)
	}
	seen := map[string]bool{}
	for i, t := range c.Types {
		if err := t.Validate(); err != nil {
			return fmt.Errorf("cluster: types[%d]: %w", i, err)
		}
		if seen[t.Name] {
			return fmt.Errorf("cluster: types[%d]: duplicate gpu type %q", i, t.Name)
		}
		seen[t.Name] = true
	}
	total := 0
	for i, s := range c.Servers {
		if !seen[s.Type] {
			return fmt.Errorf("cluster: servers[%d]: unknown gpu type %q", i, s.Type)
		}
		if s.GPUs <= 0 || s.GPUs > MaxGPUsPerServer {
			return fmt.Errorf("cluster: servers[%d]: gpus must be between 1 and %d, got %d", i, MaxGPUsPerServer, s.GPUs)
		}
		if total += s.GPUs; total > MaxGPUs {
			return fmt.Errorf("cluster: servers[%d]: the cluster has more than %d GPUs, the limit", i, MaxGPUs)
		}
	}
	return nil
}

// index builds the lookup tables once (kept small so that the accessors
// below inline it).
func (c *Cluster) index() {
	if c.first == nil {
		c.build()
	}
}

func (c *Cluster) build() {
	c.first = make([]int, len(c.Servers)+1)
	for i, s := range c.Servers {
		c.first[i+1] = c.first[i] + s.GPUs
	}
	c.server = make([]int, c.first[len(c.Servers)])
	c.capac = map[string]int{}
	c.maxSrv = map[string]int{}
	for i, s := range c.Servers {
		for g := c.first[i]; g < c.first[i+1]; g++ {
			c.server[g] = i
		}
		c.capac[s.Type] += s.GPUs
		c.maxSrv[s.Type] = max(c.maxSrv[s.Type], s.GPUs)
	}
	rank := map[string]int{}
	c.byName = map[string]int{}
	for i, t := range c.Types {
		c.byName[t.Name] = i
		rank[t.Name] = t.Rank
		if c.capac[t.Name] > 0 {
			c.ordered = append(c.ordered, t.Name)
		}
	}
	sort.SliceStable(c.ordered, func(i, j int) bool {
		a, b := c.ordered[i], c.ordered[j]
		if rank[a] != rank[b] {
			return rank[a] > rank[b]
		}
		return a < b
	})
	c.gtype = make([]int, len(c.server))
	for g, i := range c.server {
		c.gtype[g] = slices.Index(c.ordered, c.Servers[i].Type)
	}
}

// TotalGPUs is the number of GPUs in the cluster.
func (c *Cluster) TotalGPUs() int { c.index(); return c.first[len(c.Servers)] }

// FirstGPU is the index of server s's first GPU.
func (c *Cluster) FirstGPU(s int) int { c.index(); return c.first[s] }

// ServerOf is the server holding GPU g.
func (c *Cluster) ServerOf(g int) int { c.index(); return c.server[g] }

// TypeOfGPU is the type name of GPU g.
func (c *Cluster) TypeOfGPU(g int) string { return c.Servers[c.ServerOf(g)].Type }

// TypeIndexOfGPU is the index in TypeNames() of GPU g's type.
func (c *Cluster) TypeIndexOfGPU(g int) int { c.index(); return c.gtype[g] }

// Type returns the GPU type with the given name.
func (c *Cluster) Type(name string) (GPUType, bool) {
	c.index()
	i, ok := c.byName[name]
	if !ok {
		return GPUType{}, false
	}
	return c.Types[i], true
}

// Capacity is the number of GPUs of the named type.
func (c *Cluster) Capacity(typ string) int { c.index(); return c.capac[typ] }

// MaxServerGPUs is the largest server of the named type (0 when none).
func (c *Cluster) MaxServerGPUs(typ string) int { c.index(); return c.maxSrv[typ] }

// TypeIndex is the index of the named type in TypeNames(), −1 when it is
// not there. Names that differ in length or first byte are told apart
// without comparing them whole (it runs for every job of every decision).
func (c *Cluster) TypeIndex(name string) int {
	for i, t := range c.TypeNames() {
		if len(t) == len(name) && (len(t) == 0 || t[0] == name[0]) && t == name {
			return i
		}
	}
	return -1
}

// TypeNames lists the types that have at least one server, newest generation
// first (descending Rank, then name), so iteration order never depends on a
// map. The caller must not modify the returned slice.
func (c *Cluster) TypeNames() []string { c.index(); return c.ordered }

// positive checks that v is a finite number greater than zero.
func positive(field string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%s: must be a finite number, got %v", field, v)
	}
	if v <= 0 {
		return fmt.Errorf("%s: must be positive, got %v", field, v)
	}
	return nil
}

// nonNegative checks that v is a finite number of at least zero.
func nonNegative(field string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%s: must be a finite number, got %v", field, v)
	}
	if v < 0 {
		return fmt.Errorf("%s: must not be negative, got %v", field, v)
	}
	return nil
}
