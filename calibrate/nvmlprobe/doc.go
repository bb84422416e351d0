// Package nvmlprobe reads GPUs through NVML (github.com/NVIDIA/go-nvml) for
// fairbench's calibration: device discovery (calibrate.System) and
// telemetry sampling (calibrate.Sample).
//
// go-nvml needs cgo and loads libnvidia-ml.so.1 with dlopen at Init, so the
// package builds everywhere but works only in a cgo build on Linux with the
// NVIDIA driver installed. Elsewhere Open returns an error wrapping
// calibrate.ErrNoNVML that says why: the library it looked for and
// dlopen's reason, or that the binary was built without NVML support
// (CGO_ENABLED=0). Nothing outside calibrate needs this package, so a build
// without cgo or a machine without a GPU loses only GPU calibration.
package nvmlprobe

// DefaultLibrary is the NVML library Open loads by default (the soname the
// NVIDIA driver installs; go-nvml's default too).
const DefaultLibrary = "libnvidia-ml.so.1"
