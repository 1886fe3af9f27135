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

// TestTryLock: a second holder, in this process as in another, does not
// get the lock until the first gives it up; Lock then waits for nobody.
func TestTryLock(t *testing.T) {
	p := filepath.Join(testdir.New(t), "lock")
	a, err := OpenOwn(p, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := OpenOwn(p, os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if got, err := TryLock(a); !got || err != nil {
		t.Fatalf("first TryLock: %v, %v", got, err)
	}
	if got, err := TryLock(b); got || err != nil {
		t.Fatalf("TryLock while another holds it: %v, %v; want false", got, err)
	}
	Unlock(a)
	if got, err := TryLock(b); !got || err != nil {
		t.Fatalf("TryLock once it is free: %v, %v", got, err)
	}
	Unlock(b)
	if err := Lock(a); err != nil {
		t.Fatal(err)
	}
	Unlock(a)
}

// TestOpenOwnTakesTheUsersFile: a file the user made is theirs, on every
// system (its refusals need another owner, mode bits or hard links:
// userfile_unix_test.go).
func TestOpenOwnTakesTheUsersFile(t *testing.T) {
	p := filepath.Join(testdir.New(t), "own")
	f, err := OpenOwn(p, os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if f, err = OpenOwn(p, os.O_RDONLY, 0); err != nil {
		t.Fatalf("the user's own file: %v", err)
	}
	f.Close()
	if _, err := OpenOwn(filepath.Dir(p), os.O_RDONLY, 0); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a folder: %v", err)
	}
}
