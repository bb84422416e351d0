//go:build cgo && linux

package nvmlprobe

import (
	"fmt"

	"github.com/NVIDIA/go-nvml/pkg/dl"
	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"fairbench/calibrate"
)

// Built reports whether this build can use NVML (it needs cgo on Linux).
const Built = true

// Probe reads GPUs through NVML. It implements calibrate.Probe.
type Probe struct {
	lib     nvml.Interface
	library string
	devs    []nvml.Device // handles by NVML index
	// unsupported are the Sample fields NVML answered NOT_SUPPORTED for,
	// per device: they are not asked again.
	unsupported []calibrate.Fields
	// oldThrottle: the driver lacks nvmlDeviceGetCurrentClocksEventReasons
	// (drivers before 535); use the older ...ClocksThrottleReasons.
	oldThrottle []bool
}

var _ calibrate.Probe = (*Probe)(nil)

// Open loads the NVML library at path (DefaultLibrary when "") and
// initialises it. Without a driver it returns an error wrapping
// calibrate.ErrNoNVML that names the library and dlopen's reason; it never
// panics.
func Open(path string) (calibrate.Probe, error) {
	if path == "" {
		path = DefaultLibrary
	}
	// go-nvml's Init reports a library that will not load only as
	// ERROR_LIBRARY_NOT_FOUND; open it once here to keep dlopen's reason.
	h := dl.New(path, dl.RTLD_LAZY|dl.RTLD_GLOBAL)
	if err := h.Open(); err != nil {
		return nil, fmt.Errorf("calibrate: %w: cannot load %s, the NVIDIA driver's management library (%v); is the NVIDIA driver installed? Without a GPU there is nothing to calibrate",
			calibrate.ErrNoNVML, path, err)
	}
	defer h.Close()
	return New(nvml.New(nvml.WithLibraryPath(path)), path)
}

// New initialises lib (the real library or go-nvml's mock) and looks up
// every device's handle. library names it in errors and in System.
func New(lib nvml.Interface, library string) (p *Probe, err error) {
	defer recoverTo(&err, "nvmlInit")
	if ret := lib.Init(); ret != nvml.SUCCESS {
		return nil, fmt.Errorf("calibrate: %w: %s: nvmlInit: %s", calibrate.ErrNoNVML, library, errString(ret))
	}
	n, ret := lib.DeviceGetCount()
	if ret != nvml.SUCCESS {
		lib.Shutdown()
		return nil, fmt.Errorf("calibrate: %s: nvmlDeviceGetCount: %s", library, errString(ret))
	}
	p = &Probe{lib: lib, library: library, devs: make([]nvml.Device, n),
		unsupported: make([]calibrate.Fields, n), oldThrottle: make([]bool, n)}
	for i := range p.devs {
		d, ret := lib.DeviceGetHandleByIndex(i)
		if ret != nvml.SUCCESS {
			lib.Shutdown()
			return nil, fmt.Errorf("calibrate: %s: GPU %d: nvmlDeviceGetHandleByIndex: %s", library, i, errString(ret))
		}
		p.devs[i] = d
	}
	return p, nil
}

// Close shuts NVML down.
func (p *Probe) Close() (err error) {
	defer recoverTo(&err, "nvmlShutdown")
	if ret := p.lib.Shutdown(); ret != nvml.SUCCESS {
		return fmt.Errorf("calibrate: %s: nvmlShutdown: %s", p.library, errString(ret))
	}
	return nil
}

// System describes the driver and every GPU. A property NVML cannot report
// on a device is left zero and named in the device's Notes.
func (p *Probe) System() (sys calibrate.System, err error) {
	defer recoverTo(&err, "system query")
	sys.Library = p.library
	var notes []string
	if v, ret := p.lib.SystemGetDriverVersion(); ret == nvml.SUCCESS {
		sys.DriverVersion = v
	} else {
		return sys, fmt.Errorf("calibrate: %s: driver version: %s", p.library, errString(ret))
	}
	if v, ret := p.lib.SystemGetCudaDriverVersion(); ret == nvml.SUCCESS {
		sys.CUDAVersion = fmt.Sprintf("%d.%d", v/1000, v%1000/10) // 12040 → 12.4 (nvml.h NVML_CUDA_DRIVER_VERSION_MAJOR/MINOR)
	} else {
		notes = append(notes, "CUDA version: "+errString(ret))
	}
	if v, ret := p.lib.SystemGetNVMLVersion(); ret == nvml.SUCCESS {
		sys.NVMLVersion = v
	}
	for i, d := range p.devs {
		dev := describe(i, d)
		dev.Notes = append(dev.Notes, notes...)
		sys.Devices = append(sys.Devices, dev)
	}
	return sys, nil
}

