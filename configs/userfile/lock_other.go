//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd || solaris || windows)

package userfile

import "os"

// Without a cross-process lock on this system, lines of one process are
// still whole (the journal Writer's mutex), and one process still launches
// CAD once at a time; several bridges should not share a file.
func Lock(*os.File) error { return nil }

// TryLock always gets the lock that is not there.
func TryLock(*os.File) (bool, error) { return true, nil }

func Unlock(*os.File) {}
