package launch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/mcp-bridge/mcp-bridge/verify/testdir"
)

// FuzzWhatAProgramWrites: whatever the program writes (its output file)
// and whatever the lock file holds, the lines a message quotes are at most
// ten, 200 characters each and 2000 bytes in all, valid UTF-8 with no
// control or invisible formatting character; a command shows on one such
// line; the lock file's state never panics and its reason stays bounded.
func FuzzWhatAProgramWrites(f *testing.F) {
	f.Add([]byte("FreeCAD 0.20\nError: no licence\x1b[31m\n"), "C:\\Program Files\\FreeCAD 1.0\\bin\\freecad.exe", []byte(`{"backoffs":[{"command":"freecad","until":"2026-01-01T00:00:00Z","why":"it exited"}]}`))
	f.Add([]byte("\xff\xfe\r\n\u202e\u200b\n\n"), "a\nb", []byte(`{"pid":-1,"why":`+strings.Repeat(`"x`, 3)+`}`))
	f.Fuzz(func(t *testing.T, output []byte, word string, lock []byte) {
		dir := testdir.New(t) // Wine can remove it
		out := filepath.Join(dir, "out.log")
		if err := os.WriteFile(out, output, 0o600); err != nil {
			t.Fatal(err)
		}
		lines, err := lastLines(out, 10, 2000)
		if err != nil {
			t.Fatal(err)
		}
		size := 0
		for _, l := range lines {
			size += len(l)
			if utf8.RuneCountInString(l) > 200 || !printableOnly(l) || l == "" {
				t.Fatalf("line %q", l)
			}
		}
		if len(lines) > 10 || size > 2000 {
			t.Fatalf("%d lines, %d bytes", len(lines), size)
		}
		if c := (Command{Path: word, Args: []string{word}}).String(); !printableOnly(c) {
			t.Fatalf("command shown as %q", c)
		}
		lk := filepath.Join(dir, "l.lock")
		if err := os.WriteFile(lk, lock, 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := openLock(lk)
		if err != nil {
			t.Fatal(err)
		}
		defer f.close()
		st := f.read()
		if len(st.Backoffs) > maxBackoffs {
			t.Fatalf("%d back-offs", len(st.Backoffs))
		}
		for _, b := range st.Backoffs {
			if utf8.RuneCountInString(b.Why) > maxWhy+1 {
				t.Fatalf("reason of %d characters", utf8.RuneCountInString(b.Why))
			}
		}
	})
}

func printableOnly(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r != ' ' && r != '\t' && !unicode.IsGraphic(r) {
			return false
		}
	}
	return true
}
