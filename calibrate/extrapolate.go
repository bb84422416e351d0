package calibrate

import (
	"embed"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat"

	"fairbench/models"
)

// The extrapolation model (calibrate extrapolate).
//
// For a job type j — a model at a per-worker batch size b — a training step
// costs F_j = 3·f·b floating-point operations (f: forward FLOPs per sample;
// backward ≈ 2× forward) and moves about M_j = 3·a·b·s + 4·W bytes of
// device memory (a: activation bytes per sample, written in the forward
// pass, read and their gradients written in the backward; W: parameter
// bytes, read forward and backward, gradients written, updated by the
// optimizer; s = ½ under mixed precision). On a GPU type g with peak
// P_g(precision) FLOP/s and memory bandwidth B_g the roofline time of a step
// is t_g = max(F_j/P_g, M_j/B_g) (Williams, Waterman and Patterson,
// "Roofline", CACM 2009), and the measured step time is t_g / e_j with a
// per-job-type efficiency e_j.
//
//   - "roofline": e_j is fitted on the measured types as the
//     geometric mean of t_g · steps_g (least squares in log space), and the
//     estimate on an unmeasured type T is e_j / t_T.
//   - "two-term" (default): step time = α_j·F_j/P_g + β_j·M_j/B_g with
//     α, β ≥ 0, fitted by least squares on relative error; it needs two
//     measured types and falls back to "roofline" with one.
//
// A gang of k workers is estimated from the gang-1 estimate times the
// job's measured scaling steps_k/steps_1 (geometric mean over the measured
// types). A job that could not run (a stored 0) at a gang on a type with at
// least the target's memory does not fit on the target either; so does one
// whose measured peak memory (from a calibration record) exceeds it.
//
// Only consolidated figures are used; job types are recognised by name
// (jobModels) and GPU types need a datasheet (data/gpus.json).

//go:embed data/gpus.json data/workloads.json
var dataFS embed.FS

// Datasheet is one GPU type's vendor figures.
type Datasheet struct {
	Type               string             `json:"type"`
	PeakTFLOPS         map[string]float64 `json:"peak_tflops"` // fp32, tf32, fp16
	MemoryBandwidthGBs float64            `json:"memory_bandwidth_gb_s"`
	MemoryGB           float64            `json:"memory_gb"`
	Source             string             `json:"source"`
}

// ModelCost is one workload model's counted cost.
type ModelCost struct {
	Model                    string  `json:"model"`
	ForwardFLOPsPerSample    float64 `json:"forward_flops_per_sample"`
	ActivationBytesPerSample float64 `json:"activation_bytes_per_sample"`
	ParamBytes               float64 `json:"param_bytes"`
	Source                   string  `json:"source"`
}

// ExtrapolationData is the datasheets and model costs the extrapolation
// uses.
type ExtrapolationData struct {
	GPUs   map[string]Datasheet
	Models map[string]ModelCost

	ranks map[string]int // of declared types
}

// BuiltinData reads calibrate/data/gpus.json and workloads.json.
func BuiltinData() (*ExtrapolationData, error) {
	d := &ExtrapolationData{GPUs: map[string]Datasheet{}, Models: map[string]ModelCost{}, ranks: map[string]int{}}
	var g struct {
		GPUs []Datasheet `json:"gpus"`
	}
	var w struct {
		Models []ModelCost `json:"models"`
	}
	for name, v := range map[string]any{"data/gpus.json": &g, "data/workloads.json": &w} {
		b, err := dataFS.ReadFile(name)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, v); err != nil {
			return nil, fmt.Errorf("calibrate: %s: %w", name, err)
		}
	}
	for _, s := range g.GPUs {
		if _, ok := catalogueTypeName(s.Type); !ok {
			return nil, fmt.Errorf("calibrate: data/gpus.json: %q is no catalogue GPU type", s.Type)
		}
		if s.PeakTFLOPS["fp32"] <= 0 || s.PeakTFLOPS["fp16"] <= 0 || s.MemoryBandwidthGBs <= 0 || s.MemoryGB <= 0 {
			return nil, fmt.Errorf("calibrate: data/gpus.json: %s needs positive fp32 and fp16 peaks, bandwidth and memory", s.Type)
		}
		d.GPUs[s.Type] = s
	}
	for _, m := range w.Models {
		if m.ForwardFLOPsPerSample <= 0 || m.ActivationBytesPerSample <= 0 || m.ParamBytes <= 0 {
			return nil, fmt.Errorf("calibrate: data/workloads.json: %s needs positive costs", m.Model)
		}
		d.Models[m.Model] = m
	}
	return d, nil
}

