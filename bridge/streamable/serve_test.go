package streamable

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/internal/bridgetest"
)

// errCode is the JSON-RPC error code in an answer body, 0 for none.
func errCode(t *testing.T, body string) float64 {
	t.Helper()
	c, _ := bridgetest.Field(t, body, "error.code").(float64)
	return c
}

const (
	listBody = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	pingBody = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
)

// statusCase is a request and the HTTP status it must get.
type statusCase struct {
	name    string
	method  string
	headers hdr
	body    string
	status  int
}

func TestHTTPGuard(t *testing.T) {
	h := newHTTPHarness(t, func(_ *bridge.Config, hc *Config) {
		hc.AllowOrigins = []string{"https://cad.example"}
		hc.Token = "s3cret"
	})
	auth := "Authorization"
	good := "Bearer s3cret"
	sid := func() string {
		r := h.post(append(hdr{auth, good}, jsonHeaders...), `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`)
		return r.header.Get("Mcp-Session-Id")
	}()
	if sid == "" {
		t.Fatal("no session with the right token")
	}
	withAuth := func(extra ...string) hdr { return append(append(withSession(sid), auth, good), extra...) }
	cases := []statusCase{
		{"foreign Origin, POST", "POST", withAuth("Origin", "https://evil.example"), listBody, 403},
		{"foreign Origin, GET", "GET", withAuth("Origin", "https://evil.example", "Accept", "text/event-stream"), "", 403},
		{"foreign Origin, DELETE", "DELETE", withAuth("Origin", "https://evil.example"), "", 403},
		{"Origin null", "POST", withAuth("Origin", "null"), listBody, 403},
		// A rebinding page cannot send the token: with one, the machine's
		// names are fine.
		{"a name for the Host, with the token", "POST", withAuth("Host", "cadbox.local:8931"), listBody, 200},
		{"a name for the Host, without the token", "POST", append(withSession(sid), "Host", "cadbox.local:8931"), listBody, 401},
		{"no token", "POST", withSession(sid), listBody, 401},
		{"wrong token", "POST", append(withSession(sid), auth, "Bearer s3cre"), listBody, 401},
		{"the token and more", "POST", append(withSession(sid), auth, "Bearer s3cretx"), listBody, 401},
		{"same length, one byte off", "POST", append(withSession(sid), auth, "Bearer s3creT"), listBody, 401},
		{"empty bearer", "POST", append(withSession(sid), auth, "Bearer "), listBody, 401},
		{"token not Bearer", "POST", append(withSession(sid), auth, "Basic s3cret"), listBody, 401},
		{"token without scheme", "POST", append(withSession(sid), auth, "s3cret"), listBody, 401},
		{"bearer in lower case", "POST", append(withSession(sid), auth, "bearer s3cret"), listBody, 200},
		{"BEARER in upper case", "POST", append(withSession(sid), auth, "BEARER s3cret"), listBody, 200},
		{"loopback Origin", "POST", withAuth("Origin", "http://localhost:6274"), listBody, 200},
		{"allowed Origin", "POST", withAuth("Origin", "https://cad.example"), listBody, 200},
		{"localhost Host", "POST", withAuth("Host", "localhost:1234"), listBody, 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := h.do(context.Background(), c.method, h.url, c.headers, c.body)
			if r.status != c.status {
				t.Fatalf("status %d, want %d: %s", r.status, c.status, r.body)
			}
			if c.status == 401 && !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("401 without WWW-Authenticate: Bearer: %v", r.header)
			}
			if c.status >= 400 && (errCode(t, r.body) <= -32020 && errCode(t, r.body) >= -32099) {
				t.Errorf("a refusal carries a modern-era code: %s", r.body)
			}
		})
	}
	// Never from the query string.
	r := h.do(context.Background(), "POST", h.url+"?access_token=s3cret&token=s3cret", withSession(sid), listBody)
	if r.status != 401 {
		t.Errorf("token in the query string: status %d", r.status)
	}
	// The health endpoint is guarded too.
	if r := h.do(context.Background(), "GET", strings.TrimSuffix(h.url, "/mcp")+"/healthz", hdr{auth, good}, ""); r.status != 200 || bridgetest.Field(t, r.body, "sessions") != float64(1) {
		t.Errorf("healthz: %d %s", r.status, r.body)
	}
	if r := h.do(context.Background(), "GET", strings.TrimSuffix(h.url, "/mcp")+"/healthz", nil, ""); r.status != 401 {
		t.Errorf("healthz without the token: %d", r.status)
	}
}

