package status

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard/journal"
	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry/health"
	"github.com/mcp-bridge/mcp-bridge/verify/testdir"
)

var now = time.Date(2026, 12, 2, 14, 30, 0, 0, time.Local)

// busy is a bridge at a busy moment, with CAD down and hostile names
// everywhere a client, the base or a file put text.
func busy(t *testing.T, down bool) Snapshot {
	dir := testdir.New(t)
	path := filepath.Join(dir, "journal.jsonl")
	w, err := journal.Open(path, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 60 {
		e := &journal.Entry{Time: now.Add(time.Duration(i-60) * time.Minute), Transport: "http", Era: "legacy", Method: "tools/call",
			Client: &journal.ClientInfo{Name: "claude-code"}, Tool: fmt.Sprintf("draw_line_%02d", i), Outcome: journal.OK, DurationMs: float64(40 + i)}
		if i%10 == 9 {
			e.Outcome, e.Code, e.Kind, e.Message = journal.Error, -32603, "timeout", "CAD base at 127.0.0.1:8080 did not answer tools/call within 2m0s"
		}
		if i == 59 {
			e.Tool = `<script>alert("journal")</script>`
		}
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("not an entry <b>bold</b>\n")
	f.Close()
	s := Snapshot{
		Version: "v1.4.0", Started: now.Add(-3 * time.Hour), Serving: "https://cad-pc-12:8931/mcp",
		Base:  Base{Addr: "127.0.0.1:8080", Status: health.Status{Base: health.Up, Since: now.Add(-2 * time.Hour)}},
		Tools: []Tool{{Name: "draw_line"}, {Name: "get_entities", ReadOnly: true}, {Name: "delete_entities", Confirm: true}, {Name: "evil\u202Egnp.exe"}},
		Clients: []Client{
			{Name: "claude-code", Version: "2.1.332", Transport: "http", Era: "legacy", Session: "191c4850af6c49e08843a3f6c80e5046", Address: "10.1.2.80:51234", Since: now.Add(-40 * time.Minute), InProgress: 1},
			{Name: `<img src=x onerror=alert(1)>`, Transport: "http", Era: "modern", Address: "10.1.2.81:40000", Since: now.Add(-5 * time.Second), InProgress: 2},
			{Transport: "stdio", Era: "legacy", Since: now.Add(-time.Hour)},
		},
		Sessions: 1, Streams: 2,
		InFlight:  []Call{{Method: "tools/call", Tool: "draw_line", Client: "claude-code", Since: now.Add(-1500 * time.Millisecond)}},
		Queued:    []Call{{Method: "tools/call", Tool: "get_entities", Client: `<img src=x onerror=alert(1)>`, Since: now.Add(-800 * time.Millisecond)}, {Method: "tools/list", Client: "claude-code", Since: now.Add(-100 * time.Millisecond)}},
		Questions: []Question{{Tool: "delete_entities", Client: "claude-code", AskedBy: "desktop", Since: now.Add(-12 * time.Second)}},
		Journal:   path,
	}
	if down {
		s.Base.Status = health.Status{Base: health.Down, Reason: "CAD base at 127.0.0.1:8080 refused the connection: is the CAD program running with its MCP base enabled?", Since: now.Add(-3 * time.Minute)}
	}
	return s
}

func render(t *testing.T, s Snapshot, path string) *httptest.ResponseRecorder {
	t.Helper()
	p := &Page{Snapshot: func() Snapshot { return s }, Now: func() time.Time { return now }}
	rec := httptest.NewRecorder()
	p.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec
}

func TestPageShowsTheBridge(t *testing.T) {
	rec := render(t, busy(t, true), "/")
	if rec.Code != 200 {
		t.Fatalf("%d", rec.Code)
	}
	body := rec.Body.String()
	for _, want := range []string{
		`<meta http-equiv="refresh" content="5">`,
		"CAD not reachable", "refused the connection", "since 14:27:00 (3 min 0 s)",
		`<td>queued</td><td>get_entities</td>`, `<td>in flight</td><td>draw_line</td>`,
		"<td>tools/list</td>", // a queued call without a tool shows its method
		`<td>delete_entities</td><td>claude-code</td><td>desktop</td><td class="n">12 s</td>`,
		"claude-code 2.1.332", "191c4850…", "(no name given)",
		`evil\u202Egnp.exe`, // the override is shown, not obeyed
		`<span class="tag">read-only</span>`, `<span class="tag">asks first</span>`,
		"draw_line_58", "did not answer tools/call",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// The journal: the last 50 lines, newest first, the line that is not
	// an entry among them; draw_line_10 and older are not shown.
	if strings.Contains(body, "draw_line_10<") || !strings.Contains(body, "draw_line_11<") {
		t.Error("the journal does not show exactly the last 50 lines")
	}
	if i, j := strings.Index(body, "not an entry"), strings.Index(body, "draw_line_58"); i < 0 || j < 0 || i > j {
		t.Error("the journal is not newest first")
	}
	if n := strings.Count(body, `class="failed"`); n != 5 {
		t.Errorf("%d failed rows, want 5 (draw_line_19, 29, 39, 49 and the last)", n)
	}
	// Hostile text is escaped.
	for _, bad := range []string{"<script>", "<img src=x", "<b>bold</b>", "\u202E"} {
		if strings.Contains(body, bad) {
			t.Errorf("the page holds %q as it was sent", bad)
		}
	}
	for _, want := range []string{"&lt;script&gt;", "&lt;img src=x onerror=alert(1)&gt;", "&lt;b&gt;bold&lt;/b&gt;"} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks the escaped %q", want)
		}
	}
}

func TestPageBaseStates(t *testing.T) {
	for _, c := range []struct {
		st   health.Status
		want string
	}{
		{health.Status{Base: health.Up, Since: now.Add(-time.Minute)}, `<div class="base up" id="base"><b>CAD reachable</b>`},
		{health.Status{Base: health.Down, Reason: "x"}, `<div class="base down" id="base"><b>CAD not reachable</b>`},
		{health.Status{}, `<div class="base unknown" id="base"><b>CAD not contacted yet</b>`},
	} {
		s := Snapshot{Base: Base{Addr: "127.0.0.1:8080", Status: c.st}}
		body := render(t, s, "/").Body.String()
		if !strings.Contains(body, c.want) {
			t.Errorf("%v: page lacks %q", c.st.Base, c.want)
		}
		if !strings.Contains(body, "No call in flight or queued.") || !strings.Contains(body, "No question waits") || !strings.Contains(body, "No journal kept") {
			t.Errorf("an idle bridge's page does not say it is idle")
		}
	}
}

// The page tells the browser to load and run nothing, keep nothing, and
// be framed nowhere; its one style is allowed by its exact hash.
func TestPageHeaders(t *testing.T) {
	rec := render(t, Snapshot{}, "/")
	h := rec.Header()
	for k, want := range map[string]string{
		"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
		"Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY",
	} {
		if got := h.Get(k); got != want {
			t.Errorf("%s: %q, want %q", k, got, want)
		}
	}
	csp := h.Get("Content-Security-Policy")
	if !strings.HasPrefix(csp, "default-src 'none'; style-src 'sha256-") || strings.Contains(csp, "unsafe") || strings.Contains(csp, "script") {
		t.Errorf("CSP %q", csp)
	}
	if !strings.Contains(rec.Body.String(), "<style>"+style+"</style>") {
		t.Error("the style element is not the hashed text: the browser would refuse it")
	}
	if strings.Contains(strings.ToLower(rec.Body.String()), "<script") {
		t.Error("the page has a script")
	}
}

func TestPageAnswersOnlyRoot(t *testing.T) {
	for _, p := range []string{"/index.html", "/x", "//", "/mcp"} {
		if rec := render(t, Snapshot{}, p); rec.Code != 404 {
			t.Errorf("%s: %d", p, rec.Code)
		}
	}
	p := &Page{Snapshot: func() Snapshot { return Snapshot{} }}
	rec := httptest.NewRecorder()
	p.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", rec.Code)
	}
}

