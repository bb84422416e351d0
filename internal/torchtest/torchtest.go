// Package torchtest is the tests' check that real PyTorch is there for the
// calibration tests that train models on the CPU.
package torchtest

import (
	"os"
	"os/exec"
	"testing"
)

// Python is the interpreter calibration uses by default: Debian's
// python3-torch installs for /usr/bin/python3 (calibrate.DefaultPython).
const Python = "/usr/bin/python3"

// Require skips the test when Python cannot import torch and torchvision,
// unless FAIRBENCH_REQUIRE_TORCH=1 (make test, which installs
// python3-torch and python3-torchvision) makes that a failure.
func Require(t testing.TB) {
	t.Helper()
	out, err := exec.Command(Python, "-c", "import torch, torchvision").CombinedOutput()
	if err == nil {
		return
	}
	msg := "PyTorch is not importable by " + Python + " (install python3-torch python3-torchvision): " + string(out)
	if os.Getenv("FAIRBENCH_REQUIRE_TORCH") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}