// TestHTTPHostWithoutToken: served without a token, a Host that is
// neither the listen address nor a loopback name is refused (DNS
// rebinding), and the refusal says what would allow it.
func TestHTTPHostWithoutToken(t *testing.T) {
	h := newHTTPHarness(t, nil)
	sid := h.initialize("2025-06-18")
	for _, c := range []statusCase{
		{"rebound Host, POST", "POST", append(withSession(sid), "Host", "evil.example:8931"), listBody, 403},
		{"rebound Host, GET", "GET", append(withSession(sid), "Host", "evil.example", "Accept", "text/event-stream"), "", 403},
		{"localhost Host", "POST", append(withSession(sid), "Host", "localhost:1234"), listBody, 200},
		// The edges of each name: one character longer or shorter is
		// another name, which a rebinding page can own.
		{"localhost", "POST", append(withSession(sid), "Host", "localhost"), listBody, 200},
		{"LOCALHOST", "POST", append(withSession(sid), "Host", "LOCALHOST:1"), listBody, 200},
		{"localhost.", "POST", append(withSession(sid), "Host", "localhost.:1"), listBody, 200},
		{"a.localhost", "POST", append(withSession(sid), "Host", "a.localhost"), listBody, 200},
		{"localhostx", "POST", append(withSession(sid), "Host", "localhostx:1"), listBody, 403},
		{"localhost.attacker.example", "POST", append(withSession(sid), "Host", "localhost.attacker.example"), listBody, 403},
		{"xlocalhost", "POST", append(withSession(sid), "Host", "xlocalhost"), listBody, 403},
		{"localhost-", "POST", append(withSession(sid), "Host", "localhost-"), listBody, 403},
		{"a.localhostx", "POST", append(withSession(sid), "Host", "a.localhostx"), listBody, 403},
		{"127.0.0.1", "POST", append(withSession(sid), "Host", "127.0.0.1:1"), listBody, 200},
		{"127.255.255.254", "POST", append(withSession(sid), "Host", "127.255.255.254"), listBody, 200},
		{"128.0.0.1", "POST", append(withSession(sid), "Host", "128.0.0.1"), listBody, 403},
		{"126.255.255.255", "POST", append(withSession(sid), "Host", "126.255.255.255"), listBody, 403},
		{"127.0.0.1.attacker.example", "POST", append(withSession(sid), "Host", "127.0.0.1.attacker.example"), listBody, 403},
		{"[::1]", "POST", append(withSession(sid), "Host", "[::1]:1"), listBody, 200},
		{"[::2]", "POST", append(withSession(sid), "Host", "[::2]:1"), listBody, 403},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := h.do(context.Background(), c.method, h.url, c.headers, c.body)
			if r.status != c.status {
				t.Fatalf("status %d, want %d: %s", r.status, c.status, r.body)
			}
			if msg, _ := bridgetest.Field(t, orEmpty(r.body), "error.message").(string); c.status == 403 && !strings.Contains(msg, "set a token") {
				t.Errorf("the refusal does not say what would allow the name: %s", r.body)
			}
		})
	}
}

// orEmpty is a body, or {} when there is none.
func orEmpty(body string) string {
	if body == "" {
		return "{}"
	}
	return body
}

