package scenarios

import (
	"fairbench/internal/input"
	"fairbench/models"
	"fairbench/models/catalogue"
)

// prepared is what a grid read and checked a run's spec with: the figures
// of its catalogue, throughput file and calibration record, and its trace.
// Build reuses them, so that a run reads its files once (when the grid is
// loaded, as Run.Inputs' digests record), unless the spec was changed in
// code since to name other files or another catalogue.
type prepared struct {
	cat                      *catalogue.Catalog
	throughputs, calibration string
	figures                  *figures
	traceFile, traceFormat   string
	trace                    *Trace // nil: not read when the grid was loaded
}

// figures returns the figures s names against cat: those the grid read when
// they are still the spec's, else read from its files.
func (s *Spec) figures(cat *catalogue.Catalog) (*figures, error) {
	if p := s.read; p != nil && p.cat == cat && p.throughputs == s.Throughputs && p.calibration == s.Calibration {
		return p.figures, nil
	}
	var fileMatrix *models.Matrix
	if s.Throughputs != DefaultThroughputs && s.Throughputs != "" {
		data, err := input.ReadFile(s.Throughputs, input.MaxThroughputsBytes)
		if err != nil {
			return nil, s.src.locate(errf("throughputs", "%v", err))
		}
		if fileMatrix, err = readThroughputs(data, s.Throughputs, *cat); err != nil {
			return nil, s.src.locate(errf("throughputs", "%v", err))
		}
	}
	figs := newFigures(*cat, fileMatrix)
	if s.Calibration != "" {
		var ferr *fieldError
		if figs, ferr = calibrated(figs, s.Calibration); ferr != nil {
			return nil, s.src.locate(ferr)
		}
	}
	return figs, nil
}

// trace returns the trace s names: the one the grid read when it is still
// the spec's, else read from its file.
func (s *Spec) trace() (*Trace, error) {
	if p := s.read; p != nil && p.trace != nil && p.traceFile == s.Workload.Trace && p.traceFormat == s.Workload.TraceFormat {
		return p.trace, nil
	}
	return ReadTrace(s.Workload.Trace, s.Workload.TraceFormat)
}
