package journal

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-bridge/mcp-bridge/verify/testdir"
)

// texts are the lines' texts and files.
func texts(ls []Line) []string {
	var out []string
	for _, l := range ls {
		out = append(out, filepath.Base(l.File)+":"+string(l.Text))
	}
	return out
}

// TestTailIsTheEndOfEach: on a journal rotated across several files, with
// entries of many lengths, Tail(n) gives exactly the last n lines Each
// gives, for n at every edge (one, a file's worth either side, all, more
// than all).
func TestTailIsTheEndOfEach(t *testing.T) {
	path := filepath.Join(testdir.New(t), "j")
	// Files of about 150 KB: more than one chunk Tail reads at a time,
	// so that it starts reading within a line.
	w, err := Open(path, 150<<10, 5)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i := range 2000 {
		e := &Entry{Time: time.Unix(int64(i), 0), Method: "tools/call", Tool: fmt.Sprintf("t%d", i), Outcome: OK,
			Message: strings.Repeat("m", i*7%300)}
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	var all []Line
	if err := Each(path, func(l Line) bool {
		l.Text = append([]byte(nil), l.Text...)
		all = append(all, l)
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if len(Files(path)) < 4 {
		t.Fatalf("the journal did not rotate enough to test: %v", Files(path))
	}
	for _, n := range []int{1, 2, 10, 49, 50, 51, 500, len(all) - 1, len(all), len(all) + 1} {
		got, err := Tail(path, n)
		if err != nil {
			t.Fatalf("Tail(%d): %v", n, err)
		}
		want := all[max(0, len(all)-n):]
		if diff := cmp.Diff(texts(want), texts(got)); diff != "" {
			t.Errorf("Tail(%d) (-want +got):\n%s", n, diff)
		}
		for i, l := range got {
			if l.Entry == nil || l.Entry.Tool != want[i].Entry.Tool {
				t.Errorf("Tail(%d)[%d]: entry %v, want tool %s", n, i, l.Entry, want[i].Entry.Tool)
				break
			}
		}
	}
	if got, _ := Tail(path, 0); len(got) != 0 {
		t.Errorf("Tail(0) = %d lines", len(got))
	}
}

// A last line without its line feed is being written: left out. Lines
// that are not entries come as text. An empty journal has no lines.
func TestTailEdges(t *testing.T) {
	dir := testdir.New(t)
	path := filepath.Join(dir, "j")
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("")
	if got, err := Tail(path, 5); err != nil || len(got) != 0 {
		t.Errorf("empty journal: %v, %v", texts(got), err)
	}
	write("{\"outcome\":\"ok\"}\nnot json\n{\"outcome\":\"ok\",\"tool\":\"half")
	got, err := Tail(path, 5)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{`j:{"outcome":"ok"}`, "j:not json"}, texts(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got[0].Entry == nil || got[1].Entry != nil {
		t.Errorf("entries: %v %v", got[0].Entry, got[1].Entry)
	}
	write("no line feed at all")
	if got, _ := Tail(path, 5); len(got) != 0 {
		t.Errorf("a journal of one unfinished line: %v", texts(got))
	}
	if _, err := Tail(filepath.Join(dir, "missing"), 5); err == nil {
		t.Error("a missing journal: no error")
	}
}

// A file whose lines are longer than any entry is not read whole: Tail
// reads its budget and gives what fits.
func TestTailReadsNoMoreThanItsBudget(t *testing.T) {
	path := filepath.Join(testdir.New(t), "j")
	huge := strings.Repeat("x", 8<<20)
	if err := os.WriteFile(path, []byte("first\n"+huge+"\nlast\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := Tail(path, 3)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"j:last"}, texts(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// With a budget that covers the long line, it is there.
	got, _ = Tail(path, 1000)
	if len(got) != 3 || len(got[1].Text) != len(huge) {
		t.Errorf("with room for it: %d lines", len(got))
	}
}
