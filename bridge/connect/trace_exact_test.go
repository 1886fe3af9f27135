package connect

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/internal/bridgetest"
	"github.com/mcp-bridge/mcp-bridge/bridge/telemetry"
)

// postBodies is every POST body the remote has read so far.
func (r *remote) postBodies() []string {
	r.mu.Lock()
	conns := slices.Clone(r.conns)
	r.mu.Unlock()
	var out []string
	for _, c := range conns {
		br := bufio.NewReader(bytes.NewReader(c.bytes()))
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				break
			}
			body, _ := io.ReadAll(req.Body)
			if req.Method == http.MethodPost {
				out = append(out, string(body))
			}
		}
	}
	return out
}

// TestTraceRewriteKeepsTheRest: with traces on, connect replaces the
// client's traceparent in params._meta with its own span's; every other
// byte of the call that means anything reaches the remote as the client
// sent it: the arguments' escapes and numbers, _meta's other members, and
// members of the message the relay does not know.
func TestTraceRewriteKeepsTheRest(t *testing.T) {
	rcv := bridgetest.NewOTLPReceiver(t)
	r := newRemoteWith(t, func(c *bridge.Config) {})
	cfg := r.config(t)
	cfg.Telemetry = newTracing(t, rcv, "connect", "")
	c := startConnect(t, cfg)
	c.handshake("2025-11-25")
	const args = `{"s":"\u00e9\/\"\ud83d\ude00","n":1.50e+2,"big":123456789012345678901234567890}`
	const trace = "4bf92f3577b34da6a3ce929d0e0e4736"
	line := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"traceparent":"00-` + trace + `-00f067aa0ba902b7-01","progressToken":"p"},` +
		`"name":"get_drawing_info","arguments":` + args + `},"x-extension":{"k":1}}`
	c.send(line)
	c.answer("7")
	var body string
	for _, b := range r.postBodies() {
		if strings.Contains(b, `"tools/call"`) {
			body = b
		}
	}
	if body == "" {
		t.Fatal("the remote got no tools/call")
	}
	for _, want := range []string{`"arguments":` + args, `"progressToken":"p"`, `"x-extension":{"k":1}`, `"traceparent":"00-` + trace + `-`} {
		if !strings.Contains(body, want) {
			t.Errorf("the remote got %s\nwithout %s", body, want)
		}
	}
	if strings.Contains(body, "00f067aa0ba902b7") {
		t.Errorf("the client's span id reached the remote: %s", body)
	}
	// Byte for byte the client's line, but for connect's span id.
	_, after, _ := strings.Cut(body, `"traceparent":"00-`+trace+`-`)
	if len(after) < 16 {
		t.Fatalf("no traceparent in %s", body)
	}
	if want := strings.Replace(line, "00f067aa0ba902b7", after[:16], 1); body != want {
		t.Errorf("the remote got\n%s\nnot\n%s", body, want)
	}
}

// TestEveryRelayedRequestIsCounted: a request connect answers itself
// without sending it on (its id in use by one in progress) is an
// operation like any other: counted in mcp.server.operation.duration with
// its error code, not started and left.
func TestEveryRelayedRequestIsCounted(t *testing.T) {
	r := newRemote(t)
	cfg := r.config(t)
	tel, err := telemetry.New(telemetry.Config{Metrics: true}, telemetry.Options{Version: "test", Log: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Telemetry = tel
	c := startConnect(t, cfg)
	c.handshake("2025-11-25")
	c.send(call(`"h"`, "fault_hang", `{}`))
	waitFor(t, "the call to reach CAD", func() bool { return r.sim.OpenConns() == 1 })
	c.send(`{"jsonrpc":"2.0","id":"h","method":"ping"}`)
	if msg, _ := errorOf(c.answer(`"h"`)); !strings.Contains(msg, "in use") {
		t.Fatalf("the second h: %q", msg)
	}
	rec := httptest.NewRecorder()
	tel.MetricsHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	var found bool
	for _, l := range strings.Split(rec.Body.String(), "\n") {
		if strings.HasPrefix(l, "mcp_server_operation_duration_seconds_count{") && strings.Contains(l, `mcp_method_name="ping"`) &&
			strings.Contains(l, `rpc_response_status_code="-32600"`) && strings.HasSuffix(l, " 1") {
			found = true
		}
	}
	if !found {
		t.Errorf("the refused ping is not counted:\n%s", rec.Body.String())
	}
}
