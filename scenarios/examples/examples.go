// Package examples holds fairbench's preset scenarios: the seed papers'
// settings as runnable scenario files (with their traces), each explaining
// its choices in its comments. `fairbench reproduce` builds its grids on
// them; `fairbench grid scenarios/examples/NAME.yaml` runs one directly.
package examples

import "embed"

// Files are the presets and their traces, by file name.
//
//go:embed *.yaml *.csv
var Files embed.FS

// Read returns the named preset file.
func Read(name string) ([]byte, error) { return Files.ReadFile(name) }
