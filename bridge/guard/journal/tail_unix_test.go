//go:build unix

package journal

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-bridge/mcp-bridge/configs/userfile"
	"github.com/mcp-bridge/mcp-bridge/verify/testdir"
)

// A rotated file planted as a link is not read: its target's lines never
// show, the other files' do, and the error names what was skipped.
func TestTailSkipsALinkedRotatedFile(t *testing.T) {
	dir := testdir.New(t)
	path := filepath.Join(dir, "j")
	for name, body := range map[string]string{"j": "new\n", "j.2": "old\n", "secret": "not the journal's\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "secret"), path+".1"); err != nil {
		t.Fatal(err)
	}
	got, err := Tail(path, 10)
	if !errors.Is(err, userfile.ErrNotRegular) {
		t.Errorf("error %v, want one naming the skipped link", err)
	}
	if diff := cmp.Diff([]string{"j.2:old", "j:new"}, texts(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
