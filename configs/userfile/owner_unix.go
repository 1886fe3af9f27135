//go:build unix

package userfile

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// SameOwner gives the file or folder at path (a link there is not
// followed) the owner and group of like (links followed) when they
// differ: a config that root writes for a user (sudo keeping the user's
// HOME) stays the user's, and the user's client can still read it. Best
// effort: only root may give a file away, and anyone else's new files are
// their own already.
func SameOwner(path, like string) {
	want, err := os.Stat(like)
	if err != nil {
		return
	}
	have, err := os.Lstat(path)
	if err != nil {
		return
	}
	w, ok1 := want.Sys().(*syscall.Stat_t)
	h, ok2 := have.Sys().(*syscall.Stat_t)
	if !ok1 || !ok2 || (w.Uid == h.Uid && w.Gid == h.Gid) {
		return
	}
	_ = os.Lchown(path, int(w.Uid), int(w.Gid))
}

// Mine checks an opened file (its fstat): owned by this process's user,
// writable by nobody else, and with no other name. A file in a folder
// others can write (a shared --cache-dir, the temporary folder) may have
// been put there by another account: whoever may write it could choose
// what the bridge reads from it (tool descriptions an assistant reads, a
// launch lock that holds every launch off), and a hard link to another of
// the user's files would be read, or emptied and overwritten, in its
// place.
func Mine(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
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
