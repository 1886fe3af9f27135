package bridge

import (
	"testing"
)

func cancelled(id string) string {
	return `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `}}`
}

const pingP = `{"jsonrpc":"2.0","id":"p","method":"ping"}`
const pongP = `{"jsonrpc":"2.0","id":"p","result":{}}`

// Cancel, resend with the same id, cancel again: the second cancel reaches
// the second call, even once the first call's end has been handled.
func TestCancelAndResendSameID(t *testing.T) {
	g := newGateBase()
	g.hold = make(chan struct{})
	h := newHarness(t, nil, func(c *Config) { c.Base = g })
	h.send(call("9", "x", `{}`))
	g.waitStarted(t, "9")
	h.send(cancelled("9"), call("9", "x", `{}`), pingP)
	h.expect(pongP) // both handled while the first call is still ending
	close(g.hold)
	g.waitStarted(t, "9") // the first has ended: the worker took the second
	h.send(cancelled("9"), pingP)
	h.expect(pongP)
	g.releaseAll()
	if rest := h.closeAndWait(); len(rest) != 0 {
		t.Fatalf("answers for a cancelled id: %q", rest)
	}
}

// A request whose id is in use by one in progress is refused, as x/tools
// jsonrpc2_v2 does; the first stays cancellable.
func TestDuplicateInFlightIDRefused(t *testing.T) {
	g := newGateBase()
	h := newHarness(t, nil, func(c *Config) { c.Base = g })
	h.send(call("5", "x", `{}`))
	g.waitStarted(t, "5")
	h.send(call("5", "x", `{}`))
	h.expect(`{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"Invalid Request: id 5 is already in use by a request in progress"}}`)
	h.send(`{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	h.expect(`{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"Invalid Request: id 5 is already in use by a request in progress"}}`)
	h.send(cancelled("5"), pingP)
	h.expect(pongP)
	g.releaseAll()
	if rest := h.closeAndWait(); len(rest) != 0 {
		t.Fatalf("answers for a cancelled id: %q", rest)
	}
	if got := g.seen(); len(got) != 1 {
		t.Fatalf("the base saw %q, want the first call only", got)
	}
}

func TestDuplicateListenIDRefused(t *testing.T) {
	h := newHarness(t, nil, nil)
	listen := `{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + modernMeta + `}}`
	h.send(listen)
	h.expect(`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/subscriptionId":"L"}}}`)
	h.send(listen)
	h.expect(`{"jsonrpc":"2.0","id":"L","error":{"code":-32600,"message":"Invalid Request: id \"L\" is already in use by a request in progress"}}`)
	h.send(cancelled(`"L"`), pingP)
	h.expect(pongP)
	if rest := h.closeAndWait(); len(rest) != 0 {
		t.Fatalf("after cancelling the listen: %q", rest)
	}
}

// notifications/cancelled names the request by value: 1.0 and 1e0 are the
// number 1, "\u0061" is the string "a".
func TestCancelComparesIDsAsJSONValues(t *testing.T) {
	g := newGateBase()
	h := newHarness(t, nil, func(c *Config) { c.Base = g })
	h.send(call("1", "x", `{}`), call(`"a"`, "x", `{}`), call("100", "x", `{}`), call("7", "x", `{}`))
	g.waitStarted(t, "1")
	h.send(cancelled("1.0"), cancelled(`"\u0061"`), cancelled("1e2"), cancelled(`"7"`), pingP)
	h.expect(pongP)
	g.releaseAll()
	rest := h.closeAndWait()
	// Only 7 is left: the string "7" is not the number 7.
	if len(rest) != 1 || field(t, rest[0], "id") != float64(7) {
		t.Fatalf("got %q, want only id 7's answer", rest)
	}
}
