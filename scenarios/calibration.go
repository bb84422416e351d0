package scenarios

import (
	"maps"
	"path/filepath"
	"slices"

	"fairbench/calibrate"
	"fairbench/models"
)

// The `calibration:` key names a calibration record — what `fairbench
// calibrate run`, `calibrate colocate` or `calibrate merge` (OUT.calibration.json)
// writes — relative to the scenario file. From it the scenario takes, over
// the catalogue's and the throughputs file's:
//   - each measured job type's memory (memory_gb, fixed_memory_gb and their
//     source; calibrate.JobMemory), which SJF-BSBF's memory test and
//     gradient accumulation, FFT's memory rows and models.Feasible use;
//   - the measured co-location pairs (time-sliced), scaled to the
//     scenario's isolated figures so that each keeps its measured slowdown;
//     a pair recorded as cannot share forbids co-locating the two.
//
// A measured job type the scenario does not know, or a pair on a GPU type
// or at a gang without an isolated figure, is an error: name the merge's
// throughputs file too.

// resolveCalibration makes the key's path relative to the scenario file.
func (s *Spec) resolveCalibration() {
	if s.Calibration != "" && s.src != nil && !filepath.IsAbs(s.Calibration) {
		s.Calibration = filepath.Join(s.src.dir, s.Calibration)
	}
}

// calibrated returns f with the calibration record at path applied, as a
// new figures (f is shared by runs and stays as it is).
func calibrated(f *figures, path string) (*figures, *fieldError) {
	a, err := calibrate.LoadForScenario(path, f.cat.GPUTypes)
	if err != nil {
		return nil, errf("calibration", "%v", err)
	}
	out := &figures{matrix: f.matrix.Clone(), jobTypes: map[string]models.JobType{}, known: f.known, gpuNames: f.gpuNames, cat: f.cat}
	for k, t := range f.jobTypes {
		out.jobTypes[k] = t
	}
	for _, name := range slices.Sorted(maps.Keys(a.Memory)) {
		t, ok := out.jobTypes[name]
		if !ok {
			return nil, errf("calibration", "%s measured the memory of job type %q, which the scenario does not know (known: %s); name the merge's throughputs file too",
				path, name, knownList(f.known))
		}
		m := a.Memory[name]
		t.MemoryGB, t.FixedMemoryGB, t.Source = m.MemoryGB, m.FixedMemoryGB, m.Source
		if err := t.Validate(); err != nil {
			return nil, errf("calibration", "%s: %v", path, err)
		}
		out.jobTypes[name] = t
	}
	if err := a.ApplyPairs(out.matrix, calibrate.ModeTimeSlice); err != nil {
		return nil, errf("calibration", "%v", err)
	}
	return out, nil
}

// calibratedFigures is calibrated with the record read once per grid.
func (c *inputCache) calibratedFigures(f *figures, path string) (*figures, string, error) {
	in, err := c.get(path, false)
	if err != nil {
		return nil, "", err
	}
	key := calibratedKey{f, path}
	if c.calibrated == nil {
		c.calibrated = map[calibratedKey]*figures{}
	}
	if got, ok := c.calibrated[key]; ok {
		return got, in.sha, nil
	}
	out, ferr := calibrated(f, path)
	if ferr != nil {
		return nil, "", ferr
	}
	c.calibrated[key] = out
	return out, in.sha, nil
}

type calibratedKey struct {
	f    *figures
	path string
}

// asFieldError is err at field path (err itself when it is one).
func asFieldError(path string, err error) *fieldError {
	if fe, ok := err.(*fieldError); ok {
		return fe
	}
	return errf(path, "%v", err)
}
