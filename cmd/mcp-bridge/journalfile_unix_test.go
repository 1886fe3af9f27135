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

// TestJournalReaderSkipsPlantedFile: a rotated journal name that is not a
// regular file (here a symbolic link planted at FILE.2) is skipped, with a
// warning naming it, and the rest of the journal is shown. Before,
// `mcp-bridge journal` failed on it and showed nothing.
func TestJournalReaderSkipsPlantedFile(t *testing.T) {
	dir := tempDir(t)
	file := filepath.Join(dir, "journal.jsonl")
	line := func(tool string) string {
		return `{"time":"2026-12-01T13:00:00Z","pid":1,"transport":"stdio","era":"legacy","method":"tools/call","tool":"` + tool + `","outcome":"ok","durationMs":1,"bytes":1}` + "\n"
	}
	for name, tool := range map[string]string{file: "current", file + ".1": "older", filepath.Join(dir, "elsewhere"): "planted"} {
		if err := os.WriteFile(name, []byte(line(tool)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "elsewhere"), file+".2"); err != nil {
		t.Fatal(err)
	}
	out, errs, code := runCLI(t, nil, "", "journal", file, "--json")
	if code != 0 || !strings.Contains(out, `"older"`) || !strings.Contains(out, `"current"`) || strings.Contains(out, "planted") {
		t.Errorf("exit %d, stdout %q; want the entries older and current only (stderr %q)", code, out, errs)
	}
	if !strings.Contains(errs, file+".2") || !strings.Contains(errs, "skipped") {
		t.Errorf("stderr %q does not say that %s.2 was skipped", errs, file)
	}
}
