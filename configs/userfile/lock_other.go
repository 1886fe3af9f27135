//go:build !linux && !darwin && !freebsd && !openbsd && !netbsd && !dragonfly && !windows

package userfile

import "os"

// Without a cross-process lock on this system, lines of one process are
// still whole (the Writer's mutex); several bridges should not share a file.
func Lock(*os.File) error { return nil }

func Unlock(*os.File) {}
