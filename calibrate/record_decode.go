package calibrate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// ReadRecord reads a calibration record file (at most 32 MiB).
func ReadRecord(path string) (*Record, error) {
	data, err := readLimited(path, maxRecordBytes)
	if err != nil {
		return nil, fmt.Errorf("calibrate: record: %w", err)
	}
	return DecodeRecord(data, path)
}

// DecodeRecord parses and checks a calibration record; name is for errors.
// It refuses, naming the line and field: malformed JSON, a key given twice,
// unknown keys, numbers out of range (JSON has no NaN or Infinity; 1e999 is
// refused), nesting deeper than 32, more than 20,000 entries or pairs, a
// GPU type neither in the catalogue nor declared under gpu_types, a job
// type or pair its profile does not list, the same measurement twice,
// and figures that are not finite, positive where they must be, or beyond
// the limits in limits.go. GPU type names are canonicalised.
func DecodeRecord(data []byte, name string) (*Record, error) {
	if len(data) > maxRecordBytes {
		return nil, &InputError{What: "record", File: name, Reason: fmt.Sprintf("larger than %d bytes", maxRecordBytes)}
	}
	ix, err := scanJSON(data)
	if err != nil {
		var je *jsonError
		if errors.As(err, &je) {
			return nil, &InputError{What: "record", File: name, Line: je.line, Field: je.path, Reason: je.reason}
		}
		return nil, &InputError{What: "record", File: name, Reason: err.Error()}
	}
	var r Record
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, decodeError(name, ix, err)
	}
	v := &recordCheck{r: &r, ix: ix, file: name}
	if err := v.check(); err != nil {
		return nil, err
	}
	return &r, nil
}

var unknownFieldRE = regexp.MustCompile(`unknown field "([^"]*)"`)

// decodeError names the line of a json.Decode error where it can.
func decodeError(name string, ix *jsonIndex, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return &InputError{What: "record", File: name, Line: ix.lineAt(te.Offset), Field: te.Field,
			Reason: fmt.Sprintf("want %v, got JSON %s", te.Type, te.Value)}
	}
	if m := unknownFieldRE.FindStringSubmatch(err.Error()); m != nil {
		line := 0
		for p, off := range ix.offsets {
			if p == m[1] || strings.HasSuffix(p, "."+m[1]) {
				if l := ix.lineAt(off); line == 0 || l < line {
					line = l
				}
			}
		}
		return &InputError{What: "record", File: name, Line: line, Field: m[1], Reason: "unknown key"}
	}
	return &InputError{What: "record", File: name, Reason: strings.TrimPrefix(err.Error(), "json: ")}
}

// recordCheck validates a decoded record.
type recordCheck struct {
	r    *Record
	ix   *jsonIndex
	file string
	// declared job types and pairs, by source ("" for a single run's
	// profile): what entries and pairs may measure.
	jobs    map[string]map[string]bool
	pairs   map[string]map[string]bool
	devices map[string]int // devices per source
}

func (v *recordCheck) errf(field, format string, args ...any) error {
	return &InputError{What: "record", File: v.file, Line: v.ix.line(field), Field: field, Reason: fmt.Sprintf(format, args...)}
}

