//go:build cgo && linux

package nvmlprobe

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxa100"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxh200"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"

	"fairbench/calibrate"
	"fairbench/calibrate/nvmlprobe/nvmlmock"
)

func TestSystemFromMock(t *testing.T) {
	p, err := New(nvmlmock.H200(), "mock")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	sys, err := p.System()
	if err != nil {
		t.Fatal(err)
	}
	if sys.DriverVersion != "550.54.15" || sys.CUDAVersion != "12.4" || sys.NVMLVersion != "12.550.54.15" || len(sys.Devices) != 8 {
		t.Fatalf("system %+v", sys)
	}
	d := sys.Devices[3]
	if d.Index != 3 || !strings.HasPrefix(d.UUID, "GPU-") || d.Name != "NVIDIA H200 141GB HBM3e" || d.Architecture != "Hopper" ||
		d.ComputeCapability != "9.0" || d.SMCount != 132 || d.SMCountFrom != "attributes" || d.MaxSMClockMHz != 1980 ||
		d.MaxMemClockMHz != 3201 || d.PowerLimitW != 700 || d.PCIeMaxGen != 5 || d.PCIeWidth != 16 || d.MIG != "disabled" {
		t.Errorf("device %+v", d)
	}
	if len(d.Notes) != 0 {
		t.Errorf("notes %v", d.Notes)
	}
	typ, err := calibrate.CatalogueGPUType(d.Name, d.MemoryBytes)
	if err != nil || typ != "H200" {
		t.Errorf("catalogue type %q, %v", typ, err)
	}
}

// TestUnimplementedFunctionsAreNotes: the bare mock implements neither
// clocks nor power; System must report them as notes, not panic.
func TestUnimplementedFunctionsAreNotes(t *testing.T) {
	p, err := New(dgxa100.New(), "mock")
	if err != nil {
		t.Fatal(err)
	}
	sys, err := p.System()
	if err != nil {
		t.Fatal(err)
	}
	d := sys.Devices[0]
	if d.MaxSMClockMHz != 0 || d.SMCount != 0 || len(d.Notes) == 0 || !strings.Contains(strings.Join(d.Notes, "; "), "max SM clock") {
		t.Errorf("device %+v", d)
	}
	var s calibrate.Sample
	if err := p.Sample(0, &s); err == nil {
		t.Errorf("a panicking mock gave no error")
	}
	if typ, err := calibrate.CatalogueGPUType(d.Name, d.MemoryBytes); err != nil || typ != "A100-40GB" {
		t.Errorf("A100 40GB: %q %v", typ, err)
	}
}

func TestMIGAndSMFromCores(t *testing.T) {
	s := nvmlmock.WithTelemetry(dgxa100.New())
	dev := s.Devices[0].(*server.Device)
	dev.GetAttributesFunc = func() (nvml.DeviceAttributes, nvml.Return) {
		return nvml.DeviceAttributes{}, nvml.ERROR_NOT_SUPPORTED
	}
	dev.GetNumGpuCoresFunc = func() (int, nvml.Return) { return 6912, nvml.SUCCESS }
	if ret, _ := dev.SetMigMode(nvml.DEVICE_MIG_ENABLE); ret != nvml.SUCCESS {
		t.Fatal(ret)
	}
	p, err := New(s, "mock")
	if err != nil {
		t.Fatal(err)
	}
	sys, _ := p.System()
	d := sys.Devices[0]
	if d.SMCount != 108 || d.SMCountFrom != "cores/64" || d.MIG != "enabled" {
		t.Errorf("device %+v", d)
	}
}

func TestSampleFromMock(t *testing.T) {
	p, err := New(nvmlmock.H200(), "mock")
	if err != nil {
		t.Fatal(err)
	}
	var s calibrate.Sample
	if err := p.Sample(2, &s); err != nil {
		t.Fatal(err)
	}
	all := calibrate.FieldUtil | calibrate.FieldMemUsed | calibrate.FieldPower | calibrate.FieldSMClock |
		calibrate.FieldTemp | calibrate.FieldThrottle | calibrate.FieldEnergy
	if s.Supported != all || s.UtilGPU != 97 || s.MemUsedBytes != 12<<30 || s.PowerW != 650 || s.SMClockMHz != 1755 ||
		s.TempC != 71 || s.EnergyMJ != 123456789 {
		t.Errorf("sample %+v", s)
	}
	if r := calibrate.ThrottleReasons(s.Throttle); len(r) != 1 || r[0] != "sw_power_cap" {
		t.Errorf("throttle %v", r)
	}
	if err := p.Sample(8, &s); err == nil {
		t.Errorf("index 8 of 8 GPUs gave no error")
	}
}

