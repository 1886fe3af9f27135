package bridge

import (
	"context"
	"fmt"
	"testing"
)

const caps = `"capabilities":{"tools":{"listChanged":true}}`

const info = `"serverInfo":{"name":"mcp-bridge","version":"test"}`

func initialize(id, version string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`, id, version)
}

func TestVersionNegotiation(t *testing.T) {
	h := newHarness(t, nil, nil)
	for i, v := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"} {
		h.send(initialize(fmt.Sprint(i), v))
		h.expect(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{%s,"protocolVersion":%q,%s}}`, i, caps, v, info))
	}
	// Unknown, future and modern versions all get the latest legacy one.
	for _, v := range []string{"1999-01-01", "2099-01-01", "2026-07-28"} {
		h.send(initialize(`"u"`, v))
		h.expect(fmt.Sprintf(`{"jsonrpc":"2.0","id":"u","result":{%s,"protocolVersion":"2025-11-25",%s}}`, caps, info))
	}
	h.closeAndWait()
}

func TestNotificationsGetNoReply(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.send(
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`,
		`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`,
		`{"jsonrpc":"2.0","method":"no/such/notification","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`, // a stray response
		`{"jsonrpc":"2.0","id":"after","method":"ping"}`,
	)
	h.expect(`{"jsonrpc":"2.0","id":"after","result":{}}`)
	if rest := h.closeAndWait(); len(rest) != 0 {
		t.Fatalf("unexpected lines: %q", rest)
	}
}

func TestIDsEchoedExactly(t *testing.T) {
	h := newHarness(t, nil, nil)
	for _, id := range []string{`"1"`, `1`, `1.0`, `-5`, `12345678901234567890`, `"a\"b\\u00e9"`, `""`, `1e3`} {
		h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"ping"}`, id))
		h.expect(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, id))
		// Forwarded requests come back with the client's id too.
		h.send(call(id, "measure_distance", `{"from":{"x":0,"y":0},"to":{"x":3,"y":4}}`))
		h.expect(textResult(id, "Distance 5, angle 53.130102°, dx 3, dy 4.", false))
	}
	h.closeAndWait()
	h.checkExactlyOnce()
}

func TestErrorCodes(t *testing.T) {
	h := newHarness(t, nil, nil)
	tests := []struct{ in, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":`, `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: the line is not valid JSON"}}`},
		{`not json at all`, `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: the line is not valid JSON"}}`},
		{`{"jsonrpc":"1.0","id":2,"method":"ping"}`, `{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"Invalid Request: \"jsonrpc\" must be \"2.0\""}}`},
		{`{"jsonrpc":"2.0","id":3,"method":7}`, `{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"Invalid Request: \"method\" must be a string"}}`},
		{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: \"id\" must be a string or a number"}}`},
		{`[]`, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: empty batch"}}`},
		{`{"jsonrpc":"2.0","id":4,"method":"resources/list"}`, `{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"Method not found: resources/list"}}`},
		{`{"jsonrpc":"2.0","id":5,"method":""}`, `{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"Method not found: "}}`},
		{`{"jsonrpc":"2.0","id":6,"method":"server/discover"}`, `{"jsonrpc":"2.0","id":6,"error":{"code":-32601,"message":"Method not found: server/discover"}}`},
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"draw_line","arguments":"x"}}`, `{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params: tools/call \"arguments\" must be an object"}}`},
		{`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"arguments":{}}}`, `{"jsonrpc":"2.0","id":8,"error":{"code":-32602,"message":"Invalid params: tools/call needs \"name\", a string"}}`},
		{`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":[1]}`, `{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"Invalid params: tools/call params must be an object"}}`},
		{`{"jsonrpc":"2.0","id":10,"method":"tools/list","params":"x"}`, `{"jsonrpc":"2.0","id":10,"error":{"code":-32600,"message":"Invalid Request: \"params\" must be an object or an array"}}`},
		// The base's own error passes through unchanged.
		{call("11", "no_such_tool", `{}`), `{"jsonrpc":"2.0","id":11,"error":{"code":-32602,"message":"Unknown tool: no_such_tool"}}`},
		{call("12", "fault_rpc_error", `{}`), `{"jsonrpc":"2.0","id":12,"error":{"code":-32001,"message":"CAD is busy with a modal dialog","data":{"dialog":"Plot","retry":true}}}`},
		// A tool that ran and failed is a result with isError, passed through.
		{call("13", "draw_circle", `{"center":{"x":0,"y":0},"radius":0}`), textResult("13", "Invalid arguments for draw_circle: 'radius' must be greater than 0", true)},
	}
	for _, tt := range tests {
		h.send(tt.in)
		if got := h.recv(); got != tt.want {
			t.Errorf("in   %s\ngot  %s\nwant %s", tt.in, got, tt.want)
		}
	}
	for _, id := range []string{"7", "8", "9"} {
		h.skipCount(id) // refused by the bridge: never sent
	}
	h.closeAndWait()
	h.checkExactlyOnce()
}

func TestCRLFAndBOM(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.send("\xef\xbb\xbf" + `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\r")
	h.send("", `{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\r")
	h.expect(`{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","id":2,"result":{}}`)
	h.closeAndWait()
}

// stdout is always UTF-8: invalid bytes in what the client or the base
// sent come out as U+FFFD, everything else byte for byte.
func TestStdoutIsValidUTF8(t *testing.T) {
	base := baseFunc(func(_ context.Context, frame []byte) ([]byte, error) {
		return []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"caf` + "\xe9 \xff" + `"}],"isError":false}}`), nil
	})
	h := newHarness(t, nil, func(c *Config) { c.Base = base })
	h.send(`{"jsonrpc":"2.0","id":"a` + "\xff\xfe" + `b","method":"ping"}`)
	h.expect(`{"jsonrpc":"2.0","id":"a��b","result":{}}`)
	h.send(call("1", "x", `{}`))
	h.expect(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"caf� �"}],"isError":false}}`)
	h.closeAndWait()
}
