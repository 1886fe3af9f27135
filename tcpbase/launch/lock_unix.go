//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd || solaris

package launch

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// openNoFollow: the lock file is never a link to somewhere else, and
// opening a FIFO put there does not wait.
const openNoFollow = unix.O_NOFOLLOW | unix.O_NONBLOCK

// tryLock takes flock's exclusive lock without waiting. The lock belongs
// to the open file, so two Launchers of one process exclude each other as
// two processes do, and it goes when the file is closed (or the process
// ends, however it ends).
func tryLock(f *os.File) (bool, error) {
	err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

func unlock(f *os.File) { _ = unix.Flock(int(f.Fd()), unix.LOCK_UN) }
