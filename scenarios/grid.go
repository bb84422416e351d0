package scenarios

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"

	"fairbench/internal/input"
	"fairbench/models"
	"fairbench/models/catalogue"
	"fairbench/solvers"
	"fairbench/solvers/registry"
)

// Grid is a scenario file expanded into runs. Every key written as a list in
// place of a scalar is an Axis (policies always is one, seed is one when
// written as a list); the runs are the cartesian product of the axes.
//
// Order: axes are sorted by path (byte order, so cluster.servers[10] sorts
// before cluster.servers[2]); runs enumerate the product with the first axis
// varying slowest and each axis's values in file order. Two points of a grid
// that give the same concrete spec (same ID) are refused.
type Grid struct {
	// File is the scenario file ("" for Default).
	File string
	// Base is the file as written, decoded generically (lists and all).
	Base map[string]any
	// Axes are the grid's axes, sorted by path.
	Axes []Axis
	// Runs are the concrete runs, in the order described above.
	Runs []Run

	src   *source
	tmpl  map[string]any
	axes  []*axisDef // in walk order; tmpl's axisRefs index this
	cat   catalogue.Catalog
	check bool
	reg   *solvers.Registry // policy names and options are checked against it
}

// Axis is one key written as a list.
type Axis struct {
	// Path is the key's field path: seed, policies,
	// cluster.servers[0].count, preemption.seconds["A3C"], ...
	Path string
	// Values are the listed values in file order: int64 for whole-number
	// keys, float64 for numbers, string for strings and policies, []any of
	// strings for a list-valued key written as a list of lists.
	Values []any
}

// AxisValue is the value one run takes on one axis.
type AxisValue struct {
	Path  string
	Value any
}

// Input is a file a run reads, with the digest of its content.
type Input struct {
	Role   string // "throughputs", "calibration" or "trace"
	Path   string // resolved against the scenario file's directory
	SHA256 string // hex SHA-256 of the file's bytes when the grid was loaded
}

// Run is one concrete scenario of a grid: one policy, one seed.
type Run struct {
	// ID is the first 12 hex digits of the SHA-256 of a canonical JSON
	// encoding (encoding/json: struct fields in declaration order, map keys
	// sorted) of {"v": 1, "catalogue": <catalogue fingerprint>, "spec":
	// <Spec>} where Spec is the run's concrete spec with Name cleared and
	// the paths of Throughputs and Workload.Trace replaced by
	// "sha256:<digest of the file's content>". Identical content therefore
	// gives an identical ID whatever the key order, the defaults written
	// out or omitted, the file's name and location; editing a referenced
	// file or a catalogue figure changes it. The policy and seed are in
	// the spec, so they are covered.
	ID string
	// Policy is the run's policy; "" when the file names none (see
	// Grid.WithPolicies).
	Policy string
	// Seed is the run's seed (Spec.Seed).
	Seed int64
	// Point is the run's value on each axis, in the order of Grid.Axes.
	Point []AxisValue
	// Spec is the concrete spec: defaults applied, Policies holding Policy
	// only, PolicyOptions holding Policy's options only (all of them when
	// Policy is ""), paths resolved.
	Spec Spec
	// Inputs are the files the run reads.
	Inputs []Input
}

// source locates a spec's fields in its file.
type source struct {
	file  string
	dir   string
	lines map[string]int
}

// Load reads a scenario file and expands it into a grid, validating every
// run against the built-in catalogue (catalogue.Builtin).
func Load(path string) (*Grid, error) { return LoadWith(path, catalogue.Builtin()) }

// LoadWith is Load against the catalogue cat. A file of more than
// input.MaxScenarioBytes is refused.
func LoadWith(path string, cat catalogue.Catalog) (*Grid, error) {
	data, err := input.ReadFile(path, input.MaxScenarioBytes)
	if err != nil {
		return nil, &Error{File: path, Reason: strings.TrimPrefix(err.Error(), path+": ")}
	}
	return ParseWith(data, path, cat)
}

