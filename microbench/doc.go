// Package microbench holds fairbench's benchmarks at realistic sizes (run
// them with `make bench` or `go test -bench . ./microbench/`). Speed goals
// are benchmarks, never timed assertions in ordinary tests.
package microbench
