package calibrate

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"fairbench/internal/torchtest"
	"fairbench/models"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }

// TestSteadyKnownAnswer walks the tracker through warm-up, a window that is
// not steady, one that is, and the measurement after it.
func TestSteadyKnownAnswer(t *testing.T) {
	tr := &Steady{Warmup: 2, Window: 3, Measure: 2, Threshold: 0.05, MaxSeconds: 100}
	want := []Phase{Warming, Searching, Searching, Searching, Searching, Searching, Measuring, Measuring, Done}
	for i, x := range []float64{5, 5, 1, 2, 1, 1, 1, 1.1, 0.9} {
		if got := tr.Add(x); got != want[i] {
			t.Fatalf("step %d: phase %v, want %v", i+1, got, want[i])
		}
	}
	r := tr.Result()
	// Steps 5-7 ([1, 1, 1], CV 0) pass; steps 8 and 9 are measured.
	if !r.Steady || r.SteadyAtStep != 7 || r.N != 2 || !near(r.MeanSeconds, 1, 1e-12) {
		t.Errorf("result %+v", r)
	}
}

func TestSteadyFinishEarly(t *testing.T) {
	tr := &Steady{Warmup: 1, Window: 3, Measure: 10, Threshold: 0.01, MaxSeconds: 100}
	for _, x := range []float64{9, 1, 2, 3, 4} {
		tr.Add(x)
	}
	if !tr.Finish() {
		t.Fatal("nothing measured")
	}
	r := tr.Result()
	// Never steady: the last window (steps 3-5) is the measurement.
	if r.Steady || r.N != 3 || !near(r.MeanSeconds, 3, 1e-12) {
		t.Errorf("result %+v", r)
	}
	tr = &Steady{Warmup: 5, Window: 3, Measure: 10, Threshold: 0.01, MaxSeconds: 100}
	tr.Add(1)
	if tr.Finish() {
		t.Error("a warm-up only run gave a measurement")
	}
}

// TestStatsByHand: x = 1..5 has mean 3, s = √2.5, t(0.975, 4) = 2.776445.
func TestStatsByHand(t *testing.T) {
	st := Stats([]float64{1, 2, 3, 4, 5})
	h := 2.7764451051977987 * math.Sqrt(2.5) / math.Sqrt(5)
	if !near(st.MeanSeconds, 3, 1e-12) || !near(st.StdSeconds, math.Sqrt(2.5), 1e-12) || !near(st.HalfWidth, h, 1e-9) {
		t.Fatalf("stats %+v, want half width %v", st, h)
	}
	r, lo, hi := st.Rate(64)
	if !near(r, 64.0/3, 1e-12) || !near(lo, 64/(3+h), 1e-9) || !near(hi, 64/(3-h), 1e-9) {
		t.Errorf("rate %v [%v, %v]", r, lo, hi)
	}
	// An interval reaching 0 is unbounded above.
	if _, _, hi := Stats([]float64{0.1, 10}).Rate(1); !math.IsInf(hi, 1) {
		t.Errorf("hi %v", hi)
	}
}

// TestSummarizeByHand: two GPUs read every 0.1 s for 1 s at 100 W and
// 200 W, with energy counters that agree; the interval 0.2-0.8 s holds 60
// samples of training.
func TestSummarizeByHand(t *testing.T) {
	var all []Sample
	for i := 1; i <= 10; i++ {
		at := int64(i) * 1e8
		for g, w := range []float64{100, 200} {
			s := Sample{AtNanos: at, Index: g, PowerW: w, EnergyMJ: uint64(w * float64(at) / 1e6), UtilGPU: 50,
				SMClockMHz: uint32(1000 + 10*i), TempC: uint32(60 + i), MemUsedBytes: uint64(i) << 30,
				Supported: FieldUtil | FieldMemUsed | FieldPower | FieldSMClock | FieldTemp | FieldThrottle | FieldEnergy}
			if i == 5 && g == 1 {
				s.Throttle = ThrottleSwPowerCap | ThrottleGpuIdle
			}
			if i == 6 {
				s.Throttle = ThrottleGpuIdle // idle is not throttling
			}
			all = append(all, s)
		}
	}
	tel := Summarize(all, []int{0, 1}, 10, 2e8, 8e8, 60)
	if tel.EnergyFrom != "counter" || !near(tel.EnergyJ, 180, 1e-9) || !near(tel.EnergyPerSampleJ, 3, 1e-9) || !near(tel.MeanPowerW, 300, 1e-12) {
		t.Errorf("energy %+v", tel)
	}
	if tel.PeakMemUsedByte != 10<<30 || tel.MaxTempC != 68 || tel.MinSMClockMHz != 1020 || tel.MeanUtilGPUPct != 50 {
		t.Errorf("peaks %+v", tel)
	}
	if len(tel.Throttle) != 1 || tel.Throttle[0] != "sw_power_cap" || tel.ThrottledSamples != 1 {
		t.Errorf("throttle %v (%d samples)", tel.Throttle, tel.ThrottledSamples)
	}
	// Without the counter, energy is mean power × time.
	for i := range all {
		all[i].Supported &^= FieldEnergy
	}
	tel = Summarize(all, []int{0, 1}, 10, 2e8, 8e8, 60)
	if tel.EnergyFrom != "power" || !near(tel.EnergyJ, 180, 1e-9) {
		t.Errorf("energy from power %+v", tel)
	}
	// No reading of GPU 1 in the interval: no averages at all.
	tel = Summarize(all[:2], []int{0, 1}, 10, 2e8, 8e8, 60)
	if tel.EnergyFrom != "" || tel.MeanPowerW != 0 {
		t.Errorf("partial %+v", tel)
	}
}

