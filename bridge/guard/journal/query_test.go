package journal

import (
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
