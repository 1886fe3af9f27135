//go:build unix

// Unix only: these files are made with symlinks, FIFOs, hard links, mode
// bits and chown, which Windows does not have.

package launch_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/tcpbase/launch"
)

// The lock and output files live in a folder that may be shared (a
// --cache-dir others can write, the temporary folder when the user has no
// cache folder): what another account put at their names is never
// written through, emptied, waited on, quoted or trusted. The program's
// output goes only into a regular file of the user's own that nobody else
// may write and that has no other name; anything else there and it goes
// nowhere, and the answer quotes nothing from it. The launch goes on
// either way.
func TestOutputFileNotFollowed(t *testing.T) {
	const secret = "-----BEGIN PRIVATE KEY----- the user's own"
	tests := []struct {
		name string
		// plant puts something at the output file's name; precious is a
		// file of the user's elsewhere in the folder.
		plant func(t *testing.T, log, precious string)
		// quoted: the fake's own lines are in the answer (the file is
		// the user's and is used); else nothing is quoted.
		quoted bool
	}{
		{"none", func(*testing.T, string, string) {}, true},
		{"an earlier run's, 0600", func(t *testing.T, log, _ string) { write(t, log, "an earlier run's line\n", 0o600) }, true},
		{"an earlier run's, 0644", func(t *testing.T, log, _ string) { write(t, log, "an earlier run's line\n", 0o644) }, true},
		{"symlink to a file of the user's", func(t *testing.T, log, precious string) { symlink(t, precious, log) }, false},
		{"hard link to a file of the user's", func(t *testing.T, log, precious string) {
			if err := os.Link(precious, log); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"fifo", func(t *testing.T, log, _ string) {
			if err := syscall.Mkfifo(log, 0o600); err != nil {
				t.Fatal(err)
			}
			// A bridge stuck opening it is let go when the test ends.
			t.Cleanup(func() {
				if f, err := os.OpenFile(log, os.O_RDWR|syscall.O_NONBLOCK, 0); err == nil {
					f.Close()
				}
			})
		}, false},
		{"writable by others (0666)", func(t *testing.T, log, _ string) { write(t, log, "", 0o666) }, false},
		{"writable by its group (0620)", func(t *testing.T, log, _ string) { write(t, log, "", 0o620) }, false},
		{"another user's", func(t *testing.T, log, _ string) {
			asRoot(t)
			write(t, log, "", 0o600)
			if err := os.Chown(log, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSetup(t)
			if err := os.Chmod(s.dir, 0o777); err != nil { // as a shared folder is
				t.Fatal(err)
			}
			s.fake.Exit = 3
			s.fake.Stderr = "FakeCAD: no licence"
			o := s.options(nil)
			o.Command = s.fake.Command()
			l := launch.New(o)
			precious := filepath.Join(s.dir, "id_ed25519")
			write(t, precious, secret+"\n", 0o600)
			tt.plant(t, l.LogPath(), precious)

			done := ensure(l, nil)
			var err error
			select {
			case err = <-done:
			case <-time.After(limit):
				t.Fatal("Ensure did not return: the bridge hangs on the output file")
			}
			var le *launch.Error
			if !errors.As(err, &le) || !errors.Is(err, launch.ErrFailed) || !strings.Contains(le.Msg, "exited with status 3") {
				t.Fatalf("got %v, want launch_failed with the exit status", err)
			}
			if n := len(s.starts()); n != 1 {
				t.Fatalf("%d starts, want 1", n)
			}
			if got, err := os.ReadFile(precious); err != nil || string(got) != secret+"\n" {
				t.Errorf("the user's other file now holds %q (%v)", got, err)
			}
			quoted := strings.Join(le.Output, "\n")
			if strings.Contains(quoted, "PRIVATE KEY") || strings.Contains(le.Msg, "PRIVATE KEY") {
				t.Errorf("the answer quotes the user's other file: %q", le.Msg)
			}
			if strings.Contains(quoted, "an earlier run's") {
				t.Errorf("the answer quotes an earlier run's output: %q", le.Output)
			}
			if got := strings.Contains(quoted, "FakeCAD: no licence"); got != tt.quoted {
				t.Errorf("the program's own line quoted: %v, want %v (output %q)", got, tt.quoted, le.Output)
			}
			if !tt.quoted && !strings.Contains(le.Msg, "Its output cannot be read (") || !strings.Contains(le.Msg, l.LogPath()) {
				t.Errorf("the answer does not say why it quotes nothing: %s", le.Msg)
			}
		})
	}
}

// A lock file another account can write (planted in a shared folder, or
// made writable) is no lock: whoever holds it or writes it could keep
// every bridge of the user from starting CAD, or have them wait for a
// process that is not CAD. It is done without, as a lock file that cannot
// be made is; the user's own (0600, 0644) is used. A lock file with a
// second name is never written (its state would replace the other file).
func TestLockFileOfAnotherAccount(t *testing.T) {
	tests := []struct {
		name string
		// plant puts forged at the lock file's name; precious is a file
		// of the user's elsewhere in the folder.
		plant func(t *testing.T, lock, forged, precious string)
		used  bool // the file is the lock: its state is read
	}{
		{"the user's, 0600", func(t *testing.T, lock, forged, _ string) { write(t, lock, forged, 0o600) }, true},
		{"the user's, 0644", func(t *testing.T, lock, forged, _ string) { write(t, lock, forged, 0o644) }, true},
		{"writable by others (0666)", func(t *testing.T, lock, forged, _ string) { write(t, lock, forged, 0o666) }, false},
		{"writable by its group (0660)", func(t *testing.T, lock, forged, _ string) { write(t, lock, forged, 0o660) }, false},
		{"another user's", func(t *testing.T, lock, forged, _ string) {
			asRoot(t)
			write(t, lock, forged, 0o644)
			if err := os.Chown(lock, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"hard link to a file of the user's", func(t *testing.T, lock, forged, precious string) {
			write(t, precious, forged, 0o600)
			if err := os.Link(precious, lock); err != nil {
				t.Fatal(err)
			}
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSetup(t)
			if err := os.Chmod(s.dir, 0o777); err != nil {
				t.Fatal(err)
			}
			o := s.options(nil)
			o.Wait = 2 * time.Second // what a planted state makes the bridge wait for
			l := launch.New(o)
			lock := strings.TrimSuffix(l.LogPath(), ".log") + ".lock"
			// What another account writes there: a launch of a program that
			// "still starts" (this test's own process, which runs and never
			// serves the base), just begun.
			forged := `{"pid":` + strconv.Itoa(os.Getpid()) + `,"started":"` + time.Now().Format(time.RFC3339Nano) + `"}`
			precious := filepath.Join(s.dir, "notes.txt")
			write(t, precious, "the user's notes\n", 0o600)
			tt.plant(t, lock, forged, precious)
			want, _ := os.ReadFile(precious)
			err := result(t, ensure(l, nil))
			if tt.used {
				// The user's own file is the user's own bridges' record: it
				// is believed, and the bridge waits for that process.
				if !errors.Is(err, launch.ErrTimeout) || len(s.starts()) != 0 {
					t.Fatalf("got %v and %d starts, want the recorded launch waited for", err, len(s.starts()))
				}
				return
			}
			if err != nil {
				t.Fatalf("got %v, want CAD started regardless of the planted lock file", err)
			}
			if n := len(s.starts()); n != 1 {
				t.Fatalf("%d starts, want 1", n)
			}
			if got, err := os.ReadFile(precious); err != nil || string(got) != string(want) {
				t.Errorf("the user's other file now holds %q (%v)", got, err)
			}
		})
	}
}

func write(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // past the umask
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func asRoot(t *testing.T) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("only root can make a file owned by another user")
	}
}