// Parse expands the scenario data, naming it name in errors and resolving
// relative paths against name's directory.
func Parse(data []byte, name string) (*Grid, error) {
	return ParseWith(data, name, catalogue.Builtin())
}

// ParseWith is Parse against the catalogue cat.
func ParseWith(data []byte, name string, cat catalogue.Catalog) (*Grid, error) {
	return newGrid(data, name, cat, true)
}

func newGrid(data []byte, name string, cat catalogue.Catalog, check bool) (*Grid, error) {
	root, err := parseYAML(data, name)
	if err != nil {
		return nil, err
	}
	w := &walker{file: name, lines: map[string]int{}}
	tmpl, err := w.value(root, reflect.TypeOf(Spec{}), "", "")
	if err != nil {
		return nil, err
	}
	m, ok := tmpl.(map[string]any)
	if !ok {
		return nil, &Error{File: name, Line: root.Line, Reason: "a scenario must be a mapping of keys to values"}
	}
	var base map[string]any
	if err := root.Decode(&base); err != nil {
		return nil, &Error{File: name, Line: root.Line, Reason: err.Error()}
	}
	src := &source{file: name, dir: filepath.Dir(name), lines: w.lines}
	if cat, err = declareGPUTypes(cat, m, w.axes, src); err != nil {
		return nil, err
	}
	if cat, err = declareJobTypes(cat, m, w.axes, src); err != nil {
		return nil, err
	}
	g := &Grid{
		File: name, Base: base, tmpl: m, axes: w.axes, cat: cat, check: check, src: src, reg: registry.Default(),
	}
	if err := g.checkTemplate(); err != nil {
		return nil, err
	}
	if err := g.expand(); err != nil {
		return nil, err
	}
	return g, nil
}

// WithPolicies returns a copy of g whose policies axis is names (replacing
// the file's, if any): how the CLI fills in "every registered policy" for a
// file without policies. names must be non-empty and distinct.
func (g *Grid) WithPolicies(names []string) (*Grid, error) {
	if len(names) == 0 {
		return nil, &Error{File: g.File, Path: "policies", Reason: "no policies given"}
	}
	vals := make([]any, len(names))
	for i, n := range names {
		vals[i] = n
	}
	return g.withAxis("policies", vals, true)
}

// WithSeeds returns a copy of g whose seed axis is seeds (the --seed flag),
// replacing the file's seed or seed list.
func (g *Grid) WithSeeds(seeds []int64) (*Grid, error) {
	if len(seeds) == 0 {
		return nil, &Error{File: g.File, Path: "seed", Reason: "no seeds given"}
	}
	vals := make([]any, len(seeds))
	for i, s := range seeds {
		vals[i] = s
	}
	return g.withAxis("seed", vals, false)
}

// withAxis replaces (or adds) the top-level axis at key.
func (g *Grid) withAxis(key string, vals []any, wrap bool) (*Grid, error) {
	h := *g
	h.axes = append([]*axisDef(nil), g.axes...)
	h.tmpl = make(map[string]any, len(g.tmpl)+1)
	for k, v := range g.tmpl {
		h.tmpl[k] = v
	}
	def := &axisDef{path: key, values: vals, wrap: wrap}
	if ref, ok := g.tmpl[key].(*axisRef); ok {
		def.line = g.axes[ref.axis].line
		h.axes[ref.axis] = def
	} else {
		h.axes = append(h.axes, def)
		h.tmpl[key] = &axisRef{axis: len(h.axes) - 1}
	}
	if err := h.checkTemplate(); err != nil {
		return nil, err
	}
	if err := h.expand(); err != nil {
		return nil, err
	}
	return &h, nil
}

