package calibrate

import (
	"bytes"
	"context"
	"errors"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"fairbench/models"
	"fairbench/models/catalogue"
)

// fakeProbe is a machine with n identical GPUs whose power grows 1 W per
// reading and whose energy counter matches 300 W.
type fakeProbe struct {
	mu    sync.Mutex
	n     int
	reads int
	start time.Time
}

func (p *fakeProbe) System() (System, error) {
	sys := System{DriverVersion: "550.54.15", CUDAVersion: "12.4", NVMLVersion: "12.550.54.15", Library: "fake"}
	for i := 0; i < p.n; i++ {
		sys.Devices = append(sys.Devices, Device{Index: i, UUID: "GPU-fake-" + string(rune('a'+i)),
			Name: "NVIDIA H200", MemoryBytes: 143771 << 20, MIG: "disabled"})
	}
	return sys, nil
}

func (p *fakeProbe) Sample(idx int, s *Sample) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.start.IsZero() {
		p.start = time.Now()
	}
	p.reads++
	s.UtilGPU, s.UtilMem = 90, 40
	s.MemUsedBytes = uint64(1+idx) << 30
	s.PowerW = 300
	s.SMClockMHz = 1980
	s.TempC = 60
	s.Throttle = ThrottleSwPowerCap
	s.EnergyMJ = uint64(time.Since(p.start).Seconds() * 300 * 1000)
	s.Supported = FieldUtil | FieldMemUsed | FieldPower | FieldSMClock | FieldTemp | FieldThrottle | FieldEnergy
	return nil
}

func (p *fakeProbe) Close() error { return nil }

// fakeSpec is a profile that runs the fake workload.
func fakeSpec(t *testing.T, extra string) *Spec {
	t.Helper()
	return fakeSpecOn(t, "[{device: cpu, gpu_type: T4}]", extra)
}

