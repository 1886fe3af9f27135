//go:build !windows

package bridge

import (
	"io"
	"os"
	"syscall"
)

// Interruptible returns stdin in a form whose Close interrupts a blocked
// Read, so that the bridge's reader goroutine (connect's too) ends with
// Run on a signal. That holds for a pipe put in non-blocking mode (Go
// then polls it); a terminal or a file is left as it is.
func Interruptible(r io.Reader) io.Reader {
	f, ok := r.(*os.File)
	if !ok {
		return r
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		return r
	}
	if err := syscall.SetNonblock(int(f.Fd()), true); err != nil {
		return r
	}
	return os.NewFile(f.Fd(), "stdin")
}