// Declare adds the datasheets of declared GPU types that have one (fp32 and
// fp16 peaks and a bandwidth); it refuses a declaration of a type the data
// already has with other figures.
func (d *ExtrapolationData) Declare(decls []GPUDecl) error {
	for _, g := range decls {
		ds, ok := g.Datasheet()
		if !ok {
			continue
		}
		if have, dup := d.GPUs[g.Name]; dup {
			if have.MemoryGB != ds.MemoryGB || have.MemoryBandwidthGBs != ds.MemoryBandwidthGBs {
				return fmt.Errorf("calibrate: GPU type %s is declared twice with different datasheets", g.Name)
			}
			continue
		}
		d.GPUs[g.Name] = ds
		d.ranks[g.Name] = g.Rank
	}
	return nil
}

// Datasheet finds a GPU type's datasheet, its name matched up to case.
func (d *ExtrapolationData) Datasheet(name string) (Datasheet, bool) {
	for n, ds := range d.GPUs {
		if strings.EqualFold(n, name) {
			return ds, true
		}
	}
	return Datasheet{}, false
}

// rank orders a GPU type by generation: the catalogue's, or the
// declaration's.
func (d *ExtrapolationData) rank(name string) int {
	if g, ok := catalogueTypeName(name); ok {
		return g.Rank
	}
	return d.ranks[name]
}

// jobModels recognises the job types whose model has a counted cost: Gavel's
// names, the Sia catalogue's, and calibrate's own defaults (with " AMP" for
// mixed precision).
var jobModels = []struct {
	re    *regexp.Regexp
	model string
}{
	{regexp.MustCompile(`^ResNet-18(?P<amp> AMP)? \(batch size (?P<batch>\d+)\)$`), "resnet18-cifar"},
	{regexp.MustCompile(`^cifar10 ResNet-18 \(Sia, batch size (?P<batch>\d+)\)$`), "resnet18-cifar"},
	{regexp.MustCompile(`^ResNet-50(?P<amp> AMP)? \(batch size (?P<batch>\d+)\)$`), "resnet50"},
	{regexp.MustCompile(`^imagenet ResNet-50 \(Sia, batch size (?P<batch>\d+)\)$`), "resnet50"},
	{regexp.MustCompile(`^VGG-16(?P<amp> AMP)? \(batch size (?P<batch>\d+)\)$`), "vgg16"},
	{regexp.MustCompile(`^LM(?P<amp> AMP)? \(batch size (?P<batch>\d+)\)$`), "lstm-wikitext2"},
	{regexp.MustCompile(`^Transformer-LM(?P<amp> AMP)? \(batch size (?P<batch>\d+)\)$`), "transformer-lm"},
}

// jobCost is a job type's cost per training step.
type jobCost struct {
	model string
	batch int
	amp   bool
	flops float64 // F: FLOPs per step and worker
	bytes float64 // M: bytes moved per step and worker
}

func (d *ExtrapolationData) cost(job string) (jobCost, bool) {
	for _, jm := range jobModels {
		m := jm.re.FindStringSubmatch(job)
		if m == nil {
			continue
		}
		c := jobCost{model: jm.model}
		for i, name := range jm.re.SubexpNames() {
			switch name {
			case "amp":
				c.amp = m[i] != ""
			case "batch":
				c.batch, _ = strconv.Atoi(m[i])
			}
		}
		mc, ok := d.Models[jm.model]
		if !ok || c.batch < 1 {
			return jobCost{}, false
		}
		s := 1.0
		if c.amp {
			s = 0.5
		}
		b := float64(c.batch)
		c.flops = 3 * mc.ForwardFLOPsPerSample * b
		c.bytes = 3*mc.ActivationBytesPerSample*b*s + 4*mc.ParamBytes
		return c, true
	}
	return jobCost{}, false
}