func (v *recordCheck) check() error {
	r := v.r
	if r.Format != RecordFormat {
		return v.errf("format", "%q, want %q", r.Format, RecordFormat)
	}
	if len(r.Name) > maxTextLen {
		return v.errf("name", "at most %d characters", maxTextLen)
	}
	if f, err := checkDecls(r.GPUTypes, "gpu_types"); err != nil {
		return v.errf(f, "%v", err)
	}
	if len(r.Entries) > maxRecordEntries {
		return v.errf("entries", "at most %d, got %d", maxRecordEntries, len(r.Entries))
	}
	if len(r.Pairs) > maxRecordEntries {
		return v.errf("pairs", "at most %d, got %d", maxRecordEntries, len(r.Pairs))
	}
	v.jobs, v.pairs, v.devices = map[string]map[string]bool{}, map[string]map[string]bool{}, map[string]int{}
	switch {
	case r.Profile != nil && len(r.Sources) > 0:
		return v.errf("sources", "a record has either a profile (one run) or sources (merged), not both")
	case r.Profile != nil:
		if err := v.profile("profile", "", r.Profile); err != nil {
			return err
		}
	case len(r.Sources) > 0:
		if len(r.Sources) > maxRecordEntries {
			return v.errf("sources", "at most %d, got %d", maxRecordEntries, len(r.Sources))
		}
		for i := range r.Sources {
			if err := v.source(i); err != nil {
				return err
			}
		}
	default:
		return v.errf("profile", "required: the profile that was run (or the sources of a merged record)")
	}
	seen := map[string]int{}
	for i := range r.Entries {
		if err := v.entry(i, seen); err != nil {
			return err
		}
	}
	seenPairs := map[string]int{}
	for i := range r.Pairs {
		if err := v.pair(i, seenPairs); err != nil {
			return err
		}
	}
	return nil
}

// profile checks a run's profile (as fill does for a profile file) and
// notes the job types and pairs it declares.
func (v *recordCheck) profile(field, source string, p *Spec) error {
	cp := *p
	cp.file, cp.dir, cp.lines = v.file, ".", nil
	cp.Devices = append([]DeviceSpec(nil), p.Devices...)
	if err := cp.fill(); err != nil {
		var se *InputError
		if errors.As(err, &se) {
			f := field
			if se.Field != "" {
				f += "." + se.Field
			}
			return v.errf(f, "%s", se.Reason)
		}
		return v.errf(field, "%v", err)
	}
	for _, d := range cp.GPUTypes {
		if !v.declared(d) {
			return v.errf(field+".gpu_types", "%s is not in the record's gpu_types with the same memory and rank", d.Name)
		}
	}
	jobs, pairs := map[string]bool{}, map[string]bool{}
	for _, e := range cp.AllEntries() {
		jobs[fmt.Sprintf("%d\x00%s\x00%d", e.deviceIndex, e.JobType(), e.Gang)] = true
	}
	for _, pe := range cp.PairEntries() {
		pairs[pairID(pe.deviceIndex, pe.Mode, pe.Gang, pe.A.JobType(), pe.B.JobType())] = true
	}
	v.jobs[source], v.pairs[source], v.devices[source] = jobs, pairs, len(cp.Devices)
	return nil
}

func (v *recordCheck) declared(d GPUDecl) bool {
	for _, h := range v.r.GPUTypes {
		if strings.EqualFold(h.Name, d.Name) && h.MemoryGB == d.MemoryGB && h.Rank == d.Rank {
			return true
		}
	}
	return false
}

func (v *recordCheck) source(i int) error {
	s := &v.r.Sources[i]
	f := fmt.Sprintf("sources[%d]", i)
	if s.Name == "" || len(s.Name) > 128 || hasControl(s.Name) {
		return v.errf(f+".name", "required: a name of at most 128 printable characters")
	}
	if _, dup := v.jobs[s.Name]; dup {
		return v.errf(f+".name", "%q names two sources", s.Name)
	}
	if s.Profile == nil {
		return v.errf(f+".profile", "required: the profile that source ran")
	}
	return v.profile(f+".profile", s.Name, s.Profile)
}

// jobTypeRE is a calibrated job type: "<family> (batch size B)".
var jobTypeRE = regexp.MustCompile(`^(.+) \(batch size ([0-9]+)\)$`)

// jobType checks a job type against its batch size.
func checkJobType(job string, batch int) error {
	m := jobTypeRE.FindStringSubmatch(job)
	if m == nil || len(job) > maxJobTypeLen {
		return fmt.Errorf("want \"<family> (batch size B)\" of at most %d characters, got %q", maxJobTypeLen, clip(job, 80))
	}
	if b, err := strconv.Atoi(m[2]); err != nil || b != batch {
		return fmt.Errorf("%q does not name batch_size %d", job, batch)
	}
	return checkJobFamily(m[1])
}

