// Package runs executes scenario runs and stores their results: one
// self-describing record per run, named by the run's content ID and written
// atomically, plus the per-job CSV and the comparison table the CLI prints.
// It is the glue between scenarios (what to run), solvers (the policies) and
// sim (how it runs); the CLI only parses flags and calls it.
package runs
