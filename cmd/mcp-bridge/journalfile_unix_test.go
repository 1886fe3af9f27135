//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestJournalPathPlanted: a --journal that is a symbolic link or a FIFO is
// refused at start, exit 2, before anything is answered, and the link's
// target keeps its content and mode. (Unix only: symbolic links need
// privileges on Windows, and its file system has no FIFOs.)
func TestJournalPathPlanted(t *testing.T) {
	dir := tempDir(t)
	target := filepath.Join(dir, "victim.txt")
	if err := os.WriteFile(target, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(target, 0o644)
	link := filepath.Join(dir, "journal.jsonl")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"
	for _, tc := range []struct{ path, want string }{{link, "symbolic link"}, {fifo, "FIFO"}} {
		out, errs, code := runCLI(t, nil, ping, "--journal", tc.path, "--no-cache", "--log-level", "error")
		if code != 2 || out != "" || !strings.Contains(errs, "--journal") || !strings.Contains(errs, tc.want) {
			t.Errorf("--journal %s: exit %d, stdout %q, stderr %q; want exit 2 naming a %s", filepath.Base(tc.path), code, out, errs, tc.want)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "mine\n" {
		t.Errorf("the link's target now holds %q", b)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o644 {
		t.Errorf("the link's target has mode %v now", fi.Mode().Perm())
	}
}
