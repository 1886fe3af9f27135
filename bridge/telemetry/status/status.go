// Package status serves the page a person opens at a bridge's / : whether
// CAD is reachable, the tools as clients see them, the clients and their
// sessions, the calls in flight and queued, the questions waiting for an
// answer, and the journal's last lines. Plain HTML that refreshes itself,
// no script, everything a client, the base or the journal wrote escaped
// and shown visibly (a control or direction character is written as its
// code, never obeyed). The core fills a Snapshot for each request and
// mounts the page behind the checks /mcp has.
package status

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mcp-bridge/mcp-bridge/bridge/guard/confirm"
	"github.com/mcp-bridge/mcp-bridge/bridge/guard/journal"
	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry/health"
)

// Snapshot is what the page shows, as the core sees it at one moment.
type Snapshot struct {
	Version string
	Started time.Time
	// Serving says where clients reach the bridge: "stdio", or the URL
	// of /mcp.
	Serving string
	Base    Base
	// Tools are the tools as clients see them: after the policy.
	Tools     []Tool
	Clients   []Client
	Sessions  int // open legacy sessions (HTTP)
	Streams   int // open long-lived streams
	InFlight  []Call
	Queued    []Call
	Questions []Question
	// Journal is the journal file's path, "" without --journal: its last
	// JournalLines lines are shown.
	Journal string
}

// Base is the CAD base: its address and what the bridge last saw of it.
type Base struct {
	Addr string
	health.Status
}

// Tool is one tool a client sees.
type Tool struct {
	Name     string
	ReadOnly bool // annotated read-only (by the base or the policy)
	Confirm  bool // the policy asks the user before each call
}

// Client is one client the bridge serves now.
type Client struct {
	Name, Version string // its clientInfo, where it gave one
	Transport     string // stdio or http
	Era           string // legacy or modern
	Session       string // Mcp-Session-Id (shown shortened)
	Address       string // its address (HTTP)
	Since         time.Time
	InProgress    int // its requests not yet answered
}

// Call is a tools/call (or tools/list) in flight or queued.
type Call struct {
	Method, Tool string
	Client       string
	Since        time.Time // sent to CAD (in flight) or queued
}

// Question is a confirmation waiting for the user's answer.
type Question struct {
	Tool, Client string
	AskedBy      string // client (elicitation) or desktop (a dialog)
	Since        time.Time
}

// JournalLines is how many of the journal's last lines the page shows.
const JournalLines = 50

// Page is the status page's handler.
type Page struct {
	// Snapshot is called for each request.
	Snapshot func() Snapshot
	// Refresh is how often the page reloads itself; default 5 s.
	Refresh time.Duration
	// Now is time.Now unless a test sets it.
	Now func() time.Time
}

// ServeHTTP answers GET and HEAD of / exactly (other paths: 404, so that
// mounting the page at / does not swallow them).
func (p *Page) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	if r.URL.Path != "/" {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	var buf strings.Builder
	writePage(&buf, p.build())
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", CSP())
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	_, _ = w.Write([]byte(buf.String()))
}

