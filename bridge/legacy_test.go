package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-bridge/mcp-bridge/tcpbase"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
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

func TestToolsListIdenticalToBase(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.send(`{"jsonrpc":"2.0","id":"L","method":"tools/list"}`)
	got := h.recv()
	direct, err := (&tcpbase.Client{Addr: h.sim.Addr()}).Call(context.Background(), []byte(`{"jsonrpc":"2.0","id":"L","method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	// The sim's fault_untyped_schema is repaired; everything else is identical.
	want := strings.Replace(string(direct), `"inputSchema":{"properties":{"note"`, `"inputSchema":{"type":"object","properties":{"note"`, 1)
	if want == string(direct) {
		t.Fatal("the sim no longer lists a tool with an untyped schema")
	}
	if diff := cmp.Diff(field(t, want, "result"), field(t, got, "result")); diff != "" {
		t.Errorf("tools/list through the bridge differs from the base (-base +bridge):\n%s", diff)
	}
	if got != want {
		t.Errorf("not byte-identical:\ngot  %.300s\nwant %.300s", got, want)
	}
	h.closeAndWait()
}

func TestNoSchemaRepairFlag(t *testing.T) {
	h := newHarness(t, nil, func(c *Config) { c.NoSchemaRepair = true })
	h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	got := h.recv()
	direct, _ := (&tcpbase.Client{Addr: h.sim.Addr()}).Call(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if got != string(direct) {
		t.Errorf("with repair off, tools/list must be the base's bytes")
	}
	h.closeAndWait()
}

func TestPingDuringSlowCall(t *testing.T) {
	h := newHarness(t, nil, nil)
	// The ping's answer comes first, while the call is still running at the
	// base: how fast is for `make bench`, not for a test.
	h.send(call(`"slow"`, "fault_sleep", `{"ms":2000}`))
	waitFor(t, func() bool { return h.sim.CallsFor(`"slow"`) == 1 })
	h.send(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	h.expect(`{"jsonrpc":"2.0","id":"p","result":{}}`)
	h.expect(textResult(`"slow"`, "slept 2000 ms", false))
	h.closeAndWait()
	h.checkExactlyOnce()
}

func TestOrderedForwarding(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.send(
		call("1", "fault_sleep", `{"ms":300}`),
		call("2", "draw_line", `{"start":{"x":0,"y":0},"end":{"x":10,"y":0}}`),
		call("3", "get_drawing_info", `{}`),
	)
	h.expect(
		textResult("1", "slept 300 ms", false),
		textResult("2", "Line 101 drawn from (0, 0) to (10, 0), length 10.", false),
		textResult("3", `Drawing "Drawing1", file (never saved), unsaved changes: true. 1 layer (current: 0), 1 entity. Extents: (0, 0) - (10, 0).`, false),
	)
	h.closeAndWait()
	h.checkExactlyOnce()
}

func TestMetaNotSentToBase(t *testing.T) {
	var seen []byte
	fake := baseFunc(func(_ context.Context, frame []byte) ([]byte, error) {
		seen = append([]byte(nil), frame...)
		return []byte(`{"jsonrpc":"2.0","id":"whatever","result":{"content":[],"isError":false}}`), nil
	})
	h := newHarness(t, nil, func(c *Config) { c.Base = fake })
	h.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"progressToken":1},"name":"x","arguments":{"a":1}}}`)
	// The client's id goes back, whatever id the base echoed.
	h.expect(`{"jsonrpc":"2.0","id":7,"result":{"content":[],"isError":false}}`)
	h.closeAndWait()
	if want := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":{"a":1}}}`; string(seen) != want {
		t.Errorf("base got %s\nwant     %s", seen, want)
	}
}

type baseFunc func(ctx context.Context, frame []byte) ([]byte, error)

func (f baseFunc) Call(ctx context.Context, frame []byte) ([]byte, error) { return f(ctx, frame) }

func TestBaseFaults(t *testing.T) {
	// Long enough for every fault but the hang to answer in time on a busy
	// machine, and under Wine (make test-windows), where 300 ms was not.
	h := newHarness(t, nil, func(c *Config) { c.CallTimeout = 2 * time.Second })
	addr := h.sim.Addr()
	data := func(kind string) string {
		return fmt.Sprintf(`"data":{"address":%q,"kind":%q,"method":"tools/call"}`, addr, kind)
	}
	tests := []struct{ tool, want string }{
		{"fault_close", `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"CAD base at ` + addr + ` closed the connection without answering tools/call; it may or may not have run. Check the CAD program's command line.",` + data("closed") + `}}`},
		{"fault_garbage", `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"CAD base at ` + addr + ` answered tools/call with something that is not a JSON-RPC response; the call may have run. Is another program listening on that port?",` + data("malformed") + `}}`},
		{"fault_half", `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"CAD base at ` + addr + ` answered tools/call with something that is not a JSON-RPC response; the call may have run. Is another program listening on that port?",` + data("malformed") + `}}`},
		{"fault_hang", `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"CAD base at ` + addr + ` did not answer tools/call within 2s. The call may still be running in CAD: check the drawing before trying again.",` + data("timeout") + `}}`},
		{"fault_pretty", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"text":"pretty\nprinted","type":"text"}],"isError":false}}`},
		{"fault_keep_open", textResult("1", "answered; socket left open", false)},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			h.send(call("1", tt.tool, `{}`))
			if got := h.recv(); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			// The bridge keeps serving.
			h.send(`{"jsonrpc":"2.0","id":"alive","method":"ping"}`)
			h.expect(`{"jsonrpc":"2.0","id":"alive","result":{}}`)
		})
	}
	h.closeAndWait()
}

func TestOversizeAnswer(t *testing.T) {
	h := newHarness(t, nil, func(c *Config) {
		c.Base.(*tcpbase.Client).MaxAnswer = 1 << 20
	})
	h.send(call(`"big"`, "fault_big", `{"mib":2}`))
	got := h.recv()
	if field(t, got, "error.data.kind") != "too_large" || field(t, got, "error.code") != float64(-32603) {
		t.Fatalf("got %s", got)
	}
	h.send(call(`"ok"`, "fault_big", `{"mib":0.5}`))
	if got := h.recv(); field(t, got, "result.isError") != false {
		t.Fatalf("half a MiB: %.200s", got)
	}
	h.closeAndWait()
}

func TestOversizeLineThenGood(t *testing.T) {
	h := newHarness(t, nil, func(c *Config) { c.MaxMessage = 1024 })
	long := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 2000) + `"}}`
	h.send(long)
	h.expect(fmt.Sprintf(`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: message of %d bytes exceeds the limit of 1024 bytes (--max-message)"}}`, len(long)))
	h.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	h.expect(`{"jsonrpc":"2.0","id":2,"result":{}}`)
	h.closeAndWait()
}

func TestCRLFAndBOM(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.send("\xef\xbb\xbf" + `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\r")
	h.send("", `{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\r")
	h.expect(`{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","id":2,"result":{}}`)
	h.closeAndWait()
}

func TestBatch(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.send(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},` +
		call("2", "measure_distance", `{"from":{"x":0,"y":0},"to":{"x":0,"y":2}}`) + `,{"jsonrpc":"2.0","id":3,"method":"nope"},42]`)
	// One array with every answer; JSON-RPC leaves their order free (the
	// forwarded one may finish before the reader has answered the rest).
	var got []json.RawMessage
	if err := json.Unmarshal([]byte(h.recv()), &got); err != nil {
		t.Fatal(err)
	}
	var gotS []string
	for _, g := range got {
		gotS = append(gotS, string(g))
	}
	want := []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found: nope"}}`,
		`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: a message must be a JSON object"}}`,
		textResult("2", "Distance 2, angle 90°, dx 0, dy 2.", false),
	}
	slices.Sort(gotS)
	slices.Sort(want)
	if diff := cmp.Diff(want, gotS); diff != "" {
		t.Errorf("batch answers (-want +got):\n%s", diff)
	}
	// Only notifications: nothing comes back.
	h.send(`[{"jsonrpc":"2.0","method":"notifications/initialized"}]`, `{"jsonrpc":"2.0","id":4,"method":"ping"}`)
	h.expect(`{"jsonrpc":"2.0","id":4,"result":{}}`)
	h.closeAndWait()
	h.checkExactlyOnce()
}

// restartable is a sim on a fixed address that can be stopped and started.
func TestBaseDownThenBack(t *testing.T) {
	sim, err := simbase.Start("127.0.0.1:0", simbase.Options{Faults: true})
	if err != nil {
		t.Fatal(err)
	}
	addr := sim.Addr()
	sim.Close()
	h := newHarness(t, sim, func(c *Config) { c.RetryBackoff = 10 * time.Millisecond })
	h.send(call("1", "get_drawing_info", `{}`))
	want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"CAD base at ` + addr +
		` refused the connection: is the CAD program running with its MCP base enabled?","data":{"address":"` + addr + `","kind":"unreachable","method":"tools/call"}}}`
	h.expect(want)
	h.send(`{"jsonrpc":"2.0","id":"L","method":"tools/list"}`)
	if got := h.recv(); field(t, got, "error.data.kind") != "unreachable" {
		t.Fatalf("tools/list with the base down: %s", got)
	}
	h.send(`{"jsonrpc":"2.0","id":"alive","method":"ping"}`)
	h.expect(`{"jsonrpc":"2.0","id":"alive","result":{}}`)

	back, err := simbase.Start(addr, simbase.Options{Faults: true})
	if err != nil {
		t.Fatalf("restarting the sim on %s: %v", addr, err)
	}
	defer back.Close()
	h.send(call("2", "get_drawing_info", `{}`))
	if got := h.recv(); field(t, got, "result.isError") != false {
		t.Fatalf("after the base came back: %s", got)
	}
	h.closeAndWait()
	if back.CallsFor("2") != 1 || back.CallsFor("1") != 0 {
		t.Errorf("calls at the restarted base: id 2 ran %d times, id 1 %d", back.CallsFor("2"), back.CallsFor("1"))
	}
}

func TestRetryOnlyWhenNothingWasSent(t *testing.T) {
	var attempts int
	fake := baseFunc(func(_ context.Context, _ []byte) ([]byte, error) {
		attempts++
		if attempts < 3 {
			return nil, &tcpbase.Error{Kind: tcpbase.ErrUnreachable, Addr: "fake", Refused: true}
		}
		return []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), nil
	})
	h := newHarness(t, nil, func(c *Config) { c.Base = fake; c.RetryBackoff = time.Millisecond })
	h.send(call("1", "x", `{}`))
	h.expect(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	if attempts != 3 {
		t.Errorf("attempts = %d, want 3 (two re-dials)", attempts)
	}
	// A call that may have reached the base is never sent again.
	attempts = 0
	closed := baseFunc(func(_ context.Context, _ []byte) ([]byte, error) {
		attempts++
		return nil, &tcpbase.Error{Kind: tcpbase.ErrClosed, Addr: "fake"}
	})
	h2 := newHarness(t, nil, func(c *Config) { c.Base = closed; c.RetryBackoff = time.Millisecond })
	h2.send(call("2", "x", `{}`))
	if got := h2.recv(); field(t, got, "error.data.kind") != "closed" {
		t.Fatalf("got %s", got)
	}
	if attempts != 1 {
		t.Errorf("a request that reached the base was sent %d times", attempts)
	}
	h.closeAndWait()
	h2.closeAndWait()
}

func TestCancelInFlight(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.send(call("1", "fault_hang", `{}`))
	h.send(call("2", "get_drawing_info", `{}`))
	waitFor(t, func() bool { return h.sim.CallsFor("1") == 1 })
	h.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"user"}}`)
	// The next line is id 2's answer: nothing was sent for id 1.
	if got := h.recv(); field(t, got, "id") != float64(2) {
		t.Fatalf("after cancelling 1, got %s", got)
	}
	if rest := h.closeAndWait(); len(rest) != 0 {
		t.Fatalf("lines after cancellation: %q", rest)
	}
	h.checkExactlyOnce()
}

func TestCancelQueued(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.send(call("1", "fault_sleep", `{"ms":500}`))
	h.send(call(`"q"`, "draw_line", `{"start":{"x":0,"y":0},"end":{"x":1,"y":1}}`))
	h.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"q"}}`)
	h.skipCount(`"q"`)
	h.expect(textResult("1", "slept 500 ms", false))
	h.send(call("3", "get_drawing_info", `{}`))
	if got := h.recv(); !strings.Contains(got, "0 entities") || field(t, got, "id") != float64(3) {
		t.Fatalf("the cancelled draw_line ran, or an answer came for it: %s", got)
	}
	h.closeAndWait()
	h.checkExactlyOnce()
}