func TestShow(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"draw_line", 100, "draw_line"},
		{"abc", 3, "abc"},
		{"abcd", 3, "abc…"},
		{"a\u202Eb", 100, `a\u202Eb`},
		{"a\u200Bb\u2066c\u2069", 100, `a\u200Bb\u2066c\u2069`},
		{"line\nbreak\ttab", 100, `line\u000Abreak\u0009tab`},
		{"bad\xffbyte", 100, "bad\uFFFDbyte"},
		{"e\u0301\u0301\u0301x", 100, "e\u0301\u0301\\u0301x"},
		{"日本語の名前", 100, "日本語の名前"},
		{"\uE000private", 100, `\uE000private`},
	} {
		if got := show(c.in, c.n); got != c.want {
			t.Errorf("show(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

// FuzzPage: whatever text a client, the base or a file sends, the page's
// markup is the same: as many tags as with a plain word in every place.
func FuzzPage(f *testing.F) {
	f.Add(`<script>alert(1)</script>`)
	f.Add("\u202E\"'&amp;<!--")
	f.Add("</td></tr></table><b>")
	snap := func(s string) Snapshot {
		st := health.Status{Base: health.Down, Reason: s, Since: now}
		return Snapshot{
			Version: s, Serving: s, Base: Base{Addr: s, Status: st},
			Tools:     []Tool{{Name: s, ReadOnly: true, Confirm: true}},
			Clients:   []Client{{Name: s, Version: s, Transport: s, Era: s, Session: s, Address: s, Since: now}},
			InFlight:  []Call{{Method: s, Tool: s, Client: s, Since: now}},
			Queued:    []Call{{Method: s, Client: s, Since: now}},
			Questions: []Question{{Tool: s, Client: s, AskedBy: s, Since: now}},
		}
	}
	want := -1
	f.Fuzz(func(t *testing.T, s string) {
		body := render(t, snap(s), "/").Body.String()
		if want < 0 {
			want = strings.Count(render(t, snap("word"), "/").Body.String(), "<")
		}
		if got := strings.Count(body, "<"); got != want {
			t.Fatalf("text %q changed the markup: %d tags, want %d", s, got, want)
		}
	})
}

// TestJournalRowConfirmation: a call that did not run for want of the
// user's agreement says why on the page, in the journal's words (which a
// journal written before the gate's Outcome holds too); a call with a
// message of its own keeps it.
func TestJournalRowConfirmation(t *testing.T) {
	for _, c := range []struct {
		e    journal.Entry
		want string
	}{
		{journal.Entry{Tool: "delete_line", Outcome: journal.Declined, Confirm: "timed out", AskedBy: "desktop"}, "confirmation timed out (desktop)"},
		{journal.Entry{Tool: "delete_line", Outcome: journal.OK, Confirm: "accepted", AskedBy: "client"}, "confirmation accepted (client)"},
		{journal.Entry{Tool: "delete_line", Outcome: journal.OK}, ""},
		{journal.Entry{Tool: "delete_line", Outcome: journal.Error, Confirm: "accepted", Message: "CAD base down"}, "CAD base down"},
	} {
		if got := journalRow2(journal.Line{Entry: &c.e}).Message; got != c.want {
			t.Errorf("%+v: message %q; want %q", c.e, got, c.want)
		}
	}
}
