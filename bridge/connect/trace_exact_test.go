package connect

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/internal/bridgetest"
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
