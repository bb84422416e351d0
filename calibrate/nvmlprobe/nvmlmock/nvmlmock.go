//go:build cgo && linux

package nvmlmock

import (
	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxh200"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"
)

// H200 is go-nvml's mock DGX H200 (8 GPUs, driver 550.54.15, CUDA 12.4)
// with the queries the mock leaves unimplemented filled in (a mock function
// that is not set panics): SM count, clocks, power, PCIe and every
// telemetry reading calibrate samples. The values are fixed and H200-like;
// GPU i reports 10+i GiB of memory used.
func H200() *server.Server { return WithTelemetry(dgxh200.New()) }

// WithTelemetry fills in s's devices as H200 does.
func WithTelemetry(s *server.Server) *server.Server {
	for i, d := range s.Devices {
		dev := d.(*server.Device)
		dev.GetAttributesFunc = func() (nvml.DeviceAttributes, nvml.Return) {
			return nvml.DeviceAttributes{MultiprocessorCount: 132}, nvml.SUCCESS
		}
		dev.GetMaxClockInfoFunc = func(c nvml.ClockType) (uint32, nvml.Return) {
			if c == nvml.CLOCK_SM {
				return 1980, nvml.SUCCESS
			}
			return 3201, nvml.SUCCESS
		}
		dev.GetPowerManagementLimitFunc = func() (uint32, nvml.Return) { return 700000, nvml.SUCCESS }
		dev.GetMaxPcieLinkGenerationFunc = func() (int, nvml.Return) { return 5, nvml.SUCCESS }
		dev.GetMaxPcieLinkWidthFunc = func() (int, nvml.Return) { return 16, nvml.SUCCESS }
		dev.GetCurrPcieLinkGenerationFunc = func() (int, nvml.Return) { return 5, nvml.SUCCESS }
		dev.GetCurrPcieLinkWidthFunc = func() (int, nvml.Return) { return 16, nvml.SUCCESS }
		dev.GetUtilizationRatesFunc = func() (nvml.Utilization, nvml.Return) {
			return nvml.Utilization{Gpu: 97, Memory: 41}, nvml.SUCCESS
		}
		used := uint64(10+i) << 30
		total := dev.MemoryInfo.Total
		dev.GetMemoryInfoFunc = func() (nvml.Memory, nvml.Return) {
			return nvml.Memory{Total: total, Used: used, Free: total - used}, nvml.SUCCESS
		}
		dev.GetPowerUsageFunc = func() (uint32, nvml.Return) { return 650000, nvml.SUCCESS }
		dev.GetClockInfoFunc = func(nvml.ClockType) (uint32, nvml.Return) { return 1755, nvml.SUCCESS }
		dev.GetTemperatureFunc = func(nvml.TemperatureSensors) (uint32, nvml.Return) { return 71, nvml.SUCCESS }
		dev.GetCurrentClocksEventReasonsFunc = func() (uint64, nvml.Return) {
			return nvml.ClocksEventReasonSwPowerCap, nvml.SUCCESS
		}
		dev.GetTotalEnergyConsumptionFunc = func() (uint64, nvml.Return) { return 123456789, nvml.SUCCESS }
	}
	return s
}
