//go:build windows

package bridge

import "io"

// Interruptible: on Windows a blocked console or pipe read cannot be
// interrupted from Go; the reader ends with the process.
func Interruptible(r io.Reader) io.Reader { return r }
