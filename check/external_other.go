//go:build !unix

package check

import "os/exec"

func setGroup(c *exec.Cmd) {}

func kill(c *exec.Cmd) {
	if c.Process != nil {
		c.Process.Kill()
	}
}
