package calibrate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// DefaultPython is the interpreter that runs the workload: Debian's
// python3-torch and python3-torchvision install for /usr/bin/python3, which
// need not be the python3 first on PATH.
const DefaultPython = "/usr/bin/python3"

// Spec is a calibration profile: which devices, models, batch sizes and gang
// sizes to measure, and how. It is read from YAML or JSON (JSON is YAML) by
// ReadSpec; every duration is in seconds in a key ending in "seconds".
type Spec struct {
	// Name labels the run and names its output files (default: the profile
	// file's base name).
	Name string `yaml:"name" json:"name"`
	// Python runs the workload (default DefaultPython).
	Python string `yaml:"python" json:"python"`
	// Workload is the training script (default: the torch_train.py built
	// into fairbench). A relative path is relative to the profile file.
	Workload string `yaml:"workload" json:"workload,omitempty"`
	// Seed is passed to the workload (--seed).
	Seed    int          `yaml:"seed" json:"seed"`
	Devices []DeviceSpec `yaml:"devices" json:"devices"`
	Models  []ModelSpec  `yaml:"models" json:"models"`
	// Steps is the most training steps one entry runs (default 1000).
	Steps int `yaml:"steps" json:"steps"`
	// WarmupSteps are dropped before steady state is looked for (default 10).
	WarmupSteps int `yaml:"warmup_steps" json:"warmup_steps"`
	// Window is how many of the latest step times the steady-state test
	// looks at (default 20).
	Window int `yaml:"window" json:"window"`
	// CVThreshold: the step time is steady when the coefficient of
	// variation (sample standard deviation / mean) of the last Window step
	// times is under it (default 0.02).
	CVThreshold float64 `yaml:"cv_threshold" json:"cv_threshold"`
	// MeasureSteps are measured after steady state is reached (default 30).
	MeasureSteps int `yaml:"measure_steps" json:"measure_steps"`
	// MaxSeconds bounds the search for steady state, from the end of the
	// warm-up: when it passes, the last Window steps are the measurement
	// and the entry is marked not steady (default 30).
	MaxSeconds float64 `yaml:"max_seconds" json:"max_seconds"`
	// StartTimeoutSeconds: a workload that prints no step within it after
	// starting is hung (imports, cuDNN autotuning and process-group setup
	// come first; default 300).
	StartTimeoutSeconds float64 `yaml:"start_timeout_seconds" json:"start_timeout_seconds"`
	// StallSeconds: a workload silent this long between steps is hung
	// (default 60).
	StallSeconds float64 `yaml:"stall_seconds" json:"stall_seconds"`
	// TimeoutSeconds bounds one entry from start to end (default 600).
	TimeoutSeconds float64 `yaml:"timeout_seconds" json:"timeout_seconds"`
	// SampleHz is the NVML telemetry rate (default 10).
	SampleHz float64 `yaml:"sample_hz" json:"sample_hz"`
	// GPUTypes declares GPU types the catalogue lacks (a new generation),
	// which devices may then name as gpu_type.
	GPUTypes []GPUDecl `yaml:"gpu_types" json:"gpu_types,omitempty"`
	// Colocate lists pairs of workloads to run at the same time on the
	// same GPUs (calibrate colocate; see ColocateSpec).
	Colocate *ColocateSpec `yaml:"colocate" json:"colocate,omitempty"`

	file  string         // where it was read from
	dir   string         // its folder, for relative paths
	lines map[string]int // field path → line, when read from text
}

// DeviceSpec is one device to calibrate on.
type DeviceSpec struct {
	// Device is "cpu", "cuda:K" (GPU K by NVML index) or "cuda" with GPUs.
	Device string `yaml:"device" json:"device"`
	// GPUs are the NVML indices a gang uses, in order (a gang of g takes
	// the first g). Default [K] for "cuda:K".
	GPUs []int `yaml:"gpus" json:"gpus,omitempty"`
	// GPUType is the GPU type the figures are filed under: a catalogue
	// type or one of the profile's gpu_types. On a GPU the default comes
	// from the NVML name and memory; on the CPU it is required (a CPU is
	// not a GPU type: its figures are CPU figures filed under a GPU type's
	// name, which only tests and dry runs do).
	GPUType string `yaml:"gpu_type" json:"gpu_type,omitempty"`
	// Threads per worker on the CPU (0: PyTorch's default).
	Threads int `yaml:"threads" json:"threads,omitempty"`
}