// coresPerSM is the CUDA cores of one SM by architecture (NVIDIA's
// architecture whitepapers), for drivers that report the core count but
// not the SM count. Ampere GA100 (A100) has 64, GA10x (A10, RTX 30) 128;
// they are told apart by compute capability 8.0 versus 8.6/8.7.
func coresPerSM(arch nvml.DeviceArchitecture, major, minor int) int {
	switch arch {
	case nvml.DEVICE_ARCH_KEPLER:
		return 192
	case nvml.DEVICE_ARCH_MAXWELL:
		return 128
	case nvml.DEVICE_ARCH_PASCAL:
		if major == 6 && minor == 0 { // GP100
			return 64
		}
		return 128
	case nvml.DEVICE_ARCH_VOLTA, nvml.DEVICE_ARCH_TURING:
		return 64
	case nvml.DEVICE_ARCH_AMPERE:
		if major == 8 && minor == 0 {
			return 64
		}
		return 128
	case nvml.DEVICE_ARCH_ADA, nvml.DEVICE_ARCH_HOPPER, nvml.DEVICE_ARCH_BLACKWELL:
		return 128
	}
	return 0
}

var archNames = map[nvml.DeviceArchitecture]string{
	nvml.DEVICE_ARCH_KEPLER: "Kepler", nvml.DEVICE_ARCH_MAXWELL: "Maxwell", nvml.DEVICE_ARCH_PASCAL: "Pascal",
	nvml.DEVICE_ARCH_VOLTA: "Volta", nvml.DEVICE_ARCH_TURING: "Turing", nvml.DEVICE_ARCH_AMPERE: "Ampere",
	nvml.DEVICE_ARCH_ADA: "Ada", nvml.DEVICE_ARCH_HOPPER: "Hopper", nvml.DEVICE_ARCH_BLACKWELL: "Blackwell",
}

// describe reads one device's static properties.
func describe(i int, d nvml.Device) calibrate.Device {
	dev := calibrate.Device{Index: i}
	note := func(what string, ret nvml.Return) {
		dev.Notes = append(dev.Notes, what+": "+errString(ret))
	}
	var ret nvml.Return
	if ret = try(func() (r nvml.Return) { dev.UUID, r = d.GetUUID(); return }); ret != nvml.SUCCESS {
		note("UUID", ret)
	}
	if ret = try(func() (r nvml.Return) { dev.Name, r = d.GetName(); return }); ret != nvml.SUCCESS {
		note("name", ret)
	}
	if ret = try(func() nvml.Return { m, r := d.GetMemoryInfo(); dev.MemoryBytes = m.Total; return r }); ret != nvml.SUCCESS {
		note("memory", ret)
	}
	var arch nvml.DeviceArchitecture
	if ret = try(func() (r nvml.Return) { arch, r = d.GetArchitecture(); return }); ret == nvml.SUCCESS {
		dev.Architecture = archNames[arch]
	} else {
		note("architecture", ret)
	}
	var major, minor int
	if ret = try(func() (r nvml.Return) { major, minor, r = d.GetCudaComputeCapability(); return }); ret == nvml.SUCCESS {
		dev.ComputeCapability = fmt.Sprintf("%d.%d", major, minor)
	} else {
		note("compute capability", ret)
	}
	var attrs nvml.DeviceAttributes
	if ret = try(func() (r nvml.Return) { attrs, r = d.GetAttributes(); return }); ret == nvml.SUCCESS && attrs.MultiprocessorCount > 0 {
		dev.SMCount, dev.SMCountFrom = int(attrs.MultiprocessorCount), "attributes"
	} else {
		var cores int
		cret := try(func() (r nvml.Return) { cores, r = d.GetNumGpuCores(); return })
		if per := coresPerSM(arch, major, minor); cret == nvml.SUCCESS && per > 0 && cores > 0 {
			dev.SMCount, dev.SMCountFrom = cores/per, fmt.Sprintf("cores/%d", per)
		} else {
			note("SM count", ret)
		}
	}
	if ret = try(func() (r nvml.Return) { dev.MaxSMClockMHz, r = d.GetMaxClockInfo(nvml.CLOCK_SM); return }); ret != nvml.SUCCESS {
		note("max SM clock", ret)
	}
	if ret = try(func() (r nvml.Return) { dev.MaxMemClockMHz, r = d.GetMaxClockInfo(nvml.CLOCK_MEM); return }); ret != nvml.SUCCESS {
		note("max memory clock", ret)
	}
	var mw uint32
	if ret = try(func() (r nvml.Return) { mw, r = d.GetPowerManagementLimit(); return }); ret == nvml.SUCCESS {
		dev.PowerLimitW = float64(mw) / 1000
	} else {
		note("power limit", ret)
	}
	if ret = try(func() (r nvml.Return) { dev.PCIeMaxGen, r = d.GetMaxPcieLinkGeneration(); return }); ret != nvml.SUCCESS {
		note("PCIe max generation", ret)
	}
	if ret = try(func() (r nvml.Return) { dev.PCIeMaxWidth, r = d.GetMaxPcieLinkWidth(); return }); ret != nvml.SUCCESS {
		note("PCIe max width", ret)
	}
	if ret = try(func() (r nvml.Return) { dev.PCIeGen, r = d.GetCurrPcieLinkGeneration(); return }); ret != nvml.SUCCESS {
		note("PCIe generation", ret)
	}
	if ret = try(func() (r nvml.Return) { dev.PCIeWidth, r = d.GetCurrPcieLinkWidth(); return }); ret != nvml.SUCCESS {
		note("PCIe width", ret)
	}
	var cur, pend int
	switch ret = try(func() (r nvml.Return) { cur, pend, r = d.GetMigMode(); return }); ret {
	case nvml.SUCCESS:
		dev.MIG = migName(cur)
		if pend != cur {
			dev.MIG += " (pending: " + migName(pend) + ")"
		}
	case nvml.ERROR_NOT_SUPPORTED:
		dev.MIG = "unsupported"
	default:
		dev.MIG = "unknown"
		note("MIG mode", ret)
	}
	return dev
}