// DefaultMethod is the extrapolation model used unless another is asked
// for: "two-term", whose leave-one-type-out error on the catalogue's
// measured figures is the lower (see calibrate/data/README.md).
const DefaultMethod = "two-term"

// ExtrapolateOptions choose the model.
type ExtrapolateOptions struct {
	// Method is "two-term" (DefaultMethod) or "roofline".
	Method string
	// TF32 takes fp32 jobs on GPUs with TF32 tensor cores (Ampere and
	// newer) at the TF32 peak (PyTorch's cuDNN convolutions default to
	// TF32) instead of the CUDA cores' fp32 peak.
	TF32 bool
}

// obs is one measured figure the model can use.
type obs struct {
	job   string
	gpu   string
	gang  int
	steps float64 // 0: could not run
}

// Extrapolator estimates throughput on GPU types from measured ones.
type Extrapolator struct {
	data *ExtrapolationData
	opts ExtrapolateOptions
	obs  []obs
	// memory is the measured peak memory per worker of a job, in bytes,
	// where a calibration record gave one.
	memory map[string]uint64
}

// NewExtrapolator takes the consolidated figures of m whose job type has a
// counted cost and whose GPU type has a datasheet. memory (may be nil) is
// measured peak memory per worker by job type.
func NewExtrapolator(data *ExtrapolationData, m *models.Matrix, memory map[string]uint64, opts ExtrapolateOptions) (*Extrapolator, error) {
	switch opts.Method {
	case "":
		opts.Method = DefaultMethod
	case "roofline", "two-term":
	default:
		return nil, fmt.Errorf("calibrate: extrapolation method %q: want roofline or two-term", opts.Method)
	}
	x := &Extrapolator{data: data, opts: opts, memory: memory}
	for _, k := range m.Keys() {
		if k.Placement != models.Consolidated {
			continue
		}
		if _, ok := data.GPUs[k.GPU]; !ok {
			continue
		}
		if _, ok := data.cost(k.Job); !ok {
			continue
		}
		x.obs = append(x.obs, obs{job: k.Job, gpu: k.GPU, gang: k.Gang, steps: m.Throughput(k)})
	}
	if len(x.obs) == 0 {
		return nil, fmt.Errorf("calibrate: no measured figure of a job type with a counted cost on a GPU type with a datasheet")
	}
	return x, nil
}

// roofline is the roofline step time of c on g and which bound holds.
func (x *Extrapolator) roofline(c jobCost, g Datasheet) (compute, memory float64) {
	prec := "fp32"
	if c.amp {
		prec = "fp16"
	} else if x.opts.TF32 && g.PeakTFLOPS["tf32"] > 0 {
		prec = "tf32"
	}
	return c.flops / (g.PeakTFLOPS[prec] * 1e12), c.bytes / (g.MemoryBandwidthGBs * 1e9)
}

// Estimate is one estimated figure.
type Estimate struct {
	Job            string   `json:"job_type"`
	GPU            string   `json:"gpu_type"`
	Gang           int      `json:"gang"`
	StepsPerSecond float64  `json:"steps_per_second"` // 0: does not fit
	DoesNotFit     string   `json:"does_not_fit,omitempty"`
	Bound          string   `json:"bound"`                // compute or memory (the roofline's, at gang 1)
	Efficiency     float64  `json:"efficiency,omitempty"` // roofline method: e_j
	Alpha          float64  `json:"alpha,omitempty"`      // two-term method: α_j (compute term)
	Beta           float64  `json:"beta,omitempty"`       // two-term method: β_j (memory term)
	Scaling        float64  `json:"scaling,omitempty"`    // steps_k/steps_1 used for gang k
	FittedOn       []string `json:"fitted_on"`
	Measured       *float64 `json:"measured,omitempty"` // the target's own figure, when it has one
}

