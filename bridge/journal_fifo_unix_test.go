//go:build unix

package bridge

import (
	"os"
	"syscall"
	"testing"
)

// TestJournalBecomesFIFO: a journal path that turns into a FIFO while the
// bridge runs never holds a call up: the call is answered and so is a
// ping. (Unix only: Windows has no FIFOs in its file system.)
func TestJournalBecomesFIFO(t *testing.T) {
	jpath, jw := newJournal(t)
	h := newHarness(t, nil, func(c *Config) { c.Journal = jw })
	h.send(initialize("0", "2025-06-18"))
	h.recv()
	if err := os.Remove(jpath); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(jpath, 0o600); err != nil {
		t.Fatal(err)
	}
	h.send(call("1", "get_drawing_info", `{}`), `{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	got := map[any]bool{}
	for range 2 {
		got[field(t, h.recv(), "id")] = true
	}
	if !got[float64(1)] || !got["p"] {
		t.Errorf("answers: %v; want the call and the ping", got)
	}
	h.closeAndWait()
}
