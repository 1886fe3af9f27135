//go:build unix

package toolcache

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// openNoFollow opens without following a link and without waiting for a
// FIFO's writer.
const openNoFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// ownedByMe checks the opened cache file (fi is its fstat): owned by this
// process's user and writable by nobody else, so that no other account
// can put tool descriptions (a prompt-injection channel) in front of the
// assistant.
func ownedByMe(_ *os.File, fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return errors.New("its owner cannot be read")
	}
	if uid := os.Getuid(); int(st.Uid) != uid {
		return fmt.Errorf("owned by uid %d, not by you (uid %d)", st.Uid, uid)
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("writable by group or others (mode %04o)", perm)
	}
	return nil
}
