//go:build !unix

package userfile

import (
	"fmt"
	"io/fs"
	"os"
)

// open on Windows (and other systems without O_NOFOLLOW): Lstat first and
// refuse a link or reparse point (Go reports symlinks as ModeSymlink and
// junctions and other reparse points as ModeIrregular) or any non-regular
// file; after opening, the handle must be the same file that Lstat saw
// (os.SameFile: volume serial number and file index), so that a link
// swapped in between is caught. Windows has no FIFOs in the file system:
// its named pipes live under \\.\pipe\, and Open refuses them as
// non-regular after the open (which does not block).
func open(path string, flag int, perm os.FileMode) (*os.File, error) {
	lst, err := os.Lstat(path)
	existed := err == nil
	if existed && !lst.Mode().IsRegular() {
		return nil, refusal(path, lst.Mode())
	}
	f, err := os.OpenFile(path, flag, perm)
	if err != nil {
		return nil, err
	}
	if existed {
		st, err := f.Stat()
		if err != nil || !os.SameFile(lst, st) {
			f.Close()
			return nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w: it changed while being opened", ErrNotRegular)}
		}
	}
	return f, nil
}