// checkTemplate checks what holds for the whole file rather than per run:
// distinct, non-empty, registered policy names, and policy_options naming
// only listed (and registered) policies, with options each policy accepts:
// the policy is built with them, so a typo is an error with its line now
// rather than a failed run later.
func (g *Grid) checkTemplate() error {
	var policies []string
	if ref, ok := g.tmpl["policies"].(*axisRef); ok {
		seen := map[string]bool{}
		for i, v := range g.axes[ref.axis].values {
			p := v.(string)
			path := index("policies", i)
			if strings.TrimSpace(p) == "" {
				return g.locate(errf(path, "empty policy name"))
			}
			if seen[p] {
				return g.locate(errf(path, "duplicate policy %q", p))
			}
			if g.reg != nil {
				if _, ok := g.reg.Lookup(p); !ok {
					return g.locate(errf(path, "unknown policy %q (known: %s)", p, strings.Join(g.reg.Names(), ", ")))
				}
			}
			seen[p] = true
			policies = append(policies, p)
		}
	}
	if opts, ok := g.tmpl["policy_options"].(map[string]any); ok {
		for _, name := range slices.Sorted(maps.Keys(opts)) {
			path := field("policy_options", name, true)
			if err := checkOpaque(opts[name], path); err != nil {
				return g.locate(err)
			}
			if policies != nil && !contains(policies, name) {
				return g.locate(errf(path, "options for policy %q, which is not in policies (%s)",
					name, strings.Join(policies, ", ")))
			}
			if err := g.checkOptions(name, path, opts[name]); err != nil {
				return err
			}
		}
	}
	return nil
}

// buildPolicy builds policy name with options; a policy that panics on
// them is reported as an error, not allowed to take the process down.
func buildPolicy(reg *solvers.Registry, name string, options map[string]any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("policy %s: panicked on these options: %v", name, r)
		}
	}()
	_, err = reg.New(name, solvers.Config{Options: options, Rand: Stream(0, "policy"),
		Restore: func(models.JobType) time.Duration { return 0 }})
	return err
}

// invalidKeys finds the keys mapstructure names in "has invalid keys: a, b".
var invalidKeys = regexp.MustCompile(`invalid keys: ([^\n]+)`)

// checkOptions builds policy name with its options, naming the line of
// the first offending key when the policy refuses one.
func (g *Grid) checkOptions(name, path string, opts any) error {
	if g.reg == nil {
		return nil
	}
	if _, ok := g.reg.Lookup(name); !ok {
		return g.locate(errf(path, "options for unknown policy %q (known: %s)", name, strings.Join(g.reg.Names(), ", ")))
	}
	m, _ := opts.(map[string]any)
	err := buildPolicy(g.reg, name, m)
	if err == nil {
		return nil
	}
	where := path
	if k := invalidKeys.FindStringSubmatch(err.Error()); k != nil {
		first := strings.TrimSpace(strings.Split(k[1], ",")[0])
		if _, ok := g.src.lines[field(path, first, true)]; ok {
			where = field(path, first, true)
		}
	}
	// mapstructure's message spans lines; one line reads better.
	msg := strings.ReplaceAll(err.Error(), "decoding failed due to the following error(s):", "")
	msg = strings.ReplaceAll(msg, "'' has invalid keys:", "unknown option keys:")
	return g.locate(errf(where, "%s", strings.Join(strings.Fields(msg), " ")))
}

// checkOpaque refuses what a canonical JSON encoding cannot hold: NaN,
// infinities and non-string mapping keys.
func checkOpaque(v any, path string) *fieldError {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return errf(path, "must be a finite number, got %v", x)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if err := checkOpaque(x[k], field(path, k, true)); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range x {
			if err := checkOpaque(e, index(path, i)); err != nil {
				return err
			}
		}
	case map[any]any:
		return errf(path, "mapping keys must be strings")
	}
	return nil
}

// order is the walk indices of the axes sorted by path.
func (g *Grid) order() []int {
	ord := make([]int, len(g.axes))
	for i := range ord {
		ord[i] = i
	}
	sort.SliceStable(ord, func(a, b int) bool { return g.axes[ord[a]].path < g.axes[ord[b]].path })
	return ord
}

