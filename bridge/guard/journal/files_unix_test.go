//go:build unix

package journal

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/verify/testdir"
)

// Unix only: symbolic links need privileges on Windows, and its file
// system has no FIFOs.

// TestLinkAndFIFORefused: a journal path that is a symbolic link or a FIFO
// is refused at Open, and the link's target is left as it was; a journal
// that becomes a FIFO later fails a write at once instead of hanging.
func TestLinkAndFIFORefused(t *testing.T) {
	dir := testdir.New(t)
	target := filepath.Join(dir, "victim")
	if err := os.WriteFile(target, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(target, 0o644)
	link := filepath.Join(dir, "j")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(link, 0, 0); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("Open through a symlink: %v", err)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o644 {
		t.Errorf("the link's target has mode %v now", fi.Mode().Perm())
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(fifo, 0, 0); err == nil || !strings.Contains(err.Error(), "FIFO") {
		t.Errorf("Open of a FIFO: %v", err)
	}

	path := filepath.Join(dir, "later")
	w, err := Open(path, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(entry("1")); err == nil || !strings.Contains(err.Error(), "FIFO") {
		t.Errorf("write to a journal that became a FIFO: %v", err)
	}
	// With a reader at the other end, the FIFO still is no journal.
	r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := w.Ready(); err == nil {
		t.Error("Ready with a FIFO for a journal: nil")
	}
}
