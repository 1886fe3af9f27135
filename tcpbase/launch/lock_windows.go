//go:build windows

package launch

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// openNoFollow: Windows has no O_NOFOLLOW; openLock's regular-file check
// stands alone.
const openNoFollow = 0

// tryLock takes LockFileEx's exclusive lock on the file's first byte
// without waiting. The lock belongs to the handle, so two Launchers of one
// process exclude each other as two processes do, and Windows releases it
// when the handle is closed or the process ends.
func tryLock(f *os.File) (bool, error) {
	ol := new(windows.Overlapped)
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return false, nil
	}
	return err == nil, err
}

func unlock(f *os.File) {
	_ = windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, new(windows.Overlapped))
}