func TestHTTPMediaTypesAndLimits(t *testing.T) {
	h := newHTTPHarness(t, func(c *bridge.Config, _ *Config) { c.MaxMessage = 4096 })
	sid := h.initialize("2025-06-18")
	big := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"x":%q}}}`, strings.Repeat("x", 5000))
	cases := []statusCase{
		{"text/plain body", "POST", append(withSession(sid), "Content-Type", "text/plain"), listBody, 415},
		{"no Content-Type", "POST", hdr{"Accept", "application/json, text/event-stream", "Mcp-Session-Id", sid}, listBody, 415},
		{"Accept html only", "POST", append(withSession(sid), "Accept", "text/html"), listBody, 406},
		{"Accept json only", "POST", append(withSession(sid), "Accept", "application/json"), listBody, 406},
		{"no Accept", "POST", append(withSession(sid), "Accept", ""), pingBody, 406},
		{"GET without event-stream", "GET", append(withSession(sid), "Accept", "application/json"), "", 406},
		{"GET without Accept", "GET", append(withSession(sid), "Accept", ""), "", 406},
		{"PUT", "PUT", withSession(sid), listBody, 405},
		{"over --max-message", "POST", withSession(sid), big, 413},
		{"json with charset", "POST", append(withSession(sid), "Content-Type", "application/json; charset=utf-8"), pingBody, 200},
		{"Accept wildcard", "POST", append(withSession(sid), "Accept", "*/*"), pingBody, 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := h.do(context.Background(), c.method, h.url, c.headers, c.body)
			if r.status != c.status {
				t.Fatalf("status %d, want %d: %s", r.status, c.status, r.body)
			}
			if c.status == 405 && r.header.Get("Allow") == "" {
				t.Errorf("405 without Allow")
			}
		})
	}
	// The bridge goes on after every refusal.
	if r := h.post(withSession(sid), bridgetest.Call("2", "get_drawing_info", `{}`)); r.status != 200 || bridgetest.Field(t, r.body, "result.isError") != false {
		t.Errorf("after the refusals: %d %s", r.status, r.body)
	}
}

func TestHTTPLegacySessions(t *testing.T) {
	h := newHTTPHarness(t, nil)
	sid := h.initialize("2025-11-25")
	for _, c := range sid {
		if c < 0x21 || c > 0x7e {
			t.Fatalf("session id %q is not visible ASCII", sid)
		}
	}
	if other := h.initialize("2025-11-25"); other == sid {
		t.Fatal("two sessions got one id")
	}
	r := h.post(withSession(sid), listBody)
	if r.status != 200 || r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("tools/list in the session: %d %v %s", r.status, r.header, r.body)
	}
	if _, ok := bridgetest.Field(t, r.body, "result").(map[string]any)["resultType"]; ok {
		t.Errorf("a legacy answer carries modern decoration: %s", r.body)
	}
	// Without a session: 400; unknown: 404. Neither carries a modern code.
	for _, c := range []struct {
		headers hdr
		status  int
	}{{jsonHeaders, 400}, {withSession("no-such-session"), 404}} {
		r := h.post(c.headers, listBody)
		if r.status != c.status || errCode(t, r.body) != -32600 {
			t.Errorf("want %d with -32600, got %d %s", c.status, r.status, r.body)
		}
	}
	// MCP-Protocol-Version: absent is the session's, a legacy one is fine,
	// an invalid one is 400.
	if r := h.post(append(withSession(sid), "MCP-Protocol-Version", "2025-11-25"), listBody); r.status != 200 {
		t.Errorf("valid version header: %d %s", r.status, r.body)
	}
	if r := h.post(append(withSession(sid), "MCP-Protocol-Version", "1999-01-01"), listBody); r.status != 400 || errCode(t, r.body) != -32600 {
		t.Errorf("invalid version header: %d %s", r.status, r.body)
	}
	// ping in the session; notifications get 202 and nothing else.
	if r := h.post(withSession(sid), `{"jsonrpc":"2.0","id":"p","method":"ping"}`); r.body != `{"jsonrpc":"2.0","id":"p","result":{}}` {
		t.Errorf("ping: %s", r.body)
	}
	if r := h.post(withSession(sid), `{"jsonrpc":"2.0","method":"notifications/initialized"}`); r.status != 202 || r.body != "" {
		t.Errorf("notification: %d %q", r.status, r.body)
	}
	// DELETE ends it: 204, then 404 for its requests and a second DELETE.
	if r := h.do(context.Background(), "DELETE", h.url, withSession(sid), ""); r.status != 204 {
		t.Fatalf("DELETE: %d %s", r.status, r.body)
	}
	if r := h.post(withSession(sid), listBody); r.status != 404 {
		t.Errorf("after DELETE: %d %s", r.status, r.body)
	}
	if r := h.do(context.Background(), "DELETE", h.url, withSession(sid), ""); r.status != 404 {
		t.Errorf("second DELETE: %d", r.status)
	}
	if r := h.do(context.Background(), "DELETE", h.url, jsonHeaders, ""); r.status != 400 {
		t.Errorf("DELETE without a session: %d", r.status)
	}
	// Initialize never answers the stateless era's version.
	r = h.post(jsonHeaders, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2026-07-28"}}`)
	if bridgetest.Field(t, r.body, "result.protocolVersion") != "2025-11-25" {
		t.Errorf("initialize 2026-07-28: %s", r.body)
	}
}

