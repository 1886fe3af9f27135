package connect

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// Remotes that break the transport's rules: whatever they send, connect
// writes only protocol messages the client can read.

// hostileRemote is connect relaying to a server that answers with h.
func hostileRemote(t *testing.T, h http.HandlerFunc) *client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return startConnect(t, Config{URL: srv.URL + "/mcp", Log: zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.ErrorLevel)})
}

const modernPing = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`

// TestArrayForOneRequest: a remote that answers a single request with a
// JSON array (a batch answer, twice the same id): the client, which sent
// no batch, gets one response object, the first.
func TestArrayForOneRequest(t *testing.T) {
	c := hostileRemote(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `[{"jsonrpc":"2.0","id":1,"result":{"n":1}},{"jsonrpc":"2.0","id":1,"result":{"n":2}}]`)
	})
	c.send(modernPing)
	line := c.recv()
	var m struct {
		ID     json.RawMessage
		Result struct{ N int }
	}
	if err := json.Unmarshal([]byte(line), &m); err != nil || string(m.ID) != "1" || m.Result.N != 1 {
		t.Errorf("answer %s: want one response object, id 1, the first result", line)
	}
}

// TestHungRemotePing: a remote that takes connections but answers
// nothing (a machine asleep, a hung process, a network that drops
// packets): ping is answered here all the same, or the client, whose ping
// gets no answer, drops the server. When the remote answers again, the
// client is told the tool list may have changed (the probe that was
// waiting on the hung remote gave up, and another saw it back).
func TestHungRemotePing(t *testing.T) {
	var hung atomic.Bool
	var probed atomic.Int32 // probes that found it hung
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body) // so that the server notices when connect gives up
		if hung.Load() {
			if r.Method == http.MethodGet {
				probed.Add(1)
			}
			<-r.Context().Done()
			return
		}
		var m struct {
			ID     json.RawMessage
			Method string
		}
		_ = json.Unmarshal(body, &m)
		switch {
		case r.Method != http.MethodPost:
			w.WriteHeader(http.StatusMethodNotAllowed)
		case m.ID == nil:
			w.WriteHeader(http.StatusAccepted)
		default:
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Mcp-Session-Id", "s")
			result := `{}`
			if m.Method == "initialize" {
				result = `{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"r","version":"1"}}`
			}
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":`+result+`}`)
		}
	}))
	t.Cleanup(srv.Close)
	c := startConnect(t, Config{URL: srv.URL + "/mcp", PingTimeout: 50 * time.Millisecond, Log: zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.ErrorLevel)})
	c.handshake("2025-06-18")
	hung.Store(true)
	for _, id := range []string{"1", "2"} { // the second, once the remote counts as away
		c.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		if m := c.answer(id); m["result"] == nil {
			t.Errorf("ping %s: %v, want a result", id, m)
		}
	}
	waitFor(t, "a probe of the hung remote", func() bool { return probed.Load() > 0 })
	hung.Store(false)
	if l := c.recv(); !strings.Contains(l, "notifications/tools/list_changed") {
		t.Errorf("after the remote answers again: %s, want notifications/tools/list_changed", l)
	}
}

// TestHungReplayedHandshake: the remote ends the session (404) and then
// hangs on the replayed initialize. The message that met the 404 ends
// with an error once the remote has not answered within PingTimeout, and
// the client's pings keep being answered meanwhile: replaying a handshake
// holds nothing else up for longer than that.
func TestHungReplayedHandshake(t *testing.T) {
	var inits atomic.Int32
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch {
		case r.Method != http.MethodPost:
			w.WriteHeader(http.StatusMethodNotAllowed)
		case strings.Contains(string(body), `"initialize"`):
			if inits.Add(1) > 1 { // the replay
				select {
				case <-release:
				case <-r.Context().Done():
				}
				return
			}
			w.Header().Set("Mcp-Session-Id", "s1")
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"x","version":"1"}}}`)
		case strings.Contains(string(body), `"notifications/`):
			w.WriteHeader(http.StatusAccepted)
		case strings.Contains(string(body), `"tools/list"`):
			w.WriteHeader(http.StatusNotFound) // the session is gone
		default: // ping
			w.Header().Set("Content-Type", "application/json")
			var m struct{ ID json.RawMessage }
			_ = json.Unmarshal(body, &m)
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{}}`)
		}
	}))
	t.Cleanup(srv.Close)
	c := startConnect(t, Config{URL: srv.URL + "/mcp", PingTimeout: 200 * time.Millisecond, Log: zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.ErrorLevel)})
	c.handshake("2025-06-18")
	c.send(`{"jsonrpc":"2.0","id":"list","method":"tools/list"}`)
	waitFor(t, "the replayed initialize", func() bool { return inits.Load() == 2 })
	c.send(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	got := map[string]map[string]any{} // the two answers, in either order
	for len(got) < 2 {
		var m map[string]any
		if err := json.Unmarshal([]byte(c.recv()), &m); err != nil {
			t.Fatal(err)
		}
		id, _ := m["id"].(string)
		got[id] = m
	}
	if got["p"]["result"] == nil {
		t.Errorf("ping while the handshake replay hangs: %v", got["p"])
	}
	if msg, kind := errorOf(got["list"]); kind != "session_lost" {
		t.Errorf("tools/list after the replay hung: %q (%s)", msg, kind)
	}
}

// TestExpectationFailed: a remote (or an old proxy in front of it) that
// answers 417 to "Expect: 100-continue". The call, whose body never left,
// goes once more without the header, and later calls go without it: the
// call runs once and is answered.
func TestExpectationFailed(t *testing.T) {
	var ran, refused atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Expect") != "" {
			refused.Add(1)
			w.WriteHeader(http.StatusExpectationFailed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var m struct{ ID json.RawMessage }
		_ = json.Unmarshal(body, &m)
		ran.Add(1)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"content":[],"resultType":"complete"}}`)
	}))
	t.Cleanup(srv.Close)
	c := startConnect(t, Config{URL: srv.URL + "/mcp", Log: zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.ErrorLevel)})
	for _, id := range []string{"1", "2"} {
		c.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"draw","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
		if m := c.answer(id); m["result"] == nil {
			t.Fatalf("call %s through a remote that refuses Expect: %v", id, m)
		}
	}
	if ran.Load() != 2 || refused.Load() != 1 {
		t.Errorf("the remote ran %d calls and refused %d with 417; want 2 and 1", ran.Load(), refused.Load())
	}
}

