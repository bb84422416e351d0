//go:build !unix

package calibrate

import (
	"errors"
	"os"
	"os/exec"
	"time"
)

func newGroup(*exec.Cmd) {}

// signalGroup stops only the process itself where there are no process
// groups.
func signalGroup(pid int, _ bool) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

func processCPU() (time.Duration, error) {
	return 0, errors.New("process CPU time is not available on this system")
}
