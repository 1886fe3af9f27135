package bridge

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcp-bridge/mcp-bridge/tcpbase"
	"github.com/mcp-bridge/mcp-bridge/tcpbase/simbase"
)

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

func TestBaseFaults(t *testing.T) {
	h := newHarness(t, nil, func(c *Config) { c.CallTimeout = 300 * time.Millisecond })
	addr := h.sim.Addr()
	data := func(kind string) string {
		return fmt.Sprintf(`"data":{"address":%q,"kind":%q,"method":"tools/call"}`, addr, kind)
	}
	tests := []struct{ tool, want string }{
		{"fault_close", `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"CAD base at ` + addr + ` closed the connection without answering tools/call; it may or may not have run. Check the CAD program's command line.",` + data("closed") + `}}`},
		{"fault_garbage", `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"CAD base at ` + addr + ` answered tools/call with something that is not a JSON-RPC response; the call may have run. Is another program listening on that port?",` + data("malformed") + `}}`},
		{"fault_half", `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"CAD base at ` + addr + ` answered tools/call with something that is not a JSON-RPC response; the call may have run. Is another program listening on that port?",` + data("malformed") + `}}`},
		{"fault_hang", `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"CAD base at ` + addr + ` did not answer tools/call within 300ms. The call may still be running in CAD: check the drawing before trying again.",` + data("timeout") + `}}`},
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
