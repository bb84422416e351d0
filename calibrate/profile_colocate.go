package calibrate

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Co-location modes: how the two workloads of a pair share their GPUs.
const (
	// ModeTimeSlice runs both as ordinary processes on the same GPUs: the
	// driver time-slices their kernels (on the CPU: both on the same cores).
	ModeTimeSlice = "timeslice"
	// ModeMPS runs both as clients of an NVIDIA Multi-Process Service
	// daemon that fairbench starts for the pair: their kernels run at the
	// same time on different SMs.
	ModeMPS = "mps"
)

// ColocateSpec is the profile's `colocate:` section: pairs of workloads run
// at the same time on the same device(s), each measured alone and paired
// (calibrate colocate). On every device of the profile, each pair runs at
// each gang size in each mode: both workloads are data-parallel gangs of g
// workers on the same g GPUs.
type ColocateSpec struct {
	Pairs []PairSpec `yaml:"pairs" json:"pairs"`
	// GangSizes to pair at. Default: 1, 2, 4 and 8 where the device has
	// that many GPUs (1 on the CPU); sizes given must fit every device.
	GangSizes []int `yaml:"gang_sizes" json:"gang_sizes,omitempty"`
	// Modes: timeslice (default) and mps (GPU devices only; skipped on
	// the CPU).
	Modes []string `yaml:"modes" json:"modes,omitempty"`
}

// PairSpec is two workloads that share GPUs.
type PairSpec struct {
	A WorkloadRef `yaml:"a" json:"a"`
	B WorkloadRef `yaml:"b" json:"b"`
}

// WorkloadRef is one workload of a pair: a model at one batch size per
// worker, as in models.
type WorkloadRef struct {
	Model     string         `yaml:"model" json:"model"`
	JobType   string         `yaml:"job_type" json:"job_type,omitempty"`
	BatchSize int            `yaml:"batch_size" json:"batch_size"`
	AMP       bool           `yaml:"amp" json:"amp,omitempty"`
	Args      map[string]int `yaml:"args" json:"args,omitempty"`
}

// PairEntrySpec is one co-location measurement: two workloads at one gang
// size on one device, in one mode.
type PairEntrySpec struct {
	Device DeviceSpec
	A, B   EntrySpec // their alone measurements
	Gang   int
	Mode   string

	deviceIndex, pairIndex int
}

func (p PairEntrySpec) String() string {
	return fmt.Sprintf("%s beside %s on %s ×%d (%s)", p.A.JobType(), p.B.JobType(), p.Device.Device, p.Gang, p.Mode)
}

func (s *Spec) fillColocate() error {
	c := s.Colocate
	if c == nil {
		return nil
	}
	if len(c.Pairs) == 0 {
		return s.errf("colocate.pairs", "required: at least one {a: {model, batch_size}, b: {model, batch_size}}")
	}
	if len(c.Pairs) > maxPairs {
		return s.errf("colocate.pairs", "at most %d, got %d", maxPairs, len(c.Pairs))
	}
	for i := range c.Pairs {
		for _, side := range []struct {
			name string
			w    *WorkloadRef
		}{{"a", &c.Pairs[i].A}, {"b", &c.Pairs[i].B}} {
			f := fmt.Sprintf("colocate.pairs[%d].%s", i, side.name)
			w := side.w
			if err := s.fillWorkload(f, &w.Model, &w.JobType, w.AMP, w.Args); err != nil {
				return err
			}
			if w.BatchSize < 1 || w.BatchSize > maxBatchSize {
				return s.errf(f+".batch_size", "required: 1..%d, got %d", maxBatchSize, w.BatchSize)
			}
		}
	}
	if len(c.Modes) == 0 {
		c.Modes = []string{ModeTimeSlice}
	}
	seen := map[string]bool{}
	gpu := false
	for _, d := range s.Devices {
		gpu = gpu || d.Device != "cpu"
	}
	for i, m := range c.Modes {
		if m != ModeTimeSlice && m != ModeMPS {
			return s.errf(fmt.Sprintf("colocate.modes[%d]", i), "want %s or %s, got %q", ModeTimeSlice, ModeMPS, m)
		}
		if seen[m] {
			return s.errf(fmt.Sprintf("colocate.modes[%d]", i), "%s appears twice", m)
		}
		if m == ModeMPS && !gpu {
			return s.errf(fmt.Sprintf("colocate.modes[%d]", i), "mps needs a GPU device")
		}
		seen[m] = true
	}
	if len(c.GangSizes) > 0 {
		if err := sizes(c.GangSizes, maxGang); err != nil {
			return s.errf("colocate.gang_sizes", "%v", err)
		}
		for di, d := range s.Devices {
			for _, g := range c.GangSizes {
				if d.Device != "cpu" && g > len(d.GPUs) {
					return s.errf("colocate.gang_sizes", "gang %d needs %d GPUs, but devices[%d] lists %d", g, g, di, len(d.GPUs))
				}
			}
		}
	}
	if n := len(s.PairEntries()); n > maxEntries {
		return s.errf("colocate", "%d pair measurements: at most %d", n, maxEntries)
	}
	return nil
}

