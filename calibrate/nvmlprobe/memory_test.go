//go:build cgo && linux

package nvmlprobe

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"

	"fairbench/calibrate"
	"fairbench/calibrate/nvmlprobe/nvmlmock"
)

// TestGPUMemoryFromNVML: on a GPU an entry's memory figure is NVML's peak
// use of worker 0's GPU less its first reading, labelled nvml — here on
// go-nvml's mock H200 whose GPU 0 uses 1 MiB more at each reading, running
// the fake workload (calibrate/testdata/fake_workload.sh).
func TestGPUMemoryFromNVML(t *testing.T) {
	s := nvmlmock.H200()
	dev := s.Devices[0].(*server.Device)
	total := dev.MemoryInfo.Total
	var reads atomic.Uint64
	dev.GetMemoryInfoFunc = func() (nvml.Memory, nvml.Return) {
		used := 10<<30 + reads.Add(1)<<20
		return nvml.Memory{Total: total, Used: used, Free: total - used}, nvml.SUCCESS
	}
	probe, err := New(s, "mock")
	if err != nil {
		t.Fatal(err)
	}
	defer probe.Close()
	wd, _ := os.Getwd()
	dir := t.TempDir()
	spec, err := calibrate.ParseSpec([]byte(`
python: /bin/sh
workload: `+filepath.Join(wd, "..", "testdata", "fake_workload.sh")+`
devices: [{device: "cuda:0"}]
models: [{model: resnet18, batch_sizes: [4]}]
warmup_steps: 2
window: 5
measure_steps: 5
steps: 60
sample_hz: 50
`), filepath.Join(dir, "mem.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("FAKE_MODE", "slow")
	rec, err := (&calibrate.Runner{Spec: spec, Probe: probe, OutDir: dir, Version: "test"}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	e := rec.Entries[0]
	if e.GPUType != "H200" || e.MemoryFrom != calibrate.MemoryFromNVML || e.MemoryBytes == 0 || e.MemoryBytes%(1<<20) != 0 ||
		e.MemoryBytes >= 10<<30 || e.MemoryBytes > e.Telemetry.PeakMemUsedByte {
		t.Errorf("%s: memory %d from %q (peak used %d)", e.GPUType, e.MemoryBytes, e.MemoryFrom, e.Telemetry.PeakMemUsedByte)
	}
}