// CSP is the page's Content-Security-Policy: nothing may load or run; the
// one style element is allowed by its hash.
func CSP() string {
	return "default-src 'none'; style-src '" + styleHash() + "'; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}

var styleHash = sync.OnceValue(func() string {
	sum := sha256.Sum256([]byte(style))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
})

// view is what the page shows: text made fit to show (show), escaped as
// it is written (writePage).
type view struct {
	Refresh   int
	Title     string
	Version   string
	Serving   string
	Updated   string
	Uptime    string
	BaseClass string
	BaseLine  string
	BaseAddr  string
	BaseWhy   string
	Tiles     []tile
	InFlight  []callRow
	Questions []questionRow
	Clients   []clientRow
	Tools     []toolRow
	Journal   []journalRow
	JournalOn bool
	JournalEr string
}

type tile struct {
	Label string
	N     int
	Busy  bool
}

type callRow struct{ State, Method, Tool, Client, Wait string }
type questionRow struct{ Tool, Client, AskedBy, Wait string }
type clientRow struct{ Name, Transport, Era, Session, Address, Since, InProgress string }
type toolRow struct {
	Name              string
	ReadOnly, Confirm bool
}
type journalRow struct {
	Time, Client, Tool, Outcome, Took, Message string
	Failed, Raw                                bool
}

func (p *Page) build() view {
	now := time.Now()
	if p.Now != nil {
		now = p.Now()
	}
	s := p.Snapshot()
	refresh := p.Refresh
	if refresh <= 0 {
		refresh = 5 * time.Second
	}
	v := view{
		Refresh: max(1, int(refresh/time.Second)),
		Version: show(s.Version, 64),
		Serving: show(s.Serving, 200),
		Updated: now.Format("15:04:05"),
	}
	if !s.Started.IsZero() {
		v.Uptime = ago(now.Sub(s.Started))
	}
	v.BaseAddr = show(s.Base.Addr, 200)
	switch s.Base.Base {
	case health.Up:
		v.BaseClass, v.BaseLine = "up", "CAD reachable"
		if !s.Base.Since.IsZero() {
			v.BaseWhy = "answering since " + s.Base.Since.Format("15:04:05") + " (" + ago(now.Sub(s.Base.Since)) + ")"
		}
	case health.Down:
		v.BaseClass, v.BaseLine = "down", "CAD not reachable"
		v.BaseWhy = show(s.Base.Reason, 400)
		if !s.Base.Since.IsZero() {
			v.BaseWhy += " — since " + s.Base.Since.Format("15:04:05") + " (" + ago(now.Sub(s.Base.Since)) + ")"
		}
	default:
		v.BaseClass, v.BaseLine = "unknown", "CAD not contacted yet"
	}
	v.Title = "mcp-bridge: " + v.BaseLine
	v.Tiles = []tile{
		{"in flight", len(s.InFlight), len(s.InFlight) > 0},
		{"queued", len(s.Queued), len(s.Queued) > 0},
		{"open questions", len(s.Questions), len(s.Questions) > 0},
		{"clients", len(s.Clients), false},
		{"sessions", s.Sessions, false},
		{"streams", s.Streams, false},
		{"tools", len(s.Tools), false},
	}
	for _, c := range s.InFlight {
		v.InFlight = append(v.InFlight, callRow{"in flight", show(c.Method, 64), show(c.Tool, 120), show(c.Client, 80), since(now, c.Since)})
	}
	for _, c := range s.Queued {
		v.InFlight = append(v.InFlight, callRow{"queued", show(c.Method, 64), show(c.Tool, 120), show(c.Client, 80), since(now, c.Since)})
	}
	for _, q := range s.Questions {
		v.Questions = append(v.Questions, questionRow{show(q.Tool, 120), show(q.Client, 80), show(q.AskedBy, 20), since(now, q.Since)})
	}
	for _, c := range s.Clients {
		name := show(c.Name, 80)
		if name == "" {
			name = "(no name given)"
		}
		if c.Version != "" {
			name += " " + show(c.Version, 40)
		}
		v.Clients = append(v.Clients, clientRow{name, show(c.Transport, 10), show(c.Era, 10), show(short(c.Session), 20),
			show(c.Address, 60), since(now, c.Since), fmt.Sprint(c.InProgress)})
	}
	for _, t := range s.Tools {
		v.Tools = append(v.Tools, toolRow{show(t.Name, 120), t.ReadOnly, t.Confirm})
	}
	if s.Journal != "" {
		v.JournalOn = true
		lines, err := journal.Tail(s.Journal, JournalLines)
		if err != nil {
			v.JournalEr = show(err.Error(), 300)
		}
		for i := len(lines) - 1; i >= 0; i-- { // newest first
			v.Journal = append(v.Journal, journalRow2(lines[i]))
		}
	}
	return v
}

func journalRow2(l journal.Line) journalRow {
	e := l.Entry
	if e == nil {
		return journalRow{Raw: true, Message: show(string(l.Text), 300)}
	}
	r := journalRow{
		Tool:    show(e.Tool, 120),
		Outcome: show(e.Outcome, 20),
		Message: show(e.Message, 200),
		Failed:  e.Failed(),
	}
	if r.Tool == "" {
		r.Tool = show(e.Method, 64)
	}
	if o := e.Confirmation(); r.Message == "" && o != confirm.NotAsked {
		// Why a call did not run, or that the user agreed: in the
		// gate's words, as the journal holds them.
		c := "confirmation " + o.String()
		if e.AskedBy != "" {
			c += " (" + e.AskedBy + ")"
		}
		r.Message = show(c, 200)
	}
	if !e.Time.IsZero() {
		r.Time = e.Time.Local().Format("15:04:05")
	}
	if e.Client != nil {
		r.Client = show(e.Client.Name, 60)
	}
	if e.DurationMs > 0 {
		r.Took = fmt.Sprintf("%.0f ms", e.DurationMs)
	}
	return r
}

// short is a session id's first characters: enough to tell sessions
// apart on the page.
func short(id string) string {
	if len(id) > 8 {
		return id[:8] + "…"
	}
	return id
}

func since(now, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return ago(now.Sub(t))
}

// ago is a duration as a person reads it: 0.8 s, 14 s, 2 min 5 s, 1 h 3 min.
func ago(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int(d / time.Second)
	switch {
	case d < 10*time.Second:
		return fmt.Sprintf("%.1f s", d.Seconds())
	case s < 60:
		return fmt.Sprintf("%d s", s)
	case s < 3600:
		return fmt.Sprintf("%d min %d s", s/60, s%60)
	case s < 86400:
		return fmt.Sprintf("%d h %d min", s/3600, s%3600/60)
	}
	return fmt.Sprintf("%d d %d h", s/86400, s%86400/3600)
}

// show makes text from a client, the base or a file fit to show: UTF-8,
// at most n characters (then "…"), and every control, format or
// direction character written as its code (\u202E) instead of acting on
// the text around it, as is a third combining mark on one letter.
// writePage escapes the rest.
func show(s string, n int) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	var b strings.Builder
	count, marks := 0, 0
	for _, r := range s {
		if count == n {
			b.WriteString("…")
			break
		}
		count++
		if unicode.Is(unicode.M, r) {
			marks++
		} else {
			marks = 0
		}
		// More than two marks on one letter only stack up over the
		// lines around it.
		if hidden(r) || marks > 2 {
			fmt.Fprintf(&b, `\u%04X`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// hidden: characters that change how the text around them looks (controls,
// bidirectional overrides and isolates, zero-width and other format
// characters), and the unassigned ones.
func hidden(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Zl, r) || unicode.Is(unicode.Zp, r) ||
		unicode.Is(unicode.Co, r) || !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Zs)
}
