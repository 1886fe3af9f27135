//go:build unix

package clientconf

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/verify/testdir"
)

// TestFIFOConfigRefused: a FIFO at the config's path is refused at once
// (it would block a read). Unix only: Windows has no FIFOs in its file
// system.
func TestFIFOConfigRefused(t *testing.T) {
	f := cursorFile(t)
	if err := syscall.Mkfifo(f.Path, 0o600); err != nil {
		t.Fatal(err)
	}
	installRefused(t, f, "FIFO")
	if _, err := readFile(f.Path); err == nil {
		t.Error("doctor's read of a FIFO: no error")
	}
}

// TestOwnerKept: install run by root on a user's files (sudo keeping the
// user's HOME) leaves them the user's: the config, its backup, its lock
// file (in the user's cache) and the folders it had to make keep the
// owner of the file, or of the folder they are in. Before, they became root's, mode 0600, and the
// user's client could no longer read its own config. Only root can give
// files away: skipped for anyone else.
func TestOwnerKept(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root can make files owned by another user")
	}
	const uid, gid = 4242, 4343
	home := testdir.New(t)
	if err := os.Chown(home, uid, gid); err != nil {
		t.Fatal(err)
	}
	f := File{Client: Lookup("cursor"), Path: filepath.Join(home, ".cursor", "mcp.json"), Key: []string{"mcpServers"}, Scope: "user"}
	locks := filepath.Join(home, ".cache", "mcp-bridge", "locks")
	if _, err := Install(f, "cad", bridge, Options{LockDir: locks}); err != nil {
		t.Fatal(err)
	}
	lock, _ := filepath.Glob(filepath.Join(locks, "mcp.json-*.lock"))
	if len(lock) != 1 {
		t.Fatalf("locks %v, want one for mcp.json", lock)
	}
	owner := func(p string) [2]uint32 {
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		st := fi.Sys().(*syscall.Stat_t)
		return [2]uint32{st.Uid, st.Gid}
	}
	for _, p := range []string{filepath.Dir(f.Path), f.Path, filepath.Join(home, ".cache"), locks, lock[0]} {
		if got := owner(p); got != [2]uint32{uid, gid} {
			t.Errorf("%s is owned by %v; want the folder's %d:%d", p, got, uid, gid)
		}
	}
	// An existing file keeps its own owner, whoever owns the folder.
	if err := os.Chown(f.Path, uid+1, gid+1); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(f, "cad", Server{Command: "/other"}, Options{}); err != nil {
		t.Fatal(err)
	}
	if got := owner(f.Path); got != [2]uint32{uid + 1, gid + 1} {
		t.Errorf("the updated config is owned by %v; want its owner %d:%d", got, uid+1, gid+1)
	}
	if got := owner(f.Path + ".mcp-bridge-backup"); got != [2]uint32{uid, gid} {
		t.Errorf("the backup is owned by %v; want the folder's %d:%d", got, uid, gid)
	}
}
