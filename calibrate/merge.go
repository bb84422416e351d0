package calibrate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"fairbench/internal/atomicfile"

	"fairbench/models"
)

// LoadMatrix reads the figures of a calibration record (<name>.calibration.json)
// or of a Gavel-format throughput file, telling them apart by the record's
// "format" member.
func LoadMatrix(path string) (*models.Matrix, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	var probe struct {
		Format json.RawMessage `json:"format"`
	}
	if json.Unmarshal(data, &probe) == nil && len(probe.Format) > 0 && probe.Format[0] == '"' {
		rec, err := DecodeRecord(data, path)
		if err != nil {
			return nil, err
		}
		m := rec.Matrix("fairbench calibration " + filepath.Base(path))
		if m.Len() == 0 {
			return nil, fmt.Errorf("calibrate: record %s has no finished entry", path)
		}
		return m, nil
	}
	return models.ReadGavelThroughputs(bytes.NewReader(data), path)
}

// Change is one figure a merge replaced.
type Change struct {
	Key      models.Key
	Old, New float64
	From     string // the input that gave the new figure
}

// MergeReport says what a merge did.
type MergeReport struct {
	Output   string
	Base     int // figures in the target before
	Added    int
	Replaced []Change
	Same     int // figures given again with the same value
	Total    int
	GPUTypes []string // of the inputs
}

// MergeFiles adds the figures of inputs (calibration records or Gavel-format
// files) to the Gavel-format matrix file target — created if it does not
// exist — and writes the result to output (target itself when output is
// ""), atomically. Later inputs win over earlier ones and over the target;
// every replaced figure is reported. The target's co-location pairs are
// kept. The file written is one that scenarios read with
// `throughputs: FILE`.
func MergeFiles(target string, inputs []string, output string) (*MergeReport, error) {
	if len(inputs) == 0 {
		return nil, errors.New("calibrate: merge: no input files")
	}
	base := models.NewMatrix()
	if _, err := os.Stat(target); err == nil {
		if base, err = LoadMatrix(target); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	if output == "" {
		output = target
	}
	rep := &MergeReport{Output: output, Base: base.Len()}
	types := map[string]bool{}
	for _, in := range inputs {
		m, err := LoadMatrix(in)
		if err != nil {
			return nil, err
		}
		for _, k := range m.Keys() {
			f, _ := m.Lookup(k)
			types[k.GPU] = true
			old, ok := base.Lookup(k)
			switch {
			case !ok:
				rep.Added++
			case old.Value == f.Value:
				rep.Same++
			default:
				rep.Replaced = append(rep.Replaced, Change{Key: k, Old: old.Value, New: f.Value, From: in})
			}
		}
		base.Merge(m)
	}
	rep.Total = base.Len()
	rep.GPUTypes = sortedKeysOf(types)
	data, err := EncodeGavel(base)
	if err != nil {
		return nil, err
	}
	if err := atomicfile.Write(output, data); err != nil {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	return rep, nil
}