// where checks the fields every measurement has: the source, device, GPU
// type (canonicalised in place) and GPUs.
func (v *recordCheck) where(f, source, device string, deviceIndex int, gpuType *string, gpus []GPURef) error {
	if _, ok := v.jobs[source]; !ok {
		if source == "" {
			return v.errf(f+".source", "required in a merged record: the source it came from")
		}
		return v.errf(f+".source", "%q is no source of this record", source)
	}
	if device != "cpu" && device != "cuda" {
		return v.errf(f+".device", "want cpu or cuda, got %q", device)
	}
	if deviceIndex < 0 || deviceIndex >= v.devices[source] {
		return v.errf(f+".device_index", "must be 0..%d (the profile's devices), got %d", v.devices[source]-1, deviceIndex)
	}
	t, ok := typeSet{declared: v.r.GPUTypes}.lookup(*gpuType)
	if !ok {
		return v.errf(f+".gpu_type", "unknown GPU type %q (known: %s); declare a new one under gpu_types", *gpuType, typeSet{declared: v.r.GPUTypes}.names())
	}
	*gpuType = t
	if len(gpus) > maxGang {
		return v.errf(f+".gpus", "at most %d, got %d", maxGang, len(gpus))
	}
	for j, g := range gpus {
		if g.Index < 0 || g.Index >= maxGang {
			return v.errf(fmt.Sprintf("%s.gpus[%d].index", f, j), "must be 0..%d, got %d", maxGang-1, g.Index)
		}
	}
	return nil
}

func (v *recordCheck) entry(i int, seen map[string]int) error {
	e := &v.r.Entries[i]
	f := fmt.Sprintf("entries[%d]", i)
	if err := v.where(f, e.Source, e.Device, e.DeviceIndex, &e.GPUType, e.GPUs); err != nil {
		return err
	}
	if e.Gang < 1 || e.Gang > maxGang {
		return v.errf(f+".gang", "must be 1..%d, got %d", maxGang, e.Gang)
	}
	if e.BatchSize < 1 || e.BatchSize > maxBatchSize {
		return v.errf(f+".batch_size", "must be 1..%d, got %d", maxBatchSize, e.BatchSize)
	}
	if err := checkJobType(e.JobType, e.BatchSize); err != nil {
		return v.errf(f+".job_type", "%v", err)
	}
	if !v.jobs[e.Source][fmt.Sprintf("%d\x00%s\x00%d", e.DeviceIndex, e.JobType, e.Gang)] {
		return v.errf(f+".job_type", "%s at gang %d on devices[%d] is not in its profile", e.JobType, e.Gang, e.DeviceIndex)
	}
	var idx []string
	for _, g := range e.GPUs {
		idx = append(idx, strconv.Itoa(g.Index))
	}
	id := fmt.Sprintf("%s\x00%d\x00%s\x00%d\x00%s", e.Source, e.DeviceIndex, e.JobType, e.Gang, strings.Join(idx, ","))
	if j, dup := seen[id]; dup {
		return v.errf(f, "the same measurement as entries[%d] (%s ×%d on devices[%d])", j, e.JobType, e.Gang, e.DeviceIndex)
	}
	seen[id] = i
	switch e.Status {
	case StatusOK:
		if !(e.MatrixStepsPerSecond > 0) || e.MatrixStepsPerSecond > maxStepsPerSec {
			return v.errf(f+".matrix_steps_per_second", "status ok needs a figure in (0, %g], got %v", float64(maxStepsPerSec), e.MatrixStepsPerSecond)
		}
		if !(e.StepsPerSecond > 0) || e.StepsPerSecond > maxStepsPerSec {
			return v.errf(f+".steps_per_second", "status ok needs a figure in (0, %g], got %v", float64(maxStepsPerSec), e.StepsPerSecond)
		}
	case StatusDoesNotFit, StatusFailed:
	default:
		return v.errf(f+".status", "unknown status %q (want %s, %s or %s)", e.Status, StatusOK, StatusDoesNotFit, StatusFailed)
	}
	return v.memory(f, e.Device, e.MemoryBytes, e.MemoryFrom)
}