// ModelSpec is one model of the workload at several batch and gang sizes.
type ModelSpec struct {
	// Model is a torch_train.py model: resnet18, resnet50, vgg16,
	// transformer or lstm.
	Model string `yaml:"model" json:"model"`
	// JobType is the job type family the figures are filed under; the job
	// type is "<JobType> (batch size B)". The default is Gavel's family
	// where the workload is Gavel's model (ResNet-18, ResNet-50, LM), else
	// VGG-16 or Transformer-LM, with " AMP" for mixed precision. Required
	// when Args change the model's shape.
	JobType    string `yaml:"job_type" json:"job_type,omitempty"`
	BatchSizes []int  `yaml:"batch_sizes" json:"batch_sizes"`
	// GangSizes are data-parallel worker counts (default [1]).
	GangSizes []int `yaml:"gang_sizes" json:"gang_sizes"`
	// AMP turns on mixed precision.
	AMP bool `yaml:"amp" json:"amp,omitempty"`
	// Args are extra workload arguments (image_size, num_classes, seq_len,
	// vocab, d_model, layers, heads), positive integers.
	Args map[string]int `yaml:"args" json:"args,omitempty"`
}

// Models the workload trains, with their default job type families.
var workloadModels = map[string]string{
	"resnet18":    "ResNet-18", // kuangliu CIFAR ResNet-18, as Gavel's "ResNet-18 (batch size B)"
	"resnet50":    "ResNet-50", // torchvision ImageNet ResNet-50, as Gavel's
	"vgg16":       "VGG-16",
	"transformer": "Transformer-LM", // not Gavel's translation "Transformer"
	"lstm":        "LM",             // word_language_model LSTM, as Gavel's "LM (batch size B)"
}

// workloadArgs are the Args keys the workload takes, as its flags.
var workloadArgs = map[string]string{
	"image_size": "--image-size", "num_classes": "--num-classes", "seq_len": "--seq-len",
	"vocab": "--vocab", "d_model": "--d-model", "layers": "--layers", "heads": "--heads",
}

// ReadSpec reads a profile file, fills the defaults and validates it.
// Unknown and duplicate keys are refused, and so is a file over 1 MiB.
func ReadSpec(path string) (*Spec, error) {
	data, err := readLimited(path, maxProfileBytes)
	if err != nil {
		return nil, fmt.Errorf("calibrate: profile: %w", err)
	}
	return ParseSpec(data, path)
}

// ParseSpec parses profile text; name is used in errors and for relative
// paths. Every error is an *InputError naming the field and, where the text
// has it, its line.
func ParseSpec(data []byte, name string) (*Spec, error) {
	if len(data) > maxProfileBytes {
		return nil, &InputError{What: "profile", File: name, Reason: fmt.Sprintf("larger than %d bytes", maxProfileBytes)}
	}
	var s Spec
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &InputError{What: "profile", File: name, Reason: "empty"}
		}
		return nil, &InputError{What: "profile", File: name, Reason: strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, &InputError{What: "profile", File: name, Line: extra.Line, Reason: "more than one YAML document"}
	}
	s.file = name
	s.dir = dirOf(name)
	s.lines = yamlLines(data)
	if err := s.fill(); err != nil {
		return nil, err
	}
	return &s, nil
}

// yamlLines maps the field paths of a YAML document ("models[1].batch_sizes")
// to their lines; nil when it does not parse.
func yamlLines(data []byte) map[string]int {
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil || len(root.Content) == 0 {
		return nil
	}
	lines := map[string]int{}
	var walk func(n *yaml.Node, path string, depth int)
	walk = func(n *yaml.Node, path string, depth int) {
		if depth > maxJSONDepth || len(lines) > 100_000 {
			return
		}
		if path != "" {
			if _, ok := lines[path]; !ok {
				lines[path] = n.Line
			}
		}
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i].Value
				p := k
				if path != "" {
					p = path + "." + k
				}
				lines[p] = n.Content[i].Line
				walk(n.Content[i+1], p, depth+1)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, fmt.Sprintf("%s[%d]", path, i), depth+1)
			}
		}
	}
	walk(root.Content[0], "", 0)
	return lines
}

