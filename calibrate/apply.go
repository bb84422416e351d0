package calibrate

import (
	"fmt"
	"strings"

	"fairbench/models"
)

// Applied is what a calibration record gives a scenario (its
// `calibration:` key): measured memory for job types, and measured
// co-location pairs.
type Applied struct {
	File string
	// Memory are the job types' memory fields (JobMemory): MemoryGB,
	// FixedMemoryGB and Source.
	Memory map[string]models.JobType
	record *Record
}

// LoadForScenario reads a calibration record for a scenario whose GPU
// types are types: every GPU type the record measured a pair on must be one
// of them, with the same memory where the record declares it.
func LoadForScenario(path string, types []models.GPUType) (*Applied, error) {
	r, err := ReadRecord(path)
	if err != nil {
		return nil, err
	}
	known := map[string]models.GPUType{}
	for _, t := range types {
		known[strings.ToLower(t.Name)] = t
	}
	for _, d := range r.GPUTypes {
		if t, ok := known[strings.ToLower(d.Name)]; ok && t.MemoryGB != d.MemoryGB {
			return nil, fmt.Errorf("calibrate: record %s declares %s with %g GB, the scenario with %g GB", path, d.Name, d.MemoryGB, t.MemoryGB)
		}
	}
	for i := range r.Pairs {
		p := &r.Pairs[i]
		t, ok := known[strings.ToLower(p.GPUType)]
		if !ok {
			return nil, fmt.Errorf("calibrate: record %s: pairs[%d] is on GPU type %s, which the scenario does not have (declare it under gpu_types)", path, i, p.GPUType)
		}
		p.GPUType = t.Name
	}
	return &Applied{File: path, Memory: JobMemory(r, path), record: r}, nil
}

// ApplyPairs sets the record's pairs measured in mode in m, scaled to m's
// isolated figures so that each keeps its measured slowdown (see
// Record.MatrixFor). Every job type of a pair must have an isolated figure
// in m at the pair's GPU type and gang: the scenario's throughputs must
// cover what was paired.
func (a *Applied) ApplyPairs(m *models.Matrix, mode string) error {
	var use []PairEntry
	for i, p := range a.record.Pairs {
		if p.Mode != mode || (p.Status != PairOK && p.Status != PairCannotShare) {
			continue
		}
		for _, job := range []string{p.A.JobType, p.B.JobType} {
			k := models.Key{Job: job, GPU: p.GPUType, Gang: p.Gang, Placement: models.Consolidated}
			if _, ok := m.Lookup(k); !ok {
				return fmt.Errorf("calibrate: record %s: pairs[%d] pairs %s on %s at gang %d, for which the scenario's throughputs have no figure", a.File, i, job, p.GPUType, p.Gang)
			}
		}
		use = append(use, p)
	}
	setPairs(m, use, mode, "fairbench calibration "+a.File)
	return nil
}
