// Package nvmlmock builds go-nvml mock servers with telemetry, for tests
// and benchmarks of calibrate's NVML code (it needs cgo, as go-nvml does).
package nvmlmock
