package calibrate

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"fairbench/models"
)

// LoadMatrix reads the figures of a calibration record (<name>.calibration.json)
// or of a Gavel-format throughput file, telling them apart by the record's
// "format" member. A Gavel-format file may name the catalogue's GPU types
// and those declared (a record declares its own).
func LoadMatrix(path string, declared []GPUDecl) (*models.Matrix, error) {
	in, err := readInput(path, declared)
	if err != nil {
		return nil, err
	}
	return in.matrix, nil
}

// input is one file given to merge or extrapolate.
type input struct {
	path   string
	sha    string
	record *Record // nil for a Gavel-format file
	matrix *models.Matrix
}

// isRecord tells a calibration record from a Gavel-format file.
func isRecord(data []byte) bool {
	var probe struct {
		Format json.RawMessage `json:"format"`
	}
	return json.Unmarshal(data, &probe) == nil && len(probe.Format) > 0 && probe.Format[0] == '"'
}

func readInput(path string, declared []GPUDecl) (*input, error) {
	data, err := readLimited(path, maxRecordBytes)
	if err != nil {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	sum := sha256.Sum256(data)
	in := &input{path: path, sha: hex.EncodeToString(sum[:])}
	if isRecord(data) {
		if in.record, err = DecodeRecord(data, path); err != nil {
			return nil, err
		}
		in.matrix = in.record.isolated("fairbench calibration " + filepath.Base(path))
		return in, nil
	}
	ts := typeSet{declared: declared}
	m, err := models.ReadGavelThroughputsFor(bytes.NewReader(data), path, ts.modelTypes())
	if err != nil {
		if strings.Contains(err.Error(), "GPU") {
			err = fmt.Errorf("%w (declare a GPU type the catalogue lacks with --gpu-types FILE: a datasheet file, profile or scenario with a gpu_types list)", err)
		}
		return nil, err
	}
	in.matrix = m
	return in, nil
}

// LoadMatrixData is LoadMatrix on a file's content.
func LoadMatrixData(data []byte, name string, declared []GPUDecl) (*models.Matrix, error) {
	if isRecord(data) {
		r, err := DecodeRecord(data, name)
		if err != nil {
			return nil, err
		}
		return r.Matrix("fairbench calibration " + filepath.Base(name)), nil
	}
	return models.ReadGavelThroughputsFor(bytes.NewReader(data), name, typeSet{declared: declared}.modelTypes())
}

// Change is one figure a merge replaced.
type Change struct {
	Key      models.Key
	Old, New float64
	From     string // the input that gave the new figure
}

// MergeOptions are a merge's choices.
type MergeOptions struct {
	// Output is the matrix file to write (default: the target).
	Output string
	// Declared are GPU types the inputs may name beyond the catalogue's and
	// the records' own.
	Declared []GPUDecl
	// DeclaredFiles are files with a gpu_types list (ReadGPUTypes: a
	// datasheet file, a profile or a scenario) whose types join Declared
	// (--gpu-types).
	DeclaredFiles []string
	// Scenario, when set, is where a ready scenario that uses the merged
	// files goes (ScenarioFor, --scenario); it joins the files to write.
	Scenario string
	// Sharing is the co-location mode whose pairs go into the matrix
	// (default ModeTimeSlice).
	Sharing string
	// Version is the fairbench version, recorded in a merged record.
	Version string
}

// MergeReport says what a merge did.
type MergeReport struct {
	Output   string
	Base     int // figures in the target before
	Added    int
	Replaced []Change
	Same     int // figures given again with the same value
	Total    int
	Pairs    int      // pair figures in the output
	GPUTypes []string // of the inputs
	// Declared are the GPU types the catalogue lacks that the output names.
	Declared []GPUDecl
	// Record is the merged record (nil when no record was merged): every
	// measurement of the inputs and of the target's own record, with their
	// provenance; RecordPath is where it goes.
	Record     *Record
	RecordPath string
	Memory     []MemoryFit
	// Files are the files to write, path → content (WriteAll writes them).
	Files map[string][]byte

	inputKeys map[models.Key]bool // keys the inputs gave a figure for
}

// RecordPathFor is the merged record that goes with a matrix file:
// base.json → base.calibration.json.
func RecordPathFor(matrixPath string) string {
	return strings.TrimSuffix(matrixPath, filepath.Ext(matrixPath)) + ".calibration.json"
}

// GPUTypesPathFor is the gpu_types block that goes with a matrix file:
// base.json → base.gpu_types.yaml.
func GPUTypesPathFor(matrixPath string) string {
	return strings.TrimSuffix(matrixPath, filepath.Ext(matrixPath)) + ".gpu_types.yaml"
}

// Merge adds the figures of inputs (calibration records or Gavel-format
// files) to the Gavel-format matrix file target — which need not exist —
// and returns what to write, without writing anything:
//
//   - the merged matrix, for opt.Output (default: target): later inputs win
//     over earlier ones and over the target, every replaced figure is
//     reported; the target's and the Gavel inputs' co-location pairs are
//     kept, and the records' measured pairs (of opt.Sharing) are set last,
//     scaled to the merged isolated figures so that each keeps its measured
//     slowdown;
//   - when a record is involved (an input, or the target's own record
//     beside it, RecordPathFor), the merged record: every measurement with
//     its provenance, from which scenarios take memory and pairs
//     (`calibration: FILE`);
//   - when the output names GPU types the catalogue lacks, the gpu_types
//     block a scenario needs (GPUTypesPathFor).
//
// GPU types the catalogue lacks must be declared: by a record's profile,
// the target's record, opt.Declared or opt.DeclaredFiles. With
// opt.Scenario, a scenario that uses the output joins the files.
func Merge(target string, inputs []string, opt MergeOptions) (*MergeReport, error) {
	opt.Declared = slices.Clone(opt.Declared)
	for _, f := range opt.DeclaredFiles {
		ds, err := ReadGPUTypes(f)
		if err != nil {
			return nil, err
		}
		opt.Declared = append(opt.Declared, ds...)
	}
	if len(inputs) == 0 {
		return nil, errors.New("calibrate: merge: no input files")
	}
	if opt.Output == "" {
		opt.Output = target
	}
	if opt.Sharing == "" {
		opt.Sharing = ModeTimeSlice
	}
	if opt.Sharing != ModeTimeSlice && opt.Sharing != ModeMPS {
		return nil, fmt.Errorf("calibrate: merge: sharing mode %q: want %s or %s", opt.Sharing, ModeTimeSlice, ModeMPS)
	}
	records, ins, declared, err := readMergeInputs(target, inputs, opt.Declared)
	if err != nil {
		return nil, err
	}
	base := models.NewMatrix()
	if exists(target) {
		in, err := readInput(target, declared)
		if err != nil {
			return nil, err
		}
		base = in.matrix
	} else if _, err := os.Stat(target); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	rep := &MergeReport{Output: opt.Output, Base: base.Len(), Files: map[string][]byte{}, inputKeys: map[models.Key]bool{}}
	rep.add(base, ins)
	for _, in := range ins {
		if in.record != nil {
			records = append(records, in)
		}
	}
	if len(records) > 0 {
		if err := rep.addRecord(base, records, declared, opt); err != nil {
			return nil, err
		}
	}
	rep.Total, rep.Pairs = base.Len(), len(base.PairKeys())
	for _, d := range declared {
		for _, g := range base.GPUTypes() {
			if g == d.Name {
				rep.Declared = append(rep.Declared, d)
				break
			}
		}
	}
	data, err := EncodeGavelFor(base, declared)
	if err != nil {
		return nil, err
	}
	rep.Files[opt.Output] = data
	if len(rep.Declared) > 0 {
		rep.Files[GPUTypesPathFor(opt.Output)] = GPUTypesBlock(rep.Declared)
	}
	if opt.Scenario != "" {
		sc, err := ScenarioFor(rep, opt.Scenario, inputs)
		if err != nil {
			return nil, err
		}
		rep.Files[opt.Scenario] = sc
	}
	return rep, nil
}

// readMergeInputs reads the target's own record (if any) and the inputs:
// the records first, whose GPU type declarations (with declared) the
// Gavel-format inputs may then name.
func readMergeInputs(target string, inputs []string, declared []GPUDecl) (records, ins []*input, all []GPUDecl, err error) {
	all = append([]GPUDecl(nil), declared...)
	if own := RecordPathFor(target); exists(own) && own != target {
		in, err := readInput(own, nil)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("calibrate: merge: the target's record: %w", err)
		}
		records = append(records, in)
	}
	ins = make([]*input, len(inputs))
	for i, path := range inputs {
		data, err := readLimited(path, maxRecordBytes)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("calibrate: %w", err)
		}
		if isRecord(data) {
			if ins[i], err = readInput(path, nil); err != nil {
				return nil, nil, nil, err
			}
		}
	}
	for _, in := range append(append([]*input(nil), records...), ins...) {
		if in != nil {
			if all, err = mergeDecls(all, in.record.GPUTypes, in.path); err != nil {
				return nil, nil, nil, fmt.Errorf("calibrate: merge: %w", err)
			}
		}
	}
	for i, path := range inputs {
		if ins[i] == nil {
			if ins[i], err = readInput(path, all); err != nil {
				return nil, nil, nil, err
			}
		}
	}
	return records, ins, all, nil
}