// fakeSpecOn is fakeSpec on the devices given (YAML). Its stall bound (3 s)
// is far above the fake's 0.02 s steps, so that a loaded machine (the whole
// suite on two cores) is not taken for a stalled workload; the hang test
// waits that long.
func fakeSpecOn(t *testing.T, devices, extra string) *Spec {
	t.Helper()
	wd, _ := os.Getwd()
	text := `
name: fake
python: /bin/sh
workload: ` + filepath.Join(wd, "testdata", "fake_workload.sh") + `
devices: ` + devices + `
models: [{model: resnet18, batch_sizes: [4]}]
warmup_steps: 2
window: 5
measure_steps: 5
steps: 60
stall_seconds: 3
start_timeout_seconds: 5
timeout_seconds: 10
` + extra
	s, err := ParseSpec([]byte(text), filepath.Join(t.TempDir(), "fake.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func runFake(t *testing.T, mode string, s *Spec, probe Probe) (*Record, string, error) {
	t.Helper()
	t.Setenv("FAKE_MODE", mode)
	dir := t.TempDir()
	r := &Runner{Spec: s, OutDir: dir, Version: "test", Probe: probe}
	rec, err := r.Run(context.Background())
	return rec, dir, err
}

func TestFakeWorkloadOK(t *testing.T) {
	rec, dir, err := runFake(t, "ok", fakeSpec(t, ""), nil)
	if err != nil {
		t.Fatal(err)
	}
	e := rec.Entries[0]
	if e.Status != StatusOK || !e.StepTime.Steady || e.StepTime.N != 5 {
		t.Fatalf("entry %+v", e)
	}
	// Constant 0.01 s steps: 100 steps/s, 400 samples/s, a zero-width interval.
	if d := e.StepsPerSecond - 100; d > 1e-9 || d < -1e-9 {
		t.Errorf("steps/s %v, want 100", e.StepsPerSecond)
	}
	if e.SamplesPerSecond < 399.99 || e.SamplesPerSecond > 400.01 || e.StepsPerSecondCI == nil || e.StepsPerSecondCI.High == nil {
		t.Errorf("samples/s %v, CI %+v", e.SamplesPerSecond, e.StepsPerSecondCI)
	}
	// Stopped once measured: warm-up 2, window 5 (steady at step 7), 5 measured.
	if e.StepsRun != 12 || e.StepTime.SteadyAtStep != 7 {
		t.Errorf("ran %d steps, steady at %d; want 12 and 7", e.StepsRun, e.StepTime.SteadyAtStep)
	}
	if !rec.Complete || rec.FairbenchVersion != "test" || rec.CPU == "" || e.DeviceName == "" || e.Started == "" || len(e.Workload.ScriptSHA256) != 64 {
		t.Errorf("provenance missing: %+v", rec)
	}
	data, err := os.ReadFile(filepath.Join(dir, "fake.throughputs.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := catalogue.ReadGavelThroughputs(bytes.NewReader(data), "fake.throughputs.json")
	if err != nil {
		t.Fatal(err)
	}
	if v := m.Throughput(models.Key{Job: "ResNet-18 (batch size 4)", GPU: "T4", Gang: 1}); v < 99.99 || v > 100.01 {
		t.Errorf("matrix figure %v, want 100", v)
	}
	if _, err := ReadRecord(filepath.Join(dir, "fake.calibration.json")); err != nil {
		t.Errorf("record does not read back: %v", err)
	}
}

func TestFakeWorkloadFailuresAreReported(t *testing.T) {
	cases := []struct {
		mode, status, err, stderr string
		maxSeconds                float64
	}{
		{"garbage", StatusFailed, `garbage on stdout line 4`, "", 5},
		{"nan", StatusFailed, `garbage on stdout line 3`, "", 5},
		{"crash", StatusFailed, "without a measurement", "illegal memory access", 5},
		{"hang", StatusFailed, "no step for 3s after step 1", "about to hang", 5},
		{"oom", StatusDoesNotFit, "", "OutOfMemoryError", 5},
		{"exit3", StatusDoesNotFit, "", "killed by the allocator", 5},
		{"short", StatusFailed, "before a measurement", "", 5},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			begin := time.Now()
			rec, dir, err := runFake(t, c.mode, fakeSpec(t, ""), nil)
			if took := time.Since(begin); took > seconds(c.maxSeconds) {
				t.Errorf("took %v", took)
			}
			e := rec.Entries[0]
			if e.Status != c.status || !strings.Contains(e.Error, c.err) || !strings.Contains(e.StderrTail, c.stderr) {
				t.Fatalf("status %q error %q stderr %q; want %q, %q, %q", e.Status, e.Error, e.StderrTail, c.status, c.err, c.stderr)
			}
			_, statErr := os.Stat(filepath.Join(dir, "fake.throughputs.json"))
			if c.status == StatusFailed {
				if !errors.Is(err, ErrEntriesFailed) {
					t.Errorf("Run returned %v, want ErrEntriesFailed", err)
				}
				if statErr == nil {
					t.Errorf("a failed entry wrote a matrix file")
				}
				return
			}
			if err != nil {
				t.Fatalf("out of memory is not a failure: %v", err)
			}
			data, _ := os.ReadFile(filepath.Join(dir, "fake.throughputs.json"))
			m, rerr := catalogue.ReadGavelThroughputs(bytes.NewReader(data), "x")
			if rerr != nil {
				t.Fatal(rerr)
			}
			k := models.Key{Job: "ResNet-18 (batch size 4)", GPU: "T4", Gang: 1}
			if f, ok := m.Lookup(k); !ok || f.Value != 0 || m.Runnable(k) {
				t.Errorf("does-not-fit entry: %v %v, want a stored 0", f, ok)
			}
		})
	}
}

func TestHangKillsTheProcessGroup(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pid")
	t.Setenv("FAKE_PIDFILE", pidfile)
	rec, _, _ := runFake(t, "hang", fakeSpec(t, ""), nil)
	e := rec.Entries[0]
	if e.ExitCode == nil || *e.ExitCode == 0 {
		t.Errorf("exit code %v", e.ExitCode)
	}
	// The shell's sleep child was in its process group (the shell's PID);
	// nothing of the group may survive.
	pid, err := os.ReadFile(pidfile)
	if err != nil || strings.TrimSpace(string(pid)) == "" {
		t.Fatalf("the fake workload wrote no PID: %v", err)
	}
	// (A killed child whose parent died first stays a zombie where PID 1
	// does not reap: dead, so not counted.)
	out, err := runCmd("ps", "-eo", "pid=,pgid=,stat=,args=")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) >= 3 && f[1] == strings.TrimSpace(string(pid)) && !strings.HasPrefix(f[2], "Z") {
			t.Errorf("a process of the hung workload's group survived: %s", l)
		}
	}
}

