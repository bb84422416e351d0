package reports

import (
	"fmt"
	"slices"
	"strings"
)

// Options shape a report.
type Options struct {
	// Title heads the report (default "fairbench report").
	Title string
	// Intro is a paragraph under the title (plain text).
	Intro string
	// Comparison, when set, is shown first: reproduce's table of our
	// numbers beside a paper's.
	Comparison *NamedTable
	// Notes are shown as a list under the comparison (reproduce: where the
	// grid deviates from the paper's setting, and why).
	Notes []string
	// PolicyOrder puts these policies first in figures and tables.
	PolicyOrder []string
	// Calibration and Matrix, when set, add their figures and tables.
	Calibration *Calibration
	Matrix      *Matrix
	// Figures are more figures to show after the report's own (e.g.
	// reproduce's comparison with a paper), drawn with NewPlot and the
	// other parts of the figure style; their names must not clash.
	Figures []*Figure
	// DPI is the PNG resolution (default DefaultDPI).
	DPI int
	// Version is the fairbench version writing the report.
	Version string
	// Progress, when set, is told about each file group written.
	Progress func(done, total int, what string)
	// Workers renders that many figures at once (default 1).
	Workers int
}

// Report is a report built in memory: its figures and tables.
type Report struct {
	Set     *Set
	Options Options
	Figures []*Figure
	Tables  []*NamedTable
}

// Build draws every figure and computes every table of the set. A set may
// be nil when the report holds only a calibration profile or a property
// matrix.
func Build(s *Set, o Options) (*Report, error) {
	if o.Title == "" {
		o.Title = "fairbench report"
	}
	if o.DPI < 0 || o.DPI > MaxDPI {
		return nil, fmt.Errorf("reports: --dpi %d: must be between 1 and %d (docs/limits.md)", o.DPI, MaxDPI)
	}
	if o.DPI == 0 {
		o.DPI = DefaultDPI
	}
	if s == nil && o.Calibration == nil && o.Matrix == nil && len(o.Figures) == 0 {
		return nil, fmt.Errorf("reports: nothing to report: no runs, calibration profile or property matrix")
	}
	r := &Report{Set: s, Options: o}
	if o.Comparison != nil {
		r.Tables = append(r.Tables, o.Comparison)
	}
	if s != nil {
		if len(o.PolicyOrder) > 0 {
			s.OrderPolicies(o.PolicyOrder)
		}
		groups, err := s.policyGroups()
		if err != nil {
			return nil, err
		}
		users, err := s.userGroups()
		if err != nil {
			return nil, err
		}
		sweeps, err := s.sweepFigures(groups)
		if err != nil {
			return nil, err
		}
		cdfs, err := s.cdfFigures()
		if err != nil {
			return nil, err
		}
		util, err := s.utilisationFigures()
		if err != nil {
			return nil, err
		}
		shares, err := s.shareFigures()
		if err != nil {
			return nil, err
		}
		r.Figures = append(append(append(append(r.Figures, sweeps...), cdfs...), util...), shares...)
		solver, err := s.solverFigure()
		if err != nil {
			return nil, err
		}
		if solver != nil {
			r.Figures = append(r.Figures, solver)
		}
		trades, err := s.tradesFigure()
		if err != nil {
			return nil, err
		}
		if trades != nil {
			r.Figures = append(r.Figures, trades)
		}
		r.Tables = append(r.Tables, s.policyTable(groups), s.userTable(users))
		if len(s.Points) > 1 {
			r.Tables = append(r.Tables, s.pointTable())
		}
		r.Tables = append(r.Tables, s.runTable())
	}
	if o.Calibration != nil {
		figs, t, err := calibrationFigures(o.Calibration)
		if err != nil {
			return nil, err
		}
		r.Figures = append(r.Figures, figs...)
		r.Tables = append(r.Tables, &NamedTable{Name: "calibration", Title: "Calibration profile",
			Caption: "The measurements of " + o.Calibration.Path + ".", Data: t, Display: t})
	}
	if o.Matrix != nil {
		f, _ := matrixFigure(o.Matrix)
		r.Figures = append(r.Figures, f)
		pm := NewPropertyMatrix(o.Matrix, s)
		caption := "Result per policy and property from " + o.Matrix.Path + " (* = claimed; FAIL = a claimed property violated under its conditions, fail = violated, not claimed; each failure links its counterexample, a `fairbench check --replay` file)"
		if s != nil {
			caption += ", beside each policy's throughput (jobs finished per hour of makespan) and mean JCT on " + pm.Scenario + ": the efficiency cost of each guarantee"
		}
		r.Tables = append(r.Tables, &NamedTable{Name: "property_matrix", Title: "Property matrix", Caption: caption + ".",
			Data: f.Data, Display: pm.Table()})
	}
	r.Figures = append(r.Figures, o.Figures...)
	// Names must be unique: they are file names.
	var names []string
	for _, f := range r.Figures {
		if slices.Contains(names, f.Name) {
			return nil, fmt.Errorf("reports: two figures named %s", f.Name)
		}
		names = append(names, f.Name)
	}
	return r, nil
}

// Versions lists the distinct fairbench versions, solver backends,
// scenarios and throughput sources of the runs.
func (s *Set) metadata() (versions, backends, scenarios, sources []string) {
	add := func(list *[]string, v string) {
		if !slices.Contains(*list, v) {
			*list = append(*list, v)
		}
	}
	for _, r := range s.Runs {
		add(&versions, r.Record.Fairbench)
		add(&backends, r.Record.Backend)
		add(&scenarios, r.Record.Scenario)
		add(&sources, throughputSource(r))
	}
	return
}

func joinOr(list []string, none string) string {
	if len(list) == 0 {
		return none
	}
	return strings.Join(list, ", ")
}
