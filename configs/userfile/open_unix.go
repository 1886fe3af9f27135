//go:build unix

package userfile

import (
	"os"
	"syscall"
)

// open adds O_NOFOLLOW (a link at path fails with ELOOP) and O_NONBLOCK
// (a FIFO opens or fails at once instead of waiting for its other end;
// regular files ignore it).
func open(path string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, perm)
}
