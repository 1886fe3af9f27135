package bridge

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-bridge/mcp-bridge/tcpbase"
)

const serverInfoMeta = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcp-bridge","version":"test"}}`

func TestDiscover(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.send(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + modernMeta + `}}`)
	h.expect(`{"jsonrpc":"2.0","id":1,"result":{` + serverInfoMeta + `,"cacheScope":"private","capabilities":{"tools":{"listChanged":true}},"resultType":"complete","supportedVersions":["2024-11-05","2025-03-26","2025-06-18","2025-11-25","2026-07-28"],"ttlMs":0}}`)
	// Without modern _meta, a legacy server does not know the method.
	h.send(`{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{}}`)
	h.expect(`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found: server/discover"}}`)
	h.closeAndWait()
}

func TestModernToolsListAndCall(t *testing.T) {
	h := newHarness(t, nil, func(c *Config) { c.NoSchemaRepair = true })
	direct, err := (&tcpbase.Client{Addr: h.sim.Addr()}).Call(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	baseResult := strings.TrimSuffix(strings.TrimPrefix(string(direct), `{"jsonrpc":"2.0","id":1,"result":`), `}`)

	h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + modernMeta + `}}`)
	// The base's result, byte for byte, with the modern fields after it.
	h.expect(`{"jsonrpc":"2.0","id":1,"result":` + strings.TrimSuffix(baseResult, "}") +
		`,"resultType":"complete","ttlMs":0,"cacheScope":"private",` + serverInfoMeta + `}}`)

	h.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"measure_distance","arguments":{"from":{"x":0,"y":0},"to":{"x":1,"y":0}},` + modernMeta + `}}`)
	h.expect(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Distance 1, angle 0°, dx 1, dy 0."}],"isError":false,"resultType":"complete",` + serverInfoMeta + `}}`)

	// Base errors pass through unchanged in the modern era too.
	h.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nope",` + modernMeta + `}}`)
	h.expect(`{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Unknown tool: nope"}}`)
	h.closeAndWait()
	h.checkExactlyOnce()
}

func TestModernChecks(t *testing.T) {
	h := newHarness(t, nil, nil)
	tests := []struct{ name, in, want string }{
		{"unsupported version",
			`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version \"2099-01-01\": this server supports [2026-07-28]","data":{"requested":"2099-01-01","supported":["2026-07-28"]}}}`},
		{"missing capabilities",
			`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid params: _meta[\"io.modelcontextprotocol/clientCapabilities\"] must be an object"}}`},
		{"capabilities not an object",
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"undo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]}}}`,
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params: _meta[\"io.modelcontextprotocol/clientCapabilities\"] must be an object"}}`},
		{"modern ping", `{"jsonrpc":"2.0","id":4,"method":"ping","params":{` + modernMeta + `}}`,
			`{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"Method not found: ping"}}`},
		{"modern initialize", `{"jsonrpc":"2.0","id":5,"method":"initialize","params":{"protocolVersion":"2026-07-28",` + modernMeta + `}}`,
			`{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"Method not found: initialize"}}`},
		{"modern logging/setLevel", `{"jsonrpc":"2.0","id":6,"method":"logging/setLevel","params":{"level":"info",` + modernMeta + `}}`,
			`{"jsonrpc":"2.0","id":6,"error":{"code":-32601,"message":"Method not found: logging/setLevel"}}`},
		{"version not a string is legacy",
			`{"jsonrpc":"2.0","id":7,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":20260728}}}`,
			`{"jsonrpc":"2.0","id":7,"result":{}}`},
	}
	for _, tt := range tests {
		h.send(tt.in)
		if got := h.recv(); got != tt.want {
			t.Errorf("%s:\ngot  %s\nwant %s", tt.name, got, tt.want)
		}
	}
	h.skipCount("3")
	h.closeAndWait()
	h.checkExactlyOnce()
}

func TestErasInterleaved(t *testing.T) {
	h := newHarness(t, nil, nil)
	legacyCall := call("1", "measure_distance", `{"from":{"x":0,"y":0},"to":{"x":0,"y":1}}`)
	modernCall := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"measure_distance","arguments":{"from":{"x":0,"y":0},"to":{"x":0,"y":1}},` + modernMeta + `}}`
	text := `{"content":[{"type":"text","text":"Distance 1, angle 90°, dx 0, dy 1."}],"isError":false`
	legacyCall4 := strings.Replace(legacyCall, `"id":1`, `"id":4`, 1)
	modernCall5 := strings.Replace(modernCall, `"id":2`, `"id":5`, 1)
	h.send(initialize("0", "2025-06-18"), legacyCall, modernCall, `{"jsonrpc":"2.0","id":3,"method":"ping"}`, legacyCall4, modernCall5)
	h.expect(fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"result":{%s,"protocolVersion":"2025-06-18",%s}}`, caps, info))
	// The ping is answered by the reader, the calls by the worker in order:
	// the ping's answer may come anywhere among them.
	var forwarded []string
	pinged := 0
	for range 5 {
		line := h.recv()
		if line == `{"jsonrpc":"2.0","id":3,"result":{}}` {
			pinged++
			continue
		}
		forwarded = append(forwarded, line)
	}
	want := []string{
		`{"jsonrpc":"2.0","id":1,"result":` + text + `}}`,
		`{"jsonrpc":"2.0","id":2,"result":` + text + `,"resultType":"complete",` + serverInfoMeta + `}}`,
		`{"jsonrpc":"2.0","id":4,"result":` + text + `}}`,
		`{"jsonrpc":"2.0","id":5,"result":` + text + `,"resultType":"complete",` + serverInfoMeta + `}}`,
	}
	if diff := cmp.Diff(want, forwarded); diff != "" || pinged != 1 {
		t.Errorf("ping answered %d times; forwarded answers (-want +got):\n%s", pinged, diff)
	}
	h.closeAndWait()
}

