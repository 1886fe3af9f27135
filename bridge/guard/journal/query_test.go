package journal

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestQuery: --since at its edge (an entry at that very time is shown,
// one a nanosecond before is not), --tool's glob, --failed, and what
// NewQuery refuses.
func TestQuery(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.Local)
	q, err := NewQuery("1h", "delete_*", true, now)
	if err != nil {
		t.Fatal(err)
	}
	at := now.Add(-time.Hour)
	for _, tt := range []struct {
		e    Entry
		want bool
	}{
		{Entry{Time: at, Tool: "delete_line", Outcome: Error}, true},
		{Entry{Time: at.Add(-time.Nanosecond), Tool: "delete_line", Outcome: Error}, false},
		{Entry{Time: at, Tool: "draw_line", Outcome: Error}, false},
		{Entry{Time: at, Tool: "delete_line", Outcome: OK}, false},
		{Entry{Time: at, Tool: "delete_line", Outcome: InputRequired}, false},
		{Entry{Time: at, Tool: "delete_line", Outcome: Denied}, true},
	} {
		if got := q.Match(&tt.e); got != tt.want {
			t.Errorf("%+v: %v, want %v", tt.e, got, tt.want)
		}
	}
	if !(Query{}).Match(&Entry{Outcome: OK}) {
		t.Error("an empty query leaves an entry out")
	}
	for _, bad := range []struct{ since, tool, want string }{
		{"yesterday", "", `--since "yesterday": want a duration`},
		{"", "[a-", `--tool "[a-": malformed pattern`},
	} {
		if _, err := NewQuery(bad.since, bad.tool, false, now); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q %q: %v, want %q", bad.since, bad.tool, err, bad.want)
		}
	}
	if got, err := ParseSince("2026-11-30 08:00", now); err != nil || !got.Equal(time.Date(2026, 11, 30, 8, 0, 0, 0, time.Local)) {
		t.Errorf("a local time: %v, %v", got, err)
	}
}

// TestTableConfirmation: the confirmation's word as a journal written
// before the gate's Outcome holds it ("timed out", where metrics say
// "timeout") is shown as written, with who asked; a word that is no
// outcome is shown as text, never as the control characters it holds.
func TestTableConfirmation(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{`{"time":"2026-01-02T03:04:05Z","tool":"delete_line","outcome":"declined","confirm":"timed out","askedBy":"desktop","declined":true}`, "confirmation timed out (desktop)"},
		{`{"time":"2026-01-02T03:04:05Z","tool":"delete_line","outcome":"ok","confirm":"accepted","askedBy":"client","confirmed":true}`, "confirmation accepted (client)"},
		{`{"time":"2026-01-02T03:04:05Z","tool":"delete_line","outcome":"declined","confirm":"x\u001b[2Jy"}`, `confirmation "x\x1b[2Jy"`},
	} {
		var en Entry
		if err := json.Unmarshal([]byte(c.line), &en); err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		tb := NewTable(&out)
		tb.Add(&en)
		tb.Flush()
		if !strings.Contains(out.String(), c.want) {
			t.Errorf("%s\nshown as %q; want it to hold %q", c.line, out.String(), c.want)
		}
	}
}