func (v *recordCheck) memory(f, device string, bytes uint64, from string) error {
	if bytes > maxMemoryBytes {
		return v.errf(f+".memory_bytes", "at most %d, got %d", uint64(maxMemoryBytes), bytes)
	}
	switch from {
	case "":
		if bytes != 0 {
			return v.errf(f+".memory_from", "required with memory_bytes")
		}
	case MemoryFromCPURSS:
		if device != "cpu" {
			return v.errf(f+".memory_from", "%s is a CPU figure, but the device is %s", from, device)
		}
	case MemoryFromNVML, MemoryFromTorchReserved:
		if device == "cpu" {
			return v.errf(f+".memory_from", "%s is a GPU figure, but the device is the CPU", from)
		}
	default:
		return v.errf(f+".memory_from", "unknown %q (want %s, %s or %s)", from, MemoryFromNVML, MemoryFromTorchReserved, MemoryFromCPURSS)
	}
	return nil
}

func pairID(deviceIndex int, mode string, gang int, a, b string) string {
	return fmt.Sprintf("%d\x00%s\x00%d\x00%s\x00%s", deviceIndex, mode, gang, a, b)
}

func (v *recordCheck) pair(i int, seen map[string]int) error {
	p := &v.r.Pairs[i]
	f := fmt.Sprintf("pairs[%d]", i)
	if err := v.where(f, p.Source, p.Device, p.DeviceIndex, &p.GPUType, p.GPUs); err != nil {
		return err
	}
	if p.Mode != ModeTimeSlice && p.Mode != ModeMPS {
		return v.errf(f+".mode", "want %s or %s, got %q", ModeTimeSlice, ModeMPS, p.Mode)
	}
	if p.Gang < 1 || p.Gang > maxGang {
		return v.errf(f+".gang", "must be 1..%d, got %d", maxGang, p.Gang)
	}
	for _, side := range []struct {
		name string
		s    *PairSide
	}{{"a", &p.A}, {"b", &p.B}} {
		if err := v.side(f+"."+side.name, p.Status, side.s); err != nil {
			return err
		}
	}
	id := pairID(p.DeviceIndex, p.Mode, p.Gang, p.A.JobType, p.B.JobType)
	if !v.pairs[p.Source][id] {
		return v.errf(f, "%s beside %s at gang %d (%s) on devices[%d] is not in its profile's colocate section", p.A.JobType, p.B.JobType, p.Gang, p.Mode, p.DeviceIndex)
	}
	if j, dup := seen[p.Source+"\x00"+id]; dup {
		return v.errf(f, "the same measurement as pairs[%d]", j)
	}
	seen[p.Source+"\x00"+id] = i
	switch p.Status {
	case PairOK, PairCannotShare, PairFailed:
	default:
		return v.errf(f+".status", "unknown status %q (want %s, %s or %s)", p.Status, PairOK, PairCannotShare, PairFailed)
	}
	return nil
}

func (v *recordCheck) side(f, status string, s *PairSide) error {
	if s.BatchSize < 1 || s.BatchSize > maxBatchSize {
		return v.errf(f+".batch_size", "must be 1..%d, got %d", maxBatchSize, s.BatchSize)
	}
	if err := checkJobType(s.JobType, s.BatchSize); err != nil {
		return v.errf(f+".job_type", "%v", err)
	}
	if s.MemoryBytes > maxMemoryBytes {
		return v.errf(f+".memory_bytes", "at most %d, got %d", uint64(maxMemoryBytes), s.MemoryBytes)
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"alone_steps_per_second", s.AloneStepsPerSecond}, {"paired_steps_per_second", s.PairedStepsPerSecond}, {"slowdown", s.Slowdown}} {
		if c.v < 0 || c.v > maxStepsPerSec || (status == PairOK && c.v == 0) {
			return v.errf(f+"."+c.name, "must be in (0, %g] for status %s, got %v", float64(maxStepsPerSec), status, c.v)
		}
	}
	return nil
}
