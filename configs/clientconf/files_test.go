package clientconf

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/verify/testdir"
)

// symlink makes a link, or skips the test where links need privileges
// (Windows without developer mode).
func symlink(t *testing.T, target, link string) {
	t.Helper()
	testdir.Symlink(t, target, link)
}

func cursorFile(t *testing.T) File {
	dir := testdir.New(t)
	return File{Client: Lookup("cursor"), Path: filepath.Join(dir, "mcp.json"), Key: []string{"mcpServers"}, Scope: "user"}
}

const userJSON = "{\n  \"mcpServers\": {\n    \"other\": {\"command\": \"npx\"}\n  }\n}\n"

// TestBackupLinkNotFollowed: a symbolic link planted at the backup's name
// is replaced, not written through: the file it points to keeps its
// content, and the backup holds the previous config.
func TestBackupLinkNotFollowed(t *testing.T) {
	f := cursorFile(t)
	if err := os.WriteFile(f.Path, []byte(userJSON), 0o600); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(filepath.Dir(f.Path), "victim")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	symlink(t, victim, f.Path+".mcp-bridge-backup")
	r, err := Install(f, "cad", bridge, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
		t.Errorf("the file the planted link points to now holds %q", b)
	}
	fi, err := os.Lstat(r.Backup)
	if err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("backup %s: %v %v", r.Backup, fi, err)
	}
	if b, _ := os.ReadFile(r.Backup); string(b) != userJSON {
		t.Errorf("backup holds %q", b)
	}
}

// TestSymlinkedConfigWrittenThrough: a config that is a link (dotfiles)
// stays a link, and the file it points to gets the entry.
func TestSymlinkedConfigWrittenThrough(t *testing.T) {
	f := cursorFile(t)
	dots := filepath.Join(filepath.Dir(f.Path), "dotfiles")
	os.Mkdir(dots, 0o755)
	real := filepath.Join(dots, "cursor-mcp.json")
	if err := os.WriteFile(real, []byte(userJSON), 0o600); err != nil {
		t.Fatal(err)
	}
	symlink(t, filepath.Join("dotfiles", "cursor-mcp.json"), f.Path)
	r, err := Install(f, "cad", bridge, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(f.Path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a regular file: %v %v", fi.Mode(), err)
	}
	if got, ok := entryOf(t, File{Client: f.Client, Path: real, Key: f.Key}, "cad"); !ok || got.Command != bridge.Command {
		t.Errorf("the linked file holds %+v", got)
	}
	if r.Backup != real+".mcp-bridge-backup" {
		t.Errorf("backup %s; want it beside the linked file", r.Backup)
	}
}

// TestReadOnlyConfig: a read-only file is left as it is, with a message
// naming it, unless Force; with Force it is written and stays read-only.
func TestReadOnlyConfig(t *testing.T) {
	f := cursorFile(t)
	if err := os.WriteFile(f.Path, []byte(userJSON), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(f.Path, 0o444); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(f.Path, 0o600); os.Chmod(f.Path+".mcp-bridge-backup", 0o600) }) // Windows removes no read-only file
	_, err := Install(f, "cad", bridge, Options{})
	if err == nil || !strings.Contains(err.Error(), f.Path) || !strings.Contains(err.Error(), "read-only") || !strings.Contains(err.Error(), "--force") {
		t.Errorf("install into a read-only file: %v", err)
	}
	if b, _ := os.ReadFile(f.Path); string(b) != userJSON {
		t.Errorf("the read-only file changed:\n%s", b)
	}
	if _, err := Install(f, "cad", bridge, Options{Force: true}); err != nil {
		t.Fatalf("--force: %v", err)
	}
	if got, ok := entryOf(t, f, "cad"); !ok || got.Command != bridge.Command {
		t.Errorf("--force did not write the entry: %+v", got)
	}
	if fi, _ := os.Stat(f.Path); fi.Mode().Perm()&0o200 != 0 {
		t.Errorf("mode after --force: %v; want it read-only still", fi.Mode().Perm())
	}
	if _, err := Uninstall(f, "cad", Options{}); err == nil {
		t.Error("uninstall from a read-only file: no error")
	}
}

// TestCRLFKept: a file with CRLF line ends gets CRLF lines, JSON and TOML.
func TestCRLFKept(t *testing.T) {
	for _, c := range []*Client{Lookup("cursor"), Lookup("codex"), Lookup("goose"), Lookup("continue")} {
		f := cursorFile(t)
		f.Client = c
		src := strings.ReplaceAll(existing(c), "\n", "\r\n")
		if err := os.WriteFile(f.Path, []byte("\xef\xbb\xbf"+src), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, s := range []Server{bridge, {Command: "/x", Env: map[string]string{"CAD_MCP_PORT": "1", "CAD_MCP_NEW": "2"}}} {
			if _, err := Install(f, "cad", s, Options{}); err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(f.Path)
			if lf, crlf := bytes.Count(b, []byte("\n")), bytes.Count(b, []byte("\r\n")); lf != crlf {
				t.Errorf("%s: %d line ends, %d of them CRLF:\n%q", c.ID, lf, crlf, b)
			}
			if !bytes.HasPrefix(b, []byte("\xef\xbb\xbf")) {
				t.Errorf("%s: the BOM is gone", c.ID)
			}
		}
		if _, err := Uninstall(f, "cad", Options{}); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(f.Path); string(b) != "\xef\xbb\xbf"+src {
			t.Errorf("%s: uninstall did not give the file back:\n%q", c.ID, b)
		}
	}
}

func TestNotRegularConfigRefused(t *testing.T) {
	f := cursorFile(t)
	if err := os.Mkdir(f.Path, 0o700); err != nil {
		t.Fatal(err)
	}
	installRefused(t, f, "not a regular file")
}

// installRefused: install refuses f, dry run or not, saying why.
func installRefused(t *testing.T, f File, why string) {
	t.Helper()
	for _, dry := range []bool{false, true} {
		if _, err := Install(f, "cad", bridge, Options{DryRun: dry}); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("dry run %v: %v, want an error saying %q", dry, err, why)
		}
	}
}

// TestUninstallCreatesNothing: uninstall from a client whose file does not
// exist makes no folder and no lock file (a folder would make the client
// look installed).
func TestUninstallCreatesNothing(t *testing.T) {
	f := cursorFile(t)
	f.Path = filepath.Join(filepath.Dir(f.Path), ".cursor", "mcp.json")
	r, err := Uninstall(f, "cad", Options{})
	if err != nil || r.Action != "absent" {
		t.Fatalf("%+v %v", r, err)
	}
	if _, err := os.Lstat(filepath.Dir(f.Path)); err == nil {
		t.Errorf("uninstall made %s", filepath.Dir(f.Path))
	}
}
