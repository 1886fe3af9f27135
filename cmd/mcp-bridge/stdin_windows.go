//go:build windows

package main

import "io"

// interruptible: on Windows a blocked console or pipe read cannot be
// interrupted from Go; the reader ends with the process.
func interruptible(r io.Reader) io.Reader { return r }