func TestTimeBoundEndsUnsteadyWorkload(t *testing.T) {
	rec, _, err := runFake(t, "unsteady", fakeSpec(t, "max_seconds: 0.2\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	e := rec.Entries[0]
	if e.Status != StatusOK || e.StepTime.Steady || e.StepTime.N != 5 {
		t.Fatalf("entry %+v %+v", e, e.StepTime)
	}
	// Searching starts at step 3; 0.2 s of alternating 0.01/0.03 steps is
	// reached at step 12, and the last window (5 steps) is the measurement.
	if e.StepsRun != 12 {
		t.Errorf("ran %d steps, want 12", e.StepsRun)
	}
	if e.StepTime.CV < 0.4 {
		t.Errorf("CV %v of an alternating workload", e.StepTime.CV)
	}
}

func TestInterruptLeavesValidFiles(t *testing.T) {
	s := fakeSpec(t, "")
	s.Models[0].BatchSizes = []int{1, 2, 3}
	s.StallSeconds = 20
	t.Setenv("FAKE_MODE", "interrupt")
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := &Runner{Spec: s, OutDir: dir, Version: "test", Progress: func(p Progress) {
		if p.Entry.BatchSize == 2 && p.Step == 1 {
			cancel() // Ctrl-C during the second entry
		}
	}}
	begin := time.Now()
	rec, err := r.Run(ctx)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err %v", err)
	}
	if time.Since(begin) > 5*time.Second {
		t.Errorf("interrupt took %v", time.Since(begin))
	}
	if len(rec.Entries) != 1 {
		t.Fatalf("%d entries, want the 1 that finished", len(rec.Entries))
	}
	back, err := ReadRecord(r.RecordPath())
	if err != nil {
		t.Fatal(err)
	}
	if !back.Interrupted || back.Complete || len(back.Entries) != 1 {
		t.Errorf("record on disk: interrupted %v complete %v entries %d", back.Interrupted, back.Complete, len(back.Entries))
	}
	data, _ := os.ReadFile(r.MatrixPath())
	m, err := catalogue.ReadGavelThroughputs(bytes.NewReader(data), "x")
	if err != nil || m.Len() != 1 {
		t.Fatalf("matrix on disk: %v, %d figures", err, m.Len())
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*tmp*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestGPUEntryPinsAndSamples(t *testing.T) {
	s := fakeSpec(t, "")
	s.Devices = []DeviceSpec{{Device: "cuda", GPUs: []int{1, 0}}}
	s.Models[0].GangSizes = []int{2}
	s.SampleHz = 50
	// Steps of 0.02 s, so the measured interval holds a few readings.
	rec, _, err := runFake(t, "slow", s, &fakeProbe{n: 2})
	if err != nil {
		t.Fatal(err)
	}
	e := rec.Entries[0]
	if e.SamplesPerStep != 4 || !near(e.MatrixStepsPerSecond, 2*e.StepsPerSecond, 1e-12) {
		t.Errorf("gang 2: %v samples per step, matrix figure %v for %v steps/s", e.SamplesPerStep, e.MatrixStepsPerSecond, e.StepsPerSecond)
	}
	if e.GPUType != "H200" || len(e.GPUs) != 2 || e.GPUs[0].Index != 1 || e.GPUs[0].UUID != "GPU-fake-b" {
		t.Errorf("gpus %+v type %s", e.GPUs, e.GPUType)
	}
	var vis string
	for _, v := range e.Workload.Env {
		if strings.HasPrefix(v, "CUDA_VISIBLE_DEVICES=") {
			vis = v
		}
	}
	if vis != "CUDA_VISIBLE_DEVICES=GPU-fake-b,GPU-fake-a" {
		t.Errorf("pinned with %q", vis)
	}
	if rec.System == nil || rec.System.DriverVersion != "550.54.15" {
		t.Errorf("no driver provenance: %+v", rec.System)
	}
	tel := e.Telemetry
	if tel == nil || tel.Samples == 0 || tel.PeakMemUsedByte != 2<<30 {
		t.Fatalf("telemetry %+v", tel)
	}
	if len(tel.Throttle) != 1 || tel.Throttle[0] != "sw_power_cap" {
		t.Errorf("throttle %v", tel.Throttle)
	}
}

func runCmd(name string, args ...string) (string, error) {
	out, err := osexec.Command(name, args...).Output()
	return string(out), err
}
