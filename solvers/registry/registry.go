// Package registry builds fairbench's registry of policies in one place, so
// that the CLI, scenario files and the checker name policies the same way.
package registry

import (
	"fairbench/solvers"
	"fairbench/solvers/fft"
	"fairbench/solvers/fifo"
	"fairbench/solvers/gandivafair"
	"fairbench/solvers/gavel"
	"fairbench/solvers/gavelsp"
	"fairbench/solvers/isolated"
	"fairbench/solvers/nash"
	"fairbench/solvers/oef"
	"fairbench/solvers/sjf"
	"fairbench/solvers/sjfbsbf"
	"fairbench/solvers/themis"
	"fairbench/solvers/tiresias"
)

// Default returns a registry holding every built-in policy. A duplicate name
// is a programming error and panics.
//
// A policy that reports (solvers.Reporter) names its report type here,
// Report: solvers.ReportAs[pkg.Report], or in the Entries its package
// returns (the Gavel family's); TestReportTypes fails for one that does not.
func Default() *solvers.Registry {
	r := &solvers.Registry{}
	claims := Claims()
	for _, e := range append([]solvers.Entry{
		{Name: fifo.Name, Summary: fifo.Summary, New: fifo.New},
		{Name: fifo.GavelName, Summary: fifo.GavelSummary, New: fifo.NewGavel},
		{Name: sjf.Name, Summary: sjf.Summary, New: sjf.New},
		{Name: sjf.SRTFName, Summary: sjf.SRTFSummary, New: sjf.NewSRTF},
		{Name: tiresias.Name, Summary: tiresias.Summary, New: tiresias.New},
		{Name: tiresias.PerTypeName, Summary: tiresias.PerTypeSummary, New: tiresias.NewPerType},
		{Name: isolated.Name, Summary: isolated.Summary, New: isolated.New},
		{Name: isolated.GavelName, Summary: isolated.GavelSummary, New: isolated.NewGavel},
		{Name: gandivafair.Name, Summary: gandivafair.Summary, New: gandivafair.New, Report: solvers.ReportAs[gandivafair.Report]},
		{Name: gandivafair.NoTradeName, Summary: gandivafair.NoTradeSummary, New: gandivafair.NewNoTrade, Report: solvers.ReportAs[gandivafair.Report]},
		{Name: sjfbsbf.Name, Summary: sjfbsbf.Summary, New: sjfbsbf.New, Report: solvers.ReportAs[sjfbsbf.Report]},
		{Name: sjfbsbf.ConsolidatedName, Summary: sjfbsbf.ConsolidatedSummary, New: sjfbsbf.NewConsolidated, Report: solvers.ReportAs[sjfbsbf.Report]},
		{Name: sjfbsbf.FFSName, Summary: sjfbsbf.FFSSummary, New: sjfbsbf.NewFFS, Report: solvers.ReportAs[sjfbsbf.Report]},
		{Name: sjfbsbf.FFSConsolidatedName, Summary: sjfbsbf.FFSConsolidatedSummary, New: sjfbsbf.NewFFSConsolidated, Report: solvers.ReportAs[sjfbsbf.Report]},
		{Name: fft.Name, Summary: fft.Summary, New: fft.New, Report: solvers.ReportAs[fft.Report]},
		{Name: fft.ExactName, Summary: fft.ExactSummary, New: fft.NewExact, Report: solvers.ReportAs[fft.Report]},
		{Name: nash.Name, Summary: nash.Summary, New: nash.New, Report: solvers.ReportAs[nash.Stats]},
		{Name: nash.PAName, Summary: nash.PASummary, New: nash.NewPA, Report: solvers.ReportAs[nash.Stats]},
		{Name: nash.CEEIName, Summary: nash.CEEISummary, New: nash.NewCEEI, Report: solvers.ReportAs[nash.Stats]},
		{Name: gavelsp.Name, Summary: gavelsp.Summary, New: gavelsp.New, Report: solvers.ReportAs[nash.Stats]},
		{Name: oef.Name, Summary: oef.Summary, New: oef.New, Report: solvers.ReportAs[oef.Stats]},
		{Name: oef.NonCoopName, Summary: oef.NonCoopSummary, New: oef.NewNonCoop, Report: solvers.ReportAs[oef.Stats]},
		{Name: themis.Name, Summary: themis.Summary, New: themis.New, Report: solvers.ReportAs[themis.Stats]},
	}, gavel.Entries()...) { // the Gavel LP family: gavel-las, gavel-las-agnostic, gavel-ftf, ...
		if len(e.Claims) > 0 {
			panic("registry: " + e.Name + " declares its claims in its own package; declare them in claims.go")
		}
		e.Claims = claims[e.Name]
		if err := r.Register(e); err != nil {
			panic("registry: " + err.Error())
		}
	}
	return r
}
