//go:build unix

package launch

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The output file is read again when a launch fails, after the program
// ran for a while: whatever was put at its name meanwhile (a link to the
// user's key, in a folder others can write) is not quoted to the
// assistant; the user's own file is.
func TestLastLinesReadOnlyTheUsersOwnFile(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "id_ed25519")
	if err := os.WriteFile(secret, []byte("PRIVATE KEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	own := filepath.Join(dir, "own.log")
	if err := os.WriteFile(own, []byte("FreeCAD: no licence\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := lastLines(own, 10, 2000); err != nil || !cmp.Equal(got, []string{"FreeCAD: no licence"}) {
		t.Fatalf("the user's own file: %q, %v", got, err)
	}
	link := filepath.Join(dir, "swapped.log")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	if got, err := lastLines(link, 10, 2000); err == nil || got != nil {
		t.Fatalf("a link to another file: %q, %v; want nothing read", got, err)
	}
}
