//go:build linux || darwin || freebsd || openbsd || netbsd || dragonfly

package userfile

import (
	"os"
	"syscall"
)

// Lock takes an exclusive lock on f shared by every process (flock),
// waiting for it.
func Lock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}

func Unlock(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
