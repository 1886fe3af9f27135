package streamable

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/internal/bridgetest"
)

// fromAddr makes the harness's client connect from another loopback
// address: another machine, as far as the bridge can tell.
func (h *httpHarness) fromAddr(ip string) *httpHarness {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	other := *h
	other.client = &http.Client{Timeout: bridgetest.WaitLimit, Transport: &http.Transport{DialContext: d.DialContext}}
	return &other
}

// used opens a legacy session and uses it once.
func (h *httpHarness) used(version string) string {
	h.t.Helper()
	sid := h.initialize(version)
	if r := h.post(withSession(sid), pingBody); r.status != http.StatusOK {
		h.t.Fatalf("ping in a new session: %d %s", r.status, r.body)
	}
	return sid
}

// TestNeverUsedSessionsDoNotLockOut: 1,000 initialize POSTs that are
// never followed up do not stop a new client from opening a session: the
// oldest never-used one makes room. A session in use is never evicted.
// Before, every new client got 503 until the idle timeout (30 min).
func TestNeverUsedSessionsDoNotLockOut(t *testing.T) {
	h := newHTTPHarness(t, func(_ *bridge.Config, hc *Config) { hc.UnusedIdle = time.Hour })
	inUse := h.used("2025-06-18")
	for i := range 1000 {
		r := h.post(jsonHeaders, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`)
		if r.status != http.StatusOK {
			t.Fatalf("initialize %d: %d %s", i, r.status, r.body)
		}
	}
	fresh := h.initialize("2025-11-25")
	if r := h.post(withSession(fresh), listBody); r.status != http.StatusOK {
		t.Errorf("the new client's tools/list: %d %s", r.status, r.body)
	}
	if r := h.post(withSession(inUse), pingBody); r.status != http.StatusOK {
		t.Errorf("the session in use was evicted: %d %s", r.status, r.body)
	}
	if n := bridgetest.Field(t, h.health(), "sessions").(float64); n > 1000 {
		t.Errorf("%v sessions open, the limit is 1000", n)
	}
}

// TestUnusedSessionsExpireQuickly: a session never used after initialize
// ends after the short unused timeout; one in use waits for the idle one.
func TestUnusedSessionsExpireQuickly(t *testing.T) {
	h := newHTTPHarness(t, func(_ *bridge.Config, hc *Config) { hc.UnusedIdle = 20 * time.Millisecond })
	inUse := h.used("2025-06-18")
	unused := h.initialize("2025-06-18")
	bridgetest.WaitFor(t, func() bool { return bridgetest.Field(t, h.health(), "sessions") == float64(1) })
	if r := h.post(withSession(unused), pingBody); r.status != http.StatusNotFound {
		t.Errorf("the unused session: %d %s", r.status, r.body)
	}
	if r := h.post(withSession(inUse), pingBody); r.status != http.StatusOK {
		t.Errorf("the session in use: %d %s", r.status, r.body)
	}
}

// TestSessionShareOfOneAddress: one remote address holds at most half of
// --max-sessions; when every session of its share is in use (a call
// running, a GET stream open), it is refused (503, naming the flag) while
// another address still gets a session.
func TestSessionShareOfOneAddress(t *testing.T) {
	h := newHTTPHarness(t, func(_ *bridge.Config, hc *Config) { hc.MaxSessions, hc.UnusedIdle = 4, time.Hour })
	calling := h.used("2025-06-18")
	hang := h.postAsync(withSession(calling), bridgetest.Call(`"hang"`, "fault_hang", `{}`))
	bridgetest.WaitFor(t, func() bool { return h.sim.CallsFor(`"hang"`) == 1 })
	streaming := h.used("2025-06-18")
	status, _, _, closeStream := h.stream(http.MethodGet, append(withSession(streaming), "Accept", "text/event-stream"), "")
	defer closeStream()
	if status != http.StatusOK {
		t.Fatalf("GET: %d", status)
	}
	r := h.post(jsonHeaders, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`)
	if r.status != http.StatusServiceUnavailable || !strings.Contains(r.body, "--max-sessions") {
		t.Errorf("a third session from one address: %d %s", r.status, r.body)
	}
	if other := h.fromAddr("127.0.0.2"); other.initialize("2025-06-18") == "" {
		t.Error("no session for another address")
	}
	h.post(withSession(calling), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"hang"}}`)
	<-hang
}

// TestUsedIdleSessionsDoNotLockOut: sessions used once (one ping each, as
// every client's notifications/initialized does) and then left open do
// not lock new clients out until --session-idle: the session idle the
// longest makes room, and the others stay. Before, the address's share
// full of such sessions meant 503 for 30 minutes.
func TestUsedIdleSessionsDoNotLockOut(t *testing.T) {
	h := newHTTPHarness(t, func(_ *bridge.Config, hc *Config) { hc.MaxSessions, hc.UnusedIdle = 4, time.Hour })
	older := h.used("2025-06-18")
	newer := h.used("2025-06-18")
	if r := h.post(withSession(older), pingBody); r.status != http.StatusOK { // now newer is idle the longest
		t.Fatalf("ping: %d %s", r.status, r.body)
	}
	fresh := h.initialize("2025-11-25") // fails the test on 503
	for name, want := range map[string]int{fresh: http.StatusOK, older: http.StatusOK, newer: http.StatusNotFound} {
		if r := h.post(withSession(name), pingBody); r.status != want {
			t.Errorf("session %s: %d %s; want %d", name, r.status, r.body, want)
		}
	}
}

// TestBusySessionsOutliveTheIdleTimeout: a session with an open GET stream,
// or with a call running, does not expire after --session-idle, while an
// idle session opened after them does.
func TestBusySessionsOutliveTheIdleTimeout(t *testing.T) {
	h := newHTTPHarness(t, func(_ *bridge.Config, hc *Config) {
		hc.SessionIdle, hc.UnusedIdle = 20*time.Millisecond, 20*time.Millisecond
	})
	streaming := h.used("2025-06-18")
	status, _, events, closeStream := h.stream(http.MethodGet, append(withSession(streaming), "Accept", "text/event-stream"), "")
	defer closeStream()
	if status != http.StatusOK {
		t.Fatalf("GET: %d", status)
	}
	calling := h.used("2025-06-18")
	hang := h.postAsync(withSession(calling), bridgetest.Call(`"hang"`, "fault_hang", `{}`))
	bridgetest.WaitFor(t, func() bool { return h.sim.CallsFor(`"hang"`) == 1 })
	idle := h.used("2025-06-18")
	// Asking about the session would keep it alive: watch the health count.
	bridgetest.WaitFor(t, func() bool { return bridgetest.Field(t, h.health(), "sessions").(float64) < 3 })
	if r := h.post(withSession(idle), pingBody); r.status != http.StatusNotFound {
		t.Fatalf("the idle session: %d %s", r.status, r.body)
	}
	for name, sid := range map[string]string{"with a GET stream": streaming, "with a call running": calling} {
		if r := h.post(withSession(sid), pingBody); r.status != http.StatusOK {
			t.Errorf("the session %s expired: %d %s", name, r.status, r.body)
		}
	}
	select {
	case e, ok := <-events:
		t.Errorf("the GET stream carried %q (open: %v)", e, ok)
	default:
	}
	h.post(withSession(calling), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"hang"}}`)
	<-hang
}