func TestQueueLimit(t *testing.T) {
	h := newHarness(t, nil, func(c *Config) { c.Queue = 2 })
	h.send(call("1", "fault_sleep", `{"ms":500}`))
	waitFor(t, func() bool { return h.sim.CallsFor("1") == 1 }) // in flight, queue empty
	h.send(call("2", "get_drawing_info", `{}`), call("3", "get_drawing_info", `{}`), call("4", "get_drawing_info", `{}`))
	h.skipCount("4")
	h.expect(`{"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"too many requests queued (2) waiting for the CAD base; tools/call was not sent, try again when earlier calls have finished"}}`)
	h.send(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	h.expect(`{"jsonrpc":"2.0","id":"p","result":{}}`)
	for _, id := range []float64{1, 2, 3} {
		if got := h.recv(); field(t, got, "id") != id {
			t.Fatalf("want answer %v, got %s", id, got)
		}
	}
	h.closeAndWait()
	h.checkExactlyOnce()
}

func TestEOFAnswersEverythingAccepted(t *testing.T) {
	h := newHarness(t, nil, nil)
	for i := range 5 {
		h.send(call(fmt.Sprint(i), "fault_sleep", `{"ms":50}`))
	}
	rest := h.closeAndWait()
	if len(rest) != 5 {
		t.Fatalf("%d answers after EOF, want 5: %q", len(rest), rest)
	}
	for i, l := range rest {
		if field(t, l, "id") != float64(i) || field(t, l, "result.isError") != false {
			t.Errorf("answer %d: %s", i, l)
		}
	}
	h.checkExactlyOnce()
}

func TestSignalFinishesInFlightAndDropsQueue(t *testing.T) {
	h := newHarness(t, nil, func(c *Config) { c.Grace = 5 * time.Second })
	h.send(call("1", "fault_sleep", `{"ms":300}`), call("2", "draw_line", `{"start":{"x":0,"y":0},"end":{"x":1,"y":0}}`))
	waitFor(t, func() bool { return h.sim.CallsFor("1") == 1 })
	h.skipCount("2")
	h.cancel() // as a SIGTERM would
	var got []string
	for l := range h.lines {
		got = append(got, l)
	}
	// The worker answers in order: the call in flight finishes, then the
	// queued one is answered without being sent.
	want := []string{
		textResult("1", "slept 300 ms", false),
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"mcp-bridge is shutting down; tools/call was not sent to CAD"}}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if err := <-h.done; err != nil {
		t.Fatal(err)
	}
	h.checkExactlyOnce()
}

func TestSignalGraceAbandonsLongCall(t *testing.T) {
	h := newHarness(t, nil, func(c *Config) { c.Grace = 100 * time.Millisecond })
	h.send(call("1", "fault_hang", `{}`))
	waitFor(t, func() bool { return h.sim.CallsFor("1") == 1 })
	h.cancel()
	got := h.recv()
	if field(t, got, "error.data.kind") != "shutdown" {
		t.Fatalf("got %s", got)
	}
	select {
	case err := <-h.done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(waitLimit):
		t.Fatal("Run did not return after the grace period")
	}
}

func TestStdoutClosedStopsRun(t *testing.T) {
	inR, inW := io.Pipe()
	defer inW.Close()
	cfg := Config{Base: baseFunc(func(context.Context, []byte) ([]byte, error) { return nil, nil }), BaseAddr: "x"}
	done := make(chan error, 1)
	go func() { done <- Run(context.Background(), cfg, inR, failingWriter{}) }()
	_, _ = inW.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"))
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "stdout") {
			t.Fatalf("Run = %v, want a stdout error", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("Run went on with a dead stdout")
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in time")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