// expand computes Axes and Runs.
func (g *Grid) expand() error {
	ord := g.order()
	g.Axes = make([]Axis, len(ord))
	for i, k := range ord {
		g.Axes[i] = Axis{Path: g.axes[k].path, Values: g.axes[k].values}
	}
	runs := 1
	for _, a := range g.axes {
		if runs *= len(a.values); runs > MaxRuns {
			return &Error{File: g.File, Reason: fmt.Sprintf("the grid has more than %d runs", MaxRuns)}
		}
	}
	files := newInputCache()
	files.cat = g.cat
	files.catalogue = newFigures(g.cat, nil)
	catFP := catalogueFingerprint(g.cat)
	point := make([]int, len(g.axes))
	g.Runs = nil
	ids := map[string]int{}
	for {
		run, err := g.makeRun(point, ord, files, catFP)
		if err != nil {
			return err
		}
		if prev, dup := ids[run.ID]; dup {
			return &Error{File: g.File, Reason: fmt.Sprintf("grid points %s and %s give the same run (ID %s)",
				describePoint(g.Runs[prev].Point), describePoint(run.Point), run.ID)}
		}
		ids[run.ID] = len(g.Runs)
		g.Runs = append(g.Runs, run)
		k := len(ord) - 1
		for ; k >= 0; k-- {
			a := ord[k]
			point[a]++
			if point[a] < len(g.axes[a].values) {
				break
			}
			point[a] = 0
		}
		if k < 0 {
			return nil
		}
	}
}

