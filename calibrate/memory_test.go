package calibrate

import (
	"strings"
	"testing"
)

func memEntry(job string, batch, gang int, bytes uint64) Entry {
	return Entry{JobType: job, BatchSize: batch, Gang: gang, GPUType: "V100", Device: "cuda", Status: StatusOK,
		MemoryBytes: bytes, MemoryFrom: MemoryFromNVML, DeviceName: "Tesla V100"}
}

// TestFitMemoryByHand: points on a line are fitted exactly; the held-back
// smallest batch size is predicted from the others.
func TestFitMemoryByHand(t *testing.T) {
	t.Parallel()
	const gb = 1e9
	// memory(b) = 2 GB + 0.05 GB·b at b = 32, 64, 128 exactly, and 4.1 GB
	// measured at b = 16 (the line gives 2 + 0.8 = 2.8 GB there).
	es := []Entry{
		memEntry("R (batch size 32)", 32, 1, 3.6*gb),
		memEntry("R (batch size 64)", 64, 1, 5.2*gb),
		memEntry("R (batch size 128)", 128, 1, 8.4*gb),
		memEntry("R (batch size 16)", 16, 1, 4.1*gb),
		memEntry("R (batch size 64)", 64, 2, 6*gb), // another gang: another fit
		{JobType: "R (batch size 8)", BatchSize: 8, Gang: 1, GPUType: "V100", Status: StatusFailed, MemoryBytes: 9 * gb, MemoryFrom: MemoryFromNVML},
	}
	fits := FitMemory(es)
	if len(fits) != 2 {
		t.Fatalf("%d fits: %+v", len(fits), fits)
	}
	f := fits[0]
	if f.Gang != 1 || len(f.Points) != 4 || f.HeldBackBatch != 16 {
		t.Fatalf("fit %+v", f)
	}
	// Held back b = 16: the line through 32, 64, 128 is exact (2 GB +
	// 0.05 GB·b), predicting 2.8 GB against 4.1 measured: 2.8/4.1 − 1.
	if !near(f.HeldBackPredicted, 2.8*gb, 1e-6) || !near(f.HeldBackError, 2.8/4.1-1, 1e-9) {
		t.Errorf("held back: predicted %v, error %v", f.HeldBackPredicted, f.HeldBackError)
	}
	// All four points: x̄ = 60, ȳ = 5.325 GB; Sxx = 44² + 28² + 4² + 68²
	// = 7,360; Sxy = (−44)(−1.225) + (−28)(−1.725) + (4)(−0.125) + (68)(3.075)
	// GB = 53.9 + 48.3 − 0.5 + 209.1 = 310.8 GB; slope 310.8/7360 GB,
	// intercept ȳ − slope·x̄.
	slope := 310.8 / 7360 * gb
	if !near(f.PerSampleBytes, slope, 1e-9) || !near(f.FixedBytes, 5.325*gb-slope*60, 1e-9) {
		t.Errorf("line: fixed %v, per sample %v", f.FixedBytes, f.PerSampleBytes)
	}
	if fits[1].Gang != 2 || len(fits[1].Points) != 1 || fits[1].FixedBytes != 6*gb || fits[1].PerSampleBytes != 0 {
		t.Errorf("one point: %+v", fits[1])
	}
}

// TestJobMemory: MemoryGB is the largest figure of the job type, the fixed
// part the fit's intercept within [0, MemoryGB]; one batch size: nothing
// shrinks.
func TestJobMemory(t *testing.T) {
	t.Parallel()
	const gb = 1e9
	r := &Record{Entries: []Entry{
		memEntry("R (batch size 32)", 32, 1, 3*gb),
		memEntry("R (batch size 64)", 64, 1, 5*gb), // the line: 1 GB + b/16 GB
		memEntry("S (batch size 8)", 8, 1, 2*gb),
	}}
	jm := JobMemory(r, "r.json")
	if j := jm["R (batch size 64)"]; !near(j.MemoryGB, 5, 1e-12) || !near(j.FixedMemoryGB, 1, 1e-9) || j.Validate() != nil {
		t.Errorf("R 64: %+v", j)
	}
	if j := jm["S (batch size 8)"]; j.MemoryGB != 2 || j.FixedMemoryGB != 2 {
		t.Errorf("S: %+v", j)
	}
	cpu := &Record{Entries: []Entry{{JobType: "C (batch size 2)", BatchSize: 2, Gang: 1, GPUType: "B200", Device: "cpu",
		Status: StatusOK, MemoryBytes: gb, MemoryFrom: MemoryFromCPURSS}}}
	if j := JobMemory(cpu, "c.json")["C (batch size 2)"]; j.MemoryGB != 1 || !containsAll(j.Source, "CPU-MEASURED", "NOT a GPU figure") {
		t.Errorf("a CPU figure must say so: %+v", j)
	}
}

func containsAll(s string, subs ...string) bool {
	for _, x := range subs {
		if !strings.Contains(s, x) {
			return false
		}
	}
	return true
}
