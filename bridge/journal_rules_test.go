package bridge

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard/journal"
)

// TestJournalModernClient: a 2026-07-28 client's calls are journalled with
// the clientInfo of their _meta, as handshake-era ones with initialize's.
func TestJournalModernClient(t *testing.T) {
	jpath, jw := newJournal(t)
	h := newHarness(t, nil, func(c *Config) { c.Journal = jw })
	h.send(modernCall("1", "measure_distance", `{"from":{"x":0,"y":0},"to":{"x":0,"y":1}}`, `{}`, ""))
	h.recv()
	h.closeAndWait()
	var got []string
	_ = journal.Each(jpath, func(l journal.Line) bool {
		e := l.Entry
		c := "no client"
		if e.Client != nil {
			c = e.Client.Name + "/" + e.Client.Version
		}
		got = append(got, e.Era+" "+e.Tool+" "+c)
		return true
	})
	if d := cmp.Diff([]string{"modern measure_distance wire-test/9"}, got); d != "" {
		t.Errorf("journal (-want +got):\n%s", d)
	}
}

// TestJournalRequired: with --journal-required, a call is refused, and
// nothing reaches CAD, while the journal cannot be written; without it,
// the call goes on. Once the journal works again, calls run again.
func TestJournalRequired(t *testing.T) {
	for _, required := range []bool{true, false} {
		jpath, jw := newJournal(t)
		h := newHarness(t, nil, func(c *Config) { c.Journal, c.JournalRequired = jw, required })
		h.send(initialize("0", "2025-06-18"))
		h.recv()
		// The journal's path taken by a folder: it cannot be opened.
		if err := os.Remove(jpath); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(jpath, 0o700); err != nil {
			t.Fatal(err)
		}
		h.send(call("1", "get_drawing_info", `{}`))
		line := h.recv()
		ran := h.sim.CallsFor("1")
		if required {
			if ran != 0 || field(t, line, "error.code") != float64(-32603) || !strings.Contains(line, jsonText(t, jpath)) || !strings.Contains(line, "--journal-required") {
				t.Errorf("journal-required, journal unwritable: ran %d times, answer %s", ran, line)
			}
		} else if ran != 1 || field(t, line, "result.isError") != false {
			t.Errorf("journal unwritable, not required: ran %d times, answer %s", ran, line)
		}
		if err := os.Remove(jpath); err != nil {
			t.Fatal(err)
		}
		// The first call after the outage ends may still be refused (its
		// refusal, journalled, is what shows the journal works); the next runs.
		h.send(call("2", "get_drawing_info", `{}`))
		h.recv()
		h.send(call("3", "get_drawing_info", `{}`))
		if line := h.recv(); field(t, line, "result.isError") != false || h.sim.CallsFor("3") != 1 {
			t.Errorf("journal writable again (required %v): %s", required, line)
		}
		h.closeAndWait()
	}
}

// jsonText is s as it appears inside a JSON string (a Windows path's
// backslashes doubled).
func jsonText(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b[1 : len(b)-1])
}

// TestJournalCancelledWhileRunning: a call the client cancels while CAD
// runs it gets no answer, but it may have run: the journal has its line,
// outcome "cancelled", and `journal --failed` shows it. A call cancelled
// while still queued never reached CAD and has no line.
func TestJournalCancelledWhileRunning(t *testing.T) {
	jpath, jw := newJournal(t)
	h := newHarness(t, nil, func(c *Config) { c.Journal = jw })
	h.send(initialize("0", "2025-06-18"))
	h.recv()
	h.send(call(`"hang"`, "fault_hang", `{}`))
	h.send(call(`"queued"`, "get_drawing_info", `{}`))
	waitFor(t, func() bool { return h.sim.CallsFor(`"hang"`) == 1 })
	h.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"queued"}}`)
	h.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"hang"}}`)
	h.send(call(`"after"`, "get_drawing_info", `{}`))
	if line := h.recv(); field(t, line, "id") != "after" {
		t.Fatalf("answer %s: want the call after the cancelled ones (they get none)", line)
	}
	h.closeAndWait()
	want := []string{`"hang" fault_hang cancelled `, `"after" get_drawing_info ok `}
	if d := cmp.Diff(want, journalLines(jpath)); d != "" {
		t.Errorf("journal (-want +got):\n%s", d)
	}
	failed := 0
	_ = journal.Each(jpath, func(l journal.Line) bool {
		if l.Entry.Failed() {
			failed++
		}
		return true
	})
	if failed != 1 {
		t.Errorf("%d failed lines, want the cancelled call's", failed)
	}
}