// TestMaxStreams: --max-streams 1 allows one stream; a newer GET stream
// takes the place of the oldest; a listen is never ended to make room,
// and one address holds at most half of the table.
func TestMaxStreams(t *testing.T) {
	h := newHTTPHarness(t, func(_ *bridge.Config, hc *Config) { hc.MaxStreams = 1 })
	getStream := func(h *httpHarness) <-chan string {
		sid := h.used("2025-06-18")
		status, _, events, closeStream := h.stream(http.MethodGet, append(withSession(sid), "Accept", "text/event-stream"), "")
		t.Cleanup(closeStream)
		if status != http.StatusOK {
			t.Fatalf("GET stream: %d", status)
		}
		return events
	}
	first := getStream(h)
	if n := bridgetest.Field(t, h.health(), "streams"); n != float64(1) {
		t.Fatalf("streams: %v", n)
	}
	getStream(h)
	streamEnds(t, first, "the oldest GET stream, for a newer one")
	if n := bridgetest.Field(t, h.health(), "streams"); n != float64(1) {
		t.Errorf("streams after the newer one: %v", n)
	}

	h2 := newHTTPHarness(t, func(_ *bridge.Config, hc *Config) { hc.MaxStreams = 2 })
	listen := func(h *httpHarness, id string) int {
		body := `{"jsonrpc":"2.0","id":"` + id + `","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + bridgetest.ModernMeta + `}}`
		req, _ := http.NewRequest(http.MethodPost, h.url, strings.NewReader(body))
		hd := modernHeaders("subscriptions/listen", "")
		for i := 0; i+1 < len(hd); i += 2 {
			req.Header.Set(hd[i], hd[i+1])
		}
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		resp, err := h.client.Do(req.WithContext(ctx))
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
		}
		return resp.StatusCode
	}
	old := getStream(h2)
	newer := getStream(h2)
	streamEnds(t, old, "a GET stream, for a newer one from its address (its share is half the table)")
	if s := listen(h2.fromAddr("127.0.0.2"), "l1"); s != http.StatusOK {
		t.Fatalf("a listen from another address: %d", s)
	}
	if s := listen(h2.fromAddr("127.0.0.3"), "l2"); s != http.StatusOK {
		t.Fatalf("a listen when the table is full: %d", s)
	}
	streamEnds(t, newer, "the GET stream, for a listen when the table was full")
	if s := listen(h2.fromAddr("127.0.0.3"), "l3"); s != http.StatusServiceUnavailable {
		t.Errorf("a listen with only listens open: %d", s)
	}
}

// streamEnds waits for a stream to end, reading past its events.
func streamEnds(t *testing.T, events <-chan string, what string) {
	t.Helper()
	deadline := time.After(bridgetest.WaitLimit)
	for {
		select {
		case _, ok := <-events:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatalf("%s did not end", what)
		}
	}
}

// TestChunkedPostOverTheLimit: a POST without Content-Length (chunked)
// larger than --max-message is refused with 413 like one with a length.
func TestChunkedPostOverTheLimit(t *testing.T) {
	h := newHTTPHarness(t, func(c *bridge.Config, _ *Config) { c.MaxMessage = 4096 })
	sid := h.initialize("2025-06-18")
	big := bridgetest.Call("1", "get_drawing_info", fmt.Sprintf(`{"x":%q}`, strings.Repeat("x", 5000)))
	// A reader of unknown length: the client sends the body chunked.
	req, _ := http.NewRequest(http.MethodPost, h.url, io.MultiReader(strings.NewReader(big)))
	for _, kv := range [][2]string{{"Content-Type", "application/json"}, {"Accept", "application/json, text/event-stream"}, {"Mcp-Session-Id", sid}} {
		req.Header.Set(kv[0], kv[1])
	}
	resp, err := h.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("chunked POST over --max-message: %d %s", resp.StatusCode, body)
	}
	if h.sim.Calls() != 0 {
		t.Errorf("the base ran %d calls", h.sim.Calls())
	}
}

// TestStatelessClientsAreNotKept: what the bridge keeps of a stateless
// client (its turn in the worker's rotation) goes once its requests are
// answered. Before, one was kept per clientInfo for --session-idle (30
// min), key and all: twenty tools/list POSTs naming 8 MiB programs held
// 160 MiB, and a loop of them ran the bridge out of memory.
func TestStatelessClientsAreNotKept(t *testing.T) {
	h := newHTTPHarness(t, nil)
	for i := range 20 {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"program %d %s","version":"1"}}}}`, i, strings.Repeat("x", 64<<10))
		if r := h.post(modernHeaders("tools/list", ""), body); r.status != http.StatusOK {
			t.Fatalf("tools/list %d: %d %.200s", i, r.status, r.body)
		}
	}
	bridgetest.WaitFor(t, func() bool { return bridgetest.Field(t, h.health(), "statelessClients") == float64(0) })
}