func TestHTTPSessionExpiry(t *testing.T) {
	h := newHTTPHarness(t, func(_ *bridge.Config, hc *Config) { hc.SessionIdle = 50 * time.Millisecond })
	sid := h.initialize("2025-06-18")
	// Asking about the session would keep it alive: watch the health count.
	bridgetest.WaitFor(t, func() bool { return bridgetest.Field(t, h.health(), "sessions") == float64(0) })
	if r := h.post(withSession(sid), listBody); r.status != http.StatusNotFound {
		t.Fatalf("expired session: %d %s", r.status, r.body)
	}
	// The client re-initializes, as real ones do on 404.
	again := h.initialize("2025-06-18")
	if again == sid {
		t.Fatal("re-initialize reused the expired id")
	}
	if r := h.post(withSession(again), listBody); r.status != 200 {
		t.Errorf("after re-initialize: %d %s", r.status, r.body)
	}
}

func TestHTTPBatchesPerVersion(t *testing.T) {
	h := newHTTPHarness(t, nil)
	batch := `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},` + bridgetest.Call("2", "no_such_tool", `{}`) + `]`
	old := h.initialize("2025-03-26")
	r := h.post(withSession(old), batch)
	var got []map[string]any
	if err := json.Unmarshal([]byte(r.body), &got); err != nil || r.status != 200 || len(got) != 2 {
		t.Fatalf("2025-03-26 batch: %d %s", r.status, r.body)
	}
	if r := h.post(withSession(old), `[{"jsonrpc":"2.0","method":"notifications/initialized"}]`); r.status != 202 || r.body != "" {
		t.Errorf("batch of notifications: %d %q", r.status, r.body)
	}
	newer := h.initialize("2025-06-18")
	if r := h.post(withSession(newer), batch); r.status != 400 || errCode(t, r.body) != -32600 {
		t.Errorf("2025-06-18 batch: %d %s", r.status, r.body)
	}
	if r := h.post(jsonHeaders, `[{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}]`); r.status != 400 {
		t.Errorf("initialize in a batch: %d %s", r.status, r.body)
	}
	if r := h.post(withSession(old), `{"jsonrpc":"2.0","id":1,`); r.status != 400 || errCode(t, r.body) != -32700 {
		t.Errorf("unparseable body: %d %s", r.status, r.body)
	}
}

