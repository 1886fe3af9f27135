//go:build !windows

package main

import (
	"os/signal"
	"syscall"
)

// ignoreSIGPIPE turns a write to a closed stdout into an EPIPE error the
// bridge can handle, instead of the silent death Go gives a program by
// default when fd 1 is a broken pipe.
func ignoreSIGPIPE() { signal.Ignore(syscall.SIGPIPE) }