func TestEncodeGavelRoundTrip(t *testing.T) {
	m := models.NewMatrix()
	set := func(k models.Key, v float64) {
		if err := m.Set(k, v, "t"); err != nil {
			t.Fatal(err)
		}
	}
	a := models.Key{Job: "ResNet-50 (batch size 64)", GPU: "H200", Gang: 1}
	b := models.Key{Job: "Bob's model (batch size 8)", GPU: "H200", Gang: 1}
	c := models.Key{Job: "ResNet-50 (batch size 64)", GPU: "A100-80GB", Gang: 2, Placement: models.Spread}
	set(a, 17.25)
	set(b, 0) // does not fit
	set(c, 3.5)
	if err := m.SetPair(models.PairKey{Key: a, Other: "Bob's model (batch size 8)"}, 9, 0.5); err != nil {
		t.Fatal(err)
	}
	data, err := EncodeGavel(m)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := EncodeGavel(m)
	if !bytes.Equal(data, again) {
		t.Error("two encodings differ")
	}
	if !strings.Contains(string(data), `"a100-80gb_unconsolidated"`) || !strings.Contains(string(data), `(\"Bob's model (batch size 8)\", 1)`) {
		t.Errorf("keys:\n%s", data)
	}
	back, err := models.ReadGavelThroughputs(bytes.NewReader(data), "x")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range m.Keys() {
		f, ok := back.Lookup(k)
		if !ok || f.Value != m.Throughput(k) {
			t.Errorf("%v: %v %v", k, f, ok)
		}
	}
	if p, ok := back.Pair(models.PairKey{Key: a, Other: "Bob's model (batch size 8)"}); !ok || p != [2]float64{9, 0.5} {
		t.Errorf("pair %v %v", p, ok)
	}
	lonely := models.NewMatrix()
	lonely.Set(c, 1, "t")
	lonely.SetPair(models.PairKey{Key: a, Other: "x"}, 1, 1)
	if _, err := EncodeGavel(lonely); err == nil {
		t.Error("a pair without an isolated figure was written")
	}
}

func TestRecordMatrix(t *testing.T) {
	r := &Record{Entries: []Entry{
		{JobType: "A (batch size 1)", GPUType: "H200", Gang: 1, Status: StatusOK, MatrixStepsPerSecond: 10},
		{JobType: "A (batch size 1)", GPUType: "H200", Gang: 1, Status: StatusOK, MatrixStepsPerSecond: 20},
		{JobType: "B (batch size 1)", GPUType: "H200", Gang: 1, Status: StatusDoesNotFit},
		{JobType: "C (batch size 1)", GPUType: "H200", Gang: 1, Status: StatusFailed},
		{JobType: "D (batch size 1)", GPUType: "H200", Gang: 2, Status: StatusDoesNotFit},
		{JobType: "D (batch size 1)", GPUType: "H200", Gang: 2, Status: StatusOK, MatrixStepsPerSecond: 4},
	}}
	m := r.Matrix("test")
	k := func(job string, gang int) models.Key { return models.Key{Job: job, GPU: "H200", Gang: gang} }
	if v := m.Throughput(k("A (batch size 1)", 1)); v != 15 {
		t.Errorf("mean of two measurements: %v", v)
	}
	if f, ok := m.Lookup(k("B (batch size 1)", 1)); !ok || f.Value != 0 {
		t.Errorf("does not fit: %v %v", f, ok)
	}
	if _, ok := m.Lookup(k("C (batch size 1)", 1)); ok {
		t.Error("a failed entry reached the matrix")
	}
	if v := m.Throughput(k("D (batch size 1)", 2)); v != 4 {
		t.Errorf("a run beats an out-of-memory: %v", v)
	}
}

