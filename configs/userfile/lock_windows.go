//go:build windows

package userfile

import (
	"os"

	"golang.org/x/sys/windows"
)

// Lock takes an exclusive lock on the first byte of f, shared by every
// process (LockFileEx), waiting for it.
func Lock(f *os.File) error {
	var ol windows.Overlapped
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &ol)
}

func Unlock(f *os.File) {
	var ol windows.Overlapped
	_ = windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, &ol)
}
