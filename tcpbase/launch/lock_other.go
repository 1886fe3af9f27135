//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd || solaris || windows)

package launch

import "os"

const openNoFollow = 0

// tryLock: these systems get no lock between processes; one process still
// launches one at a time.
func tryLock(*os.File) (bool, error) { return true, nil }

func unlock(*os.File) {}