func migName(mode int) string {
	if mode == nvml.DEVICE_MIG_ENABLE {
		return "enabled"
	}
	return "disabled"
}

// Sample reads the telemetry of GPU idx. Fields the device does not support
// are skipped from then on; other failures leave the field unset for this
// reading. It does not allocate.
func (p *Probe) Sample(idx int, s *calibrate.Sample) (err error) {
	defer recoverTo(&err, "sample")
	if idx < 0 || idx >= len(p.devs) {
		return fmt.Errorf("calibrate: no GPU with NVML index %d", idx)
	}
	d, skip := p.devs[idx], p.unsupported[idx]
	var bad calibrate.Fields
	mark := func(f calibrate.Fields, ret nvml.Return) {
		switch ret {
		case nvml.SUCCESS:
			s.Supported |= f
		case nvml.ERROR_NOT_SUPPORTED, nvml.ERROR_FUNCTION_NOT_FOUND:
			bad |= f
		}
	}
	if skip&calibrate.FieldUtil == 0 {
		u, ret := d.GetUtilizationRates()
		s.UtilGPU, s.UtilMem = u.Gpu, u.Memory
		mark(calibrate.FieldUtil, ret)
	}
	if skip&calibrate.FieldMemUsed == 0 {
		m, ret := d.GetMemoryInfo()
		s.MemUsedBytes = m.Used
		mark(calibrate.FieldMemUsed, ret)
	}
	if skip&calibrate.FieldPower == 0 {
		mw, ret := d.GetPowerUsage()
		s.PowerW = float64(mw) / 1000
		mark(calibrate.FieldPower, ret)
	}
	if skip&calibrate.FieldSMClock == 0 {
		c, ret := d.GetClockInfo(nvml.CLOCK_SM)
		s.SMClockMHz = c
		mark(calibrate.FieldSMClock, ret)
	}
	if skip&calibrate.FieldTemp == 0 {
		c, ret := d.GetTemperature(nvml.TEMPERATURE_GPU)
		s.TempC = c
		mark(calibrate.FieldTemp, ret)
	}
	if skip&calibrate.FieldThrottle == 0 {
		var mask uint64
		var ret nvml.Return
		if !p.oldThrottle[idx] {
			mask, ret = d.GetCurrentClocksEventReasons()
			if ret == nvml.ERROR_FUNCTION_NOT_FOUND {
				p.oldThrottle[idx] = true
			}
		}
		if p.oldThrottle[idx] {
			mask, ret = d.GetCurrentClocksThrottleReasons()
		}
		s.Throttle = mask
		mark(calibrate.FieldThrottle, ret)
	}
	if skip&calibrate.FieldEnergy == 0 {
		e, ret := d.GetTotalEnergyConsumption()
		s.EnergyMJ = e
		mark(calibrate.FieldEnergy, ret)
	}
	p.unsupported[idx] |= bad
	return nil
}

// try calls f, turning a panic (a mock without that function, a broken
// library) into ERROR_FUNCTION_NOT_FOUND.
func try(f func() nvml.Return) (ret nvml.Return) {
	defer func() {
		if recover() != nil {
			ret = nvml.ERROR_FUNCTION_NOT_FOUND
		}
	}()
	return f()
}

// recoverTo turns a panic inside NVML into an error.
func recoverTo(err *error, what string) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("calibrate: NVML %s failed: %v", what, r)
	}
}

// errString is NVML's description of ret, with its code.
func errString(ret nvml.Return) string {
	return fmt.Sprintf("%s (NVML return %d)", ret.Error(), int32(ret))
}