// readLimited reads a file of at most limit bytes.
func readLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && !st.Mode().IsRegular() && !st.Mode().IsDir() {
		// A device or pipe (/dev/zero): read at most limit+1 bytes below.
	} else if err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s is a folder", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, limit)
	}
	return data, nil
}

func dirOf(path string) string {
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		return path[:i]
	}
	return "."
}

func (s *Spec) errf(field, format string, args ...any) error {
	return &InputError{What: "profile", File: s.file, Line: s.line(field), Field: field, Reason: fmt.Sprintf(format, args...)}
}

// line is the line of field, or of its nearest ancestor, in the profile's
// text (0 when unknown).
func (s *Spec) line(field string) int {
	return nearestLine(field, func(p string) (int, bool) { l, ok := s.lines[p]; return l, ok })
}

// types is the GPU types the profile may name.
func (s *Spec) types() typeSet { return typeSet{declared: s.GPUTypes} }

// fill sets the defaults and checks every field.
func (s *Spec) fill() error {
	if s.Name == "" {
		base := s.file[strings.LastIndexByte(s.file, '/')+1:]
		s.Name = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(base, ".yaml"), ".yml"), ".json")
	}
	if strings.ContainsAny(s.Name, "/\\") || s.Name == "." || s.Name == ".." || s.Name == "" || len(s.Name) > 128 || hasControl(s.Name) {
		return s.errf("name", "must be a plain file name of at most 128 characters, got %q", s.Name)
	}
	if s.Python == "" {
		s.Python = DefaultPython
	}
	for _, c := range []struct{ field, v string }{{"python", s.Python}, {"workload", s.Workload}} {
		if len(c.v) > maxTextLen || hasControl(c.v) {
			return s.errf(c.field, "must be a path of at most %d characters without control characters", maxTextLen)
		}
	}
	if s.Workload != "" && !strings.HasPrefix(s.Workload, "/") {
		s.Workload = s.dir + "/" + s.Workload
	}
	if err := s.fillNumbers(); err != nil {
		return err
	}
	if f, err := checkDecls(s.GPUTypes, "gpu_types"); err != nil {
		return s.errf(f, "%v", err)
	}
	if len(s.Devices) == 0 {
		return s.errf("devices", "required: at least one {device: cpu | cuda:K | cuda, gpus, gpu_type}")
	}
	if len(s.Devices) > maxDevices {
		return s.errf("devices", "at most %d, got %d", maxDevices, len(s.Devices))
	}
	if len(s.Models) == 0 && s.Colocate == nil {
		return s.errf("models", "required: at least one {model, batch_sizes, gang_sizes} (or a colocate section)")
	}
	if len(s.Models) > maxModels {
		return s.errf("models", "at most %d, got %d", maxModels, len(s.Models))
	}
	for i := range s.Devices {
		if err := s.fillDevice(i); err != nil {
			return err
		}
	}
	for i := range s.Models {
		if err := s.fillModel(i); err != nil {
			return err
		}
	}
	es := s.Entries()
	if len(es) > maxEntries {
		return s.errf("models", "%d entries (devices × models × batch sizes × gangs): at most %d", len(es), maxEntries)
	}
	for _, e := range es {
		if e.Device.Device != "cpu" && e.Gang > len(e.Device.GPUs) {
			return s.errf(fmt.Sprintf("models[%d].gang_sizes", e.modelIndex),
				"gang %d needs %d GPUs, but devices[%d] lists %d", e.Gang, e.Gang, e.deviceIndex, len(e.Device.GPUs))
		}
	}
	return s.fillColocate()
}