// add merges the inputs' figures into base, later inputs winning, and
// counts what changed.
func (rep *MergeReport) add(base *models.Matrix, ins []*input) {
	types := map[string]bool{}
	for _, in := range ins {
		for _, k := range in.matrix.Keys() {
			f, _ := in.matrix.Lookup(k)
			types[k.GPU] = true
			rep.inputKeys[k] = true
			old, ok := base.Lookup(k)
			switch {
			case !ok:
				rep.Added++
			case old.Value == f.Value:
				rep.Same++
			default:
				rep.Replaced = append(rep.Replaced, Change{Key: k, Old: old.Value, New: f.Value, From: in.path})
			}
		}
		base.Merge(in.matrix)
	}
	rep.GPUTypes = slices.Sorted(maps.Keys(types))
}

// addRecord builds the merged record, sets its pairs in base and adds it to
// the files.
func (rep *MergeReport) addRecord(base *models.Matrix, records []*input, declared []GPUDecl, opt MergeOptions) error {
	rec, err := mergeRecords(records, declared, opt.Version)
	if err != nil {
		return err
	}
	setPairs(base, rec.Pairs, opt.Sharing, "fairbench calibration "+filepath.Base(RecordPathFor(opt.Output)))
	rep.Record, rep.RecordPath, rep.Memory = rec, RecordPathFor(opt.Output), FitMemory(rec.Entries)
	data, err := encodeRecord(rec)
	if err != nil {
		return err
	}
	if _, err := DecodeRecord(data, rep.RecordPath); err != nil {
		return fmt.Errorf("calibrate: merge: the merged record does not read back: %w", err)
	}
	rep.Files[rep.RecordPath] = data
	return nil
}