// predict estimates job at gang on target from the observations train.
func (x *Extrapolator) predict(train []obs, job string, gang int, target string) (Estimate, bool) {
	e := Estimate{Job: job, GPU: target, Gang: gang}
	c, ok := x.data.cost(job)
	ds, dok := x.data.GPUs[target]
	if !ok || !dok {
		return e, false
	}
	// Does not fit: it could not run on a type with at least this memory,
	// or its measured memory exceeds this type's.
	for _, o := range train {
		if o.job == job && o.gang == gang && o.steps == 0 && x.data.GPUs[o.gpu].MemoryGB >= ds.MemoryGB {
			e.DoesNotFit = fmt.Sprintf("cannot run on %s, which has %g GB", o.gpu, x.data.GPUs[o.gpu].MemoryGB)
		}
	}
	if mem := x.memory[job]; mem > 0 && float64(mem) > ds.MemoryGB*1e9 {
		e.DoesNotFit = fmt.Sprintf("measured peak memory %.1f GB exceeds %g GB", float64(mem)/1e9, ds.MemoryGB)
	}
	// Gang-1 fit.
	var ts, cs, ms []float64
	one := map[string]float64{}
	for _, o := range train {
		if o.job != job || o.gang != 1 || o.steps <= 0 {
			continue
		}
		comp, mem := x.roofline(c, x.data.GPUs[o.gpu])
		ts, cs, ms = append(ts, 1/o.steps), append(cs, comp), append(ms, mem)
		one[o.gpu] = o.steps
		e.FittedOn = append(e.FittedOn, o.gpu)
	}
	comp, mem := x.roofline(c, ds)
	e.Bound = "compute"
	if mem > comp {
		e.Bound = "memory"
	}
	if len(ts) == 0 {
		return e, e.DoesNotFit != "" // nothing to fit, but known not to fit
	}
	sort.Strings(e.FittedOn)
	var step float64
	if a, b, ok := x.twoTerm(ts, cs, ms); x.opts.Method == "two-term" && ok {
		step = a*comp + b*mem
		e.Alpha, e.Beta = a, b
	} else {
		var logs []float64
		for i := range ts {
			logs = append(logs, math.Log(math.Max(cs[i], ms[i])/ts[i]))
		}
		e.Efficiency = math.Exp(stat.Mean(logs, nil))
		step = math.Max(comp, mem) / e.Efficiency
	}
	steps := 1 / step
	if gang > 1 {
		var logs []float64
		for _, o := range train {
			if s1 := one[o.gpu]; o.job == job && o.gang == gang && o.steps > 0 && s1 > 0 {
				logs = append(logs, math.Log(o.steps/s1))
			}
		}
		if len(logs) == 0 {
			return e, e.DoesNotFit != ""
		}
		e.Scaling = math.Exp(stat.Mean(logs, nil))
		steps *= e.Scaling
	}
	if e.DoesNotFit == "" {
		e.StepsPerSecond = steps
	}
	return e, true
}

// twoTerm fits t ≈ α·c + β·m with α, β ≥ 0, minimising Σ ((α·c + β·m)/t − 1)²;
// false with fewer than two points.
func (x *Extrapolator) twoTerm(ts, cs, ms []float64) (alpha, beta float64, ok bool) {
	if len(ts) < 2 {
		return 0, 0, false
	}
	// Normal equations of the relative residuals u·α + v·β − 1.
	var uu, uv, vv, u1, v1 float64
	for i := range ts {
		u, v := cs[i]/ts[i], ms[i]/ts[i]
		uu, uv, vv, u1, v1 = uu+u*u, uv+u*v, vv+v*v, u1+u, v1+v
	}
	det := uu*vv - uv*uv
	if det > 1e-12*uu*vv {
		alpha, beta = (u1*vv-v1*uv)/det, (v1*uu-u1*uv)/det
		if alpha >= 0 && beta >= 0 {
			return alpha, beta, true
		}
	}
	// On the boundary: one term only, whichever fits better.
	a1, b1 := u1/uu, v1/vv
	r := func(a, b float64) float64 {
		s := 0.0
		for i := range ts {
			d := (a*cs[i]+b*ms[i])/ts[i] - 1
			s += d * d
		}
		return s
	}
	if r(a1, 0) <= r(0, b1) {
		return a1, 0, true
	}
	return 0, b1, true
}

