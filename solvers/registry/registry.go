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
	"fairbench/solvers/sjf"
	"fairbench/solvers/sjfbsbf"
	"fairbench/solvers/themis"
	"fairbench/solvers/tiresias"
)

// Default returns a registry holding every built-in policy. A duplicate name
// is a programming error and panics.
func Default() *solvers.Registry {
	r := &solvers.Registry{}
	claims := Claims()
	for _, e := range append([]solvers.Entry{
		{Name: fifo.Name, Summary: fifo.Summary, New: fifo.New},
		{Name: sjf.Name, Summary: sjf.Summary, New: sjf.New},
		{Name: sjf.SRTFName, Summary: sjf.SRTFSummary, New: sjf.NewSRTF},
		{Name: tiresias.Name, Summary: tiresias.Summary, New: tiresias.New},
		{Name: tiresias.PerTypeName, Summary: tiresias.PerTypeSummary, New: tiresias.NewPerType},
		{Name: isolated.Name, Summary: isolated.Summary, New: isolated.New},
		{Name: gandivafair.Name, Summary: gandivafair.Summary, New: gandivafair.New},
		{Name: gandivafair.NoTradeName, Summary: gandivafair.NoTradeSummary, New: gandivafair.NewNoTrade},
		{Name: sjfbsbf.Name, Summary: sjfbsbf.Summary, New: sjfbsbf.New},
		{Name: sjfbsbf.ConsolidatedName, Summary: sjfbsbf.ConsolidatedSummary, New: sjfbsbf.NewConsolidated},
		{Name: sjfbsbf.FFSName, Summary: sjfbsbf.FFSSummary, New: sjfbsbf.NewFFS},
		{Name: sjfbsbf.FFSConsolidatedName, Summary: sjfbsbf.FFSConsolidatedSummary, New: sjfbsbf.NewFFSConsolidated},
		{Name: fft.Name, Summary: fft.Summary, New: fft.New},
		{Name: fft.ExactName, Summary: fft.ExactSummary, New: fft.NewExact},
		{Name: nash.Name, Summary: nash.Summary, New: nash.New},
		{Name: nash.PAName, Summary: nash.PASummary, New: nash.NewPA},
		{Name: nash.CEEIName, Summary: nash.CEEISummary, New: nash.NewCEEI},
		{Name: gavelsp.Name, Summary: gavelsp.Summary, New: gavelsp.New},
		{Name: themis.Name, Summary: themis.Summary, New: themis.New},
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