func exists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// mergeRecords makes one merged record of several: each input is a source
// (a merged input's sources are taken over); sources already present (the
// same file content) are not added twice.
func mergeRecords(ins []*input, declared []GPUDecl, version string) (*Record, error) {
	host, _ := os.Hostname()
	now := time.Now().UTC().Format(time.RFC3339)
	out := &Record{Format: RecordFormat, Name: "merged", FairbenchVersion: version, Host: host, Started: now, Updated: now,
		Complete: true, Entries: []Entry{}}
	names := map[string]bool{}
	shas := map[string]bool{}
	unique := func(name string) string {
		n := name
		for i := 2; names[n]; i++ {
			n = fmt.Sprintf("%s#%d", name, i)
		}
		names[n] = true
		return n
	}
	add := func(src RecordSource, entries []Entry, pairs []PairEntry, rename map[string]string) {
		for _, e := range entries {
			e.Source = rename[e.Source]
			out.Entries = append(out.Entries, e)
		}
		for _, p := range pairs {
			p.Source = rename[p.Source]
			out.Pairs = append(out.Pairs, p)
		}
	}
	for _, in := range ins {
		r := in.record
		if r.Profile != nil {
			if shas[in.sha] {
				continue
			}
			shas[in.sha] = true
			src := RecordSource{Name: unique(r.Name), File: in.path, SHA256: in.sha, FairbenchVersion: r.FairbenchVersion,
				Host: r.Host, Started: r.Started, Complete: r.Complete, System: r.System, CPU: r.CPU, Profile: r.Profile}
			out.Sources = append(out.Sources, src)
			add(src, r.Entries, r.Pairs, map[string]string{"": src.Name})
			continue
		}
		rename := map[string]string{}
		for _, s := range r.Sources {
			if shas[s.SHA256] {
				continue
			}
			shas[s.SHA256] = true
			rename[s.Name] = unique(s.Name)
			s.Name = rename[s.Name]
			out.Sources = append(out.Sources, s)
		}
		var es []Entry
		for _, e := range r.Entries {
			if _, ok := rename[e.Source]; ok {
				es = append(es, e)
			}
		}
		var ps []PairEntry
		for _, p := range r.Pairs {
			if _, ok := rename[p.Source]; ok {
				ps = append(ps, p)
			}
		}
		add(RecordSource{}, es, ps, rename)
	}
	if len(out.Entries) > maxRecordEntries || len(out.Pairs) > maxRecordEntries {
		return nil, fmt.Errorf("calibrate: merge: more than %d entries or pairs", maxRecordEntries)
	}
	out.GPUTypes = declared
	return out, nil
}

// GPUTypesBlock is the `gpu_types:` block of a scenario that uses the
// declared types.
func GPUTypesBlock(ds []GPUDecl) []byte {
	var b strings.Builder
	b.WriteString("# Declare these GPU types in a scenario that uses them (written by fairbench calibrate merge).\ngpu_types:\n")
	for _, d := range ds {
		src, _ := json.Marshal(d.Source)
		fmt.Fprintf(&b, "  - {name: %s, memory_gb: %g, rank: %d, source: %s}\n", d.Name, d.MemoryGB, d.Rank, src)
	}
	return []byte(b.String())
}
