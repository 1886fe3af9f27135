//go:build unix

package userfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/verify/testdir"
)

// TestOpenOwnRefusals: a file another account may write, or that has a
// second name, is not the user's own; at the edge of each rule (0644 and
// 0600 are, 0620 and 0602 are not; one name is, two are not). Another
// owner needs root.
func TestOpenOwnRefusals(t *testing.T) {
	dir := testdir.New(t)
	mk := func(name string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tt := range []struct {
		path string
		want string // "" when taken
	}{
		{mk("0600", 0o600), ""},
		{mk("0644", 0o644), ""},
		{mk("0620", 0o620), "writable by group or others (mode 0620)"},
		{mk("0602", 0o602), "writable by group or others (mode 0602)"},
	} {
		f, err := OpenOwn(tt.path, os.O_RDONLY, 0)
		if f != nil {
			f.Close()
		}
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: %v, want %q", filepath.Base(tt.path), err, tt.want)
		}
	}
	other := mk("other", 0o600)
	link := filepath.Join(dir, "link")
	if err := os.Link(other, link); err != nil {
		t.Fatal(err)
	}
	if f, err := OpenOwn(link, os.O_RDWR, 0); err == nil || !strings.Contains(err.Error(), "it has 2 names") {
		if f != nil {
			f.Close()
		}
		t.Errorf("a hard link: %v, want refused", err)
	}
	if os.Getuid() == 0 {
		p := mk("theirs", 0o600)
		if err := os.Chown(p, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if f, err := OpenOwn(p, os.O_RDONLY, 0); err == nil || !strings.Contains(err.Error(), "not by you") {
			if f != nil {
				f.Close()
			}
			t.Errorf("another user's file: %v, want refused", err)
		}
	}
}