// TestUnsupportedFieldIsNotAskedAgain: a pre-Volta GPU has no energy
// counter, and an old driver lacks the clocks-event-reasons call.
func TestUnsupportedFieldIsNotAskedAgain(t *testing.T) {
	s := nvmlmock.H200()
	dev := s.Devices[0].(*server.Device)
	dev.GetTotalEnergyConsumptionFunc = func() (uint64, nvml.Return) { return 0, nvml.ERROR_NOT_SUPPORTED }
	dev.GetCurrentClocksEventReasonsFunc = func() (uint64, nvml.Return) { return 0, nvml.ERROR_FUNCTION_NOT_FOUND }
	dev.GetCurrentClocksThrottleReasonsFunc = func() (uint64, nvml.Return) {
		return nvml.ClocksThrottleReasonHwThermalSlowdown, nvml.SUCCESS
	}
	p, err := New(s, "mock")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		var smp calibrate.Sample
		if err := p.Sample(0, &smp); err != nil {
			t.Fatal(err)
		}
		if smp.Supported&calibrate.FieldEnergy != 0 || smp.Supported&calibrate.FieldThrottle == 0 ||
			smp.Throttle != nvml.ClocksThrottleReasonHwThermalSlowdown {
			t.Errorf("reading %d: %+v", i, smp)
		}
	}
	if n := len(dev.GetTotalEnergyConsumptionCalls()); n != 1 {
		t.Errorf("energy asked %d times, want once", n)
	}
	if n := len(dev.GetCurrentClocksEventReasonsCalls()); n != 1 {
		t.Errorf("clocks event reasons asked %d times, want once", n)
	}
}

func TestInitFailureIsErrNoNVML(t *testing.T) {
	s := dgxh200.New()
	s.InitFunc = func() nvml.Return { return nvml.ERROR_DRIVER_NOT_LOADED }
	_, err := New(s, "mock")
	if !errors.Is(err, calibrate.ErrNoNVML) || !strings.Contains(err.Error(), "ERROR_DRIVER_NOT_LOADED") {
		t.Errorf("err %v", err)
	}
}

// TestOpenWithoutDriver: this machine (like CI) has no NVIDIA driver, or
// the library path does not exist; Open must say which library it looked
// for, wrap ErrNoNVML and not panic.
func TestOpenWithoutDriver(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "libnvidia-ml.so.1")
	_, err := Open(missing)
	if !errors.Is(err, calibrate.ErrNoNVML) || !strings.Contains(err.Error(), missing) {
		t.Errorf("err %v", err)
	}
}

// TestSamplerWithMock runs the calibrate sampler against the mock at 50 Hz
// for 1 s: 50 ticks of two GPUs on an idle machine. It asks for at least 5
// ticks (10 samples), which a loaded machine still gives (200 ms gave 2 ticks
// once at a load average of 10 on 2 cores).
func TestSamplerWithMock(t *testing.T) {
	p, err := New(nvmlmock.H200(), "mock")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	s := calibrate.StartSampler(p, []int{0, 1}, 50, start)
	time.Sleep(time.Second)
	samples, failures, err := s.Stop()
	if err != nil || failures != 0 || len(samples) < 10 || len(samples)%2 != 0 {
		t.Fatalf("%d samples, %d failures, %v", len(samples), failures, err)
	}
	end := int64(time.Since(start))
	tel := calibrate.Summarize(samples, []int{0, 1}, 50, 0, end, 1000)
	if tel.MeanPowerW != 1300 || tel.PeakMemUsedByte != 11<<30 || tel.MaxTempC != 71 || tel.EnergyFrom != "power" {
		t.Errorf("telemetry %+v", tel)
	}
}

// BenchmarkSampleTick is the cost of one sampler tick (every field of every
// GPU once) against the mock: the Go side of telemetry, without the
// driver's own time. At 10 Hz the CPU share of one core is
// ns/op × 10 / 1e9.
func BenchmarkSampleTick(b *testing.B) {
	for _, n := range []int{1, 8} {
		b.Run(map[int]string{1: "1gpu", 8: "8gpus"}[n], func(b *testing.B) {
			p, err := New(nvmlmock.H200(), "mock")
			if err != nil {
				b.Fatal(err)
			}
			var s calibrate.Sample
			b.ReportAllocs()
			for b.Loop() {
				for i := 0; i < n; i++ {
					s = calibrate.Sample{}
					if err := p.Sample(i, &s); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