// TestHTTPModernInLegacyBatch: 2026-07-28 has no batches. A 2026-07-28
// request inside a 2025-03-26 session's batch, where none of its
// transport's header rules are applied, is refused (-32600) and runs
// nothing; the handshake-era request beside it runs. The same request
// alone, its headers true, runs.
func TestHTTPModernInLegacyBatch(t *testing.T) {
	h, rec, _ := mirrorHarness(t, nil)
	sid := h.initialize("2025-03-26")
	hs := append(withSession(sid), "MCP-Protocol-Version", "2025-03-26",
		"Mcp-Method", "tools/call", "Mcp-Name", mirroredTool, "Mcp-Param-Region", "us")
	r := h.post(hs, "["+mirroredCall(`{"region":"eu"}`)+","+bridgetest.Call("8", "get_drawing_info", `{}`)+"]")
	var got []map[string]any
	if err := json.Unmarshal([]byte(r.body), &got); err != nil || r.status != 200 || len(got) != 2 {
		t.Fatalf("batch: %d %s", r.status, r.body)
	}
	for _, a := range got {
		switch id := fmt.Sprint(a["id"]); {
		case id == "7" && bridgetest.Field(t, mustJSON(t, a), "error.code") != float64(-32600):
			t.Errorf("the 2026-07-28 request: %v", a)
		case id == "8" && a["result"] == nil:
			t.Errorf("the 2025-03-26 request: %v", a)
		}
	}
	if n := calls(rec); n != 1 {
		t.Fatalf("the base got %d calls, want 1 (the 2025-03-26 one): %v", n, rec.All())
	}
	if r := h.postHeaders(mirroredTool, hv("Mcp-Param-Region", "eu"), mirroredCall(`{"region":"eu"}`)); r.status != 200 || errCode(t, r.body) != 0 {
		t.Fatalf("alone: %d %s", r.status, r.body)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestHTTPModernHeaders(t *testing.T) {
	h := newHTTPHarness(t, nil)
	callBody := func(name string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":%q,"arguments":{},%s}}`, name, bridgetest.ModernMeta)
	}
	listModern := `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{` + bridgetest.ModernMeta + `}}`
	without := func(h hdr, name string) hdr {
		var out hdr
		for i := 0; i+1 < len(h); i += 2 {
			if !strings.EqualFold(h[i], name) {
				out = append(out, h[i], h[i+1])
			}
		}
		return out
	}
	unsupported := strings.ReplaceAll(listModern, "2026-07-28", "2099-01-01")
	cases := []struct {
		name    string
		headers hdr
		body    string
		status  int
		code    float64
	}{
		{"all right", modernHeaders("tools/call", "get_drawing_info"), callBody("get_drawing_info"), 200, 0},
		{"Base64 Mcp-Name", modernHeaders("tools/call", "=?base64?Z2V0X2RyYXdpbmdfaW5mbw==?="), callBody("get_drawing_info"), 200, 0},
		{"Base64 of UTF-8 Mcp-Name", modernHeaders("tools/call", "=?base64?6aG25bGC?="), callBody("顶层"), 200, -32602}, // past the headers: the base's unknown tool
		{"Base64 not decoding", modernHeaders("tools/call", "=?base64?***?="), callBody("get_drawing_info"), 400, -32020},
		{"Mcp-Name mismatch", modernHeaders("tools/call", "delete_entity"), callBody("get_drawing_info"), 400, -32020},
		{"Mcp-Name missing", modernHeaders("tools/call", ""), callBody("get_drawing_info"), 400, -32020},
		{"Mcp-Method mismatch", modernHeaders("tools/list", "get_drawing_info"), callBody("get_drawing_info"), 400, -32020},
		{"Mcp-Method missing", without(modernHeaders("tools/list", ""), "Mcp-Method"), listModern, 400, -32020},
		{"version header missing", without(modernHeaders("tools/list", ""), "MCP-Protocol-Version"), listModern, 400, -32020},
		{"version header mismatch", append(without(modernHeaders("tools/list", ""), "MCP-Protocol-Version"), "MCP-Protocol-Version", "2099-01-01"), listModern, 400, -32020},
		{"unsupported version", append(without(modernHeaders("tools/list", ""), "MCP-Protocol-Version"), "MCP-Protocol-Version", "2099-01-01"), unsupported, 400, -32022},
		{"no clientCapabilities", modernHeaders("tools/list", ""), `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, 400, -32602},
		{"header modern, body without _meta", modernHeaders("tools/list", ""), listBody, 400, -32602},
		{"unknown method", modernHeaders("resources/list", ""), `{"jsonrpc":"2.0","id":7,"method":"resources/list","params":{` + bridgetest.ModernMeta + `}}`, 404, -32601},
		{"ping", modernHeaders("ping", ""), `{"jsonrpc":"2.0","id":7,"method":"ping","params":{` + bridgetest.ModernMeta + `}}`, 404, -32601},
		{"initialize", modernHeaders("initialize", ""), `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{` + bridgetest.ModernMeta + `}}`, 404, -32601},
		{"unknown tool is the base's", modernHeaders("tools/call", "no_such_tool"), callBody("no_such_tool"), 200, -32602},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := h.post(c.headers, c.body)
			if r.status != c.status || errCode(t, r.body) != c.code {
				t.Fatalf("got %d %s, want %d with code %v", r.status, r.body, c.status, c.code)
			}
			if r.header.Get("Mcp-Session-Id") != "" {
				t.Errorf("a stateless answer minted a session")
			}
			if c.code == -32022 {
				if sup, _ := bridgetest.Field(t, r.body, "error.data.supported").([]any); len(sup) == 0 || bridgetest.Field(t, r.body, "error.data.requested") != "2099-01-01" {
					t.Errorf("-32022 without supported/requested: %s", r.body)
				}
			}
			if c.status == 200 && c.code == 0 && bridgetest.Field(t, r.body, "result.resultType") != "complete" {
				t.Errorf("modern result without resultType: %s", r.body)
			}
		})
	}
	// server/discover, and a session header that is ignored.
	r := h.post(append(modernHeaders("server/discover", ""), "Mcp-Session-Id", "whatever"), `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+bridgetest.ModernMeta+`}}`)
	if r.status != 200 || bridgetest.Field(t, r.body, "result.supportedVersions") == nil {
		t.Errorf("discover: %d %s", r.status, r.body)
	}
	// GET and DELETE do not exist in this era.
	for _, m := range []string{"GET", "DELETE"} {
		r := h.do(context.Background(), m, h.url, append(modernHeaders("", ""), "Accept", "text/event-stream"), "")
		if r.status != 405 || r.header.Get("Allow") != "POST" {
			t.Errorf("%s: %d %v", m, r.status, r.header)
		}
	}
}

func TestHTTPListenAcknowledged(t *testing.T) {
	h := newHTTPHarness(t, nil)
	body := `{"jsonrpc":"2.0","id":"sub-1","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + bridgetest.ModernMeta + `}}`
	status, header, events, closeStream := h.stream("POST", modernHeaders("subscriptions/listen", ""), body)
	defer closeStream()
	if status != 200 || header.Get("Content-Type") != "text/event-stream" || header.Get("X-Accel-Buffering") != "no" {
		t.Fatalf("listen: %d %v", status, header)
	}
	ack := next(t, events)
	if bridgetest.Field(t, ack, "method") != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first event: %s", ack)
	}
	if !strings.Contains(ack, `"io.modelcontextprotocol/subscriptionId":"sub-1"`) {
		t.Errorf("acknowledgement without the subscription id: %s", ack)
	}
	if health := h.health(); bridgetest.Field(t, health, "streams") != float64(1) {
		t.Errorf("healthz during a listen: %s", health)
	}
}

func TestHTTPProgressOverSSE(t *testing.T) {
	h := newHTTPHarness(t, func(c *bridge.Config, _ *Config) { c.ProgressInterval = 20 * time.Millisecond })
	body := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fault_sleep","arguments":{"ms":300},"_meta":{"progressToken":"tok","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	status, header, events, closeStream := h.stream("POST", modernHeaders("tools/call", "fault_sleep"), body)
	defer closeStream()
	if status != 200 || header.Get("Content-Type") != "text/event-stream" || header.Get("X-Accel-Buffering") != "no" {
		t.Fatalf("%d %v", status, header)
	}
	if e := next(t, events); bridgetest.Field(t, e, "method") != "notifications/progress" || bridgetest.Field(t, e, "params.progressToken") != "tok" {
		t.Fatalf("first event: %s", e)
	}
	for {
		e := next(t, events)
		if bridgetest.Field(t, e, "method") == "notifications/progress" {
			continue
		}
		if bridgetest.Field(t, e, "id") != float64(3) || bridgetest.Field(t, e, "result.isError") != false {
			t.Fatalf("final event: %s", e)
		}
		break
	}
	if e, ok := <-events; ok {
		t.Errorf("an event after the answer: %s", e)
	}
}

func TestHTTPDisconnectCancelsModernOnly(t *testing.T) {
	h := newHTTPHarness(t, nil)
	modernCall := func(id, tool, args string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"tools/call","params":{"name":%q,"arguments":%s,%s}}`, id, tool, args, bridgetest.ModernMeta)
	}
	// A call in flight (it hangs) and one queued behind it; the client
	// gives both up.
	inflight, cancelIn := context.WithCancel(context.Background())
	go func() {
		_, _ = h.try(inflight, modernHeaders("tools/call", "fault_hang"), modernCall("hang", "fault_hang", `{}`))
	}()
	bridgetest.WaitFor(t, func() bool { return h.sim.CallsFor(`"hang"`) == 1 })
	queued, cancelQ := context.WithCancel(context.Background())
	gotQ := make(chan struct{})
	go func() {
		defer close(gotQ)
		if r, err := h.try(queued, modernHeaders("tools/call", "get_drawing_info"), modernCall("dropped", "get_drawing_info", `{}`)); err == nil {
			t.Errorf("the queued call was answered: %d %s", r.status, r.body)
		}
	}()
	bridgetest.WaitFor(t, func() bool { return bridgetest.Field(t, h.health(), "queue") == float64(1) })
	cancelQ()
	<-gotQ
	// The bridge has seen the queued request's client go (it served two).
	bridgetest.WaitFor(t, func() bool { return bridgetest.Field(t, h.health(), "clients") == float64(1) })
	cancelIn()
	// The in-flight call's base connection is closed; the queued one never
	// reaches the base; the next call runs at once.
	bridgetest.WaitFor(t, func() bool { return h.sim.OpenConns() == 0 })
	r := h.post(modernHeaders("tools/call", "get_drawing_info"), modernCall("after", "get_drawing_info", `{}`))
	if r.status != 200 || bridgetest.Field(t, r.body, "result.isError") != false {
		t.Fatalf("the call after: %d %s", r.status, r.body)
	}
	if n := h.sim.CallsFor(`"dropped"`); n != 0 {
		t.Errorf("the dropped call ran %d times", n)
	}

	// In the handshake era a dropped connection is not a cancellation: the
	// call still runs, once.
	sid := h.initialize("2025-06-18")
	legacy, cancelL := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = h.try(legacy, withSession(sid), bridgetest.Call(`"kept"`, "fault_sleep", `{"ms":200}`))
	}()
	bridgetest.WaitFor(t, func() bool { return h.sim.CallsFor(`"kept"`) == 1 })
	cancelL()
	<-done
	r = h.post(withSession(sid), bridgetest.Call(`"next"`, "get_drawing_info", `{}`))
	if r.status != 200 || h.sim.CallsFor(`"kept"`) != 1 {
		t.Errorf("legacy call after a dropped connection: %d %s; kept ran %d times", r.status, r.body, h.sim.CallsFor(`"kept"`))
	}
}

