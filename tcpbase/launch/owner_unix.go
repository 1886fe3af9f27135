//go:build unix

package launch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// mine checks an opened file's fstat: owned by this process's user,
// writable by nobody else, and with no other name. The lock and output
// files sit beside the tool cache, in a folder that may be shared (a
// --cache-dir others can write, the temporary folder when the user has
// none): what another account planted there could hold every launch off
// (a lock it keeps, a state it wrote) or read CAD's output, and a hard
// link to another of the user's files would be emptied and overwritten.
func mine(fi fs.FileInfo) error {
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
	if st.Nlink > 1 {
		return fmt.Errorf("it has %d names (hard links)", st.Nlink)
	}
	return nil
}
