package bridge

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/tcpbase"
)

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

func TestAnswerOverMaxMessage(t *testing.T) {
	h := newHarness(t, nil, func(c *Config) { c.Base = sizedBase(1200); c.MaxMessage = 1000 })
	h.send(call("1", "x", `{}`))
	got := h.recv()
	if len(got) > 1000 || field(t, got, "error.data.kind") != "too_large" {
		t.Errorf("got %.300s", got)
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