func TestHTTPListChangedOnTheSessionStream(t *testing.T) {
	h := newHTTPHarness(t, nil)
	sid := h.initialize("2025-06-18")
	status, header, events, closeStream := h.stream("GET", append(withSession(sid), "Accept", "text/event-stream"), "")
	defer closeStream()
	if status != 200 || header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET: %d %v", status, header)
	}
	if r := h.do(context.Background(), "GET", h.url, append(withSession(sid), "Accept", "text/event-stream"), ""); r.status != 409 {
		t.Errorf("a second GET stream: %d", r.status)
	}
	// The base goes away and comes back: the bridge says the list changed.
	addr := h.sim.Addr()
	if r := h.post(withSession(sid), listBody); r.status != 200 {
		t.Fatal(r.body)
	}
	h.sim.Close()
	h.post(withSession(sid), bridgetest.Call("1", "get_drawing_info", `{}`))
	sim2 := restartSim(t, addr)
	defer sim2.Close()
	h.post(withSession(sid), bridgetest.Call("2", "get_drawing_info", `{}`))
	if e := next(t, events); bridgetest.Field(t, e, "method") != "notifications/tools/list_changed" {
		t.Errorf("stream event: %s", e)
	}
}

// TestHTTPShutdown: on a signal the bridge stops accepting, lets the call
// in flight finish within the grace period, answers the queued one with
// the shutdown error without sending it, ends the open streams, and Serve
// returns nil.
func TestHTTPShutdown(t *testing.T) {
	h := newHTTPHarness(t, func(c *bridge.Config, _ *Config) { c.Grace = 10 * time.Second })
	sid := h.initialize("2025-06-18")
	inflight := h.postAsync(withSession(sid), bridgetest.Call(`"slow"`, "fault_sleep", `{"ms":300}`))
	bridgetest.WaitFor(t, func() bool { return h.sim.CallsFor(`"slow"`) == 1 })
	queued := h.postAsync(withSession(sid), bridgetest.Call(`"queued"`, "get_drawing_info", `{}`))
	bridgetest.WaitFor(t, func() bool { return bridgetest.Field(t, h.health(), "queue") == float64(1) })
	listen := `{"jsonrpc":"2.0","id":"l","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + bridgetest.ModernMeta + `}}`
	_, _, events, closeStream := h.stream("POST", modernHeaders("subscriptions/listen", ""), listen)
	defer closeStream()
	next(t, events) // the acknowledgement

	h.stop()
	if r := <-inflight; bridgetest.Field(t, r.body, "result.isError") != false {
		t.Errorf("the call in flight: %d %s", r.status, r.body)
	}
	if r := <-queued; !strings.Contains(r.body, "shutting down; tools/call was not sent to CAD") {
		t.Errorf("the queued call: %d %s", r.status, r.body)
	}
	if e := next(t, events); bridgetest.Field(t, e, "id") != "l" || bridgetest.Field(t, e, "result") == nil {
		t.Errorf("the listen's last event: %s", e)
	}
	if e, ok := <-events; ok {
		t.Errorf("an event after the listen's end: %s", e)
	}
	select {
	case err := <-h.done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
		h.done <- nil // for the cleanup
	case <-time.After(bridgetest.WaitLimit):
		t.Fatal("Serve did not return")
	}
	if n := h.sim.CallsFor(`"queued"`); n != 0 {
		t.Errorf("the queued call ran %d times", n)
	}
}

// TestHTTPLongCallOutlivesReadTimeout: the read timeout bounds reading the
// request, not the wait for CAD; a call that takes longer is answered (and
// in the stateless era not taken for a disconnect).
func TestHTTPLongCallOutlivesReadTimeout(t *testing.T) {
	h := newHTTPHarness(t, func(_ *bridge.Config, hc *Config) {
		hc.ReadTimeout = 100 * time.Millisecond
		hc.WriteTimeout = 100 * time.Millisecond
	})
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fault_sleep","arguments":{"ms":400},` + bridgetest.ModernMeta + `}}`
	if r := h.post(modernHeaders("tools/call", "fault_sleep"), body); r.status != 200 || bridgetest.Field(t, r.body, "result.isError") != false {
		t.Fatalf("stateless: %d %s", r.status, r.body)
	}
	sid := h.initialize("2025-06-18")
	if r := h.post(withSession(sid), bridgetest.Call("2", "fault_sleep", `{"ms":400}`)); r.status != 200 || bridgetest.Field(t, r.body, "result.isError") != false {
		t.Fatalf("session: %d %s", r.status, r.body)
	}
}

