//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd || solaris

package userfile

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// Lock takes an exclusive lock on f shared by every process (flock),
// waiting for it.
func Lock(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			return err
		}
	}
}

// TryLock takes the lock Lock takes if it is free, without waiting. The
// lock belongs to the open file, so two holders in one process exclude
// each other as two processes do, and it goes when the file is closed
// (or the process ends, however it ends).
func TryLock(f *os.File) (bool, error) {
	err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

func Unlock(f *os.File) { _ = unix.Flock(int(f.Fd()), unix.LOCK_UN) }
