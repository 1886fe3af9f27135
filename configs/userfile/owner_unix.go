//go:build unix

package userfile

import (
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
