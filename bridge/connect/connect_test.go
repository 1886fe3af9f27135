package connect

import (
	"bytes"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"
)

const measure = `{"from":{"x":0,"y":0},"to":{"x":6,"y":8}}`

// checkMeasured: the answer is measure_distance's result.
func checkMeasured(t *testing.T, m map[string]any) {
	t.Helper()
	res, _ := m["result"].(map[string]any)
	content, _ := res["content"].([]any)
	if len(content) == 0 {
		t.Fatalf("answer %v: want a result", m)
	}
	if text, _ := content[0].(map[string]any)["text"].(string); !strings.HasPrefix(text, "Distance 10,") {
		t.Fatalf("answer %v", m)
	}
}

// TestBothEras: a handshake-era session and a stateless 2026-07-28
// request relay through one connect, ids as the client wrote them.
func TestBothEras(t *testing.T) {
	r := newRemote(t)
	c := startConnect(t, r.config(t))
	c.handshake("2025-06-18")
	c.send(call(`"a"`, "measure_distance", measure))
	checkMeasured(t, c.answer(`"a"`))
	c.send(`{"jsonrpc":"2.0","id":1.0,"method":"tools/call","params":{"name":"measure_distance","arguments":` + measure +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	m := c.answer("1")
	checkMeasured(t, m)
	if res := m["result"].(map[string]any); res["resultType"] != "complete" {
		t.Errorf("modern answer without resultType: %v", m)
	}
	var modern []recorded
	for _, q := range r.requests() {
		if q.RPCMethod == "tools/call" && q.Session == "" {
			modern = append(modern, q)
		}
	}
	if len(modern) != 1 {
		t.Errorf("modern tools/call sent with a session (or not at all): %v", r.requests())
	}
}

// TestKilledMidCall: the remote dies while a call runs there. The call
// ends with -32603 saying the connection broke, it is never sent again,
// and once the remote is back the next call works.
func TestKilledMidCall(t *testing.T) {
	r := newRemote(t)
	c := startConnect(t, r.config(t))
	c.handshake("2025-06-18")
	before := r.sim.Calls()
	c.send(call("7", "fault_hang", "{}"))
	waitFor(t, "the call to reach the base", func() bool { return r.sim.Calls() == before+1 })
	r.kill()
	msg, kind := errorOf(c.answer("7"))
	if kind != "connection_lost" || !strings.Contains(msg, "broke during the call") || !strings.Contains(msg, r.url()) {
		t.Fatalf("answer: %q (%s)", msg, kind)
	}
	r.start()
	c.send(call("8", "measure_distance", measure))
	checkMeasured(t, c.answer("8"))
	if got := r.sim.Calls() - before; got != 2 {
		t.Errorf("the base ran %d calls, want 2: the broken call must not be sent again", got)
	}
}

// TestSessionExpired: the remote forgets the session between two calls.
// The second call works, and what reached the remote meanwhile is the
// replayed handshake and the call (refused once with 404), nothing else.
func TestSessionExpired(t *testing.T) {
	r, c := afterOneCall(t)
	r.deleteSession(t, r.lastSession())
	checkReplay(t, r, c)
}

// TestRemoteRestarted: the remote restarts between two calls (every
// session gone): the same as an expired session.
func TestRemoteRestarted(t *testing.T) {
	r, c := afterOneCall(t)
	r.kill()
	r.start()
	checkReplay(t, r, c)
}

func checkReplay(t *testing.T, r *remote, c *client) {
	t.Helper()
	calls := r.sim.Calls()
	before := r.requests()
	c.send(call("2", "measure_distance", measure))
	checkMeasured(t, c.answer("2"))
	var posts []string
	for _, q := range since(before, r.requests()) {
		if q != "GET" && q != "DELETE" { // the session's stream reconnects on its own
			posts = append(posts, q)
		}
	}
	want := []string{"POST initialize", "POST notifications/initialized", "POST tools/call", "POST tools/call"}
	if d := cmp.Diff(want, posts); d != "" {
		t.Errorf("requests to the remote (-want +got):\n%s", d)
	}
	if got := r.sim.Calls() - calls; got != 1 {
		t.Errorf("the base ran %d calls, want 1", got)
	}
}

// TestExitEndsSession: when the client closes stdin, connect ends its
// remote session with DELETE: the remote holds no session afterwards.
func TestExitEndsSession(t *testing.T) {
	r, c := afterOneCall(t)
	if n := r.healthSessions(t); n != 1 {
		t.Fatalf("%v sessions open, want 1", n)
	}
	session := r.lastSession()
	if err := c.wait(); err != nil {
		t.Fatalf("Run: %v", err)
	}
	deleted := false
	for _, q := range r.requests() {
		deleted = deleted || (q.Method == "DELETE" && q.Session == session)
	}
	if !deleted {
		t.Errorf("no DELETE of session %q: %v", session, r.requests())
	}
	if n := r.healthSessions(t); n != 0 {
		t.Errorf("%v sessions open after connect exited, want 0", n)
	}
}

// TestRemoteDown: with the remote away, a call gets -32603 naming the URL
// and what to check, ping is answered here, and when the remote is back a
// handshake-era client is told the tool list may have changed, and calls
// work again.
func TestRemoteDown(t *testing.T) {
	r := newRemote(t)
	c := startConnect(t, r.config(t))
	c.handshake("2025-06-18")
	c.send(`{"jsonrpc":"2.0","id":"p0","method":"ping"}`)
	c.answer(`"p0"`)
	r.kill()
	// The first ping finds the remote gone; the second is answered at once.
	c.send(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	if m := c.answer(`"p"`); m["result"] == nil {
		t.Fatalf("ping while the remote is down: %v", m)
	}
	before := r.sim.Calls()
	c.send(call("1", "measure_distance", measure))
	msg, kind := errorOf(c.answer("1"))
	if kind != "unreachable" || !strings.Contains(msg, r.url()) || !strings.Contains(msg, "--listen") {
		t.Fatalf("answer: %q (%s)", msg, kind)
	}
	c.send(`{"jsonrpc":"2.0","id":"p1","method":"ping"}`)
	if m := c.answer(`"p1"`); m["result"] == nil {
		t.Fatalf("ping while the remote is down: %v", m)
	}
	r.start()
	for {
		if l := c.recv(); strings.Contains(l, `"notifications/tools/list_changed"`) {
			break
		}
	}
	c.send(call("2", "measure_distance", measure))
	checkMeasured(t, c.answer("2"))
	if got := r.sim.Calls() - before; got != 1 {
		t.Errorf("the base ran %d calls, want 1", got)
	}
}

// afterOneCall is a handshake-era session through connect to a fresh
// remote, with one call made and answered.
func afterOneCall(t *testing.T) (*remote, *client) {
	t.Helper()
	r := newRemote(t)
	c := startConnect(t, r.config(t))
	c.handshake("2025-06-18")
	// The handshake is over once connect has the answer to its
	// notifications/initialized, which it shows by opening the session's
	// GET stream. Until then the notification may still be on its way
	// (it need not be read before the call that follows it on another
	// connection), or be sent once more if the remote dies first: a test
	// that compares what the remote read before and after would count it.
	waitFor(t, "the session's GET stream", func() bool { return hasRequest(r, http.MethodGet) })
	c.send(call("1", "measure_distance", measure))
	checkMeasured(t, c.answer("1"))
	return r, c
}

// TestPipelinedHandshake: a client that writes initialize, initialized and
// a request without waiting for the answer (one write, as a script or a
// fast client does). Everything after initialize goes out with the session
// the remote opened: nothing is refused for want of Mcp-Session-Id.
func TestPipelinedHandshake(t *testing.T) {
	r := newRemote(t)
	c := startConnect(t, r.config(t))
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + call("1", "measure_distance", measure))
	if res := c.answer("0"); res["result"] == nil {
		t.Fatalf("initialize: %v", res)
	}
	checkMeasured(t, c.answer("1"))
	for _, q := range r.requests() {
		if q.Method == "POST" && q.RPCMethod != "initialize" && q.Session == "" {
			t.Errorf("%s went to the remote without the session: %v", q, r.requests())
		}
	}
}

// TestSessionEndedMidCall: the remote session ends (DELETE by another
// holder of its id) while CAD runs a call of it. The call is answered
// that it may have run, and it runs once: its POST is not refused with
// 404, which would have connect replay the handshake and send it again.
func TestSessionEndedMidCall(t *testing.T) {
	r, c := afterOneCall(t)
	before := r.sim.Calls()
	c.send(call("9", "fault_hang", "{}"))
	waitFor(t, "the call to reach the base", func() bool { return r.sim.Calls() == before+1 })
	r.deleteSession(t, r.lastSession())
	if msg, _ := errorOf(c.answer("9")); !strings.Contains(msg, "may have run") {
		t.Errorf("answer to the call whose session ended: %q", msg)
	}
	c.send(call("10", "measure_distance", measure))
	checkMeasured(t, c.answer("10"))
	if got := r.sim.Calls() - before; got != 2 {
		t.Errorf("the base ran %d calls, want 2: the call whose session ended must not be sent again", got)
	}
}

// TestIDReusedAfterAnswer: a client that uses one id for each request in
// turn (it waits for each answer) is never told the id is in use: the id
// is free once its answer is written, as with the local bridge. Before,
// it was freed a moment after, and a quick client was refused now and
// then.
func TestIDReusedAfterAnswer(t *testing.T) {
	_, c := afterOneCall(t)
	for i := 0; i < 100; i++ {
		c.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		if msg, _ := errorOf(c.answer("1")); msg != "" {
			t.Fatalf("ping %d: %s", i, msg)
		}
	}
	for i := 0; i < 20; i++ {
		c.send(call("1", "measure_distance", measure))
		checkMeasured(t, c.answer("1"))
	}
}

// TestSignalWhileWaitingAtExit: a signal that comes while connect waits
// for the answers still owed after stdin ended (a call still runs there,
// and the exit grace is long) abandons them and ends the remote session at
// once, as a signal before stdin ended does. It was ignored until the
// grace ran out: a client that closes stdin, waits a few seconds and then
// sends SIGTERM (the stdio shutdown the spec describes), and SIGKILL after
// another few, killed connect before it could end its session.
func TestSignalWhileWaitingAtExit(t *testing.T) {
	r := newRemote(t)
	var log lockedBuffer
	cfg := r.config(t)
	cfg.ExitGrace = time.Hour
	cfg.Log = zerolog.New(&log).Level(zerolog.DebugLevel)
	c := startConnect(t, cfg)
	c.handshake("2025-06-18")
	session := ""
	waitFor(t, "the session's GET stream", func() bool { session = r.lastSession(); return session != "" && hasRequest(r, http.MethodGet) })
	before := r.sim.Calls()
	c.send(call("7", "fault_hang", "{}"))
	waitFor(t, "the call to reach the base", func() bool { return r.sim.Calls() == before+1 })
	c.in.Close()
	waitFor(t, "connect to wait for the answer still owed", func() bool { return strings.Contains(log.String(), "stdin ended") })
	c.stop()
	select {
	case err := <-c.done:
		c.done <- err // for the cleanup's wait
	case <-time.After(waitLimit):
		t.Fatal("connect went on waiting for the call after the signal")
	}
	deleted := false
	for _, q := range r.requests() {
		deleted = deleted || (q.Method == http.MethodDelete && q.Session == session)
	}
	if !deleted {
		t.Errorf("no DELETE of session %q: %v", session, r.requests())
	}
}

func hasRequest(r *remote, method string) bool {
	for _, q := range r.requests() {
		if q.Method == method {
			return true
		}
	}
	return false
}

// lockedBuffer is a log that the test reads while connect writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
