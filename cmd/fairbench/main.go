// Command fairbench simulates, compares and checks fair schedulers for
// deep-learning training jobs on heterogeneous GPU clusters.
//
// It is thin wiring over the project's packages: every command parses its
// flags and calls into scenarios, runs, sim, solvers and models.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"fairbench/internal/atomicfile"
)

// grace is how long a command may take to stop after SIGINT or SIGTERM
// before the process removes what it has in flight and exits anyway (a
// solver call that cannot be interrupted, a blocked read): the whole stop
// takes well under 2 s.
const grace = 750 * time.Millisecond

func main() {
	os.Exit(runMain(os.Args[1:]))
}

// runMain runs the command line args and returns the exit status. SIGINT
// and SIGTERM cancel the command's context; a command stops at its next
// check (between simulation events, between runs) and returns. Whatever it
// had in flight — temporary files and folders of internal/atomicfile — is
// removed, nothing half-written stays behind, and the status is 130 for
// SIGINT and 143 for SIGTERM (128 + the signal's number). A second signal,
// or the grace period running out, stops at once, with the same cleanup.
func runMain(args []string) int {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)

	done := make(chan error, 1)
	go func() {
		root := newRoot()
		root.SetArgs(args)
		done <- root.ExecuteContext(ctx)
	}()
	var sig os.Signal
	var err error
	select {
	case err = <-done:
		return exitStatus(err)
	case sig = <-sigs:
	}
	cancel(interrupted{sig})
	select {
	case err = <-done:
	case <-sigs:
	case <-time.After(grace):
	}
	n := atomicfile.RemovePending()
	msg := fmt.Sprintf("fairbench: stopped by %v", sig)
	if n > 0 {
		msg += fmt.Sprintf("; removed %d unfinished temporary files", n)
	}
	if err != nil && !errors.Is(err, interrupted{sig}) {
		msg += fmt.Sprintf(" (%v)", err)
	}
	fmt.Fprintln(os.Stderr, msg)
	return 128 + signalNumber(sig)
}

// interrupted is the cause of a context cancelled by a signal.
type interrupted struct{ sig os.Signal }

func (e interrupted) Error() string { return fmt.Sprintf("interrupted by %v", e.sig) }

func signalNumber(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return int(n)
	}
	return int(syscall.SIGINT)
}

// exitStatus prints err and turns it into the exit status.
func exitStatus(err error) int {
	if err == nil {
		return 0
	}
	fmt.Fprintln(os.Stderr, "fairbench:", err)
	var ec exitCode
	if errors.As(err, &ec) {
		return int(ec)
	}
	return 1
}

// exitCode is an error that asks for a specific exit status.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }
