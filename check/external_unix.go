//go:build unix

package check

import (
	"os/exec"
	"syscall"
)

// setGroup puts the external policy in a process group of its own, so that
// kill reaches the interpreter `sh -c` started, not only the shell.
func setGroup(c *exec.Cmd) { c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// kill ends the external policy's process group.
func kill(c *exec.Cmd) {
	if c.Process != nil {
		syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
	}
}
