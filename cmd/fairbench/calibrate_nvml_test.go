//go:build cgo && linux

package main

import (
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxh200"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"

	"fairbench/calibrate"
	"fairbench/calibrate/nvmlprobe"
)

// TestCalibrateDevicesMock lists go-nvml's mock DGX H200 through the CLI.
// The mock implements no clocks, power or PCIe queries: those are listed
// as "not reported", not a failure.
func TestCalibrateDevicesMock(t *testing.T) {
	s := dgxh200.New()
	for _, d := range s.Devices {
		d.(*server.Device).GetAttributesFunc = func() (nvml.DeviceAttributes, nvml.Return) {
			return nvml.DeviceAttributes{MultiprocessorCount: 132}, nvml.SUCCESS
		}
	}
	saved := openProbe
	openProbe = func(string) (calibrate.Probe, error) { return nvmlprobe.New(s, "mock") }
	defer func() { openProbe = saved }()
	out, err := run(t, "calibrate", "devices")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"driver 550.54.15, CUDA 12.4", "NVIDIA H200 141GB HBM3e", "GPU-", "132", "H200", "not reported (shown as ?): max SM clock"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "NVIDIA H200 141GB HBM3e") != 8 {
		t.Errorf("want 8 GPUs:\n%s", out)
	}
	out, err = run(t, "calibrate", "devices", "--json")
	if err != nil || !strings.Contains(out, `"sm_count": 132`) {
		t.Errorf("--json: %v\n%s", err, out)
	}
}