func TestParseSpecErrorsNameTheField(t *testing.T) {
	base := "devices: [{device: cpu, gpu_type: T4}]\nmodels: [{model: resnet18, batch_sizes: [8]}]\n"
	cases := []struct{ text, want string }{
		{"", "empty"},
		{base + "stepz: 3\n", "stepz"},
		{base + "steps: 5\n", "steps: 5 is fewer than warmup_steps + window"},
		{"models: [{model: resnet18, batch_sizes: [8]}]\n", "devices: required"},
		{"devices: [{device: cpu}]\nmodels: [{model: resnet18, batch_sizes: [8]}]\n", "devices[0].gpu_type: required"},
		{"devices: [{device: gpu0}]\nmodels: [{model: resnet18, batch_sizes: [8]}]\n", `devices[0].device: want cpu, cuda:K or cuda, got "gpu0"`},
		{"devices: [{device: cpu, gpu_type: Z9}]\nmodels: [{model: resnet18, batch_sizes: [8]}]\n", `unknown GPU type "Z9"`},
		{"devices: [{device: 'cuda:0'}]\nmodels: [{model: resnet18, batch_sizes: [8], gang_sizes: [1, 2]}]\n", "models[0].gang_sizes: gang 2 needs 2 GPUs, but devices[0] lists 1"},
		{"devices: [{device: cpu, gpu_type: T4}]\nmodels: [{model: resnet18, batch_sizes: [8, 8]}]\n", "models[0].batch_sizes: [1]: 8 appears twice"},
		{"devices: [{device: cpu, gpu_type: T4}]\nmodels: [{model: resnet18, batch_sizes: [8], args: {image_size: 64}}]\n", "models[0].job_type: required when args change the model"},
		{"devices: [{device: cpu, gpu_type: T4}]\nmodels: [{model: resnet18, batch_sizes: [8], args: {imagesize: 64}, job_type: x}]\n", "models[0].args.imagesize: unknown workload argument"},
		{"devices: [{device: cpu, gpu_type: T4}]\nmodels: [{model: gpt5, batch_sizes: [8]}]\n", `models[0].model: unknown model "gpt5"`},
		// Hostile input: sizes, NaN, undeclared and badly declared types, a second document.
		{base + "steps: 100000000\n", "steps: must be 2..10000000"},
		{base + "max_seconds: .nan\n", "max_seconds: must be a positive number"},
		{base + "timeout_seconds: 1e300\n", "timeout_seconds: must be a positive number up to 604800"},
		{"devices: [{device: cpu, gpu_type: T4}]\nmodels: [{model: resnet18, batch_sizes: [2000000]}]\n", "models[0].batch_sizes: [0]: must be 1..1048576"},
		{"devices: [{device: cpu, gpu_type: T4}]\nmodels: [{model: resnet18, job_type: x, batch_sizes: [8], args: {image_size: 100000}}]\n", "models[0].args.image_size: must be an integer in 1..8192"},
		{"devices: [{device: cpu, gpu_type: B200}]\nmodels: [{model: resnet18, batch_sizes: [8]}]\n", `devices[0].gpu_type: unknown GPU type "B200"`},
		{"gpu_types: [{name: v100, memory_gb: 32, source: s}]\n" + base, `gpu_types[0].name: "v100" is the catalogue's V100`},
		{"gpu_types: [{name: B200, memory_gb: 180}]\n" + base, "gpu_types[0].source: required"},
		{"gpu_types: [{name: B200, memory_gb: .inf, source: s}]\n" + base, "gpu_types[0].memory_gb: must be a positive number"},
		{"gpu_types: [{name: B200, memory_gb: 180, source: s, peak_tflops: {fp8: 9000}}]\n" + base, "gpu_types[0].peak_tflops.fp8: unknown precision"},
		{"gpu_types: [{name: B200, memory_gb: 180, source: s}, {name: b200, memory_gb: 180, source: s}]\n" + base, `gpu_types[1].name: "b200" is declared twice`},
		{"gpu_types: [{name: \"B 200\", memory_gb: 180, source: s}]\n" + base, "gpu_types[0].name: want 1-64 letters"},
		{"devices: [{device: cpu, gpu_type: T4}]\nmodels: [{model: resnet18, job_type: \"a'b\\\"c\", batch_sizes: [8]}]\n", "models[0].job_type:"},
		{base + "---\nname: second\n", "more than one YAML document"},
		{base + "devices: []\n", "already defined"},
	}
	for _, c := range cases {
		_, err := ParseSpec([]byte(c.text), "p.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "p.yaml") {
			t.Errorf("%q: got %v, want an error naming p.yaml and %q", c.text, err, c.want)
		}
	}
	// The line of the field: models[0].batch_sizes is on line 3.
	_, err := ParseSpec([]byte("name: x\ndevices: [{device: cpu, gpu_type: T4}]\nmodels: [{model: resnet18, batch_sizes: [0]}]\n"), "p.yaml")
	if err == nil || !strings.Contains(err.Error(), "p.yaml:3: models[0].batch_sizes") {
		t.Errorf("line: %v", err)
	}
	// A declared type can be named, up to case.
	s, err := ParseSpec([]byte("gpu_types: [{name: B200, memory_gb: 180, source: s}]\ndevices: [{device: cpu, gpu_type: b200}]\nmodels: [{model: lstm, batch_sizes: [2]}]\n"), "p.yaml")
	if err != nil || s.Devices[0].GPUType != "B200" || s.GPUTypes[0].Rank != 10 {
		t.Errorf("declared type: %v %+v", err, s)
	}
	s, err = ParseSpec([]byte("devices: [{device: cuda, gpus: [2, 3]}, {device: 'cuda:1', gpu_type: h100}]\n"+
		"models: [{model: resnet50, batch_sizes: [32, 64], gang_sizes: [1]}, {model: transformer, amp: true, batch_sizes: [16]}]\n"), "dir/p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	es := s.Entries()
	if len(es) != 6 || es[0].JobType() != "ResNet-50 (batch size 32)" || es[2].JobType() != "Transformer-LM AMP (batch size 16)" ||
		es[3].Device.GPUType != "H100" || es[3].GPUs()[0] != 1 || s.Name != "p" || s.Python != DefaultPython {
		t.Errorf("entries %+v, name %q", es, s.Name)
	}
}

func TestDeviceCheckProfilesAreValid(t *testing.T) {
	s, err := ReadSpec("profiles/h200-smoke.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(s.Entries()); n != 7 || !s.NeedsNVML() {
		t.Errorf("%d entries", n)
	}
	c, err := ReadSpec("profiles/h200-colocate.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// Three workloads alone, three pairs in two modes, gang 1 on one GPU.
	if n, p := len(c.AllEntries()), len(c.PairEntries()); n != 3 || p != 6 {
		t.Errorf("%d alone entries, %d pairs", n, p)
	}
}

func TestCatalogueGPUType(t *testing.T) {
	const mib = 1 << 20
	cases := []struct {
		name string
		mem  uint64
		want string // "" = an error naming gpu_type
	}{
		{"NVIDIA H200", 143771 * mib, "H200"},
		{"NVIDIA H100 80GB HBM3", 81559 * mib, "H100"},
		{"NVIDIA A100-SXM4-80GB", 81920 * mib, "A100-80GB"},
		{"NVIDIA A100-SXM4-40GB", 40960 * mib, "A100-40GB"},
		{"Tesla V100-SXM2-16GB", 16160 * mib, "V100"},
		{"Tesla V100-SXM2-32GB", 32768 * mib, ""},
		{"Tesla T4", 15360 * mib, "T4"},
		{"NVIDIA A10", 23028 * mib, "A10"},
		{"NVIDIA A10G", 23028 * mib, ""},
		{"Tesla K80", 11441 * mib, "K80"},
		{"NVIDIA GeForce RTX 4090", 24564 * mib, ""},
	}
	for _, c := range cases {
		got, err := CatalogueGPUType(c.name, c.mem)
		if c.want == "" {
			if err == nil || !strings.Contains(err.Error(), "gpu_type") {
				t.Errorf("%s: got %q, %v; want an error", c.name, got, err)
			}
		} else if got != c.want || err != nil {
			t.Errorf("%s: got %q, %v; want %s", c.name, got, err, c.want)
		}
	}
}

// synthetic builds a matrix that the model reproduces exactly: step times
// α·F/P + β·M/B (two-term) or max(F/P, M/B)/e (roofline) on four types,
// gang 2 at 1.8× gang 1.
func synthetic(t *testing.T, d *ExtrapolationData, method string) *models.Matrix {
	t.Helper()
	x := &Extrapolator{data: d, opts: ExtrapolateOptions{Method: method}}
	m := models.NewMatrix()
	jobs := []string{"ResNet-50 (batch size 64)", "ResNet-18 (batch size 128)", "LM (batch size 20)", "VGG-16 AMP (batch size 32)", "Transformer-LM (batch size 16)"}
	for i, job := range jobs {
		c, ok := d.cost(job)
		if !ok {
			t.Fatalf("no cost for %s", job)
		}
		alpha, beta, eff := 1.5+0.5*float64(i), 0.2*float64(i), 0.3+0.1*float64(i)
		for _, g := range []string{"K80", "P100", "V100", "A100-40GB"} {
			comp, mem := x.roofline(c, d.GPUs[g])
			step := alpha*comp + beta*mem
			if method == "roofline" {
				step = math.Max(comp, mem) / eff
			}
			m.Set(models.Key{Job: job, GPU: g, Gang: 1}, 1/step, "synthetic")
			m.Set(models.Key{Job: job, GPU: g, Gang: 2}, 1.8/step, "synthetic")
		}
	}
	return m
}

// TestLeaveOneTypeOutIsExactOnModelData: on data the model generated, every
// leave-one-type-out estimate is exact (a differential check of the fits).
func TestLeaveOneTypeOutIsExactOnModelData(t *testing.T) {
	d, err := BuiltinData()
	if err != nil {
		t.Fatal(err)
	}
	for _, method := range []string{"two-term", "roofline"} {
		x, err := NewExtrapolator(d, synthetic(t, d, method), nil, ExtrapolateOptions{Method: method})
		if err != nil {
			t.Fatal(err)
		}
		r := x.LeaveOneTypeOut()
		if r.All.N != 40 || r.All.MaxAbs > 1e-9 || len(r.Types) != 4 {
			t.Errorf("%s: %+v", method, r)
		}
	}
}

func TestEstimatesAndDoesNotFit(t *testing.T) {
	d, _ := BuiltinData()
	m := synthetic(t, d, "roofline")
	big := models.Key{Job: "VGG-16 (batch size 512)", GPU: "A100-80GB", Gang: 1}
	m.Set(big, 0, "synthetic: out of memory on 80 GB")
	m.Set(models.Key{Job: "VGG-16 (batch size 512)", GPU: "V100", Gang: 1}, 0, "synthetic")
	x, err := NewExtrapolator(d, m, map[string]uint64{"ResNet-50 (batch size 64)": 100e9}, ExtrapolateOptions{Method: "roofline"})
	if err != nil {
		t.Fatal(err)
	}
	byKey := func(es []Estimate, job string, gang int) *Estimate {
		for i := range es {
			if es[i].Job == job && es[i].Gang == gang {
				return &es[i]
			}
		}
		return nil
	}
	h100, _ := x.Estimates("H100")
	h200, _ := x.Estimates("H200")
	if e := byKey(h100, "VGG-16 (batch size 512)", 1); e == nil || e.StepsPerSecond != 0 || !strings.Contains(e.DoesNotFit, "A100-80GB") {
		t.Errorf("H100 (80 GB): %+v", e)
	}
	if e := byKey(h200, "VGG-16 (batch size 512)", 1); e != nil {
		t.Errorf("H200 has no figure to fit VGG-16 b512 on, got %+v", e)
	}
	if e := byKey(h100, "ResNet-50 (batch size 64)", 1); e == nil || e.DoesNotFit == "" {
		t.Errorf("100 GB measured on 80 GB: %+v", e)
	}
	if e := byKey(h200, "ResNet-50 (batch size 64)", 2); e == nil || e.StepsPerSecond <= 0 || !near(e.Scaling, 1.8, 1e-12) || len(e.FittedOn) != 4 {
		t.Errorf("H200 gang 2: %+v", e)
	}
	// The target's own figures are left out of the fit and shown.
	v100, _ := x.Estimates("V100")
	if e := byKey(v100, "LM (batch size 20)", 1); e == nil || e.Measured == nil || !near(e.StepsPerSecond, *e.Measured, 1e-9) {
		t.Errorf("V100 LM: %+v", e)
	}
	if _, err := x.Estimates("B200"); err == nil {
		t.Error("B200 has no datasheet")
	}
}

func TestBuiltinDataCitesEverything(t *testing.T) {
	d, err := BuiltinData()
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range catalogueGPUs() {
		ds, ok := d.GPUs[g.Name]
		if !ok || ds.Source == "" || ds.MemoryGB != g.MemoryGB {
			t.Errorf("%s: datasheet %+v (catalogue memory %g GB)", g.Name, ds, g.MemoryGB)
		}
	}
	for name, m := range d.Models {
		if m.Source == "" {
			t.Errorf("%s has no source", name)
		}
	}
}

func TestTorchTestUsesTheDefaultPython(t *testing.T) {
	if torchtest.Python != DefaultPython {
		t.Errorf("torchtest checks %s, calibration runs %s", torchtest.Python, DefaultPython)
	}
}
