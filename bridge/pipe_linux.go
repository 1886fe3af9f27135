//go:build linux

package bridge

import (
	"io"
	"os"
	"syscall"
)

// widenPipe raises the capacity of stdout, when it is a pipe, from the
// default 64 KiB to 1 MiB (the unprivileged maximum), so that a large
// answer crosses to the client in a few writes instead of dozens of
// write/wake/read round trips. Failure changes nothing.
func widenPipe(w io.Writer) {
	f, ok := w.(*os.File)
	if !ok {
		return
	}
	const fSETPIPE_SZ = 1031
	_, _, _ = syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), fSETPIPE_SZ, 1<<20)
}