// Estimates estimates every job type and gang measured on some other type
// with a datasheet on target, leaving target's own figures out of the fit
// (and reporting them as Measured).
func (x *Extrapolator) Estimates(target string) ([]Estimate, error) {
	if _, ok := x.data.GPUs[target]; !ok {
		return nil, fmt.Errorf("calibrate: no datasheet for GPU type %q (have %s; give one with --datasheet)", target, x.datasheetTypes())
	}
	var train []obs
	own := map[[2]any]float64{}
	type jg struct {
		job  string
		gang int
	}
	seen := map[jg]bool{}
	var keys []jg
	for _, o := range x.obs {
		if o.gpu == target {
			own[[2]any{o.job, o.gang}] = o.steps
			continue
		}
		train = append(train, o)
		if !seen[jg{o.job, o.gang}] {
			seen[jg{o.job, o.gang}] = true
			keys = append(keys, jg{o.job, o.gang})
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].job != keys[j].job {
			return keys[i].job < keys[j].job
		}
		return keys[i].gang < keys[j].gang
	})
	var out []Estimate
	for _, k := range keys {
		e, ok := x.predict(train, k.job, k.gang, target)
		if !ok {
			continue
		}
		if v, ok := own[[2]any{k.job, k.gang}]; ok {
			e.Measured = &v
		}
		out = append(out, e)
	}
	return out, nil
}

func (x *Extrapolator) datasheetTypes() string {
	return fmt.Sprint(slices.Sorted(maps.Keys(x.data.GPUs)))
}

// LOOType is the leave-one-type-out error on one measured type: every
// figure of the type that could be predicted from the other types, as the
// relative error estimate/measured − 1.
type LOOType struct {
	GPU       string  `json:"gpu_type"`
	N         int     `json:"n"`
	MedianAbs float64 `json:"median_abs_error"`
	MeanAbs   float64 `json:"mean_abs_error"`
	MaxAbs    float64 `json:"max_abs_error"`
	// Bias is the geometric mean of estimate/measured, minus 1: positive
	// when the type's figures are over-estimated.
	Bias float64 `json:"bias"`
	// Within25 is the fraction of figures estimated within ±25%.
	Within25 float64 `json:"within_25pct"`
}

// LOOReport is the leave-one-type-out evaluation of the model.
type LOOReport struct {
	Method string    `json:"method"`
	TF32   bool      `json:"tf32"`
	Types  []LOOType `json:"types"`
	All    LOOType   `json:"all"`
}

// LeaveOneTypeOut predicts each measured type's figures from the other
// types' and reports the errors per type and overall (figures that are 0,
// "cannot run", are not scored).
func (x *Extrapolator) LeaveOneTypeOut() LOOReport {
	rep := LOOReport{Method: x.opts.Method, TF32: x.opts.TF32}
	byType := map[string][]obs{}
	for _, o := range x.obs {
		byType[o.gpu] = append(byType[o.gpu], o)
	}
	var types []string
	for t := range byType {
		types = append(types, t)
	}
	sort.Slice(types, func(i, j int) bool { return x.data.rank(types[i]) < x.data.rank(types[j]) })
	var all []float64
	for _, t := range types {
		var train []obs
		for _, o := range x.obs {
			if o.gpu != t {
				train = append(train, o)
			}
		}
		var ratios []float64
		for _, o := range byType[t] {
			if o.steps <= 0 {
				continue
			}
			e, ok := x.predict(train, o.job, o.gang, t)
			if !ok || e.StepsPerSecond <= 0 {
				continue
			}
			ratios = append(ratios, e.StepsPerSecond/o.steps)
		}
		if len(ratios) == 0 {
			continue
		}
		rep.Types = append(rep.Types, looSummary(t, ratios))
		all = append(all, ratios...)
	}
	rep.All = looSummary("all", all)
	return rep
}

func looSummary(gpu string, ratios []float64) LOOType {
	s := LOOType{GPU: gpu, N: len(ratios)}
	if len(ratios) == 0 {
		return s
	}
	abs := make([]float64, len(ratios))
	var logs float64
	within := 0
	for i, r := range ratios {
		abs[i] = math.Abs(r - 1)
		logs += math.Log(r)
		if abs[i] <= 0.25 {
			within++
		}
	}
	sort.Float64s(abs)
	s.MedianAbs = stat.Quantile(0.5, stat.Empirical, abs, nil)
	s.MeanAbs = stat.Mean(abs, nil)
	s.MaxAbs = abs[len(abs)-1]
	s.Bias = math.Exp(logs/float64(len(ratios))) - 1
	s.Within25 = float64(within) / float64(len(ratios))
	return s
}
