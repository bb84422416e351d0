// Command fairbench simulates, compares and checks fair schedulers for
// deep-learning training jobs on heterogeneous GPU clusters.
//
// It is thin wiring over the project's packages: every command parses its
// flags and calls into scenarios, runs, sim, solvers and models.
package main

import (
	"errors"
	"fmt"
	"os"
)

func main() {
	if err := newRoot().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "fairbench:", err)
		var ec exitCode
		if errors.As(err, &ec) {
			os.Exit(int(ec))
		}
		os.Exit(1)
	}
}

// exitCode is an error that asks for a specific exit status.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }
