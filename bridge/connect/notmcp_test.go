package connect

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// modernCall is a stateless tools/call with id 1.
const modernCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"draw_line","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`

// TestNotAnMCPAnswer: a call whose body reached the remote and that got a
// 2xx answer that is not its JSON-RPC response (a captive portal's or a
// proxy's page, plain text, JSON of another kind, an answer to another id,
// an SSE stream that ends first, an empty 202) may have run there: the
// client is told so, with data.kind connection_lost, and the call is not
// sent again. Before, most of these got "sent no answer to this request",
// which said nothing of whether it ran. The last case is the edge: the
// right answer passes.
func TestNotAnMCPAnswer(t *testing.T) {
	cases := []struct {
		name, ctype, body string
		status            int
		want              string // in the message; "" for a result
	}{
		{"captive portal page", "text/html; charset=utf-8", "<html><body>Log in to the hotel Wi-Fi</body></html>", 200, `"text/html; charset=utf-8", not an MCP message`},
		{"plain text", "text/plain", "OK", 200, `"text/plain", not an MCP message`},
		{"no content type", "", `{"jsonrpc":"2.0","id":1,"result":{}`, 200, "no Content-Type"},
		{"JSON, not JSON-RPC", "application/json", `{"ok":true}`, 200, "JSON that is no JSON-RPC response"},
		{"an answer to another id", "application/json", `{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`, 200, "JSON that is no JSON-RPC response"},
		{"an array of other things", "application/json", `[{"ok":true}]`, 200, "JSON that is no JSON-RPC response"},
		{"a request, not an answer", "application/json", `{"jsonrpc":"2.0","id":9,"method":"ping"}`, 200, "JSON that is no JSON-RPC response"},
		{"SSE that ends first", "text/event-stream", "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"x\"}}\n\n", 200, "the stream ended before the answer"},
		{"202 without a message", "", "", 202, "202 Accepted without a message"},
		{"the answer", "application/json", `{"jsonrpc":"2.0","id":1,"result":{"content":[],"resultType":"complete"}}`, 200, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			c := hostileRemote(t, func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				if strings.Contains(string(body), `"tools/call"`) {
					calls.Add(1)
				}
				if tc.ctype != "" {
					w.Header().Set("Content-Type", tc.ctype)
				} else {
					w.Header()["Content-Type"] = nil // no sniffing
				}
				w.WriteHeader(tc.status)
				io.WriteString(w, tc.body)
			})
			c.send(modernCall)
			m := c.answer("1")
			msg, kind := errorOf(m)
			if tc.want == "" {
				if m["result"] == nil {
					t.Errorf("the remote's answer was not passed on: %v", m)
				}
			} else {
				e, _ := m["error"].(map[string]any)
				code, _ := e["code"].(float64)
				if code != -32603 || kind != "connection_lost" || !strings.Contains(msg, "may have run") || !strings.Contains(msg, "not sent again") || !strings.Contains(msg, tc.want) {
					b, _ := json.Marshal(m)
					t.Errorf("answer %s: want -32603, kind connection_lost, \"may have run\", \"not sent again\" and %q", b, tc.want)
				}
			}
			// The client's next request is answered only after the call
			// was, so the count is final.
			if n := calls.Load(); n != 1 {
				t.Errorf("the remote got the call %d times, want once", n)
			}
		})
	}
}

// TestNotAnMCPAnswerToList: a request that changes nothing, answered with
// a proxy's page, gets an error that says what came instead of its answer.
func TestNotAnMCPAnswerToList(t *testing.T) {
	c := hostileRemote(t, func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html>proxy</html>")
	})
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	msg, kind := errorOf(c.answer("1"))
	if kind != "connection_lost" || !strings.Contains(msg, "did not answer tools/list") || !strings.Contains(msg, `"text/html", not an MCP message`) {
		t.Errorf("answer: %q (%s)", msg, kind)
	}
}