// TestRefusedCallHoldsTheNextMessage: a call the remote refused before any
// of its body left (417 to "Expect: 100-continue") is sent again, so the
// message the client wrote after it must not leave before it does: post
// does not report the call on the wire (sent) until its body has left.
// Else the next call could reach the remote, and run in CAD, first.
func TestRefusedCallHoldsTheNextMessage(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Expect") != "" {
			w.WriteHeader(http.StatusExpectationFailed)
			return
		}
		io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}))
	t.Cleanup(srv.Close)
	cfg := Config{URL: srv.URL + "/mcp", Log: zerolog.Nop()}
	cfg.setDefaults()
	r := newRelay(cfg, io.Discard)
	defer r.cancel(errExit)
	var sent atomic.Int32
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"draw"}}`)
	a := r.post(r.ctx, body, http.Header{}, true, func() { sent.Add(1) })
	if a.err != nil || a.resp.StatusCode != http.StatusExpectationFailed || a.wrote {
		t.Fatalf("the refused attempt: %+v", a)
	}
	a.resp.Body.Close()
	if n := sent.Load(); n != 0 {
		t.Errorf("a call refused before its body left was reported on the wire %d times: the next message would go before it is sent again", n)
	}
	r.noExpect.Store(true)
	a = r.post(r.ctx, body, http.Header{}, true, func() { sent.Add(1) })
	if a.err != nil || a.resp.StatusCode != http.StatusOK || !a.wrote {
		t.Fatalf("the call sent again: %+v", a)
	}
	a.resp.Body.Close()
	if sent.Load() == 0 {
		t.Error("the call sent again was not reported on the wire")
	}
}

// TestVersionNotAHeaderValue: a modern request whose protocol version
// cannot travel in a header as it is (a control character) is still a
// request the remote answers (here, that the version is not one it
// serves); it is not taken for an unreachable remote, which marked the
// remote down and told the client to check the network.
func TestVersionNotAHeaderValue(t *testing.T) {
	r := newRemote(t)
	c := startConnect(t, r.config(t))
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"measure_distance","arguments":` + measure +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28\n","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	m := c.answer("1")
	msg, kind := errorOf(m)
	if msg == "" || kind == "unreachable" || strings.Contains(msg, "cannot reach") || !strings.Contains(msg, "2026-07-28") {
		t.Errorf("want the remote's refusal of the version, got %v", m)
	}
	for _, q := range r.requests() {
		if q.RPCMethod == "tools/call" {
			return
		}
	}
	t.Errorf("the request never reached the remote: %v", r.requests())
}

// TestSessionForgottenAtOnce: a remote that answers 404 to every request
// carrying a session id (it forgets each new session at once). A 404
// replays the handshake once: the call goes once more on the new session,
// and the second 404 ends it with an error, session_lost, instead of
// replaying again for ever (thousands of initializes a second, and the
// call never answered). The remote sees exactly two initializes: the
// client's and one replay.
func TestSessionForgottenAtOnce(t *testing.T) {
	var inits, calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var m struct {
			ID     json.RawMessage
			Method string
		}
		_ = json.Unmarshal(body, &m)
		switch {
		case r.Method != http.MethodPost:
			w.WriteHeader(http.StatusMethodNotAllowed)
		case m.Method == "initialize":
			n := inits.Add(1)
			w.Header().Set("Mcp-Session-Id", "s"+strconv.Itoa(int(n)))
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"x","version":"1"}}}`)
		case m.ID == nil:
			w.WriteHeader(http.StatusAccepted) // notifications are taken
		default:
			if m.Method == "tools/call" {
				calls.Add(1)
			}
			w.WriteHeader(http.StatusNotFound) // every request on a session
		}
	}))
	t.Cleanup(srv.Close)
	c := startConnect(t, Config{URL: srv.URL + "/mcp", Log: zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.ErrorLevel)})
	c.handshake("2025-06-18")
	c.send(call("1", "draw_line", "{}"))
	msg, kind := errorOf(c.answer("1"))
	if kind != "session_lost" || !strings.Contains(msg, "new session too") || !strings.Contains(msg, srv.URL) {
		t.Errorf("answer: %q (%s)", msg, kind)
	}
	if n := inits.Load(); n != 2 {
		t.Errorf("the remote got %d initializes, want 2: the client's and one replay", n)
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("the remote got the call %d times, want 2: refused with 404, and once more on the new session", n)
	}
}