// fillNumbers fills and checks the run settings.
func (s *Spec) fillNumbers() error {
	defInt := func(p *int, v int) {
		if *p == 0 {
			*p = v
		}
	}
	defFloat := func(p *float64, v float64) {
		if *p == 0 {
			*p = v
		}
	}
	defInt(&s.Steps, 1000)
	defInt(&s.WarmupSteps, 10)
	defInt(&s.Window, 20)
	defInt(&s.MeasureSteps, 30)
	defFloat(&s.CVThreshold, 0.02)
	defFloat(&s.MaxSeconds, 30)
	defFloat(&s.StartTimeoutSeconds, 300)
	defFloat(&s.StallSeconds, 60)
	defFloat(&s.TimeoutSeconds, 600)
	defFloat(&s.SampleHz, 10)
	for _, c := range []struct {
		field    string
		v        int
		min, max int
	}{{"steps", s.Steps, 2, maxSteps}, {"warmup_steps", s.WarmupSteps, 0, maxSteps}, {"window", s.Window, 2, maxSteps},
		{"measure_steps", s.MeasureSteps, 2, maxSteps}} {
		if c.v < c.min || c.v > c.max {
			return s.errf(c.field, "must be %d..%d, got %d", c.min, c.max, c.v)
		}
	}
	for _, c := range []struct {
		field string
		v     float64
		max   float64
	}{{"cv_threshold", s.CVThreshold, 10}, {"max_seconds", s.MaxSeconds, maxSeconds}, {"start_timeout_seconds", s.StartTimeoutSeconds, maxSeconds},
		{"stall_seconds", s.StallSeconds, maxSeconds}, {"timeout_seconds", s.TimeoutSeconds, maxSeconds}, {"sample_hz", s.SampleHz, maxSampleHz}} {
		if !(c.v > 0) || !finite(c.v) || c.v > c.max {
			return s.errf(c.field, "must be a positive number up to %g, got %v", c.max, c.v)
		}
	}
	if s.Steps < s.WarmupSteps+s.Window {
		return s.errf("steps", "%d is fewer than warmup_steps + window = %d", s.Steps, s.WarmupSteps+s.Window)
	}
	return nil
}

func (s *Spec) fillDevice(i int) error {
	d := &s.Devices[i]
	f := fmt.Sprintf("devices[%d]", i)
	switch {
	case d.Device == "cpu":
		if len(d.GPUs) > 0 {
			return s.errf(f+".gpus", "a cpu device has no GPUs")
		}
		if d.GPUType == "" {
			return s.errf(f+".gpu_type", "required for a cpu device: the GPU type to file its (CPU) figures under (known: %s)", s.types().names())
		}
	case d.Device == "cuda":
		if len(d.GPUs) == 0 {
			return s.errf(f+".gpus", `required with device "cuda": the NVML indices of the GPUs, e.g. [0, 1, 2, 3]`)
		}
	case strings.HasPrefix(d.Device, "cuda:"):
		k, err := strconv.Atoi(strings.TrimPrefix(d.Device, "cuda:"))
		if err != nil || k < 0 || k >= maxGang {
			return s.errf(f+".device", "want cpu, cuda:K (K < %d) or cuda, got %q", maxGang, d.Device)
		}
		if len(d.GPUs) > 0 && !(len(d.GPUs) == 1 && d.GPUs[0] == k) { // [K]: filled before (a record's profile)
			return s.errf(f+".gpus", `give either device "cuda:K" or device "cuda" with gpus`)
		}
		d.GPUs = []int{k}
	default:
		return s.errf(f+".device", "want cpu, cuda:K or cuda, got %q", d.Device)
	}
	if len(d.GPUs) > maxGang {
		return s.errf(f+".gpus", "at most %d GPUs, got %d", maxGang, len(d.GPUs))
	}
	seen := map[int]bool{}
	for j, g := range d.GPUs {
		if g < 0 || g >= maxGang || seen[g] {
			return s.errf(fmt.Sprintf("%s.gpus[%d]", f, j), "must be a distinct NVML index in 0..%d, got %d", maxGang-1, g)
		}
		seen[g] = true
	}
	if d.GPUType != "" {
		t, ok := s.types().lookup(d.GPUType)
		if !ok {
			return s.errf(f+".gpu_type", "unknown GPU type %q (known: %s); declare a new one under gpu_types", d.GPUType, s.types().names())
		}
		d.GPUType = t
	}
	if d.Threads < 0 || d.Threads > maxThreads {
		return s.errf(f+".threads", "must be 0..%d, got %d", maxThreads, d.Threads)
	}
	if d.Threads > 0 && d.Device != "cpu" {
		return s.errf(f+".threads", "only for a cpu device")
	}
	return nil
}

func (s *Spec) fillModel(i int) error {
	m := &s.Models[i]
	f := fmt.Sprintf("models[%d]", i)
	if err := s.fillWorkload(f, &m.Model, &m.JobType, m.AMP, m.Args); err != nil {
		return err
	}
	if len(m.BatchSizes) == 0 {
		return s.errf(f+".batch_sizes", "required: at least one batch size per worker")
	}
	if err := sizes(m.BatchSizes, maxBatchSize); err != nil {
		return s.errf(f+".batch_sizes", "%v", err)
	}
	if len(m.GangSizes) == 0 {
		m.GangSizes = []int{1}
	}
	if err := sizes(m.GangSizes, maxGang); err != nil {
		return s.errf(f+".gang_sizes", "%v", err)
	}
	return nil
}

