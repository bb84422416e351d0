package calibrate

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
)

// ErrNoNVML is the sentinel for "NVML cannot be used here": no driver, the
// library missing, or a build without cgo. Errors that wrap it say which
// library was looked for; the CLI exits with status 2 on them.
var ErrNoNVML = errors.New("NVML unavailable")

// System is what NVML says about the machine and its GPUs.
type System struct {
	DriverVersion string   `json:"driver_version"`
	CUDAVersion   string   `json:"cuda_version"` // the driver's CUDA version, e.g. "12.4"
	NVMLVersion   string   `json:"nvml_version"`
	Library       string   `json:"library"` // the NVML library that was loaded
	Devices       []Device `json:"devices"`
}

// Device describes one GPU as NVML reports it. A field NVML could not
// report is left zero and named in Notes with the reason.
type Device struct {
	Index             int      `json:"index"`
	UUID              string   `json:"uuid"`
	Name              string   `json:"name"`
	Architecture      string   `json:"architecture,omitempty"`
	ComputeCapability string   `json:"compute_capability,omitempty"`
	MemoryBytes       uint64   `json:"memory_bytes"`
	SMCount           int      `json:"sm_count,omitempty"`
	SMCountFrom       string   `json:"sm_count_from,omitempty"` // "attributes" or "cores/<cores per SM>"
	MaxSMClockMHz     uint32   `json:"max_sm_clock_mhz,omitempty"`
	MaxMemClockMHz    uint32   `json:"max_mem_clock_mhz,omitempty"`
	PowerLimitW       float64  `json:"power_limit_w,omitempty"`
	PCIeMaxGen        int      `json:"pcie_max_gen,omitempty"`
	PCIeMaxWidth      int      `json:"pcie_max_width,omitempty"`
	PCIeGen           int      `json:"pcie_gen,omitempty"` // current link
	PCIeWidth         int      `json:"pcie_width,omitempty"`
	MIG               string   `json:"mig"` // "enabled", "disabled", "unsupported", or "enabled (pending: disabled)"
	Notes             []string `json:"notes,omitempty"`
}

// Sample is one telemetry reading of one GPU. Fields NVML does not support
// on the device stay zero (Supported says which were read).
type Sample struct {
	AtNanos      int64   `json:"t_ns"` // since the sampler started
	Index        int     `json:"index"`
	UtilGPU      uint32  `json:"util_gpu_pct"`
	UtilMem      uint32  `json:"util_mem_pct"`
	MemUsedBytes uint64  `json:"mem_used_bytes"`
	PowerW       float64 `json:"power_w"`
	SMClockMHz   uint32  `json:"sm_clock_mhz"`
	TempC        uint32  `json:"temp_c"`
	Throttle     uint64  `json:"throttle"`  // NVML clocks event reasons bitmask
	EnergyMJ     uint64  `json:"energy_mj"` // total energy since the driver loaded, millijoules
	Supported    Fields  `json:"supported"`
}

// Fields is a set of Sample fields, as bits.
type Fields uint16

// The Sample fields a probe may or may not support on a device.
const (
	FieldUtil Fields = 1 << iota
	FieldMemUsed
	FieldPower
	FieldSMClock
	FieldTemp
	FieldThrottle
	FieldEnergy
)

// Probe discovers GPUs and reads their telemetry. calibrate/nvmlprobe
// implements it over NVML; tests use fakes.
type Probe interface {
	// System describes the driver and every GPU.
	System() (System, error)
	// Sample fills s with a reading of the GPU at NVML index idx. It must
	// not allocate: the sampler calls it 10 times a second per GPU.
	Sample(idx int, s *Sample) error
	// Close releases NVML.
	Close() error
}

// Throttle reason bits of NVML's clocks event reasons (nvml.h,
// nvmlClocksEventReason*; formerly nvmlClocksThrottleReason*).
const (
	ThrottleGpuIdle              = 0x1
	ThrottleApplicationsClocks   = 0x2
	ThrottleSwPowerCap           = 0x4
	ThrottleHwSlowdown           = 0x8
	ThrottleSyncBoost            = 0x10
	ThrottleSwThermalSlowdown    = 0x20
	ThrottleHwThermalSlowdown    = 0x40
	ThrottleHwPowerBrakeSlowdown = 0x80
	ThrottleDisplayClockSetting  = 0x100
)

// throttleNames names the reasons that lower the clocks under load. GPU idle,
// the applications clocks setting and the display clock setting are not
// throttling and are left out of reports.
var throttleNames = []struct {
	bit  uint64
	name string
}{
	{ThrottleSwPowerCap, "sw_power_cap"},
	{ThrottleHwSlowdown, "hw_slowdown"},
	{ThrottleSyncBoost, "sync_boost"},
	{ThrottleSwThermalSlowdown, "sw_thermal_slowdown"},
	{ThrottleHwThermalSlowdown, "hw_thermal_slowdown"},
	{ThrottleHwPowerBrakeSlowdown, "hw_power_brake_slowdown"},
}

// ThrottleReasons names the throttling reasons set in mask.
func ThrottleReasons(mask uint64) []string {
	var out []string
	for _, t := range throttleNames {
		if mask&t.bit != 0 {
			out = append(out, t.name)
		}
	}
	return out
}

// cpuName is the host CPU's model name (from /proc/cpuinfo on Linux), for
// the provenance of runs on the CPU.
func cpuName() string {
	f, err := os.Open("/proc/cpuinfo")
	if err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			k, v, ok := strings.Cut(sc.Text(), ":")
			if ok && strings.TrimSpace(k) == "model name" {
				return fmt.Sprintf("%s (%d logical CPUs)", strings.TrimSpace(v), runtime.NumCPU())
			}
		}
	}
	return fmt.Sprintf("%s/%s CPU (%d logical CPUs)", runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
}
