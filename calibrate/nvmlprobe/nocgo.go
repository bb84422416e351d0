//go:build !(cgo && linux)

package nvmlprobe

import (
	"fmt"

	"fairbench/calibrate"
)

// Built reports whether this build can use NVML (it needs cgo on Linux).
const Built = false

// Open always fails in a build without cgo (or not on Linux): go-nvml is a
// cgo binding.
func Open(path string) (calibrate.Probe, error) {
	if path == "" {
		path = DefaultLibrary
	}
	return nil, fmt.Errorf("calibrate: %w: fairbench was built without NVML support (CGO_ENABLED=0 or not Linux), so it cannot load %s; rebuild with cgo enabled to calibrate GPUs",
		calibrate.ErrNoNVML, path)
}