// fillWorkload checks a model name, its arguments and its job type family
// (filling the default) at field path f.
func (s *Spec) fillWorkload(f string, model, jobType *string, amp bool, args map[string]int) error {
	family, ok := workloadModels[*model]
	if !ok {
		return s.errf(f+".model", "unknown model %q (known: %s)", *model, strings.Join(slices.Sorted(maps.Keys(workloadModels)), ", "))
	}
	keys := slices.Sorted(maps.Keys(args))
	for _, k := range keys {
		lim, ok := maxArg[k]
		if !ok {
			return s.errf(f+".args."+k, "unknown workload argument (known: %s)", strings.Join(slices.Sorted(maps.Keys(workloadArgs)), ", "))
		}
		if args[k] < 1 || args[k] > lim {
			return s.errf(f+".args."+k, "must be an integer in 1..%d, got %d", lim, args[k])
		}
	}
	if *jobType == "" {
		if len(args) > 0 {
			return s.errf(f+".job_type", "required when args change the model (%s): its figures are not those of the default %q", strings.Join(keys, ", "), family)
		}
		*jobType = family
		if amp {
			*jobType += " AMP"
		}
	}
	if err := checkJobFamily(*jobType); err != nil {
		return s.errf(f+".job_type", "%v", err)
	}
	return nil
}

// checkJobFamily checks a job type family: it becomes a Gavel-format key
// "('<family> (batch size B)', gang)".
func checkJobFamily(family string) error {
	if len(family) > maxJobTypeLen-30 || hasControl(family) || strings.TrimSpace(family) != family {
		return fmt.Errorf("want at most %d printable characters without leading or trailing spaces, got %q", maxJobTypeLen-30, family)
	}
	if strings.Contains(family, "'") && strings.Contains(family, `"`) {
		return fmt.Errorf("%q holds both quote characters, which a Gavel-format key cannot", family)
	}
	return nil
}

func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return true
		}
	}
	return false
}

// sizes checks a list of distinct positive integers up to limit.
func sizes(xs []int, limit int) error {
	if len(xs) > maxSizesPerModel {
		return fmt.Errorf("at most %d, got %d", maxSizesPerModel, len(xs))
	}
	seen := map[int]bool{}
	for i, x := range xs {
		if x < 1 || x > limit {
			return fmt.Errorf("[%d]: must be 1..%d, got %d", i, limit, x)
		}
		if seen[x] {
			return fmt.Errorf("[%d]: %d appears twice", i, x)
		}
		seen[x] = true
	}
	return nil
}

// EntrySpec is one measurement: a model at one batch and gang size on one
// device.
type EntrySpec struct {
	Device    DeviceSpec
	Model     ModelSpec
	BatchSize int
	Gang      int

	deviceIndex, modelIndex int
}

// JobType is the job type name the entry's figure is filed under, in
// Gavel's form "<family> (batch size B)".
func (e EntrySpec) JobType() string {
	return fmt.Sprintf("%s (batch size %d)", e.Model.JobType, e.BatchSize)
}

// GPUs are the NVML indices the entry's gang runs on (none on the CPU).
func (e EntrySpec) GPUs() []int {
	if e.Device.Device == "cpu" {
		return nil
	}
	return e.Device.GPUs[:e.Gang]
}

func (e EntrySpec) String() string {
	return fmt.Sprintf("%s on %s ×%d", e.JobType(), e.Device.Device, e.Gang)
}

// Entries lists the profile's measurements in order: device, model, batch
// size, gang size.
func (s *Spec) Entries() []EntrySpec {
	var out []EntrySpec
	for di, d := range s.Devices {
		for mi, m := range s.Models {
			for _, b := range m.BatchSizes {
				for _, g := range m.GangSizes {
					out = append(out, EntrySpec{Device: d, Model: m, BatchSize: b, Gang: g, deviceIndex: di, modelIndex: mi})
				}
			}
		}
	}
	return out
}

// NeedsNVML reports whether any device is a GPU.
func (s *Spec) NeedsNVML() bool {
	for _, d := range s.Devices {
		if d.Device != "cpu" {
			return true
		}
	}
	return false
}