// TestHTTPCancelledInSession: in a session, notifications/cancelled (in a
// POST of its own) stops the call and ends the POST that carried it
// without an answer.
func TestHTTPCancelledInSession(t *testing.T) {
	h := newHTTPHarness(t, nil)
	sid := h.initialize("2025-06-18")
	done := h.postAsync(withSession(sid), bridgetest.Call(`"h"`, "fault_hang", `{}`))
	bridgetest.WaitFor(t, func() bool { return h.sim.CallsFor(`"h"`) == 1 })
	if r := h.post(withSession(sid), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"h"}}`); r.status != 202 {
		t.Fatalf("cancel: %d %s", r.status, r.body)
	}
	if r := <-done; r.status != http.StatusNoContent || r.body != "" {
		t.Errorf("the cancelled call's POST: %d %q", r.status, r.body)
	}
	bridgetest.WaitFor(t, func() bool { return h.sim.OpenConns() == 0 })
}

// TestHTTPAcceptHeader: a POST without an Accept header is refused 406, as
// both official SDKs do, with a body that says what to send; the two media
// types may come on two Accept lines.
func TestHTTPAcceptHeader(t *testing.T) {
	h := newHTTPHarness(t, nil)
	sid := h.initialize("2025-06-18")
	r := h.do(context.Background(), "POST", h.url, append(withSession(sid), "Accept", ""), pingBody)
	if r.status != http.StatusNotAcceptable || !strings.Contains(r.body, `Accept: application/json, text/event-stream`) {
		t.Fatalf("no Accept: %d %s; want 406 naming the header to send", r.status, r.body)
	}
	req, err := http.NewRequest("POST", h.url, strings.NewReader(pingBody))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(withSession(sid)); i += 2 {
		req.Header.Set(withSession(sid)[i], withSession(sid)[i+1])
	}
	req.Header["Accept"] = []string{"application/json", "text/event-stream"}
	resp, err := h.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("Accept on two lines: %d, want 200", resp.StatusCode)
	}
}