func describePoint(p []AxisValue) string {
	var parts []string
	for _, av := range p {
		parts = append(parts, fmt.Sprintf("%s=%v", av.Path, av.Value))
	}
	if len(parts) == 0 {
		return "(the only point)"
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func (g *Grid) makeRun(point, ord []int, files *inputCache, catFP string) (Run, error) {
	var pt []AxisValue
	for _, k := range ord {
		pt = append(pt, AxisValue{Path: g.axes[k].path, Value: g.axes[k].values[point[k]]})
	}
	tree := instantiate(g.tmpl, g.axes, point).(map[string]any)
	if n, ok := tree["user_count"].(int64); ok && n == 0 {
		return Run{}, g.locateAt(errf("user_count", "must be ≥ 1, got 0 (omit the key for the default)"), pt)
	}
	applyDefaults(tree)
	var s Spec
	dec, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{Result: &s, ErrorUnused: true})
	if err != nil {
		panic(err)
	}
	if err := dec.Decode(tree); err != nil {
		return Run{}, &Error{File: g.File, Reason: "decoding: " + err.Error()}
	}
	s.src, s.cat = g.src, &g.cat
	s.finish()
	run := Run{Seed: s.Seed, Point: pt}
	if len(s.Policies) == 1 {
		run.Policy = s.Policies[0]
	}
	if run.Policy != "" {
		if opts := s.PolicyOptions[run.Policy]; opts != nil {
			s.PolicyOptions = map[string]map[string]any{run.Policy: opts}
		} else {
			s.PolicyOptions = nil
		}
	}
	figs := files.catalogue
	if s.Throughputs != DefaultThroughputs && s.Throughputs != "" {
		in, err := files.get(s.Throughputs, true)
		if err != nil {
			return Run{}, g.locateAt(errf("throughputs", "%v", err), pt)
		}
		if in.figures == nil {
			in.figures, in.matrix = newFigures(g.cat, in.matrix), nil // the figures took it over
		}
		figs = in.figures
		run.Inputs = append(run.Inputs, Input{Role: "throughputs", Path: s.Throughputs, SHA256: in.sha})
	}
	if s.Calibration != "" {
		cf, sha, err := files.calibratedFigures(figs, s.Calibration)
		if err != nil {
			return Run{}, g.locateAt(asFieldError("calibration", err), pt)
		}
		figs = cf
		run.Inputs = append(run.Inputs, Input{Role: "calibration", Path: s.Calibration, SHA256: sha})
	}
	if s.Workload.Trace != "" {
		in, err := files.get(s.Workload.Trace, false)
		if err != nil {
			return Run{}, g.locateAt(errf("workload.trace", "%v", err), pt)
		}
		run.Inputs = append(run.Inputs, Input{Role: "trace", Path: s.Workload.Trace, SHA256: in.sha})
	}
	s.read = &prepared{cat: s.cat, throughputs: s.Throughputs, calibration: s.Calibration, figures: figs,
		traceFile: s.Workload.Trace, traceFormat: s.Workload.TraceFormat}
	if g.check {
		e, ferr := s.validate(figs)
		if ferr != nil {
			return Run{}, g.locateAt(ferr, pt)
		}
		tr, err := files.checkTrace(&s, e)
		if err != nil {
			return Run{}, err
		}
		s.read.trace = tr
	}
	run.Spec = s
	run.ID = runID(s, run.Inputs, catFP)
	return run, nil
}

// locate turns a field error into an *Error with the file and line.
func (g *Grid) locate(fe *fieldError) *Error { return g.src.locate(fe) }

// locateAt is locate plus the grid point, when the grid has axes other
// than policies.
func (g *Grid) locateAt(fe *fieldError, pt []AxisValue) *Error {
	e := g.src.locate(fe)
	var rest []AxisValue
	for _, av := range pt {
		if av.Path != "policies" {
			rest = append(rest, av)
		}
	}
	if len(rest) > 0 {
		e.Reason += " (at grid point " + describePoint(rest) + ")"
	}
	return e
}

func (src *source) locate(fe *fieldError) *Error {
	if src == nil {
		return &Error{Path: fe.path, Reason: fe.reason}
	}
	return &Error{File: src.file, Line: src.line(fe.path), Path: fe.path, Reason: fe.reason}
}

// line is the line of path, or of its nearest recorded ancestor.
func (src *source) line(path string) int {
	for path != "" {
		if l, ok := src.lines[path]; ok {
			return l
		}
		cut := strings.LastIndexAny(path, ".[")
		if cut < 0 {
			break
		}
		path = path[:cut]
	}
	return 0
}

// applyDefaults fills in absent optional keys of a concrete tree. Keys
// whose explicit zero means something (count: 0, bandwidth 0) need this to
// happen before decoding.
func applyDefaults(t map[string]any) {
	setDefault(t, "round_seconds", int64(DefaultRoundSeconds))
	setDefault(t, "throughputs", DefaultThroughputs)
	pre := subMap(t, "preemption")
	setDefault(pre, "bandwidth_gb_per_second", DefaultBandwidthGBps)
	if c, ok := t["cluster"].(map[string]any); ok {
		if servers, ok := c["servers"].([]any); ok {
			for _, s := range servers {
				if m, ok := s.(map[string]any); ok {
					setDefault(m, "count", int64(1))
				}
			}
		}
	}
	if users, ok := t["users"].([]any); ok {
		for _, u := range users {
			if m, ok := u.(map[string]any); ok {
				setDefault(m, "weight", 1.0)
			}
		}
	}
	wl := subMap(t, "workload")
	setDefault(wl, "generator", GeneratorPhilly)
	setDefault(wl, "user_assignment", DefaultUserAssignment)
	switch wl["generator"] {
	case GeneratorPhilly:
		setDefault(wl, "jobs", int64(DefaultPhillyJobs))
	case GeneratorTrace:
		setDefault(wl, "unrunnable", UnrunnableRefuse)
	}
}

func setDefault(m map[string]any, key string, v any) {
	if _, ok := m[key]; !ok {
		m[key] = v
	}
}

func subMap(m map[string]any, key string) map[string]any {
	s, ok := m[key].(map[string]any)
	if !ok {
		s = map[string]any{}
		m[key] = s
	}
	return s
}

// finish completes a decoded spec: the name, resolved paths, the trace
// format and the philly gang distribution.
func (s *Spec) finish() {
	if s.Name == "" && s.src != nil && s.src.file != "" {
		base := filepath.Base(s.src.file)
		s.Name = strings.TrimSuffix(base, filepath.Ext(base))
	}
	if s.src != nil {
		if s.Throughputs != DefaultThroughputs && s.Throughputs != "" && !filepath.IsAbs(s.Throughputs) {
			s.Throughputs = filepath.Join(s.src.dir, s.Throughputs)
		}
		if s.Workload.Trace != "" && !filepath.IsAbs(s.Workload.Trace) {
			s.Workload.Trace = filepath.Join(s.src.dir, s.Workload.Trace)
		}
		s.resolveCalibration()
	}
	if s.Workload.Generator == GeneratorTrace && s.Workload.TraceFormat == "" {
		s.Workload.TraceFormat = FormatGavel
		if strings.EqualFold(filepath.Ext(s.Workload.Trace), ".csv") {
			s.Workload.TraceFormat = FormatCSV
		}
	}
	if s.Measure.Stop == StopAllDone {
		s.Measure.Stop = "" // the default: the same run, the same ID
	}
	if s.Workload.Generator == GeneratorPhilly && len(s.Workload.Gangs) == 0 {
		s.Workload.Gangs = PhillyGangs()
	}
	if len(s.Users) == 0 && s.UserCount > 0 && s.UserCount <= MaxUsers {
		for i := 0; i < s.UserCount; i++ {
			s.Users = append(s.Users, UserSpec{Name: fmt.Sprintf("u%d", i), Weight: 1})
		}
		s.UserCount = 0
	}
}

// runID is described at Run.ID.
func runID(s Spec, inputs []Input, catFP string) string {
	s.Name = ""
	for _, in := range inputs {
		switch in.Role {
		case "throughputs":
			s.Throughputs = "sha256:" + in.SHA256
		case "trace":
			s.Workload.Trace = "sha256:" + in.SHA256
		case "calibration":
			s.Calibration = "sha256:" + in.SHA256
		}
	}
	doc := struct {
		V         int    `json:"v"`
		Catalogue string `json:"catalogue"`
		Spec      Spec   `json:"spec"`
	}{1, catFP, s}
	b, err := json.Marshal(doc)
	if err != nil {
		panic(fmt.Sprintf("scenarios: encoding a spec for its ID: %v", err)) // checkOpaque prevents this
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:12]
}

// catalogueFingerprint hashes every figure and type attribute that can
// change a result (citations excluded).
func catalogueFingerprint(cat catalogue.Catalog) string {
	b := sha256.New() // the lines are hashed as they are written
	for _, t := range cat.GPUTypes {
		fmt.Fprintf(b, "gpu\t%s\t%g\t%d\n", t.Name, t.MemoryGB, t.Rank)
	}
	for _, t := range cat.JobTypes {
		fmt.Fprintf(b, "job\t%s\t%s\t%d\t%g\t%g\t%g\n", t.Name, t.Model, t.BatchSize, t.MemoryGB, t.StateGB, t.EpochSamples)
	}
	if cat.Matrix != nil {
		// The figures' lines are what fmt's "%s\t%d\t%g" would write, appended
		// directly: the built-in catalogue holds 2,600 of them and a grid hashes
		// it on every load.
		line := make([]byte, 0, 128)
		for _, k := range cat.Matrix.Keys() {
			line = appendKey(append(line[:0], "iso\t"...), k)
			line = appendFigure(line, cat.Matrix.Throughput(k))
			b.Write(append(line, '\n'))
		}
		for _, k := range cat.Matrix.PairKeys() {
			p, _ := cat.Matrix.Pair(k)
			line = appendKey(append(line[:0], "pair\t"...), k.Key)
			line = append(append(line, k.Other...), '\t')
			line = appendFigure(append(appendFigure(line, p[0]), '\t'), p[1])
			b.Write(append(line, '\n'))
		}
	}
	return hex.EncodeToString(b.Sum(nil))
}

// appendKey appends k's fields as fmt's "%s\t%s\t%d\t%d\t" writes them.
func appendKey(b []byte, k models.Key) []byte {
	b = append(append(b, k.Job...), '\t')
	b = append(append(b, k.GPU...), '\t')
	b = append(strconv.AppendInt(b, int64(k.Gang), 10), '\t')
	return append(strconv.AppendInt(b, int64(k.Placement), 10), '\t')
}

// appendFigure appends v as fmt's %g writes it: the shortest decimal that
// reads back as v.
func appendFigure(b []byte, v float64) []byte {
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// inputCache reads each referenced file once per grid.
type inputCache struct {
	files     map[string]*inputFile
	catalogue *figures          // the catalogue alone
	cat       catalogue.Catalog // the GPU and job types a throughputs file may name
	traces    map[string]*Trace
	traceErrs map[string]error
	checked   map[string]error // trace checks done, by setting
	// calibrated: figures with a calibration record applied (calibration.go)
	calibrated map[calibratedKey]*figures
}

type inputFile struct {
	sha     string
	matrix  *models.Matrix
	figures *figures // the catalogue merged with matrix, built on first use
	err     error
}

func newInputCache() *inputCache {
	return &inputCache{files: map[string]*inputFile{}, traces: map[string]*Trace{},
		traceErrs: map[string]error{}, checked: map[string]error{}}
}

func (c *inputCache) get(path string, throughputs bool) (*inputFile, error) {
	key := fmt.Sprintf("%t\x00%s", throughputs, path)
	if f, ok := c.files[key]; ok {
		return f, f.err
	}
	f := &inputFile{}
	c.files[key] = f
	if throughputs {
		data, err := input.ReadFile(path, input.MaxThroughputsBytes)
		if err != nil {
			f.err = err
			return f, err
		}
		sum := sha256.Sum256(data)
		f.sha = hex.EncodeToString(sum[:])
		f.matrix, f.err = readThroughputs(data, path, c.cat)
		return f, f.err
	}
	// A trace is only hashed here (Build reads it): streamed, within its limit.
	r, err := input.OpenLimit(path, input.MaxTraceBytes)
	if err != nil {
		f.err = err
		return f, err
	}
	defer r.Close()
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		f.err = err
		return f, err
	}
	f.sha = hex.EncodeToString(h.Sum(nil))
	return f, nil
}

// checkTrace reads the trace of a trace run (once per file and format)
// and checks its jobs against the run's cluster and figures (once per
// distinct setting), so that a bad trace is refused when the scenario is
// loaded, naming its line, before any run starts or any file is written.
// It returns the trace (nil for a generated workload), for Build to reuse.
func (c *inputCache) checkTrace(s *Spec, e *env) (*Trace, error) {
	if s.Workload.Generator != GeneratorTrace {
		return nil, nil
	}
	key := s.Workload.TraceFormat + "\x00" + s.Workload.Trace
	tr, ok := c.traces[key]
	if !ok {
		var err error
		tr, err = ReadTrace(s.Workload.Trace, s.Workload.TraceFormat)
		c.traces[key], c.traceErrs[key] = tr, err
	}
	if err := c.traceErrs[key]; err != nil {
		return nil, err
	}
	// The checks depend on the cluster, the users, the workload and the
	// figures (the catalogue's declarations, the throughput file, the
	// calibration); the spec less what cannot change them (the seed, the
	// name, the policies and their options) is checked once.
	ck := checkKey(s)
	if err, done := c.checked[ck]; done {
		return tr, err
	}
	_, _, _, err := s.traceJobs(e, tr)
	c.checked[ck] = err
	return tr, err
}

// checkKey is s in JSON without its seed, name, policies and policy
// options: two runs with the same key check their trace the same way.
func checkKey(s *Spec) string {
	k := *s
	k.Seed, k.Name, k.Policies, k.PolicyOptions = 0, "", nil, nil
	b, _ := json.Marshal(&k)
	return string(b)
}

// readThroughputs reads a Gavel-format throughput file against cat: its
// GPU keys must name cat's GPU types and its job types be cat's (the
// catalogue's or declared under job_types).
func readThroughputs(data []byte, path string, cat catalogue.Catalog) (*models.Matrix, error) {
	m, err := catalogue.ParseGavelThroughputs(data, path, cat.GPUTypes)
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for _, t := range cat.JobTypes {
		known[t.Name] = true
	}
	unknown := false
	for _, job := range m.JobTypes() {
		unknown = unknown || !known[job]
	}
	if !unknown {
		return m, nil
	}
	for _, k := range m.Keys() { // the first in order is named
		if !known[k.Job] {
			return nil, fmt.Errorf("%s: job type %q (figure for %v) is neither a catalogue job type nor declared under job_types in the scenario; declare a newly measured model there (see 'fairbench list jobs')",
				path, k.Job, k)
		}
	}
	return m, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// declareJobTypes adds the file's job_types to the catalogue. They hold for
// the whole grid, so none of their fields may be a grid axis.
func declareJobTypes(cat catalogue.Catalog, tmpl map[string]any, axes []*axisDef, src *source) (catalogue.Catalog, error) {
	for _, a := range axes {
		if strings.HasPrefix(a.path, "job_types") {
			return cat, src.locate(errf(a.path, "may not be a grid axis (job_types hold for the whole grid)"))
		}
	}
	list, _ := tmpl["job_types"].([]any)
	if len(list) == 0 {
		return cat, nil
	}
	out := cat
	out.JobTypes = append([]models.JobType(nil), cat.JobTypes...)
	for i, v := range list {
		p := index("job_types", i)
		var t JobTypeSpec
		if err := mapstructure.Decode(v, &t); err != nil {
			return cat, src.locate(errf(p, "%v", err))
		}
		if strings.TrimSpace(t.Name) == "" {
			return cat, src.locate(errf(p+".name", "required: the job type's name"))
		}
		jt := models.JobType{Name: t.Name, MemoryGB: t.MemoryGB, StateGB: t.StateGB, Source: t.Source}
		if err := jt.Validate(); err != nil {
			return cat, src.locate(errf(p, "%v", err))
		}
		for _, o := range out.JobTypes {
			if o.Name == t.Name {
				return cat, src.locate(errf(p+".name", "%q is already a job type", t.Name))
			}
		}
		out.JobTypes = append(out.JobTypes, jt)
	}
	return out, nil
}

// jobTypesAny is JobTypes in the template's untyped form.
func (s *Spec) jobTypesAny() []any {
	var out []any
	for _, t := range s.JobTypes {
		out = append(out, map[string]any{"name": t.Name, "memory_gb": t.MemoryGB, "state_gb": t.StateGB, "source": t.Source})
	}
	return out
}

// declareGPUTypes adds the file's gpu_types to the catalogue. They hold for
// the whole grid, so none of their fields may be a grid axis.
func declareGPUTypes(cat catalogue.Catalog, tmpl map[string]any, axes []*axisDef, src *source) (catalogue.Catalog, error) {
	for _, a := range axes {
		if strings.HasPrefix(a.path, "gpu_types") {
			return cat, src.locate(errf(a.path, "may not be a grid axis (gpu_types hold for the whole grid)"))
		}
	}
	list, _ := tmpl["gpu_types"].([]any)
	var extra []models.GPUType
	for i, v := range list {
		var t GPUTypeSpec
		if err := mapstructure.Decode(v, &t); err != nil {
			return cat, src.locate(errf(index("gpu_types", i), "%v", err))
		}
		extra = append(extra, models.GPUType{Name: t.Name, MemoryGB: t.MemoryGB, Rank: t.Rank, Source: t.Source})
	}
	out, err := cat.WithGPUTypes(extra)
	if err != nil {
		return cat, src.locate(errf("gpu_types", "%v", strings.TrimPrefix(err.Error(), "gpu_types")))
	}
	return out, nil
}
