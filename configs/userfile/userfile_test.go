package userfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/verify/testdir"
)

func TestOpenRegularAndRefuseFolder(t *testing.T) {
	dir := testdir.New(t)
	p := filepath.Join(dir, "f")
	f, err := Open(p, os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := Check(p); err != nil {
		t.Errorf("Check of a regular file: %v", err)
	}
	if err := Check(filepath.Join(dir, "missing")); err != nil {
		t.Errorf("Check of a missing file: %v", err)
	}
	if _, err := Open(dir, os.O_RDONLY, 0); !errors.Is(err, ErrNotRegular) {
		t.Errorf("Open of a folder: %v", err)
	}
	if err := Check(dir); !errors.Is(err, ErrNotRegular) {
		t.Errorf("Check of a folder: %v", err)
	}
}

func TestOpenRefusesLink(t *testing.T) {
	dir := testdir.New(t)
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte("x"), 0o600)
	link := filepath.Join(dir, "link")
	testdir.Symlink(t, target, link)
	for _, flag := range []int{os.O_RDONLY, os.O_CREATE | os.O_APPEND | os.O_WRONLY} {
		if f, err := Open(link, flag, 0o600); !errors.Is(err, ErrNotRegular) {
			if f != nil {
				f.Close()
			}
			t.Errorf("Open(link, %#x): %v; want ErrNotRegular", flag, err)
		}
	}
	if _, err := LockPath(link); !errors.Is(err, ErrNotRegular) {
		t.Errorf("LockPath(link): %v", err)
	}
}
