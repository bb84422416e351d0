// Package layers holds no code: its test pins fairbench's import graph.
// TestImportGraph checks that the graph docs/ARCHITECTURE.md shows is the
// one `go list` reports, and that the layering rules the document states
// hold: sim knows no policy, solvers do no I/O, models imports nothing of
// fairbench, and nothing imports the command.
package layers
