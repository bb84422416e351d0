package calibrate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fairbench/models"
)

const fakePairs = `
colocate:
  pairs:
    - {a: {model: resnet18, batch_size: 4}, b: {model: lstm, batch_size: 8}}
`

// TestPairWithFakeWorkload: the pair's workloads are measured alone (one
// of them already by the models section), then together; each keeps
// running until the other is measured. The fake workload reports 0.02 s a
// step either way, so both slowdowns are exactly 1.
func TestPairWithFakeWorkload(t *testing.T) {
	s := fakeSpec(t, fakePairs)
	if n := len(s.AllEntries()); n != 2 {
		t.Fatalf("%d isolated entries, want 2 (resnet18 b4 from models, lstm b8 for the pair)", n)
	}
	rec, dir, err := runFake(t, "slow", s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Entries) != 2 || len(rec.Pairs) != 1 {
		t.Fatalf("%d entries, %d pairs", len(rec.Entries), len(rec.Pairs))
	}
	p := rec.Pairs[0]
	if p.Status != PairOK || p.Mode != ModeTimeSlice || p.Gang != 1 || !near(p.A.Slowdown, 1, 1e-9) || !near(p.B.Slowdown, 1, 1e-9) ||
		!near(p.A.PairedStepsPerSecond, 50, 1e-9) || p.A.StepTime == nil || p.B.PairedCI == nil {
		t.Fatalf("pair %+v", p)
	}
	// Each measured 5 steps after warm-up 2 and a window of 5.
	if p.A.StepsRun < 12 || p.B.StepsRun < 12 {
		t.Errorf("steps run %d, %d", p.A.StepsRun, p.B.StepsRun)
	}
	got, err := ReadRecord(filepath.Join(dir, "fake.calibration.json"))
	if err != nil {
		t.Fatal(err)
	}
	m := got.Matrix("x")
	k := models.Key{Job: "LM (batch size 8)", GPU: "T4", Gang: 1}
	if v, ok := m.Pair(models.PairKey{Key: k, Other: "ResNet-18 (batch size 4)"}); !ok || !near(v[0], 50, 1e-9) || !near(v[1], 50, 1e-9) {
		t.Errorf("pair in the matrix: %v %v", v, ok)
	}
	data, err := os.ReadFile(filepath.Join(dir, "fake.throughputs.json"))
	if err != nil || !strings.Contains(string(data), `"('ResNet-18 (batch size 4)', 1)": [`) {
		t.Errorf("Gavel pair format: %v\n%s", err, data)
	}
}

// TestPairThatCannotShare: alone memory figures (the fake's 1,000-byte RSS
// each) above the memory of the GPU type the CPU figures are filed under
// (a declared 1.5 kB type) make the pair "cannot share" without running
// it: a [0, 0] pair.
func TestPairThatCannotShare(t *testing.T) {
	s := fakeSpec(t, fakePairs+`gpu_types: [{name: Tiny, memory_gb: 1.5e-6, source: test}]
`)
	s.Devices[0].GPUType = "Tiny"
	rec, _, err := runFake(t, "ok", s, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := rec.Pairs[0]
	if p.Status != PairCannotShare || !strings.Contains(p.Reason, "exceed") || p.A.StepsRun != 0 {
		t.Fatalf("pair %+v", p)
	}
	m := rec.Matrix("x")
	if v, ok := m.Pair(models.PairKey{Key: models.Key{Job: "ResNet-18 (batch size 4)", GPU: "Tiny", Gang: 1}, Other: "LM (batch size 8)"}); !ok || v != [2]float64{0, 0} {
		t.Errorf("cannot share must be [0, 0]: %v %v", v, ok)
	}
}

// TestMPSWithoutDaemon: MPS mode on a machine without NVIDIA's MPS control
// program records the pair as failed, with the reason.
func TestMPSWithoutDaemon(t *testing.T) {
	s := fakeSpecOn(t, "[{device: 'cuda:0'}]", fakePairs+"  modes: [timeslice, mps]\n")
	t.Setenv("PATH", t.TempDir()) // no nvidia-cuda-mps-control
	rec, _, err := runFake(t, "slow", s, &fakeProbe{n: 1})
	if err == nil || len(rec.Pairs) != 2 {
		t.Fatalf("err %v, %d pairs", err, len(rec.Pairs))
	}
	if p := rec.Pairs[1]; p.Mode != ModeMPS || p.Status != PairFailed || !strings.Contains(p.Reason, "MPS is not available") {
		t.Errorf("mps pair %+v", p)
	}
	if p := rec.Pairs[0]; p.Status != PairOK {
		t.Errorf("timeslice pair %+v", p)
	}
}

// TestColocateProfileErrors: the colocate section is checked like models.
func TestColocateProfileErrors(t *testing.T) {
	base := "devices: [{device: cpu, gpu_type: T4}]\n"
	for _, c := range []struct{ text, want string }{
		{base + "colocate: {pairs: []}\n", "colocate.pairs: required"},
		{base + "colocate: {pairs: [{a: {model: resnet18}, b: {model: lstm, batch_size: 2}}]}\n", "colocate.pairs[0].a.batch_size: required"},
		{base + "colocate: {pairs: [{a: {model: gpt, batch_size: 2}, b: {model: lstm, batch_size: 2}}]}\n", `colocate.pairs[0].a.model: unknown model "gpt"`},
		{base + "colocate: {modes: [mps], pairs: [{a: {model: lstm, batch_size: 2}, b: {model: lstm, batch_size: 2}}]}\n", "colocate.modes[0]: mps needs a GPU device"},
		{"devices: [{device: 'cuda:0'}]\ncolocate: {gang_sizes: [2], pairs: [{a: {model: lstm, batch_size: 2}, b: {model: lstm, batch_size: 2}}]}\n", "gang 2 needs 2 GPUs"},
	} {
		_, err := ParseSpec([]byte(c.text), "p.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "p.yaml:") {
			t.Errorf("%q: %v, want p.yaml:LINE and %q", c.text, err, c.want)
		}
	}
	// Default gang sizes: 1, 2, 4, 8 where the device has the GPUs.
	s, err := ParseSpec([]byte("devices: [{device: cuda, gpus: [0, 1, 2, 3, 4]}]\ncolocate: {pairs: [{a: {model: lstm, batch_size: 2}, b: {model: resnet18, batch_size: 2}}]}\n"), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var gangs []int
	for _, p := range s.PairEntries() {
		gangs = append(gangs, p.Gang)
	}
	if len(gangs) != 3 || gangs[2] != 4 || len(s.AllEntries()) != 6 {
		t.Errorf("gangs %v, %d alone entries", gangs, len(s.AllEntries()))
	}
}
