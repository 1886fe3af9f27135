package journal

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/verify/testdir"
)

func entry(id string) *Entry {
	return &Entry{Time: time.Now(), PID: 1, Transport: "stdio", Era: "legacy", Method: "tools/call", Tool: "delete_entities", ID: id, Outcome: OK}
}

// ids reads the journal back: every line must be an entry.
func ids(t *testing.T, path string) []string {
	t.Helper()
	var got []string
	if err := Each(path, func(l Line) bool {
		if l.Entry == nil {
			t.Errorf("%s:%d is not an entry: %.80q", l.File, l.N, l.Text)
			return true
		}
		got = append(got, l.Entry.ID)
		return true
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestShortWriteIsCutBack: a write that fails part way (a full disk) is
// cut back off, so the next line is whole; one warning per outage, and
// one when it ends.
func TestShortWriteIsCutBack(t *testing.T) {
	path := filepath.Join(testdir.New(t), "j")
	w, err := Open(path, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var log bytes.Buffer
	w.Log = zerolog.New(&log)
	full := true
	w.write = func(f *os.File, b []byte) (int, error) {
		if full {
			n, _ := f.Write(b[:len(b)/2])
			return n, syscall.ENOSPC
		}
		return f.Write(b)
	}
	if err := w.Write(entry("1")); err == nil {
		t.Fatal("a write on a full disk reported no error")
	}
	if err := w.Write(entry("2")); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("second write on a full disk: %v", err)
	}
	if w.Ready() == nil {
		t.Error("Ready during the outage: nil")
	}
	full = false
	for _, id := range []string{"3", "4"} {
		if err := w.Write(entry(id)); err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Join(ids(t, path), ","); got != "3,4" {
		t.Errorf("entries after the disk filled and freed: %s; want 3,4", got)
	}
	if n := strings.Count(log.String(), "cannot be written"); n != 1 {
		t.Errorf("%d outage warnings for one outage; want 1:\n%s", n, log.String())
	}
	if !strings.Contains(log.String(), `"lost":2`) || !strings.Contains(log.String(), "can be written again") {
		t.Errorf("the end of the outage is not logged with the entries lost:\n%s", log.String())
	}
}

// writeOne writes e to a new journal and returns the line as written,
// after checking that it is within MaxEntry and valid UTF-8 JSON.
func writeOne(t *testing.T, e *Entry) Entry {
	t.Helper()
	path := filepath.Join(testdir.New(t), "j")
	w, err := Open(path, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Write(e); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	if len(raw) > MaxEntry {
		t.Errorf("line of %d bytes; the bound is %d", len(raw), MaxEntry)
	}
	if !utf8.Valid(raw) || !json.Valid(bytes.TrimSpace(raw)) {
		t.Fatalf("not valid UTF-8 JSON: %.200q", raw)
	}
	var got Entry
	_ = json.Unmarshal(raw, &got)
	return got
}

// wantArgsIdentified: arguments too long to keep are recorded by their
// size and SHA-256 instead.
func wantArgsIdentified(t *testing.T, got Entry, args []byte) {
	t.Helper()
	sum := sha256.Sum256(args)
	if got.Args != nil || got.ArgsBytes != len(args) || got.ArgsSHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("arguments recorded as %.40s, %d bytes %q; want %d bytes %x", got.Args, got.ArgsBytes, got.ArgsSHA256, len(args), sum)
	}
}

// TestEntriesAreBounded: whatever a client sends, a line is at most
// MaxEntry bytes of valid UTF-8 JSON, and arguments that were cut are
// identified by their size and SHA-256.
func TestEntriesAreBounded(t *testing.T) {
	huge := strings.Repeat("é\xff<", 200000)
	args := json.RawMessage(`{"text":"` + strings.Repeat("x", MaxArgs) + `"}`)
	e := entry(strings.Repeat("9", 100000))
	e.Tool, e.Message, e.Kind, e.Confirm = huge, huge, huge, huge
	e.Client = &ClientInfo{Name: huge, Version: huge}
	e.Args = args
	got := writeOne(t, e)
	wantArgsIdentified(t, got, args)
	if !strings.HasPrefix(got.Tool, "é\uFFFD<") || !strings.HasSuffix(got.Tool, "…") {
		t.Errorf("tool name cut as %.40q…%q", got.Tool, got.Tool[len(got.Tool)-10:])
	}
}

// TestEscapedEntriesAreBounded: the bound holds for the line as written,
// after JSON escaping and UTF-8 repair: arguments that fit as received but
// not as written (each byte that is not UTF-8 becomes U+FFFD, three bytes)
// are identified by their size and SHA-256, and text fields of control
// characters (each written as six bytes, \u0001) are cut as written.
// Before, such a line was 100 KiB, and rotation kept a fifth of the
// entries the package promises.
func TestEscapedEntriesAreBounded(t *testing.T) {
	args := json.RawMessage(`{"t":"` + strings.Repeat("\xffa", (MaxArgs-10)/2) + `"}`)
	ctl := strings.Repeat("\x01<\u2028", 10000)
	e := entry(ctl)
	e.Tool, e.Message, e.Kind, e.Confirm, e.Transport, e.Era, e.Method = ctl, ctl, ctl, ctl, ctl, ctl, ctl
	e.Client = &ClientInfo{Name: ctl, Version: ctl}
	e.Args = args
	got := writeOne(t, e)
	wantArgsIdentified(t, got, args)
	if !strings.HasPrefix(got.Message, "\x01<\u2028") || !strings.HasSuffix(got.Message, "…") {
		t.Errorf("message cut as %.40q", got.Message)
	}
	for name, v := range map[string]string{"message": got.Message, "tool": got.Tool, "client name": got.Client.Name} {
		limit := maxShort
		if name == "message" {
			limit = maxText
		}
		if written, _ := json.Marshal(v); len(written)-2 > limit {
			t.Errorf("the %s takes %d bytes as written; its bound is %d", name, len(written)-2, limit)
		}
	}
}

// TestInvalidUTF8ArgumentsAreValidJSON: arguments with bytes that are not
// UTF-8 inside their strings are written as U+FFFD.
func TestInvalidUTF8ArgumentsAreValidJSON(t *testing.T) {
	path := filepath.Join(testdir.New(t), "j")
	w, err := Open(path, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	e := entry("1")
	e.Args = json.RawMessage("{\"name\":\"a\xff\xfeb\"}")
	if err := w.Write(e); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	if !utf8.Valid(raw) {
		t.Fatalf("the line is not UTF-8: %q", raw)
	}
	var got Entry
	if err := json.Unmarshal(raw, &got); err != nil || string(got.Args) != `{"name":"a`+"\uFFFD"+`b"}` {
		t.Errorf("args %s (%v)", got.Args, err)
	}
}

// TestHugeCallsKeepHistory: six calls with 11 MiB arguments leave the
// earlier entries in the journal.
func TestHugeCallsKeepHistory(t *testing.T) {
	path := filepath.Join(testdir.New(t), "j")
	w, err := Open(path, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, id := range []string{"a", "b", "c"} {
		if err := w.Write(entry(id)); err != nil {
			t.Fatal(err)
		}
	}
	big := json.RawMessage(`{"points":"` + strings.Repeat("1", 11<<20) + `"}`)
	for i := range 6 {
		e := entry(fmt.Sprint(i))
		e.Args = big
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Join(ids(t, path), ","); got != "a,b,c,0,1,2,3,4,5" {
		t.Errorf("journal after six huge calls: %s", got)
	}
}

// TestReadDuringRotation: a file removed by a rotation between listing and
// reading is skipped, and a rotation meanwhile shows no entry twice.
func TestReadDuringRotation(t *testing.T) {
	path := filepath.Join(testdir.New(t), "j")
	w, err := Open(path, 300, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i := range 12 {
		if err := w.Write(entry(fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(Files(path)); n != 4 {
		t.Fatalf("%d files; the test wants path and 3 rotated ones", n)
	}
	testHookListed = func() { _ = os.Remove(path + ".3") } // what rotation does to the oldest
	defer func() { testHookListed = nil }()
	got, err := collect(path)
	if err != nil {
		t.Fatalf("a file removed during the read: %v", err)
	}
	// Each entry takes a file of its own at this cap: every write rotates.
	testHookListed = func() {
		for i := range 3 {
			_ = w.Write(entry("r" + fmt.Sprint(i)))
		}
	}
	got, err = collect(path)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, id := range got {
		if seen[id] {
			t.Errorf("entry %s shown twice: %v", id, got)
		}
		seen[id] = true
	}
}

func collect(path string) ([]string, error) {
	var got []string
	err := Each(path, func(l Line) bool {
		if l.Entry != nil {
			got = append(got, l.Entry.ID)
		}
		return true
	})
	return got, err
}