// TestSessionShareOfOneIPv6Network: behind a trusted proxy, clients named
// by addresses of one IPv6 /64 share one address's part of the session
// table (a host may pick any address of its /64 for each request): a
// third session from the /64 takes an idle one's place, as a third from
// one address does. Another /64 is another client.
func TestSessionShareOfOneIPv6Network(t *testing.T) {
	_, loopback, _ := net.ParseCIDR("127.0.0.0/8")
	h := newHTTPHarness(t, func(_ *bridge.Config, hc *Config) {
		hc.MaxSessions, hc.UnusedIdle = 4, time.Hour // an address's share: 2
		hc.TrustProxy = []*net.IPNet{loopback}
	})
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`
	from := func(ip string, more ...string) hdr {
		return append(append(hdr{"X-Forwarded-For", ip}, jsonHeaders...), more...)
	}
	open := func(ip string) string {
		t.Helper()
		r := h.post(from(ip), init)
		if r.status != http.StatusOK {
			t.Fatalf("initialize from %s: %d %s", ip, r.status, r.body)
		}
		id := r.header.Get("Mcp-Session-Id")
		h.post(from(ip, "Mcp-Session-Id", id), pingBody) // used: evicted only for room
		return id
	}
	alive := func(ip, id string) bool {
		return h.post(from(ip, "Mcp-Session-Id", id), pingBody).status == http.StatusOK
	}
	a, b := open("2001:db8:1:2::1"), open("2001:db8:1:2::2")
	open("2001:db8:1:2:ffff::3")
	if alive("2001:db8:1:2::1", a) && alive("2001:db8:1:2::2", b) {
		t.Error("three sessions from one /64 open at once, its share is two: each address was counted alone")
	}
	c, d := open("2001:db8:1:3::1"), open("2001:db8:1:3::2")
	if !alive("2001:db8:1:3::1", c) || !alive("2001:db8:1:3::2", d) {
		t.Error("another /64's sessions were evicted")
	}
}

// TestEvictedSessionsEnd: a session evicted to make room ends as every
// other session does: it leaves the core's clients (/healthz, the status
// page) and telemetry's open sessions (mcp_bridge_sessions). One session
// either side of a full share: two open count two; a third, which evicts
// one, and fifty more count two still. Before, an evicted session was
// taken out of the table but never ended: a client opening sessions in a
// loop grew the bridge by one client and one counted session each time.
func TestEvictedSessionsEnd(t *testing.T) {
	h := newHTTPHarness(t, func(c *bridge.Config, hc *Config) {
		hc.MaxSessions, hc.UnusedIdle = 4, time.Hour // an address's share: 2
		withMetrics(t)(c, hc)
	})
	counts := func() string {
		t.Helper()
		gauge := 0.0
		for _, line := range strings.Split(h.page("/metrics", nil).body, "\n") {
			if name, rest, ok := strings.Cut(line, " "); ok && (name == "mcp_bridge_sessions" || strings.HasPrefix(name, "mcp_bridge_sessions{")) {
				var v float64
				fmt.Sscan(rest, &v)
				gauge += v
			}
		}
		health := h.health()
		return fmt.Sprintf("table %v, clients %v, mcp_bridge_sessions %v",
			bridgetest.Field(t, health, "sessions"), bridgetest.Field(t, health, "clients"), gauge)
	}
	h.initialize("2025-06-18")
	h.initialize("2025-06-18")
	full := counts()
	if want := "table 2, clients 2, mcp_bridge_sessions 2"; full != want {
		t.Fatalf("the share full: %s; want %s", full, want)
	}
	h.initialize("2025-06-18") // evicts one
	if got := counts(); got != full {
		t.Errorf("one past the full share: %s; want %s", got, full)
	}
	for range 50 {
		h.initialize("2025-06-18")
	}
	if got := counts(); got != full {
		t.Errorf("fifty more: %s; want %s", got, full)
	}
}

// TestIdleLimit: when a session expires, at the edges. A session used
// after its initialize expires once it has been idle longer than
// --session-idle; one never used, longer than the shorter of
// --session-idle and the unused timeout, with --session-idle one
// nanosecond either side of the unused timeout. Before, a session never
// used waited the unused timeout however short --session-idle was.
func TestIdleLimit(t *testing.T) {
	const unused = 10 * time.Second
	const ns = time.Nanosecond
	t0 := time.Unix(1_800_000_000, 0)
	for _, c := range []struct {
		idle  time.Duration // --session-idle
		used  bool
		after time.Duration // since its last use
		want  bool
	}{
		{unused - ns, false, unused - ns, false},
		{unused - ns, false, unused, true},
		{unused, false, unused, false},
		{unused, false, unused + ns, true},
		{unused + ns, false, unused, false},
		{unused + ns, false, unused + ns, true},
		{unused - ns, true, unused - ns, false},
		{unused - ns, true, unused, true},
		{unused + ns, true, unused + ns, false},
		{unused + ns, true, unused + 2*ns, true},
	} {
		s := &session{lastUsed: t0, used: c.used}
		if got := s.idle(t0.Add(c.after), c.idle, unused); got != c.want {
			t.Errorf("--session-idle %v, used %v, idle for %v: expired %v, want %v", c.idle, c.used, c.after, got, c.want)
		}
	}
}

// TestExpiredTakenUnderTheLock: the janitor ends a session only if it is
// idle when taken out of the table, decided under the lock a request
// takes to find it: a session used after the janitor read its clock is
// not taken, however long it had been idle before; one taken is found by
// no request after. One nanosecond either side of --session-idle, from
// the last use.
func TestExpiredTakenUnderTheLock(t *testing.T) {
	const idle = time.Minute
	tab := newSessions(4, idle, idle)
	s, _ := tab.open("127.0.0.1", func(*session) *bridge.Client { return nil })
	s.release()
	long := time.Now().Add(time.Hour) // the janitor's clock reading
	if tab.get(s.id) == nil {         // a request comes after it
		t.Fatal("the session is not found")
	}
	if got := tab.takeExpired(long); len(got) != 0 {
		t.Fatalf("a session in use was taken out")
	}
	s.release()
	_, _, last := s.state()
	if got := tab.takeExpired(last.Add(idle)); len(got) != 0 {
		t.Fatalf("a session idle exactly --session-idle was taken out")
	}
	if got := tab.takeExpired(last.Add(idle + time.Nanosecond)); len(got) != 1 || got[0] != s {
		t.Fatalf("a session idle past --session-idle: %v", got)
	}
	if tab.get(s.id) != nil || tab.count() != 0 {
		t.Fatal("a session taken out is still found")
	}
}

// TestShortSessionIdleForUnusedSessions: --session-idle shorter than the
// unused timeout frees a session never used after its initialize after
// --session-idle (the table's room comes back that soon), not after the
// unused timeout.
func TestShortSessionIdleForUnusedSessions(t *testing.T) {
	h := newHTTPHarness(t, func(_ *bridge.Config, hc *Config) { hc.SessionIdle, hc.UnusedIdle = 20*time.Millisecond, time.Hour })
	unused := h.initialize("2025-06-18")
	bridgetest.WaitFor(t, func() bool { return bridgetest.Field(t, h.health(), "sessions") == float64(0) })
	if r := h.post(withSession(unused), pingBody); r.status != http.StatusNotFound {
		t.Errorf("the unused session after --session-idle: %d %s", r.status, r.body)
	}
}