func TestDiscoverThenInitializeFallback(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.send(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + modernMeta + `}}`)
	if got := h.recv(); !strings.Contains(got, `"supportedVersions"`) {
		t.Fatalf("discover: %s", got)
	}
	h.send(initialize("2", "2025-11-25"), `{"jsonrpc":"2.0","method":"notifications/initialized"}`, `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	h.expect(
		fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"result":{%s,"protocolVersion":"2025-11-25",%s}}`, caps, info),
		`{"jsonrpc":"2.0","id":3,"result":{}}`,
	)
	h.closeAndWait()
}

func TestSubscriptionsListen(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.send(`{"jsonrpc":"2.0","id":"sub","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + modernMeta + `}}`)
	h.expect(`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/subscriptionId":"sub"}}}`)
	// Held open: other requests are served meanwhile.
	h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"undo",` + modernMeta + `}}`)
	if got := h.recv(); !strings.Contains(got, "nothing to undo") {
		t.Fatalf("got %s", got)
	}
	// Cancelled: nothing more is sent for it.
	h.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"sub",` + modernMeta + `}}`)
	// A listen that asks for nothing the bridge offers is acknowledged and
	// answered at once.
	h.send(`{"jsonrpc":"2.0","id":"none","method":"subscriptions/listen","params":{"notifications":{"promptsListChanged":true},` + modernMeta + `}}`)
	h.expect(`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{},"_meta":{"io.modelcontextprotocol/subscriptionId":"none"}}}`,
		`{"jsonrpc":"2.0","id":"none","result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":"none","io.modelcontextprotocol/serverInfo":{"name":"mcp-bridge","version":"test"}}}}`)
	// A second listen, left open, is ended with an empty result when stdin closes.
	h.send(`{"jsonrpc":"2.0","id":"sub2","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + modernMeta + `}}`)
	h.expect(`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/subscriptionId":"sub2"}}}`)
	rest := h.closeAndWait()
	want := `{"jsonrpc":"2.0","id":"sub2","result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":"sub2","io.modelcontextprotocol/serverInfo":{"name":"mcp-bridge","version":"test"}}}}`
	if len(rest) != 1 || rest[0] != want {
		t.Fatalf("at EOF got %q\nwant [%s]", rest, want)
	}
	// Legacy clients do not have it.
	h2 := newHarness(t, nil, nil)
	h2.send(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{}}`)
	h2.expect(`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found: subscriptions/listen"}}`)
	h2.closeAndWait()
}

func TestModernCancelInFlight(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.send(`{"jsonrpc":"2.0","id":"h","method":"tools/call","params":{"name":"fault_hang",` + modernMeta + `}}`)
	waitFor(t, func() bool { return h.sim.CallsFor(`"h"`) == 1 })
	h.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"h",` + modernMeta + `}}`)
	h.send(`{"jsonrpc":"2.0","id":"n","method":"tools/call","params":{"name":"undo",` + modernMeta + `}}`)
	if got := h.recv(); field(t, got, "id") != "n" {
		t.Fatalf("got %s", got)
	}
	if rest := h.closeAndWait(); len(rest) != 0 {
		t.Fatalf("lines for a cancelled request: %q", rest)
	}
}

func TestSchemaRepair(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	got := h.recv()
	if !strings.Contains(got, `{"name":"fault_untyped_schema","description":"Test only: a tool whose inputSchema lacks \"type\": \"object\".","inputSchema":{"type":"object","properties":{"note":{"type":"string"}}}}`) {
		t.Fatalf("fault_untyped_schema not repaired: %s", got)
	}
	h.closeAndWait()
}

// changingBase answers tools/list with one list, then another.
func changingBase() baseFunc {
	n := 0
	return func(_ context.Context, frame []byte) ([]byte, error) {
		n++
		name := "first_tool"
		if n > 2 {
			name = "second_tool"
		}
		return []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"` + name + `","inputSchema":{"type":"object"}}]}}`), nil
	}
}

func TestListChangedLegacy(t *testing.T) {
	h := newHarness(t, nil, func(c *Config) { c.Base = changingBase() })
	h.send(initialize("0", "2025-06-18"))
	h.recv()
	list := func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}` }
	first := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"result":{"tools":[{"name":"first_tool","inputSchema":{"type":"object"}}]}}`
	}
	h.send(list("1"), list("2")) // the same list twice: no notification
	h.expect(first("1"), first("2"))
	h.send(list("3"))
	h.expect(`{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"second_tool","inputSchema":{"type":"object"}}]}}`,
		`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
	h.closeAndWait()
}

func TestListChangedOnListenStream(t *testing.T) {
	h := newHarness(t, nil, func(c *Config) { c.Base = changingBase() })
	h.send(`{"jsonrpc":"2.0","id":"s","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + modernMeta + `}}`)
	h.recv() // the acknowledgement
	list := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list","params":{` + modernMeta + `}}`
	}
	h.send(list("2"), list("3"), list("4"))
	h.recv()
	h.recv()
	if got := h.recv(); !strings.Contains(got, "second_tool") {
		t.Fatalf("third list: %s", got)
	}
	// Modern only: no plain notification, one on the stream.
	h.expect(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"s"}}}`)
	h.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"s"}}`)
	if rest := h.closeAndWait(); len(rest) != 0 {
		t.Fatalf("after the stream was cancelled: %q", rest)
	}
}
