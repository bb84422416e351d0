//go:build cgo && linux

package microbench

import (
	"fmt"
	"testing"

	"fairbench/calibrate"
	"fairbench/calibrate/nvmlprobe"
	"fairbench/calibrate/nvmlprobe/nvmlmock"
)

// BenchmarkCalibrateSamplerTick is one telemetry tick of calibrate's
// sampler — utilisation, memory, power, SM clock, temperature, throttle
// reasons and energy of every GPU of a gang — against go-nvml's mock DGX
// H200, for gangs of 1 and 8 GPUs:
//
//	go test -run '^$' -bench CalibrateSampler ./microbench/
//
// It measures the Go side only: the mock answers from memory, where the
// driver makes an ioctl per query, so the real cost is higher (measure it
// on a GPU with `fairbench calibrate devices --sample-seconds 10`). The
// goal is under 1% of one core at 10 Hz; %core@10Hz reports ns/op × 10 Hz.
func BenchmarkCalibrateSamplerTick(b *testing.B) {
	for _, n := range []int{1, 8} {
		b.Run(fmt.Sprintf("gpus=%d", n), func(b *testing.B) {
			p, err := nvmlprobe.New(nvmlmock.H200(), "mock")
			if err != nil {
				b.Fatal(err)
			}
			var s calibrate.Sample
			b.ReportAllocs()
			for b.Loop() {
				for i := range n {
					s = calibrate.Sample{}
					if err := p.Sample(i, &s); err != nil {
						b.Fatal(err)
					}
				}
			}
			nsPerTick := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(100*nsPerTick*10/1e9, "%core@10Hz")
		})
	}
}