// pairGangs are the gang sizes pairs run at on a device.
func (c *ColocateSpec) pairGangs(d DeviceSpec) []int {
	if len(c.GangSizes) > 0 {
		return c.GangSizes
	}
	if d.Device == "cpu" {
		return []int{1}
	}
	var out []int
	for _, g := range []int{1, 2, 4, 8} {
		if g <= len(d.GPUs) {
			out = append(out, g)
		}
	}
	return out
}

// entryOf is a pair member as an entry of device di at gang g.
func (s *Spec) entryOf(di int, w WorkloadRef, g int) EntrySpec {
	m := ModelSpec{Model: w.Model, JobType: w.JobType, BatchSizes: []int{w.BatchSize}, GangSizes: []int{g}, AMP: w.AMP, Args: w.Args}
	return EntrySpec{Device: s.Devices[di], Model: m, BatchSize: w.BatchSize, Gang: g, deviceIndex: di, modelIndex: -1}
}

// PairEntries lists the co-location measurements in order: device, pair,
// gang, mode. MPS is skipped on the CPU.
func (s *Spec) PairEntries() []PairEntrySpec {
	c := s.Colocate
	if c == nil {
		return nil
	}
	var out []PairEntrySpec
	for di, d := range s.Devices {
		for pi, p := range c.Pairs {
			for _, g := range c.pairGangs(d) {
				for _, mode := range c.Modes {
					if mode == ModeMPS && d.Device == "cpu" {
						continue
					}
					out = append(out, PairEntrySpec{Device: d, A: s.entryOf(di, p.A, g), B: s.entryOf(di, p.B, g),
						Gang: g, Mode: mode, deviceIndex: di, pairIndex: pi})
				}
			}
		}
	}
	return out
}

// id identifies what an entry measures: the same id is the same
// measurement.
func (e EntrySpec) id() string {
	var args []string
	for _, k := range slices.Sorted(maps.Keys(e.Model.Args)) {
		args = append(args, fmt.Sprintf("%s=%d", k, e.Model.Args[k]))
	}
	return fmt.Sprintf("%d\x00%s\x00%s\x00%v\x00%s\x00%d\x00%d", e.deviceIndex, e.Model.Model, e.Model.JobType, e.Model.AMP,
		strings.Join(args, ","), e.BatchSize, e.Gang)
}

// AllEntries lists every isolated measurement the profile needs: Entries
// (the models section), then the alone measurements of the pairs'
// workloads that Entries lacks, in pair order.
func (s *Spec) AllEntries() []EntrySpec {
	out := s.Entries()
	seen := map[string]bool{}
	for _, e := range out {
		seen[e.id()] = true
	}
	for _, e := range s.pairAloneEntries() {
		if !seen[e.id()] {
			seen[e.id()] = true
			out = append(out, e)
		}
	}
	return out
}

// pairAloneEntries lists the distinct alone measurements the pairs need, in
// pair order.
func (s *Spec) pairAloneEntries() []EntrySpec {
	var out []EntrySpec
	seen := map[string]bool{}
	for _, p := range s.PairEntries() {
		for _, e := range []EntrySpec{p.A, p.B} {
			if !seen[e.id()] {
				seen[e.id()] = true
				out = append(out, e)
			}
		}
	}
	return out
}
