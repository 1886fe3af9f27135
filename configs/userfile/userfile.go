// Package userfile opens and locks the files a user owns (the journal, the
// client configuration files install edits, the tool cache, the launch
// lock and the CAD program's output, the log file) so that a file planted
// in their place cannot redirect or stall the bridge: no symbolic link is
// followed, only regular files are used, a FIFO never blocks, and where a
// file must be the user's own (OpenOwn) another account's is refused.
package userfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrNotRegular is a path that is a symbolic link, a FIFO, a device or a
// folder: something other than a regular file.
var ErrNotRegular = errors.New("not a regular file")

// Open is os.OpenFile for a user's file: it refuses a symbolic link at
// path (it is not followed) and anything but a regular file, without
// waiting on a FIFO. With os.O_CREATE a missing file is created with perm.
func Open(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := open(path, flag, perm)
	if err != nil {
		if lst, lerr := os.Lstat(path); lerr == nil && !lst.Mode().IsRegular() {
			return nil, refusal(path, lst.Mode())
		}
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, refusal(path, st.Mode())
	}
	return f, nil
}

// OpenOwn is Open for a file only this user may change (Mine): what
// another account put at path, or a hard link to another of the user's
// files, is refused, never read, written or emptied.
func OpenOwn(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := Open(path, flag, perm)
	if err != nil {
		return nil, err
	}
	if err := Mine(f); err != nil {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return f, nil
}

// Check reports whether path, when it exists, is a regular file (a
// symbolic link is not followed); a missing file is fine.
func Check(path string) error {
	lst, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !lst.Mode().IsRegular() {
		return refusal(path, lst.Mode())
	}
	return nil
}

func refusal(path string, m fs.FileMode) error {
	what := "not a regular file"
	switch {
	case m&fs.ModeSymlink != 0:
		what = "a symbolic link (not followed)"
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO), not a regular file"
	case m&fs.ModeDir != 0:
		what = "a folder, not a regular file"
	case m&(fs.ModeDevice|fs.ModeCharDevice) != 0:
		what = "a device, not a regular file"
	case m&fs.ModeSocket != 0:
		what = "a socket, not a regular file"
	case m&fs.ModeIrregular != 0:
		what = "a reparse point or other special file, not a regular file"
	}
	return &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w: it is %s", ErrNotRegular, what)}
}

// LockPath opens (creating it, 0600) the lock file at path, without
// following a link, and takes its cross-process lock, waiting for it.
// release unlocks and closes it; the file stays, so that every process
// locks the same file.
func LockPath(path string) (release func(), err error) {
	f, err := Open(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	SameOwner(path, filepath.Dir(path)) // its folder's owner must open it too
	if err := Lock(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() { Unlock(f); f.Close() }, nil
}
